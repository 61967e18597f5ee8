package report

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/djinn-cc/djinn/engines/drift"
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// Status prints /djinn:status: the anchor, its deltas, the current verdict
// with its numbers, and the recent advisories. It reads the session's state
// without changing it (an invalid file is reported, not moved aside).
func Status(w io.Writer, st *state.Store, id string, set settings.Drift) error {
	win, anchor, err := PeekSession(st, id)
	if err != nil {
		return err
	}
	if win == nil {
		return fmt.Errorf("session %s: no state under %s", id, st.Root)
	}
	fmt.Fprintf(w, "djinn status: session %s, %s\n", id, count(win.ToolCalls, "tool call", "tool calls"))
	if len(win.Disabled) > 0 {
		fmt.Fprintf(w, "disabled for this session: %s\n", advice.Clean(strings.Join(win.Disabled, ", "), 200))
	}
	statusGoal(w, anchor)
	if d := win.Drift; d != nil {
		statusDrift(w, id, d, set)
	}
	if ps := win.Pressure; ps != nil && (ps.Limit > 0 || ps.Window != "") {
		statusContext(w, ps)
	}
	if len(win.Failures) > 0 {
		fmt.Fprintln(w, "still failing:")
		for _, f := range win.Failures {
			fmt.Fprintf(w, "  - %s %s (%d×): %s\n", advice.Clean(f.Tool, 80), advice.Quote(drift.RelPath(f.Target, win.ProjectDir), 100), f.Count, advice.Quote(f.Error, 120))
		}
	}
	statusRecent(w, win.Recent)
	if f := win.Feedback; f != nil && (len(f.Marks) > 0 || len(f.Held) > 0) {
		statusFeedback(w, f)
	}
	return nil
}

// statusGoal prints the goal, the current task, the instructions in force,
// the constraints and how often the goal changed.
func statusGoal(w io.Writer, a *state.Anchor) {
	if a == nil {
		fmt.Fprintln(w, "goal: none yet. Your first substantial prompt becomes the goal, or set one with /djinn:reorient <goal>")
		return
	}
	fmt.Fprintf(w, "goal (%s, %s; id %s): %s\n", intentWords(a.IntentType), anchorSourceWords(a.Source), advice.Clean(a.Hash, 40), prose(a.Text, 500))
	if t := a.Task; t != nil && t.Text != a.Text {
		fmt.Fprintf(w, "current task (%s): %s\n", taskSourceWords(t.Source), prose(t.Text, 500))
	}
	if len(a.Instructions) > 0 {
		fmt.Fprintln(w, "your instructions still in force (newest last):")
		for _, in := range a.Instructions {
			fmt.Fprintf(w, "  - %s\n", prose(in.Text, 200))
		}
	}
	if a.DeltaCount > 0 {
		fmt.Fprintf(w, "constraints added to the goal (%d, newest last):\n", a.DeltaCount)
		for _, d := range a.Deltas {
			fmt.Fprintf(w, "  - %s\n", prose(d.Text, 200))
		}
	}
	if a.Pivots+a.Reorients > 0 {
		fmt.Fprintf(w, "goal changed: %s by a prompt, %s with /djinn:reorient\n", count(a.Pivots, "time", "times"), count(a.Reorients, "time", "times"))
	}
}

// statusDrift prints the drift verdict with its numbers and what the
// anchor has learned.
func statusDrift(w io.Writer, id string, d *state.Drift, set settings.Drift) {
	if v := d.Verdict; v == nil {
		fmt.Fprintln(w, "on the goal? too early to say: no tool calls since the goal was set")
	} else {
		fmt.Fprintf(w, "on the goal? %s\n", verdictWords(v.Kind))
		fmt.Fprintf(w, "  the last calls match the goal %.0f%% (%.0f%% or more counts as on task; %s)\n", 100*v.Score, 100*v.Threshold, thresholdWords(v.ThresholdSource, d.PosteriorN))
		v2 := withCI(*v, id, d, set.BootstrapResamples)
		if v2.N < set.MinSamples {
			fmt.Fprintf(w, "  whole session: %s measured, too few for an average (%d needed)\n", count(v2.N, "call", "calls"), set.MinSamples)
		} else {
			fmt.Fprintf(w, "  whole session: the calls match the goal %.0f%% on average (95%% sure between %.0f%% and %.0f%%), from a sample of %d of %s\n", 100*v2.Mean, 100*v2.CILo, 100*v2.CIHi, v2.N, count(int(d.Reservoir.NSeen), "call", "calls"))
		}
		if v.Tail != "" {
			fmt.Fprintf(w, "  of the last 5 calls, %d looked lost and %d a side quest\n", v.Lost, v.Side)
		}
		if d.Insufficient {
			fmt.Fprintln(w, "  the goal is too short or too general to measure against, so this stays undecided")
		}
	}
	fmt.Fprintf(w, "  learned from the work so far: %s and %s that belong to the goal; drift warnings given: %d\n", count(len(d.Vocab), "word", "words"), count(len(d.Files), "file", "files"), d.Advised)
}

// statusContext prints the context's fill against its window.
func statusContext(w io.Writer, ps *state.Pressure) {
	if ps.Limit > 0 {
		fmt.Fprintf(w, "context: %d of %d tokens (%.0f%%)", ps.Tokens, ps.Limit, 100*float64(ps.Tokens)/float64(ps.Limit))
	} else {
		fmt.Fprintf(w, "context: %d tokens, window unknown", ps.Tokens)
	}
	if ps.Stale {
		fmt.Fprint(w, ", unknown since the last compaction")
	}
	fmt.Fprintln(w)
	if ps.Window != "" {
		fmt.Fprintf(w, "  window: %s\n", advice.Clean(ps.Window, 200))
	}
}

// statusRecent prints the recent advisories, Djinn's own tag first and the
// text cleaned: it quotes tool output, and window.json is only as trusted
// as the disk.
func statusRecent(w io.Writer, recent []state.Recent) {
	if len(recent) == 0 {
		fmt.Fprintln(w, "recent advisories: none")
		return
	}
	fmt.Fprintln(w, "recent advisories (newest last):")
	for _, r := range recent {
		note := ""
		if r.Mode == string(settings.Observe) {
			note = " (observed, not told to the agent)"
		}
		id := ""
		if r.ID != "" {
			id = " (id " + advice.Clean(r.ID, 12) + ")"
		}
		fmt.Fprintf(w, "  call #%d: %s%s %s%s\n", r.Seq, advice.Tag(advice.Clean(r.Kind, 20)), note, prose(strings.TrimPrefix(r.Text, advice.Tag(r.Kind)), 300), id)
	}
}

// statusFeedback prints the user's marks on this session's advisories and
// what the developer's feedback held back.
func statusFeedback(w io.Writer, f *state.Feedback) {
	fmt.Fprintln(w, "feedback this session:")
	for _, m := range f.Marks {
		note := ""
		if m.Note != "" {
			note = ": " + advice.Quote(m.Note, 200)
		}
		fmt.Fprintf(w, "  - the %s advisory %s (call #%d) marked %s%s\n", advice.Clean(m.Kind, 20), advice.Clean(m.ID, 12), m.Seq, advice.Clean(m.Verdict, 8), note)
	}
	kinds := slices.Sorted(maps.Keys(f.Held))
	for _, k := range kinds {
		fmt.Fprintf(w, "  - %d %s advisories held back by the developer's feedback\n", f.Held[k], advice.Clean(k, 20))
	}
}

// PeekSession reads a session's window and its goal without changing
// them: win is nil when the session has no state, a when it has no goal.
// The goal is anchor.json, or the one a hook killed between its two
// renames left in the window only (the next hook finishes anchor.json
// from it).
func PeekSession(st *state.Store, id string) (win *state.Window, a *state.Anchor, err error) {
	dir, err := st.SessionDir(id)
	if err != nil {
		return nil, nil, err
	}
	win = &state.Window{}
	if found, err := st.Peek(filepath.Join(dir, "window.json"), state.KindWindow, win); err != nil || !found {
		return nil, nil, err
	}
	a = &state.Anchor{}
	found, err := st.Peek(filepath.Join(dir, "anchor.json"), state.KindAnchor, a)
	switch {
	case err != nil:
		return nil, nil, err
	case win.PendingAnchor != nil:
		return win, win.PendingAnchor, nil
	case !found:
		return win, nil, nil
	}
	return win, a, nil
}

// withCI adds the reservoir's bootstrap interval to a verdict, drawn as the
// drift advisory draws it (the engine's WithCI), so status shows the numbers
// the advisory gave.
func withCI(v state.Verdict, id string, d *state.Drift, resamples int) state.Verdict {
	xs := make([]float64, len(d.Reservoir.Items))
	for i, it := range d.Reservoir.Items {
		xs[i] = it.Score
	}
	return state.Verdict(drift.WithCI(drift.Verdict(v), xs, id, d.AnchorHash, d.Reservoir.NSeen, resamples))
}
