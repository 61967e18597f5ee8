package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHandEditedAnchorKeepsGoal (issue 15, finding 2): with the real CLI, a
// hand edit that breaks one field of anchor.json mid-session does not lose
// the goal. The next prompt, a follow-up, does not become the goal; the
// hook repairs the file field by field, keeps the original beside it, and
// tells the person (a systemMessage in its hook output); `djinn status`
// still shows the original goal.
func TestHandEditedAnchorKeepsGoal(t *testing.T) {
	t.Parallel()
	stub, env, stateDir := djinnScratch(t)
	pager := filepath.Join(env.Project, "pager.go")
	writeFile(t, pager, "package pager\n\nfunc Page(items []int, off, limit int) []int {\n\treturn items[off : off+limit-1]\n}\n")
	const goal = "Fix the off-by-one bug in the pagination helper in pager.go and add a regression test for it."
	stub.Push(Tool("Read", map[string]string{"file_path": pager}), Text("The slice end is off by one."))
	run1 := env.MustClaude(pluginRun(t, Run{Prompt: goal}))
	session := run1.SessionID
	anchorPath := sessionFile(stateDir, session, "anchor.json")
	raw, err := os.ReadFile(anchorPath)
	if err != nil {
		t.Fatalf("no anchor after the first prompt: %v\n%v", err, run1)
	}
	edited := strings.Replace(string(raw), `"delta_count": 0`, `"delta_count": "one"`, 1)
	if edited == string(raw) {
		t.Fatalf("anchor.json has no \"delta_count\": 0 to edit:\n%s", raw)
	}
	if err := os.WriteFile(anchorPath, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}

	stub.Push(Text("Next I will add the regression test."))
	run2 := env.MustClaude(pluginRun(t, Run{Prompt: "ok, what is next", Resume: session}))
	told := false
	for _, ev := range run2.HookResponses("UserPromptSubmit") {
		if strings.Contains(ev.Output, "repaired anchor.json") && strings.Contains(ev.Output, "delta_count") {
			told = true
		}
	}
	if !told {
		t.Errorf("no UserPromptSubmit hook output tells the person anchor.json was repaired:\n%v", run2)
	}
	after, err := os.ReadFile(anchorPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(after), `"text": "`+goal+`"`) {
		t.Errorf("the goal was lost: anchor.json after the follow-up:\n%s", after)
	}
	if moved, _ := filepath.Glob(anchorPath + ".corrupt-*"); len(moved) != 1 {
		t.Errorf("original not kept beside it: %v", moved)
	}
	status, code := djinnCommand(t, env, "status", "--session", session)
	if code != 0 || !strings.Contains(status, "): "+goal+"\n") {
		t.Errorf("status does not show the original goal (exit %d):\n%s", code, status)
	}
}
