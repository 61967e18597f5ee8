package hooks

import (
	"github.com/djinn-cc/djinn/engines/drift"
	"github.com/djinn-cc/djinn/engines/loops"
	"github.com/djinn-cc/djinn/engines/reservoir"
	"github.com/djinn-cc/djinn/state"
)

// state owns the persisted types and imports no engine; these convert at the
// boundary, between window.json's types and the engines' own.

// loopsState copies an agent's persisted loop state into the engine's type.
func loopsState(st *state.LoopState) loops.State {
	return loops.State{
		Seq:      st.Seq,
		Events:   convertSlice(st.Events, func(e state.LoopEvent) loops.Event { return loops.Event(e) }),
		Patterns: convertMap(st.Patterns, func(p state.LoopPattern) loops.PatternState { return loops.PatternState(p) }),
		Failures: convertSlice(st.Failures, func(r state.LoopRemembered) loops.Remembered {
			return loops.Remembered{Event: loops.Event(r.LoopEvent), Writes: r.Writes}
		}),
		Writes: st.Writes,
	}
}

// storeLoops copies the engine's loop state back into the persisted one.
func storeLoops(st *state.LoopState, ls loops.State) {
	*st = state.LoopState{
		Seq:      ls.Seq,
		Events:   convertSlice(ls.Events, func(e loops.Event) state.LoopEvent { return state.LoopEvent(e) }),
		Patterns: convertMap(ls.Patterns, func(p loops.PatternState) state.LoopPattern { return state.LoopPattern(p) }),
		Failures: convertSlice(ls.Failures, func(r loops.Remembered) state.LoopRemembered {
			return state.LoopRemembered{LoopEvent: state.LoopEvent(r.Event), Writes: r.Writes}
		}),
		Writes: ls.Writes,
	}
}

// convertSlice converts each element of s; nil stays nil.
func convertSlice[S, D any](s []S, conv func(S) D) []D {
	if s == nil {
		return nil
	}
	d := make([]D, len(s))
	for i, v := range s {
		d[i] = conv(v)
	}
	return d
}

// convertMap converts each value of m; nil stays nil.
func convertMap[S, D any](m map[string]S, conv func(S) D) map[string]D {
	if m == nil {
		return nil
	}
	d := make(map[string]D, len(m))
	for k, v := range m {
		d[k] = conv(v)
	}
	return d
}

// driftState copies the persisted drift state into the engine's type. The
// slices of words are shared; nil slices stay nil, so window.json is
// written back as it was read.
func driftState(d *state.Drift) drift.State {
	st := drift.State{
		AnchorHash: d.AnchorHash, AnchorTokens: d.AnchorTokens, Insufficient: d.Insufficient,
		Threshold: d.Threshold, ThresholdSource: d.ThresholdSource, Idents: d.Idents, Switched: d.Switched,
		Calls: d.Calls, Vocab: d.Vocab, Files: d.Files, Obs: d.Obs, RefocusStreak: d.RefocusStreak, OffGoal: d.OffGoal,
	}
	st.Recent = convertSlice(d.Recent, func(r state.CallSignal) drift.Signal { return drift.Signal(r) })
	if r := d.Reservoir; r != nil {
		st.Reservoir = &reservoir.Reservoir[drift.Sample]{K: r.K, NSeen: r.NSeen}
		if r.Items != nil {
			st.Reservoir.Items = make([]drift.Sample, len(r.Items), max(len(r.Items), r.K))
			for i, it := range r.Items {
				st.Reservoir.Items[i] = drift.Sample(it)
			}
		}
	}
	return st
}

// storeDrift copies the engine's drift state back into the persisted one.
func storeDrift(d *state.Drift, st drift.State) {
	d.AnchorHash, d.AnchorTokens, d.Insufficient = st.AnchorHash, st.AnchorTokens, st.Insufficient
	d.Threshold, d.ThresholdSource, d.Idents, d.Switched = st.Threshold, st.ThresholdSource, st.Idents, st.Switched
	d.Calls, d.Vocab, d.Files, d.Obs, d.RefocusStreak, d.OffGoal = st.Calls, st.Vocab, st.Files, st.Obs, st.RefocusStreak, st.OffGoal
	d.Recent = convertSlice(st.Recent, func(r drift.Signal) state.CallSignal { return state.CallSignal(r) })
	d.Reservoir = nil
	if r := st.Reservoir; r != nil {
		d.Reservoir = &state.Samples{K: r.K, NSeen: r.NSeen,
			Items: convertSlice(r.Items, func(it drift.Sample) state.Sample { return state.Sample(it) })}
	}
}
