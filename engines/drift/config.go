package drift

// Config holds every threshold of the detector; DefaultConfig gives seed
// 003's values. JSON names are the settings keys.
type Config struct {
	// Threshold is the on-task cutoff used until the developer's posterior
	// has MinSessions sessions for the intent type (seed: 0.7).
	Threshold float64 `json:"threshold"`
	// SideThreshold separates a side quest from being lost (seed: 0.4).
	SideThreshold float64 `json:"side_threshold"`
	// DeltaRatio: a later prompt whose ratio to the anchor is below it is a
	// constraint delta (seed: 0.5).
	DeltaRatio float64 `json:"delta_ratio"`
	// MinSamples gates every verdict on the reservoir size (seed: 5).
	MinSamples int `json:"min_samples"`
	// MinAnchorTokens: shorter anchors give insufficient data (seed: 5).
	MinAnchorTokens    int `json:"min_anchor_tokens"`
	ReservoirK         int `json:"reservoir_k"`
	BootstrapResamples int `json:"bootstrap_resamples"`
	HMMWindow          int `json:"hmm_window"`
	// SignalWindow is how many recent tool calls the drift score covers.
	SignalWindow int `json:"signal_window"`
	// LearnCalls is how many early tool calls after an anchor are the
	// agent finding its way in: reading the project is no evidence yet, one
	// shared word ties a call to the goal, and a goal too short to measure
	// is taught by them whatever they are.
	LearnCalls int `json:"learn_calls"`
	// Cooldown is the number of tool calls between two drift advisories;
	// drift that goes on is said again after it.
	Cooldown int `json:"cooldown"`
	// RefocusStreak: a refocus moment is advised only after this many
	// consecutive refocus verdicts (design: 3).
	RefocusStreak int `json:"refocus_streak"`
	// MinSessions before the posterior's p10 replaces Threshold (seed: 3).
	MinSessions int `json:"min_sessions"`
	// Alpha is the D5 EMA weight (seed: 0.3).
	Alpha float64 `json:"alpha"`
	// MaxDeltas: a session with more constraint deltas is pivot-heavy and
	// left out of learning (seed: "many refresh deltas"; design: 3).
	MaxDeltas int `json:"max_deltas"`
}

// DefaultConfig returns seed 003's settings.
func DefaultConfig() Config {
	return Config{
		Threshold: 0.7, SideThreshold: 0.4, DeltaRatio: 0.5,
		MinSamples: 5, MinAnchorTokens: 5, ReservoirK: 32, BootstrapResamples: 1000,
		HMMWindow: 64, SignalWindow: 10, LearnCalls: 12, Cooldown: 15,
		RefocusStreak: 3, MinSessions: 3, Alpha: 0.3, MaxDeltas: 3,
	}
}
