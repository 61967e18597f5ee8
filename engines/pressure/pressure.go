// Package pressure is Djinn's context-pressure engine (seed 004): given the
// context's size in tokens at each reading, it says when a tier (a share of
// the context window) is crossed going up, announcing each tier once and
// re-arming it once the context falls RearmDrop below it, or after a
// compaction that made room. It is pure: no I/O, no clock; the hook reads
// the meter from the transcript and keeps State in window.json.
package pressure

// DefaultLimit is the standard context window in tokens.
const DefaultLimit = 200_000

// Config holds the tiers and the window. JSON names are the settings keys.
type Config struct {
	// Tiers are the shares of the window announced, increasing.
	Tiers []float64 `json:"tiers"`
	// RearmDrop re-arms a tier once the context falls this far below it.
	RearmDrop float64 `json:"rearm_drop"`
	// Limit is the context window in tokens; 0 means automatic: the
	// CLI's rule (Window), and LargeLimit once the context has exceeded
	// DefaultLimit.
	Limit      int `json:"limit"`
	LargeLimit int `json:"large_limit"`
	// MinOutputShare: a tier below the top is said only when one tool
	// output in the context holds at least this share of the window (at
	// four characters a token), since the advice to read narrowly needs an
	// output to point at; 0 says every tier.
	MinOutputShare float64 `json:"min_output_share"`
}

// DefaultConfig returns seed 004's tiers and the automatic window.
func DefaultConfig() Config {
	return Config{Tiers: []float64{0.4, 0.55, 0.7}, RearmDrop: 0.05, Limit: 0, LargeLimit: 1_000_000, MinOutputShare: 0.02}
}

// State is the meter's memory between hooks.
type State struct {
	Tokens int64
	// Limit is the window when known, else 0; Why says where it comes from
	// ("window unknown …" when it is not known).
	Limit int64
	Why   string
	Peak  int64
	// Model is the latest response's model id; Configured is the session's
	// model setting as SessionStart gave it ("" if not known).
	Model, Configured string
	// Stale is set after a compaction until the next reading.
	Stale bool
	// Announced[i] says whether tier i was announced and not re-armed.
	Announced []bool
	// Pending is a tier (1-based) crossed at a hook that could not say so.
	Pending int
}

// Fit sizes Announced to the number of tiers, keeping what it knows.
func (s *State) Fit(tiers int) {
	if len(s.Announced) != tiers {
		a := make([]bool, tiers)
		copy(a, s.Announced)
		s.Announced = a
	}
}

// Window is the session's window as known now.
func (s State) Window(c Config, e Env) Window {
	return c.Window(s.Model, s.Configured, s.Peak, e)
}

// Observe takes a reading of tokens from a response of model ("" keeps the
// last one known) and returns the index of a tier newly crossed (-1 if
// none; the highest when several are), re-arming the tiers the context has
// fallen RearmDrop below. Against an unknown window a tier is crossed only
// when the largest window the session may have is that full.
func (s *State) Observe(tokens int64, model string, c Config, e Env) int {
	s.Fit(len(c.Tiers))
	before, compacted := s.Tokens, s.Stale
	s.Tokens = tokens
	s.Stale = false
	s.Peak = max(s.Peak, tokens)
	if model != "" {
		s.Model = model
	}
	w := s.Window(c, e)
	s.Limit, s.Why = w.Limit(), w.Why
	share := float64(tokens) / float64(w.Max)
	if compacted && share < float64(before)/float64(w.Max)-c.RearmDrop {
		clear(s.Announced) // the compaction made room: every tier is news again
	}
	crossed := -1
	for i, t := range c.Tiers {
		switch {
		case share >= t && !s.Announced[i]:
			s.Announced[i] = true
			crossed = i
		case share < t-c.RearmDrop:
			s.Announced[i] = false
		}
	}
	return crossed
}

// Crosses reports whether a reading of tokens would cross a tier, leaving s
// as it is.
func (s *State) Crosses(tokens int64, model string, c Config, e Env) bool {
	cp := *s
	cp.Announced = append([]bool(nil), s.Announced...)
	return cp.Observe(tokens, model, c, e) >= 0
}

// Compacted marks the meter stale after a compaction. The first reading
// after it re-arms every tier if the context fell RearmDrop or more from the
// reading before; a compaction that left it as full (a session compacting
// after every call) re-arms nothing, so the tiers are not said again.
func (s *State) Compacted() {
	s.Stale = true
	s.Pending = 0
}

// TakePending returns the tier (0-based) crossed at an earlier hook that
// could not announce it, and clears it; ok is false when there is none or
// the tier was re-armed meanwhile.
func (s *State) TakePending(c Config) (tier int, ok bool) {
	if s.Pending == 0 {
		return 0, false
	}
	tier = s.Pending - 1
	s.Pending = 0
	if tier >= len(c.Tiers) || tier >= len(s.Announced) || !s.Announced[tier] {
		return 0, false
	}
	return tier, true
}
