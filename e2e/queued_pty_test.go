package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestQueuedMessageInTheTerminal drives the interactive CLI through a
// pseudo-terminal. While the scripted model's first call (a slow check)
// runs, the person types "Don't delete anything." The CLI hands that to
// the model with its next request and records it as a queued_command
// attachment in the transcript, and runs no UserPromptSubmit hook for it:
// Djinn's state counts one prompt, the first. Djinn reads the message from
// the transcript all the same, so the deletion the model then makes draws
// an instruction advisory quoting it.
func TestQueuedMessageInTheTerminal(t *testing.T) {
	t.Parallel()
	stub := NewStub(t)
	stateDir := t.TempDir()
	env := djinnEnv(t, stub, stateDir)
	env.Env = append(env.Env, "DJINN_ADVISORIES_INSTRUCTION=advise")
	victim := filepath.Join(env.Project, "cache.db")
	writeFile(t, victim, "precious\n")
	// The deletion waits a moment before it runs: the CLI writes the
	// transcript lines of the model's answer (the queued message among
	// them) a little after it runs the call, and the stub answers at once,
	// where a model takes seconds; without the wait the call's hook could
	// run before the lines are written (it did, on a fast machine).
	stub.Push(Bash("sleep 12; echo checked", "run the slow check"), Bash("sleep 3; rm -f cache.db", "clear the cache"), Text("Done."))
	// The prompt comes first: --allowedTools takes every argument after it.
	sc, f := startTerminal(t, env, "Run the slow check, then tidy the cache.", "--plugin-dir", repoRoot(t), "--allowedTools", "Bash")

	// The slow check is running: the model has been asked once.
	sc.waitFor(t, "sleep 12; echo checked", 90*time.Second)
	if n := len(stub.Messages(KindMain)); n != 1 {
		t.Fatalf("the model was asked %d times before the message was typed, want 1; screen:\n%s", n, tail(sc.text(), 2000))
	}
	for _, b := range []string{"Don't delete anything.", "\r"} {
		if _, err := f.Write([]byte(b)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	deadline := time.Now().Add(90 * time.Second)
	for len(stub.Messages(KindMain)) < 3 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	main := stub.Messages(KindMain)
	if len(main) < 3 {
		t.Fatalf("the model was asked %d times, want 3 (after the check, after the deletion); screen:\n%s", len(main), tail(sc.text(), 2000))
	}
	if !main[1].Contains("Don't delete anything.") {
		t.Fatalf("the typed message did not reach the model with the check's result; screen:\n%s", tail(sc.text(), 2000))
	}
	if _, err := os.Stat(victim); err == nil {
		t.Fatalf("the scripted deletion did not run")
	}
	if !main[2].Contains("[djinn:instruction]") || !main[2].Contains("Don't delete anything") {
		t.Errorf("after the deletion the model was not told the instruction it broke; screen:\n%s", tail(sc.text(), 2000))
	}

	// The CLI recorded the message as a queued_command attachment.
	transcripts, _ := filepath.Glob(filepath.Join(env.TranscriptDir(), "*.jsonl"))
	if len(transcripts) != 1 {
		t.Fatalf("transcripts: %v", transcripts)
	}
	if !queuedInTranscript(t, transcripts[0], "Don't delete anything.") {
		t.Errorf("the transcript holds no queued_command line with the message")
	}
	// No UserPromptSubmit hook ran for it: Djinn counted one prompt.
	w := readState(t, stateDir, onlySession(t, stateDir))
	if w.UserPrompts != 1 {
		t.Errorf("Djinn counted %d prompts, want 1: a UserPromptSubmit hook ran for the typed message", w.UserPrompts)
	}
}

// queuedInTranscript reports whether the transcript at path holds a
// queued_command attachment whose prompt contains text.
func queuedInTranscript(t *testing.T, path, text string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l struct {
			Attachment struct {
				Type   string          `json:"type"`
				Prompt json.RawMessage `json:"prompt"`
			} `json:"attachment"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Attachment.Type == "queued_command" && strings.Contains(string(l.Attachment.Prompt), text) {
			return true
		}
	}
	return false
}
