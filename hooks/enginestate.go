package hooks

import (
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
	}
}

// storeLoops copies the engine's loop state back into the persisted one.
func storeLoops(st *state.LoopState, ls loops.State) {
	*st = state.LoopState{
		Seq:      ls.Seq,
		Events:   convertSlice(ls.Events, func(e loops.Event) state.LoopEvent { return state.LoopEvent(e) }),
		Patterns: convertMap(ls.Patterns, func(p loops.PatternState) state.LoopPattern { return state.LoopPattern(p) }),
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

// sampler views the persisted drift reservoir as the engine's reservoir: the
// two types have the same fields, so the conversion shares the data.
func sampler(s *state.Samples) *reservoir.Reservoir[state.Sample] {
	return (*reservoir.Reservoir[state.Sample])(s)
}
