package hooks

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/internal/statetest"
	"github.com/djinn-cc/djinn/state"
)

var errInjected = errors.New("injected failure")

// try runs one hook like sim.run but returns its error.
func (s *sim) try(p *Payload) error {
	_, err := s.do(p)
	return err
}

// failAt makes the store fail its step-th write step (0-based) and counts
// the steps in *n.
func failAt(st *state.Store, step int, n *int) {
	*n = 0
	st.Fault = func(string) error {
		*n++
		if *n-1 == step {
			return errInjected
		}
		return nil
	}
}

// committedGoal is the goal the files commit to: window.json's pending
// anchor if it has one (the next hook writes it to anchor.json), else
// anchor.json's.
func committedGoal(t *testing.T, s *sim) string {
	t.Helper()
	if w := s.window(); w.PendingAnchor != nil {
		return w.PendingAnchor.Hash
	}
	if a := s.anchor(); a != nil {
		return a.Hash
	}
	return ""
}

// TestPivotStoppedAtEachStep: a pivot's UserPromptSubmit stopped at each
// of its write steps (a failure injected there, which leaves the files as
// a kill just before it would) leaves the goal and the window agreeing:
// the goal the files commit to is the window's drift anchor, the old goal
// or the new one, never one of each; and after the next hook anchor.json
// itself is that goal.
func TestPivotStoppedAtEachStep(t *testing.T) {
	const pivot = "New task: add CSV export to the quarterly reports page with streaming download"
	for step := 0; ; step++ {
		s := newSim(t)
		s.userPrompt("Fix the invoice rounding in internal/billing so that tax is rounded per line")
		f := s.file("internal/billing/round.go", "x")
		s.tool("Read", jsonStr(map[string]any{"file_path": f}), map[string]any{})
		old := s.anchor().Hash
		var n int
		failAt(s.env.Store, step, &n)
		s.prompt++
		err := s.try(&Payload{HookEventName: UserPromptSubmit, Prompt: pivot})
		s.env.Store.Fault = nil
		if err == nil {
			if step < 3 {
				t.Fatalf("the pivot made only %d write steps", step)
			}
			if a := s.anchor(); a.Hash == old || a.Hash != s.window().Drift.AnchorHash {
				t.Fatalf("the finished pivot left anchor %s, window on %s (old %s)", a.Hash, s.window().Drift.AnchorHash, old)
			}
			t.Logf("a pivot makes %d write steps; each was failed in turn", step)
			return
		}
		if !errors.Is(err, errInjected) {
			t.Fatalf("step %d: %v", step, err)
		}
		w := s.window()
		goal := committedGoal(t, s)
		if goal != w.Drift.AnchorHash {
			t.Fatalf("step %d: the files commit to goal %s, window.json measures against %s", step, goal, w.Drift.AnchorHash)
		}
		// The next hook finishes what the pivot committed.
		s.tool("Read", jsonStr(map[string]any{"file_path": f}), map[string]any{})
		w = s.window()
		a := s.anchor()
		if w.PendingAnchor != nil {
			t.Fatalf("step %d: the next hook kept the pending anchor", step)
		}
		if a.Hash != w.Drift.AnchorHash || a.Hash != goal {
			t.Fatalf("step %d: after the next hook anchor.json is %s, window.json on %s, committed %s", step, a.Hash, w.Drift.AnchorHash, goal)
		}
		if a.Hash != old && !strings.Contains(a.Text, "CSV export") {
			t.Fatalf("step %d: anchor.json holds neither goal: %q", step, a.Text)
		}
	}
}

// TestSessionEndStoppedAtEachStep: SessionEnd stopped at one write step,
// then retried and stopped at another, then retried until it finishes and
// once more: every session is counted exactly once in posteriors.json and
// has exactly one learnings.jsonl line, whatever the steps; a pivot-heavy
// session likewise has one line and no count.
func TestSessionEndStoppedAtEachStep(t *testing.T) {
	root := filepath.Join(t.TempDir(), "state")
	sessions, counted := 0, 0
	session := func(id string, pivot bool) *sim {
		s := newSim(t)
		s.id = id
		s.env.Store.Root = root
		s.darkModeEdits(pivot)
		return s
	}
	end := func(s *sim, step int) error {
		var n int
		failAt(s.env.Store, step, &n)
		defer func() { s.env.Store.Fault = nil }()
		return s.try(&Payload{HookEventName: SessionEnd, Reason: "other"})
	}
	for _, pivot := range []bool{false, true} {
		for first := 0; first < 4; first++ {
			for second := -1; second < 4; second++ {
				id := fmt.Sprintf("end-%v-%d-%d", pivot, first, second)
				s := session(id, pivot)
				sessions++
				if !pivot {
					counted++
				}
				if err := end(s, first); err != nil && !errors.Is(err, errInjected) {
					t.Fatalf("%s: %v", id, err)
				}
				if second >= 0 {
					if err := end(s, second); err != nil && !errors.Is(err, errInjected) {
						t.Fatalf("%s: %v", id, err)
					}
				}
				s.run(&Payload{HookEventName: SessionStart, Source: "resume"})
				s.run(&Payload{HookEventName: SessionEnd, Reason: "other"})
				s.run(&Payload{HookEventName: SessionEnd, Reason: "other"})
				if n := statetest.LearningLines(t, root)[id]; n != 1 {
					t.Fatalf("%s: %d learnings.jsonl lines, want 1", id, n)
				}
				if n := statetest.PosteriorSessions(t, root); n != counted {
					t.Fatalf("%s: posteriors.json counts %d sessions, want %d", id, n, counted)
				}
				if !s.window().Drift.Learned {
					t.Fatalf("%s: window.json does not record the session as learned", id)
				}
			}
		}
	}
	if sessions < 40 {
		t.Fatalf("only %d sessions", sessions)
	}
}

// TestSessionEndBoundedWait: SessionEnd gives up on a busy lock well
// within Claude Code's 1.5 s SessionEnd budget, whatever lock_wait_ms says.
func TestSessionEndBoundedWait(t *testing.T) {
	s := newSim(t)
	s.env.Store.LockWait = 5 * time.Second
	lock, err := s.env.Store.LockSession(context.Background(), s.id)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Unlock() }()
	start := time.Now()
	err = s.try(&Payload{HookEventName: SessionEnd, Reason: "other"})
	took := time.Since(start)
	if !errors.Is(err, state.ErrLockBusy) {
		t.Fatalf("SessionEnd on a busy lock: %v", err)
	}
	if took > time.Second {
		t.Fatalf("SessionEnd waited %v for the lock; its budget is 1.5 s", took)
	}
}
