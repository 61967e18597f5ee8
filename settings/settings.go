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
	"github.com/djinn-cc/djinn/engines/drift"
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
	RetentionDays int `json:"retention_days"`
	// Ask makes Djinn answer PreToolUse with "ask" for a call that goes
	// against an instruction in force or takes a risky step no recent
	// instruction covers, so the person decides before it runs. Off, the
	// same findings are advisories after the call.
	Ask      bool     `json:"ask"`
	Drift    Drift    `json:"drift"`
	Loops    Loops    `json:"loops"`
	Stall    Stall    `json:"stall"`
	Pressure Pressure `json:"pressure"`
	Compress Compress `json:"compress"`
	// Advisories says, per advisory kind, whether the agent is told.
	Advisories Advisories `json:"advisories"`
	// Notify says which notices Djinn puts on the person's screen (a hook's
	// systemMessage): all of them, only warnings, or none.
	Notify Notify `json:"notify"`
}

// Notify is which notices reach the person's screen.
type Notify string

// The notify levels: NotifyAll shows a notice each time Djinn tells the
// agent something, and every warning; NotifyWarnings only warnings (a hard
// or blocking advisory, a configuration problem, a state file repaired, the
// context near full); NotifyOff none (problems still go to stderr).
const (
	NotifyAll      Notify = "all"
	NotifyWarnings Notify = "warnings"
	NotifyOff      Notify = "off"
)

// Valid reports whether n is one of the three levels.
func (n Notify) Valid() bool { return n == NotifyAll || n == NotifyWarnings || n == NotifyOff }

// Shows reports whether a notice is shown at this level; warning marks a
// warning. An invalid level shows all, as the default does.
func (n Notify) Shows(warning bool) bool {
	switch n {
	case NotifyOff:
		return false
	case NotifyWarnings:
		return warning
	}
	return true
}

// Mode says what becomes of one kind of advisory.
type Mode string

// The modes: Advise tells the agent; Observe records the advisory
// (advisories.jsonl, djinn status, replay) without telling the agent; Off
// drops it.
const (
	Advise  Mode = "advise"
	Observe Mode = "observe"
	Off     Mode = "off"
)

// Valid reports whether m is one of the three modes.
func (m Mode) Valid() bool { return m == Advise || m == Observe || m == Off }

// Advisories holds each advisory kind's mode (the keys are the kinds, with
// "_" for "-" so that every key is also an environment variable name). A
// kind's default follows its measured precision on the labelled real
// sessions (README, "Which advisories the agent is told"): under 90 %, or
// not measured, it is Observe; never useful there over at least ten
// advisories, it is Off (drift: none of the 39 it gave on the labelled
// sessions, blind sets included, was useful); compacted reports a fact the
// agent needs and is Advise. For stall, whose finding is a rollback, Observe means no
// rollback and no advice, the finding recorded.
type Advisories struct {
	Drift      Mode `json:"drift"`
	ReadLoop   Mode `json:"read_loop"`
	EditRevert Mode `json:"edit_revert"`
	FailLoop   Mode `json:"fail_loop"`
	ToolLoop   Mode `json:"tool_loop"`
	// ToolLoopRepeat is the tool-loop family of the same call made again
	// with the same result: 12 of 12 on the sessions labelled after it was
	// stated, then 0 of 10 on the seventh draw, 12 of 22 in all
	// (docs/preregistered.md, H2), so observed; tool_loop off silences it
	// too.
	ToolLoopRepeat Mode `json:"tool_loop_repeat"`
	Stall          Mode `json:"stall"`
	Pressure       Mode `json:"pressure"`
	Reanchor       Mode `json:"reanchor"`
	Compacted      Mode `json:"compacted"`
	Risk           Mode `json:"risk"`
	// RepeatComplaint is the user reporting a failure again after the
	// agent said it was fixed.
	RepeatComplaint Mode `json:"repeat_complaint"`
	// Instruction is a call against an instruction in force.
	Instruction Mode `json:"instruction"`
}

// SetAll puts every kind in mode m.
func (a *Advisories) SetAll(m Mode) {
	*a = Advisories{m, m, m, m, m, m, m, m, m, m, m, m, m}
}

// Mode returns the mode of an advisory kind (its tag name, e.g.
// "fail-loop": the field's key with "-" for "_"); an unknown kind is
// advised, as before modes existed.
func (a Advisories) Mode(kind string) Mode {
	var m Mode
	switch kind {
	case "drift":
		m = a.Drift
	case "read-loop":
		m = a.ReadLoop
	case "edit-revert":
		m = a.EditRevert
	case "fail-loop":
		m = a.FailLoop
	case "tool-loop":
		m = a.ToolLoop
	case "tool-loop-repeat":
		m = a.ToolLoopRepeat
	case "stall":
		m = a.Stall
	case "pressure":
		m = a.Pressure
	case "reanchor":
		m = a.Reanchor
	case "compacted":
		m = a.Compacted
	case "risk":
		m = a.Risk
	case "repeat-complaint":
		m = a.RepeatComplaint
	case "instruction":
		m = a.Instruction
	}
	if m.Valid() {
		return m
	}
	return Advise
}

// Drift configures goal anchoring and drift (the engine's Config, seed
// 003).
type Drift struct {
	drift.Config
	Enabled bool `json:"enabled"`
	// PromptGrace is how many tool calls after a user prompt give no drift
	// advisory: right after a prompt the user is steering.
	PromptGrace int `json:"prompt_grace"`
	// FailureGrace is how many tool calls after a failed call give no
	// drift advisory: fixing what blocks the task (a missing toolchain, a
	// failing test's code) is supporting work, whatever its words.
	FailureGrace int `json:"failure_grace"`
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
		Notify:        NotifyAll,
		LockWaitMS:    5000,
		RetentionDays: 30,
		Drift:         Drift{Config: drift.DefaultConfig(), Enabled: true, PromptGrace: 3, FailureGrace: 6},
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
		Advisories: Advisories{
			Drift: Off, ReadLoop: Observe, EditRevert: Observe,
			FailLoop: Observe, ToolLoop: Observe, ToolLoopRepeat: Observe, Stall: Advise,
			Pressure: Observe, Reanchor: Observe, Compacted: Advise,
			Risk:            Observe,
			RepeatComplaint: Observe,
			Instruction:     Observe,
		},
	}
}
