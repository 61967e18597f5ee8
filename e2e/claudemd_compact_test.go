package e2e

import (
	"path/filepath"
	"strings"
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
	if !ContextInRequest(compactThenGoOn(t, stub, env, run1.SessionID), rule) {
		t.Errorf("the first request after compaction lacks the CLAUDE.md rule")
	}
}

// compactThenGoOn runs /compact on the session, then one prompt, and
// returns the first main-chain request after the compaction.
func compactThenGoOn(t *testing.T, stub *Stub, env *Env, session string) Request {
	t.Helper()
	env.MustClaude(pluginRun(t, Run{Prompt: "/compact", Resume: session}))
	if n := len(stub.Messages(KindCompact)); n != 1 {
		t.Fatalf("compaction requests = %d, want 1", n)
	}
	stub.Push(Text("Continuing."))
	before := len(stub.Messages(KindMain))
	env.MustClaude(pluginRun(t, Run{Prompt: "Go on with the next step.", Resume: session}))
	main := stub.Messages(KindMain)
	if len(main) != before+1 {
		t.Fatalf("main-chain requests after compaction = %d, want 1", len(main)-before)
	}
	return main[before]
}

// TestManualCompactionKeepsLimits: after a /compact the person typed, with
// a summary that holds the conversation (the stub's, of 150 words and more,
// none of them the task's), the first request carries [djinn:reanchor]
// with the limit the user gave and not the task from before: the person's
// next prompt says what is next (PostCompact's trigger is "manual").
func TestManualCompactionKeepsLimits(t *testing.T) {
	t.Parallel()
	const (
		task  = "Add a rate limiter to the upload handler in server.go"
		limit = "Never push to main."
	)
	summary := "<summary>" + strings.Repeat("The conversation covered weather charts, rainfall averages, coastal fog and mountain shadows in several regions. ", 20) + "</summary>"
	stub, env, _ := djinnScratch(t, "DJINN_ADVISORIES_REANCHOR=advise")
	stub.SetPolicy(func(req *Request, s *Script) (Response, int) {
		if req.Kind == KindCompact {
			return Text(summary), -1
		}
		return DefaultPolicy(req, s)
	})
	limiterWork(t, stub, env)
	run1 := env.MustClaude(pluginRun(t, Run{Prompt: task + ". " + limit}))
	next := compactThenGoOn(t, stub, env, run1.SessionID)
	// The block alone: 2.1.197 also echoes PreCompact's hand-off, which
	// holds the goal, into the compacted conversation.
	block := ""
	for _, txt := range next.Texts() {
		if i := strings.Index(txt, "[djinn:reanchor]"); i >= 0 {
			block, _, _ = strings.Cut(txt[i:], "</djinn_state>")
		}
	}
	if !strings.Contains(block, "<limit>") || !strings.Contains(block, limit) {
		t.Errorf("the first request after /compact lacks the reanchor block with the limit: %q; tags: %v", block, djinnTags(next))
	}
	if strings.Contains(block, "<current_task") || strings.Contains(block, "<goal") || strings.Contains(block, "rate limiter") {
		t.Errorf("the reanchor block after /compact restates the task or goal from before it: %q", block)
	}
}
