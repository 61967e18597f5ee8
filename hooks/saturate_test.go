package hooks

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/djinn-cc/djinn/state"
)

// TestCountersSaturate: a window.json (and anchor.json) whose counters
// are at their types' maximum stays valid through more hooks: every
// counter stays at the maximum instead of wrapping to −2⁶³, which the
// schema rejects.
func TestCountersSaturate(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Fix the login redirect loop in the session middleware and add a regression test")
	bash := jsonStr(map[string]any{"command": "go test ./middleware"})
	s.fail("Bash", bash, "Exit code 1\nFAIL")
	s.tool("Read", jsonStr(map[string]any{"file_path": s.file("middleware/session.go", "package middleware\n")}), map[string]any{"type": "text"})
	s.run(&Payload{HookEventName: Stop, LastAssistantMessage: chant})

	dir, _ := s.env.Store.SessionDir(s.id)
	w := s.window()
	for k := range w.Events {
		w.Events[k] = math.MaxInt
	}
	w.ToolCalls = math.MaxInt
	if w.Drift == nil || w.Drift.Reservoir == nil || w.Stall == nil || len(w.Failures) != 1 || w.Loops["main"] == nil {
		t.Fatalf("the setup did not create the state to saturate: %+v", w)
	}
	w.Drift.Calls, w.Drift.Advised = math.MaxInt, math.MaxInt
	r := w.Drift.Reservoir
	for len(r.Items) < r.K {
		r.Items = append(r.Items, state.Sample{Seq: len(r.Items) + 1, Score: 0.5, Tool: "Read"})
	}
	r.NSeen = math.MaxInt64
	w.Stall.Total, w.Stall.Rollbacks = math.MaxInt, math.MaxInt
	w.Failures[0].Count = math.MaxInt
	w.Loops["main"].Seq = math.MaxUint64
	for name, ps := range w.Loops["main"].Patterns {
		ps.Alerts = math.MaxInt
		w.Loops["main"].Patterns[name] = ps
	}
	if err := s.env.Store.Save(filepath.Join(dir, "window.json"), state.KindWindow, &w); err != nil {
		t.Fatal(err)
	}
	a := s.anchor()
	a.DeltaCount, a.Pivots, a.Reorients = math.MaxInt, math.MaxInt, math.MaxInt
	if err := s.env.Store.Save(filepath.Join(dir, "anchor.json"), state.KindAnchor, a); err != nil {
		t.Fatal(err)
	}

	// Every counter goes up once more: a failure again, a call, a
	// constraint, a rollback under a new prompt, a pivot.
	s.fail("Bash", bash, "Exit code 1\nFAIL")
	s.tool("Read", jsonStr(map[string]any{"file_path": filepath.Join(s.project, "middleware/session.go")}), map[string]any{"type": "text"})
	s.userPrompt("Keep the public API unchanged and do not touch vendored code")
	s.run(&Payload{HookEventName: Stop, LastAssistantMessage: chant})
	s.userPrompt("New task: write the release notes for version 2")

	w = s.window() // fails the test if window.json is invalid
	raw, _ := json.Marshal(w)
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"tool_calls", int64(w.ToolCalls), math.MaxInt64},
		{"events PostToolUseFailure", int64(w.Events[PostToolUseFailure]), math.MaxInt64},
		{"events UserPromptSubmit", int64(w.Events[UserPromptSubmit]), math.MaxInt64},
		{"failures count", int64(w.Failures[len(w.Failures)-1].Count), math.MaxInt64},
		{"stall total", int64(w.Stall.Total), math.MaxInt64},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d (window %s)", c.name, c.got, c.want, raw)
		}
	}
	if got := w.Loops["main"].Seq; got != math.MaxUint64 {
		t.Errorf("loops seq = %d", got)
	}
	if a := s.anchor(); a == nil || a.Pivots != math.MaxInt {
		t.Errorf("anchor after the pivot: %+v", a)
	}
}
