package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// limiterWork writes the project's server.go and queues the agent's first
// turn on it (a Read, a grep, a line of text): enough history for /compact.
func limiterWork(t *testing.T, stub *Stub, env *Env) {
	t.Helper()
	server := filepath.Join(env.Project, "server.go")
	writeFile(t, server, "package server\n\nfunc upload() {}\n")
	stub.Push(
		Tool("Read", map[string]string{"file_path": server}),
		Bash("grep -n upload server.go", "Find the upload handler"),
		Text("The upload handler is in server.go; next I will add the limiter."),
	)
}

// TestCompactionHandOff: a /compact run shows Djinn's PreCompact snapshot
// inside the compaction request (PreCompact plain stdout is appended to the
// compactor's instructions), and the next request the model gets after
// compaction carries [djinn:reanchor] with the anchor (SessionStart with
// source "compact" injects it). A first run pins the goal and does some
// work; the second runs /compact on it; the third sends a new prompt on the
// compacted session.
func TestCompactionHandOff(t *testing.T) {
	t.Parallel()
	const goal = "Add a rate limiter to the upload handler in server.go and document the limits in README.md"
	// reanchor, and with it the PreCompact hand-off, ships as observe; this
	// test is about how the told hand-off reaches the compactor and the model.
	stub, env, stateDir := djinnScratch(t, "DJINN_ADVISORIES_REANCHOR=advise")
	limiterWork(t, stub, env)
	run1 := env.MustClaude(pluginRun(t, Run{Prompt: goal}))
	session := run1.SessionID

	var anchor struct {
		Hash string `json:"hash"`
		Text string `json:"text"`
	}
	data, err := os.ReadFile(sessionFile(stateDir, session, "anchor.json"))
	if err == nil {
		err = json.Unmarshal(data, &anchor)
	}
	if err != nil || anchor.Hash == "" || anchor.Text != goal {
		t.Fatalf("anchor.json: %v %+v; want the goal pinned", err, anchor)
	}
	snapshotHead := `<djinn_state session="` + session + `"`
	goalTag := `<goal anchor="` + anchor.Hash + `"`

	run2 := env.MustClaude(pluginRun(t, Run{Prompt: "/compact keep the limiter plan", Resume: session}))
	compact := stub.Messages(KindCompact)
	if len(compact) != 1 {
		t.Fatalf("compaction requests = %d, want 1\n%v", len(compact), run2)
	}
	for _, want := range []string{"keep the limiter plan", snapshotHead, goalTag, goal} {
		if !ContextInRequest(compact[0], want) {
			t.Errorf("the compaction request lacks %q", want)
		}
	}
	if ContextInRequest(compact[0], "[djinn:reanchor]") {
		t.Errorf("the compaction request already carries [djinn:reanchor]; it belongs after compaction")
	}
	// The pending re-anchor holds the main chain's latest response before
	// the compaction (PreCompact read it): a main-agent hook that still
	// reads it as the latest drops the block (a subagent compacted).
	var pending struct {
		Reanchor string `json:"pending_reanchor"`
		After    string `json:"reanchor_after"`
	}
	if err := json.Unmarshal(readWindow(t, stateDir, session).Raw, &pending); err != nil || pending.Reanchor == "" || !strings.HasPrefix(pending.After, "msg_") {
		t.Errorf("after /compact: pending re-anchor of %d bytes after %q (%v), want one after the stub's last response", len(pending.Reanchor), pending.After, err)
	}
	// The snapshot goes to the compactor, after the user's instructions.
	for _, txt := range compact[0].Texts() {
		if i, j := strings.Index(txt, "keep the limiter plan"), strings.Index(txt, snapshotHead); i >= 0 && j >= 0 && j < i {
			t.Errorf("the snapshot comes before the user's /compact instructions")
		}
	}

	stub.Push(Text("Continuing with the limiter."))
	before := len(stub.Messages(KindMain))
	run3 := env.MustClaude(pluginRun(t, Run{Prompt: "Go on with the next step.", Resume: session}))
	main := stub.Messages(KindMain)
	if len(main) != before+1 {
		t.Fatalf("main-chain requests after compaction = %d, want 1\n%v", len(main)-before, run3)
	}
	next := main[before]
	for _, want := range []string{"[djinn:reanchor]", goalTag, goal} {
		if !ContextInRequest(next, want) {
			t.Errorf("the first request after compaction lacks %q; tags: %v", want, djinnTags(next))
		}
	}
	if p := ContextPlacement(next, "[djinn:reanchor]"); p != PlacementSystemMessage && p != PlacementSystemReminder {
		t.Errorf("[djinn:reanchor] placed as %v, want hook context", p)
	}
	// The summary replaced the history (the CLI re-attaches the files read
	// before, not the prompt): the re-anchor is what restates the goal.
	summary := strings.TrimSuffix(strings.TrimPrefix(CompactSummary, "<summary>"), "</summary>")
	if !ContextInRequest(next, summary) {
		t.Errorf("the request after compaction does not carry the compaction summary")
	}
	// 2.1.197 also echoes every PreCompact hook's stdout into the compacted
	// conversation (<local-command-stdout>Compacted PreCompact [...]
	// completed successfully: …), so the snapshot reaches the model twice.
	n := 0
	for _, txt := range next.Texts() {
		n += strings.Count(txt, snapshotHead)
	}
	t.Logf("snapshots in the first request after compaction: %d", n)
}
