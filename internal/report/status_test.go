package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/internal/report"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

func anchor(text string) state.Anchor {
	return state.Anchor{
		SchemaVersion: 1, SessionID: "s-1", Text: text, Hash: "0123456789ab", IntentType: "feature",
		Tokens: []string{"add", "dark", "mode"}, CapturedAt: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC),
		PromptID: "p-1", Source: "prompt", Deltas: []state.Delta{},
	}
}

// A hook killed between its two renames leaves the new goal in window.json
// (pending_anchor) and the old one in anchor.json: status shows the new one,
// as the next hook will make anchor.json say.
func TestStatusPrefersPendingAnchor(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pending bool
		want    string
	}{
		{"pending anchor", true, "Add dark-mode support, the new goal"},
		{"no pending anchor", false, "Fix the login form, the old goal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := anchor("Fix the login form, the old goal")
			w := state.NewWindow("s-1", time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC))
			if tc.pending {
				a := anchor("Add dark-mode support, the new goal")
				w.PendingAnchor = &a
			}
			out := status(t, &w, &old)
			if !strings.Contains(out, tc.want) {
				t.Errorf("status does not show %q:\n%s", tc.want, out)
			}
		})
	}
}

// An observed advisory is shown in status, marked as not told to the
// agent; a told one is not marked.
func TestStatusMarksObserved(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	w := state.NewWindow("s-1", now)
	w.Recent = []state.Recent{
		{Seq: 4, Time: now, Kind: "drift", Text: "[djinn:drift] The last calls relate to none of the work.", Mode: "observe"},
		{Seq: 7, Time: now, Kind: "fail-loop", Text: "[djinn:fail-loop] go test failed 3 times the same way."},
	}
	out := status(t, &w, nil)
	for _, want := range []string{
		"call #4: [djinn:drift] (observed, not told to the agent) The last calls",
		"call #7: [djinn:fail-loop] go test failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status does not show %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "observed") != 1 {
		t.Errorf("status marks more than the observed advisory:\n%s", out)
	}
}

// newSession is a new state root holding the directory of session "s-1",
// and that directory.
func newSession(t *testing.T) (*state.Store, string) {
	t.Helper()
	st := &state.Store{Root: t.TempDir(), LockWait: time.Second}
	dir, err := st.SessionDir("s-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return st, dir
}

// status saves a session "s-1" with window w and anchor a (none if nil) in
// a new state root, and returns what djinn status prints of it.
func status(t *testing.T, w *state.Window, a *state.Anchor) string {
	t.Helper()
	st, dir := newSession(t)
	if a != nil {
		if err := st.Save(filepath.Join(dir, "anchor.json"), state.KindAnchor, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Save(filepath.Join(dir, "window.json"), state.KindWindow, w); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.Status(&out, st, "s-1", settings.Default().Drift); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// Status is for a person who knows nothing of the engines (issue 15,
// finding 6): a long advisory is cut at a word boundary with an ellipsis,
// never mid-word; counts have their plurals; and none of the engines'
// jargon is shown.
func TestStatusReadsAsPlainWords(t *testing.T) {
	a := anchor("Add dark mode")
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	w := state.NewWindow("s-1", now)
	w.ToolCalls = 1
	long := "[djinn:read-loop] " + strings.Repeat("internationalization ", 30)
	w.Recent = []state.Recent{{Seq: 1, Time: now, Kind: "read-loop", Text: long}}
	w.Drift = &state.Drift{AnchorHash: a.Hash, AnchorTokens: []string{}, Intent: "feature", Threshold: 0.7, ThresholdSource: "fallback",
		Vocab: []string{"dark"}, Files: []string{}, Recent: []state.CallSignal{}, Obs: []string{},
		Reservoir: &state.Samples{K: 8, NSeen: 1, Items: []state.Sample{{Seq: 1, Score: 0.9, Tool: "Read"}}},
		Verdict:   &state.Verdict{Kind: "insufficient_data", Score: 0.9, Threshold: 0.7, ThresholdSource: "fallback", N: 1}}
	got := status(t, &w, &a)
	for _, want := range []string{", 1 tool call\n", "1 word and 0 files", "internationalization…\n", "on the goal? too early to say\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("status lacks %q:\n%s", want, got)
		}
	}
	for _, jargon := range []string{"(fallback)", "1 tool calls", "1 words", "insufficient_data", "learned: ", "internationaliz…", "…internationalization"} {
		if strings.Contains(got, jargon) {
			t.Errorf("status says %q:\n%s", jargon, got)
		}
	}
}
