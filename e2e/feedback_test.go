package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/djinn-cc/djinn/state"
)

// TestWrongFromTheCLI: /djinn:wrong too noisy, typed in a real session,
// marks the session's last advisory wrong with the note, tells the model in
// the skill's own request not to act on it, and the model's `djinn status`
// call shows the judgement. The developer's next session then holds back
// the same one-off finding: a file read three times, told in the first
// session, is neither told nor recorded in the second (counted as held),
// and the profile says why.
func TestWrongFromTheCLI(t *testing.T) {
	t.Parallel()
	const tag = "[djinn:read-loop]"
	stub, env, stateDir := djinnScratch(t, "DJINN_ADVISORIES_READ_LOOP=advise", "DJINN_DEVELOPER=e2e-developer")
	spaceInHome(t, env)
	read := configRead(t, env)
	stub.Push(read, read, read, Text("The config sets retries to 3."))
	run1 := env.MustClaude(pluginRun(t, Run{Prompt: "Check the retry setting in config.yaml and tell me its value."}))
	session := run1.SessionID
	if FindText(stub.Messages(KindMain), tag) < 0 {
		t.Fatalf("no %s in the first session: nothing to judge", tag)
	}
	advs := readAdvisories(t, stateDir, session)
	if len(advs) != 1 || advs[0].Kind != "read-loop" || len(advs[0].ID) != 12 {
		t.Fatalf("first session's advisories: %+v", advs)
	}

	main := runFollowedSkill(t, stub, env, "/djinn:wrong too noisy", session)
	said := "djinn wrong: marked the read-loop advisory " + advs[0].ID + ` (tool call #3) wrong ("too noisy").`
	if !ContextInRequest(main[0], said) {
		t.Errorf("the hook's result %q is not in the skill's request", said)
	}
	if !ContextInRequest(main[0], "[djinn:feedback] The user judged Djinn's read-loop advisory from tool call #3 wrong.") {
		t.Errorf("the notice not to act on the advisory is not in the skill's request")
	}
	result := lastToolResult(main[1])
	for _, want := range []string{
		"djinn status: session " + session,
		"  - the read-loop advisory " + advs[0].ID + ` (call #3) marked wrong: "too noisy"`,
		"developer feedback in force",
		"  - read-loop: level 1 of 3: a soft advisory waits 5 more tool calls after the last, and needs pattern EMA ≥ 0.37",
	} {
		if !strings.Contains(result, want) {
			t.Errorf("status after /djinn:wrong lacks %q:\n%s", want, result)
		}
	}
	w := readState(t, stateDir, session)
	if f := w.Feedback; f == nil || len(f.Marks) != 1 || f.Marks[0].Note != "too noisy" || f.Marks[0].ID != advs[0].ID || f.Notice != "" {
		t.Fatalf("session feedback %+v", w.Feedback)
	}

	// The next session of the same developer: the same one-off read-loop
	// is held back.
	other := filepath.Join(env.Project, "limits.yaml")
	writeFile(t, other, "max: 10\n")
	read2 := Tool("Read", map[string]string{"file_path": other})
	stub.Push(read2, read2, read2, Text("The limit is 10."))
	before := len(stub.Messages(KindMain))
	run2 := env.MustClaude(pluginRun(t, Run{Prompt: "Check the max setting in limits.yaml and tell me its value."}))
	if run2.SessionID == session {
		t.Fatal("the second run resumed the first session")
	}
	if i := FindText(stub.Messages(KindMain)[before:], tag); i >= 0 {
		t.Errorf("the one-off %s was told in the next session (request %d)", tag, i)
	}
	if advs := readAdvisories(t, stateDir, run2.SessionID); len(advs) != 0 {
		t.Errorf("the next session recorded %+v", advs)
	}
	w2 := readState(t, stateDir, run2.SessionID)
	if w2.Feedback == nil || w2.Feedback.Held["read-loop"] != 1 {
		t.Errorf("the next session's window does not count the held read-loop: %+v", w2.Feedback)
	}
	if status, _ := djinnCommand(t, env, "config"); !strings.Contains(status, "  - read-loop: level 1 of 3") {
		t.Errorf("djinn config does not show the feedback in force:\n%s", status)
	}
}

// readState decodes a session's window.json as Djinn's own type.
func readState(t *testing.T, stateDir, session string) state.Window {
	t.Helper()
	var w state.Window
	if err := json.Unmarshal(readWindow(t, stateDir, session).Raw, &w); err != nil {
		t.Fatal(err)
	}
	return w
}

// readAdvisories reads a session's advisories.jsonl (none when absent).
func readAdvisories(t *testing.T, stateDir, session string) []state.Advisory {
	t.Helper()
	f, err := os.Open(sessionFile(stateDir, session, "advisories.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []state.Advisory
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var a state.Advisory
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}
