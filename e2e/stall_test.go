package e2e

import (
	"bytes"
	"strings"
	"testing"
)

// chant is an answer that has fallen into sentence-level repetition, the
// stall seed 000 rolls back.
var chant = "The result is " + strings.Repeat("the same answer again. ", 40)

// TestStallRollbackRoundTrip: a rollback round-trip with the real CLI. The
// scripted model answers every turn with the same chanting text. Djinn's
// Stop hook blocks the first three times (max_rollbacks, default 3) with
// the [djinn:stall] divergence prompt, which the CLI sends back as "Stop
// hook feedback" in the next request, so the model runs again. The fourth
// Stop lets the turn end and tells the user why (systemMessage, kept in the
// transcript, never sent to the model). So: exactly four main-chain
// requests, the last three carrying the feedback, and three rollbacks
// counted for the prompt in the session's state.
func TestStallRollbackRoundTrip(t *testing.T) {
	t.Parallel()
	const maxRollbacks = 3
	stateDir := t.TempDir()
	stub := NewStub(t)
	for range maxRollbacks + 3 { // spares: a missed give-up shows as more requests
		stub.Push(Text(chant))
	}
	env := djinnEnv(t, stub, stateDir)
	run := env.MustClaude(pluginRun(t, Run{Prompt: "Explain in two sentences what the retry loop in client.go does."}))

	main := stub.Messages(KindMain)
	if len(main) != maxRollbacks+1 {
		t.Fatalf("main-chain requests = %d, want %d (the prompt and one per rollback)\n%v", len(main), maxRollbacks+1, run)
	}
	for i, req := range main {
		hasFeedback := ContextInRequest(req, "Stop hook feedback") && ContextInRequest(req, "[djinn:stall]")
		if i == 0 && hasFeedback {
			t.Errorf("request 0 carries stall feedback before any Stop")
		}
		if i > 0 && !hasFeedback {
			t.Errorf("request %d (after rollback %d) lacks the Stop hook feedback with [djinn:stall]; tags: %v", i, i, djinnTags(req))
		}
	}
	t.Logf("feedback: %q", lastUserTexts(main[1]))
	// The feedback is the newest message of each following request.
	if texts := lastUserTexts(main[1]); !containsExact(texts, "[djinn:stall]") {
		t.Errorf("the [djinn:stall] feedback is not in the last user message of request 1: %q", texts)
	}

	stops := run.HookResponses("Stop")
	if len(stops) != maxRollbacks+1 {
		t.Errorf("Stop hooks = %d, want %d", len(stops), maxRollbacks+1)
	}
	for i, hr := range stops {
		blocked := strings.Contains(hr.Output, `"decision":"block"`)
		if blocked != (i < maxRollbacks) {
			t.Errorf("Stop %d: blocked = %v, want %v; output %s", i, blocked, i < maxRollbacks, hr.Output)
		}
	}
	if n := len(stops); n > 0 && !strings.Contains(stops[n-1].Output, `"systemMessage"`) {
		t.Errorf("the last Stop does not tell the user the turn ends: %s", stops[n-1].Output)
	}

	w := readWindow(t, stateDir, run.SessionID)
	if w.Stall == nil || w.Stall.Rollbacks != maxRollbacks {
		t.Errorf("stall state %+v, want %d rollbacks for the prompt\n%s", w.Stall, maxRollbacks, w.Raw)
	}
	// The user-facing message is recorded in the transcript.
	transcript := readJSONL(t, env.Transcript(run.SessionID))
	if !containsLine(transcript, "rollbacks already for this prompt") {
		t.Errorf("the transcript does not record the give-up message")
	}
	for i, req := range main {
		if bytes.Contains(req.Body, []byte("rollbacks already for this prompt")) {
			t.Errorf("request %d carries the user-facing give-up message", i)
		}
	}
}
