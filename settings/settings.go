// Package settings is Djinn's configuration: every threshold, with the
// seeds' defaults, read from three sources (config.json in the state root,
// the plugin's userConfig options, DJINN_ environment variables), each key
// decoded and held to config.schema.json's bounds the same way whatever its
// source. A section that configures an engine embeds that engine's Config,
// so the engines' own types are what the settings fill in; the state
// package, which must import no engine, does not hold them.
package settings

import (
	"github.com/djinn-cc/djinn/engines/compress"
	"github.com/djinn-cc/djinn/engines/loops"
	"github.com/djinn-cc/djinn/engines/pressure"
	"github.com/djinn-cc/djinn/engines/stall"
)

// Settings are every threshold Djinn uses, with the seeds' defaults. They
// come from config.json in the state root, then the plugin's userConfig
// options (CLAUDE_PLUGIN_OPTION_<SECTION>_<KEY>), then DJINN_<SECTION>_<KEY>
// environment variables; later sources win. A key is its JSON path with dots
// turned into underscores, upper-cased: loops.block is DJINN_LOOPS_BLOCK.
type Settings struct {
	// Enabled turns all of Djinn on or off.
	Enabled bool `json:"enabled"`
	// LockWaitMS is how long a hook waits for the session lock before it
	// gives up (quietly, with a stderr line).
	LockWaitMS int `json:"lock_wait_ms"`
	// RetentionDays: a session untouched for longer is pruned when a new
	// session starts (a bounded number per start; `djinn state prune` does
	// it by hand). 0 keeps every session.
	RetentionDays int      `json:"retention_days"`
	Drift         Drift    `json:"drift"`
	Loops         Loops    `json:"loops"`
	Stall         Stall    `json:"stall"`
	Pressure      Pressure `json:"pressure"`
	Compress      Compress `json:"compress"`
}

// Drift configures goal anchoring and drift (seed 003).
type Drift struct {
	Enabled bool `json:"enabled"`
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
	// LearnCalls is how many early tool calls teach the anchor its on-task
	// vocabulary.
	LearnCalls int `json:"learn_calls"`
	// Cooldown is the number of tool calls between two drift advisories.
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

// Loops configures the Markov pattern detector (seed 002): the engine's
// Config (its cycle_max is the key max_cycle; its constants that are not
// settings stay the engine's defaults), and Djinn's own switches.
type Loops struct {
	loops.Config
	Enabled bool `json:"enabled"`
	// Block turns a hard loop into a PostToolUse decision "block" (off by
	// default: advisories only).
	Block bool `json:"block"`
	// ReadLoop, EditRevert, FailLoop and ToolLoop turn each pattern on or
	// off (the engine's Enabled map, by pattern name).
	ReadLoop   bool `json:"read_loop"`
	EditRevert bool `json:"edit_revert"`
	FailLoop   bool `json:"fail_loop"`
	ToolLoop   bool `json:"tool_loop"`
	// HashMaxBytes bounds how much of a file is read to hash it.
	HashMaxBytes int `json:"hash_max_bytes"`
}

// Engine is the pattern engine's configuration: the embedded Config with
// the patterns switched as the settings say.
func (l Loops) Engine() loops.Config {
	c := l.Config
	c.Enabled = map[string]bool{
		loops.ReadLoop: l.ReadLoop, loops.EditRevert: l.EditRevert,
		loops.FailLoop: l.FailLoop, loops.ToolLoop: l.ToolLoop,
	}
	return c
}

// Stall configures the text stall detector (the engine's Config) and the
// rollback (seed 000).
type Stall struct {
	stall.Config
	Enabled bool `json:"enabled"`
	// Rollback blocks the Stop that ends a stalled message so the model
	// continues from before the loop; false makes it advice only.
	Rollback     bool `json:"rollback"`
	MaxRollbacks int  `json:"max_rollbacks"`
	// DivergencePrompt replaces the default wording of the rollback request;
	// {start} and {quote} are filled in.
	DivergencePrompt string `json:"divergence_prompt"`
}

// Pressure configures the context-pressure tiers (the engine's Config,
// seed 004).
type Pressure struct {
	pressure.Config
	Enabled bool `json:"enabled"`
}

// Compress configures the tool-result compressor (the engine's Config,
// seed 004).
type Compress struct {
	compress.Config
	Enabled bool `json:"enabled"`
	// BuiltinTools applies the compressor to built-in tools' output too, not
	// only MCP tools'.
	BuiltinTools bool `json:"builtin_tools"`
}

// Default returns the seeds' defaults.
func Default() Settings {
	return Settings{
		Enabled:       true,
		LockWaitMS:    5000,
		RetentionDays: 30,
		Drift: Drift{
			Enabled: true, Threshold: 0.7, SideThreshold: 0.4, DeltaRatio: 0.5,
			MinSamples: 5, MinAnchorTokens: 5, ReservoirK: 32, BootstrapResamples: 1000,
			HMMWindow: 64, SignalWindow: 10, LearnCalls: 12, Cooldown: 15,
			RefocusStreak: 3, MinSessions: 3, Alpha: 0.3, MaxDeltas: 3,
		},
		Loops: Loops{
			Config:  loops.DefaultConfig(),
			Enabled: true, ReadLoop: true, EditRevert: true, FailLoop: true, ToolLoop: true,
			HashMaxBytes: 8 << 20,
		},
		Stall: Stall{
			Config:  stall.DefaultConfig(),
			Enabled: true, Rollback: true, MaxRollbacks: 3,
		},
		Pressure: Pressure{Config: pressure.DefaultConfig(), Enabled: true},
		Compress: Compress{
			Config:  compress.DefaultConfig(),
			Enabled: true, BuiltinTools: false,
		},
	}
}
