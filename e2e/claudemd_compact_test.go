package e2e

import (
	"path/filepath"
	"testing"
)

// TestClaudeMDAfterCompaction: the project's CLAUDE.md reaches the model in
// the first request after a /compact as it did before, whatever the summary
// kept. This is why the reanchor block leaves the CLAUDE.md limits out.
func TestClaudeMDAfterCompaction(t *testing.T) {
	t.Parallel()
	const rule = "Never commit the fixtures directory (rule 7731)."
	stub, env, _ := djinnScratch(t)
	writeFile(t, filepath.Join(env.Project, "CLAUDE.md"), "# Project rules\n\n- "+rule+"\n")
	limiterWork(t, stub, env)
	run1 := env.MustClaude(pluginRun(t, Run{Prompt: "Add a rate limiter to the upload handler in server.go"}))
	main := stub.Messages(KindMain)
	if len(main) == 0 || !ContextInRequest(main[0], rule) {
		t.Fatalf("the first request lacks the CLAUDE.md rule: the test's premise fails")
	}
	env.MustClaude(pluginRun(t, Run{Prompt: "/compact", Resume: run1.SessionID}))
	if n := len(stub.Messages(KindCompact)); n != 1 {
		t.Fatalf("compaction requests = %d, want 1", n)
	}
	stub.Push(Text("Continuing."))
	before := len(stub.Messages(KindMain))
	env.MustClaude(pluginRun(t, Run{Prompt: "Go on with the next step.", Resume: run1.SessionID}))
	main = stub.Messages(KindMain)
	if len(main) != before+1 {
		t.Fatalf("main-chain requests after compaction = %d, want 1", len(main)-before)
	}
	if !ContextInRequest(main[before], rule) {
		t.Errorf("the first request after compaction lacks the CLAUDE.md rule")
	}
}
