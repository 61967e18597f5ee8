package reorient

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// TestApply: djinn reorient sets a goal where none was recorded, adds a
// restatement as a constraint, replaces it with a new intent (or with
// --force), and records each result for Last, which says when there is
// none yet; a bad session id changes nothing.
func TestApply(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	env := &hooks.Env{
		Store:    &state.Store{Root: filepath.Join(t.TempDir(), "state"), LockWait: time.Second},
		Settings: settings.Default(),
		Now:      func() time.Time { now = now.Add(time.Second); return now },
		Getenv:   func(string) string { return "" },
	}
	const id = "session-1"
	if text, err := Last(env.Store, id); err != nil || !strings.Contains(text, "no re-orientation recorded") {
		t.Fatalf("Last before any: %q, %v", text, err)
	}
	if _, err := Apply(ctx, env, "../escape", "anything", false); err == nil {
		t.Fatal("a bad session id was taken")
	}
	const goal = "Add dark-mode support with a11y keyboard-trap tests"
	for _, tc := range []struct {
		intent  string
		force   bool
		outcome string
	}{
		{goal, false, "replaced"}, // no goal was recorded
		{goal + ", and keep the bundle small", false, "constraint"},
		{goal + ", as UTF-8", true, "replaced"},
		{"Write the CSV export for the reports page", false, "replaced"},
		{"  ", false, "empty"},
	} {
		text, err := Apply(ctx, env, id, tc.intent, tc.force)
		if err != nil {
			t.Fatalf("%q: %v", tc.intent, err)
		}
		var w state.Window
		dir, _ := env.Store.SessionDir(id)
		if found, err := env.Store.Peek(filepath.Join(dir, "window.json"), state.KindWindow, &w); !found || err != nil {
			t.Fatalf("window.json: found %v, %v", found, err)
		}
		if w.Reorient == nil || w.Reorient.Outcome != tc.outcome || w.Reorient.Text != text {
			t.Fatalf("%q (force %v): %+v, want outcome %s and text %q", tc.intent, tc.force, w.Reorient, tc.outcome, text)
		}
		if last, err := Last(env.Store, id); err != nil || last != text {
			t.Fatalf("Last = %q, %v; want %q", last, err, text)
		}
	}
}
