package hooks

import (
	"path/filepath"
	"testing"
)

// TestTurnTimelineFields: each turn carries what the session report's
// timeline draws: the context after the call, the drift verdict, and the
// session's counts of compactions and goals, each compaction counted once
// though PreCompact, SessionStart(compact) and the next stale reading each
// note it.
func TestTurnTimelineFields(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Add dark-mode support with a11y keyboard-trap tests")
	f := s.file("src/theme/dark.ts", "x")
	edit := func() {
		s.tool("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "a", "new_string": "b"}), map[string]any{})
	}
	s.assistant("editing", 50_000)
	edit()
	s.assistant("editing", 60_000)
	edit()
	s.run(&Payload{HookEventName: PreCompact, Trigger: "manual"})
	s.line(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"})
	s.run(&Payload{HookEventName: SessionStart, Source: "compact"})
	edit() // no usage since the boundary: the context is unknown
	s.assistant("editing", 20_000)
	edit()
	s.userPrompt("New task: add keyboard shortcuts to the settings page")
	edit()

	dir, _ := s.env.Store.SessionDir(s.id)
	turns, _, err := s.env.Store.ReadLastTurns(filepath.Join(dir, "turns.jsonl"), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		ctx         int64
		compactions int
		goals       int
	}
	want := []got{{50_000, 0, 1}, {60_000, 0, 1}, {0, 1, 1}, {20_000, 1, 1}, {20_000, 1, 2}}
	if len(turns) != len(want) {
		t.Fatalf("%d turns, want %d", len(turns), len(want))
	}
	for i, tu := range turns {
		if g := (got{tu.Context, tu.Compactions, tu.Goals}); g != want[i] {
			t.Errorf("turn %d: context, compactions, goals = %v, want %v", tu.Seq, g, want[i])
		}
		if tu.Verdict == "" || tu.Score == nil {
			t.Errorf("turn %d: verdict %q, score %v: both are set when drift ran", tu.Seq, tu.Verdict, tu.Score)
		}
	}
	if w := s.window(); w.Pressure.Compactions != 1 || w.Goals != 2 {
		t.Errorf("window: compactions %d, goals %d; want 1, 2", w.Pressure.Compactions, w.Goals)
	}
}
