package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrivacy runs a session's every event with umask 000, so that any file
// or directory not created with an explicit 0600 or 0700 would show a
// wider mode (a chmod after creation would leave a window; with umask 000
// only the mode given at creation can make them private). It then checks
// that tool output is not stored (only its size and hashes), and that
// `djinn state delete` removes the session's data.
func TestPrivacy(t *testing.T) {
	bin := hookBinary(t)
	sb := newSandbox(t)
	const secret = "SECRET-TOOL-OUTPUT-7f3a9c"
	const secretFile = "SECRET-FILE-CONTENT-51be02"
	file := filepath.Join(sb.project, "notes.txt")
	if err := os.WriteFile(file, []byte(secretFile), 0o600); err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(sb.dir, "transcript.jsonl")
	tl, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"id": "m1", "model": "claude", "role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": "Reading the notes."}},
		"usage":   map[string]any{"input_tokens": 10, "cache_read_input_tokens": 90000}}})
	if err := os.WriteFile(transcript, append(tl, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	events := []struct {
		event  string
		fields map[string]any
	}{
		{"SessionStart", map[string]any{"source": "startup"}},
		{"UserPromptSubmit", map[string]any{"prompt": "Fix the invoice rounding in internal/billing so tax is rounded per line"}},
		{"PostToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": file},
			"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": file, "content": secretFile, "numLines": 1, "startLine": 1, "totalLines": 1}}}},
		{"PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "cat notes.txt"},
			"tool_response": map[string]any{"stdout": secret + strings.Repeat(" more output", 100), "stderr": ""}}},
		{"PostToolUseFailure", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}, "error": "exit 2"}},
		{"Stop", map[string]any{"last_assistant_message": "Done reading."}},
		{"PreCompact", map[string]any{"trigger": "manual"}},
		{"SessionStart", map[string]any{"source": "compact"}},
		{"SessionEnd", map[string]any{"reason": "other"}},
	}
	for _, ev := range events {
		ev.fields["transcript_path"] = transcript
		in := sb.payload(ev.event, ev.fields)
		cmd := exec.Command("/bin/sh", "-c", `umask 000; exec "$0" hook "$1"`, bin, ev.event)
		cmd.Dir, cmd.Env, cmd.Stdin = sb.dir, hookEnv(sb.dir, sb.root), bytes.NewReader(in)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil || e.Len() > 0 {
			t.Fatalf("%s: %v %s", ev.event, err, e.String())
		}
	}
	n := 0
	err := filepath.WalkDir(sb.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n++
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v (created under umask 000)", p, fi.Mode().Perm(), want)
		}
		if !d.IsDir() {
			b, _ := os.ReadFile(p)
			if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte(secretFile)) {
				t.Errorf("%s stores tool output verbatim", p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Fatalf("only %d paths under the state root: the session did not run", n)
	}

	// state delete removes the session's data, and only that session's.
	other := sb.payload("UserPromptSubmit", map[string]any{"session_id": "other-session", "prompt": "Write the release notes for version two of the billing module"})
	checkHookContract(t, "other session", runHook(t, sb.dir, sb.root, "UserPromptSubmit", other))
	cmd := exec.Command(cmdBinary(t), "state", "delete", "--session", "hostile-session")
	cmd.Dir, cmd.Env = sb.dir, hookEnv(sb.dir, sb.root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("state delete: %v: %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(sb.root, "sessions", "hostile-session")); !os.IsNotExist(err) {
		t.Errorf("the session's directory is still there after state delete (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(sb.root, "sessions", "other-session", "window.json")); err != nil {
		t.Errorf("state delete removed another session: %v", err)
	}
}
