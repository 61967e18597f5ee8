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
	ls := loops.State{Seq: st.Seq}
	if st.Events != nil {
		ls.Events = make([]loops.Event, len(st.Events))
		for i, e := range st.Events {
			ls.Events[i] = loops.Event(e)
		}
	}
	if st.Patterns != nil {
		ls.Patterns = make(map[string]loops.PatternState, len(st.Patterns))
		for k, p := range st.Patterns {
			ls.Patterns[k] = loops.PatternState(p)
		}
	}
	return ls
}

// storeLoops copies the engine's loop state back into the persisted one.
func storeLoops(st *state.LoopState, ls loops.State) {
	*st = state.LoopState{Seq: ls.Seq}
	if ls.Events != nil {
		st.Events = make([]state.LoopEvent, len(ls.Events))
		for i, e := range ls.Events {
			st.Events[i] = state.LoopEvent(e)
		}
	}
	if ls.Patterns != nil {
		st.Patterns = make(map[string]state.LoopPattern, len(ls.Patterns))
		for k, p := range ls.Patterns {
			st.Patterns[k] = state.LoopPattern(p)
		}
	}
}

// sampler views the persisted drift reservoir as the engine's reservoir: the
// two types have the same fields, so the conversion shares the data.
func sampler(s *state.Samples) *reservoir.Reservoir[state.Sample] {
	return (*reservoir.Reservoir[state.Sample])(s)
}
