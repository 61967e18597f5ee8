package loops

import (
	"slices"

	"github.com/djinn-cc/djinn/internal/sat"
)

// Severity grades an alert: soft first, hard once the pattern is chronic.
type Severity string

// The two severities.
const (
	Soft Severity = "soft"
	Hard Severity = "hard"
)

// Finding is one alert with the facts an advisory needs: which file or
// command, how many times, where in the stream, and what the next step
// should address. Fields after Events belong to one pattern each.
type Finding struct {
	// Pattern is the pattern's name, also the advisory kind.
	Pattern string `json:"pattern"`
	// Severity is Soft, or Hard when the pattern's EMA is at or above
	// Config.HardEMA.
	Severity Severity `json:"severity"`
	// Seq is the number of the event that completed the pattern.
	Seq uint64 `json:"n"`
	// EMA is the pattern's moving average after this event.
	EMA float64 `json:"ema"`
	// Tool and Target name what is looped on: the file of a read-loop or
	// edit-revert, the command of a fail-loop, the newest call of a
	// tool-loop.
	Tool   string `json:"tool"`
	Target string `json:"target"`
	// Range is the read range of a read-loop.
	Range string `json:"range,omitempty"`
	// Count is how many times: reads since the last change (read-loop),
	// reverting writes in the window (edit-revert), failures in the streak
	// (fail-loop), repetitions of the call or cycle (tool-loop).
	Count int `json:"count"`
	// Events are the numbers of the events that make the pattern, oldest
	// first: the reads, the failures, the repeated calls, or for
	// edit-revert the earlier event that showed the restored content and
	// the reverting write.
	Events []uint64 `json:"events"`

	// Since (read-loop) is the event at which the file last changed; 0 if
	// it did not change within the window.
	Since uint64 `json:"since,omitempty"`

	// RevertTo (edit-revert) is the latest earlier event that showed the
	// restored content: as the file was before that event (a write's
	// originalFile) when FromBefore is set, else as it was after it (read or
	// written then). Hash is that content's hash, Original tells whether it
	// is the earliest content of the file seen in the window, and Undone is
	// the number of successful writes of the file this revert threw away.
	RevertTo   uint64 `json:"revert_to,omitempty"`
	FromBefore bool   `json:"from_before,omitempty"`
	Hash       string `json:"hash,omitempty"`
	Original   bool   `json:"original,omitempty"`
	Undone     int    `json:"undone,omitempty"`
	// Asked (edit-revert) tells that a user prompt came between the first
	// write the revert undoes and the revert: the user most likely asked
	// for it, so it is no loop. Such a finding is returned for the record
	// but takes no part in the pattern's EMA, cooldown or alert count.
	Asked bool `json:"asked,omitempty"`
	// Once (edit-revert) tells that this is the file's only revert in the
	// window and a targeted edit (Edit, MultiEdit, NotebookEdit: the agent
	// wrote the old text back itself), which on real sessions has been the
	// agent backing out its own change on purpose: returned for the record,
	// no alert and no cooldown, but the pattern's EMA counts it, so a
	// second revert soon after alerts hard. A whole-file Write back to old
	// content is a loop even alone.
	Once bool `json:"once,omitempty"`
	// Rollback (edit-revert) tells that the revert put back content no call
	// failed on, after a call failed on the content it replaces: the
	// agent backing out a change that broke something, not going round.
	// Reported for the record like Asked: no loop.
	Rollback bool `json:"rollback,omitempty"`

	// Fingerprint (fail-loop) is the repeated error's fingerprint, and
	// Edits the number of successful writes made between the first and the
	// last failure: 0 means the command was retried unchanged, more means
	// the edits did not touch the cause.
	Fingerprint string `json:"fingerprint,omitempty"`
	Edits       int    `json:"edits,omitempty"`
	// Key (fail-loop) is what the failures had in common when the calls
	// differ: the failure's class and target (FailureKey), or the file
	// that several file tools failed on.
	Key string `json:"key,omitempty"`

	// Cycle (tool-loop) is the cycle length, 1 for identical calls, and
	// Steps the calls of one cycle in order. For a fail-loop, Steps are the
	// distinct calls that failed, when there is more than one.
	Cycle int    `json:"cycle,omitempty"`
	Steps []Step `json:"steps,omitempty"`
	// Empty (tool-loop) tells that every repetition of one call (Cycle 1)
	// printed nothing.
	Empty bool `json:"empty,omitempty"`
	// Respelled (tool-loop) tells that the repeated calls were not spelled
	// alike: cosmetic variants of one shell command (see ShellKey).
	Respelled bool `json:"respelled,omitempty"`
	// SameOutput (tool-loop) tells that the calls were different commands
	// that all printed one output (Event.Printed); Steps are the commands.
	SameOutput bool `json:"same_output,omitempty"`
	// Rerun (tool-loop) tells that the calls ran one test, build or
	// package script (Target, its RunnerKey) again and again with no
	// write between, through whatever filters; Steps are the calls.
	Rerun bool `json:"rerun,omitempty"`
	// Polled (tool-loop) tells that the repeated call is a shell poll that
	// sleeps before it looks (sleep 60 && tail log): it waited each time
	// and got the same answer.
	Polled bool `json:"polled,omitempty"`
	// Looked (tool-loop) tells that the calls were looks at one file
	// (Target, Event.Look), however each showed it, that printed nothing
	// each time: the file stayed empty.
	Looked bool `json:"looked,omitempty"`
}

// Step is one call of a tool-loop cycle.
type Step struct {
	Tool   string `json:"tool"`
	Target string `json:"target"`
}

// rememberingPattern is a Pattern that also reads the failures the window
// dropped (State.Failures) and the count of writes recorded: fail-loop.
type rememberingPattern interface {
	CheckRemembering(mem []Remembered, window []Event, writes uint64, cfg Config) (Finding, bool)
}

// Pattern is a named predicate over the window. Check looks at the window
// (oldest first, the newest event last) and reports whether the newest
// event completes the pattern, with the facts; the engine fills in Pattern,
// Severity, Seq and EMA. Patterns are stateless: all they know is the
// window and the config.
type Pattern interface {
	Name() string
	Check(window []Event, cfg Config) (Finding, bool)
}

// The built-in patterns' names, which are also the advisory kinds.
const (
	ReadLoop   = "read-loop"
	EditRevert = "edit-revert"
	FailLoop   = "fail-loop"
	ToolLoop   = "tool-loop"
)

// Builtin returns the built-in patterns in the order their findings are
// listed at equal severity.
func Builtin() []Pattern {
	return []Pattern{readLoop{}, editRevert{}, failLoop{}, toolLoop{}}
}

// PatternState is what the engine remembers about one pattern.
type PatternState struct {
	// EMA is the moving average of the pattern's predicate.
	EMA float64 `json:"ema"`
	// Last is the number of the event of the last alert, 0 for none.
	Last uint64 `json:"last,omitempty"`
	// LastHard tells whether the last alert was hard.
	LastHard bool `json:"last_hard,omitempty"`
	// Alerts counts the pattern's alerts.
	Alerts int `json:"alerts,omitempty"`
}

// State is the engine's memory of one agent; it is meant to be stored as
// JSON between hook processes. Its size is bounded: Window events of bounded
// size, and one PatternState per pattern.
type State struct {
	// Seq is the number of events recorded.
	Seq uint64 `json:"n"`
	// Events is the ring buffer, oldest first, at most Config.Window long.
	Events []Event `json:"events"`
	// Patterns holds each pattern's EMA and last alert, by name.
	Patterns map[string]PatternState `json:"patterns,omitempty"`
	// Failures are the latest failures the window dropped (at most
	// FailMemory, oldest first), for fail-loop; a call that ran again
	// without failing so, or a write to the file a file tool failed on,
	// drops them.
	Failures []Remembered `json:"failures,omitempty"`
	// Writes counts the successful file writes recorded.
	Writes uint64 `json:"writes,omitempty"`
}

// Record appends e to the window, runs the built-in patterns and returns
// the alerts, hard ones first. See RecordWith.
func (s *State) Record(e Event, cfg Config) []Finding {
	return s.RecordWith(e, cfg, Builtin())
}

// RecordWith appends e (its Seq is assigned) to the window and runs every
// enabled pattern over it. For each pattern, the predicate's value x (1 if
// the newest event completes it) updates EMA = α·x + (1−α)·EMA. A pattern
// that holds alerts unless it alerted within its cooldown: Cooldown events,
// times CooldownStretch when its last alert was hard and its EMA is still at
// or above HardEMA. An alert is hard when the EMA is at or above HardEMA,
// otherwise soft. Alerts come back hard first, then in pattern order; a
// finding that is no loop (Finding.Asked, Finding.Rollback, Finding.Once) comes last, soft, and leaves the
// pattern's EMA and cooldown as if it had not held.
//
// A config value that Validate would refuse is replaced by its default, and
// a state read from a damaged file is repaired (window trimmed, numbers
// made consistent) rather than refused: the engine must never stop the
// agent.
func (s *State) RecordWith(e Event, cfg Config, patterns []Pattern) []Finding {
	cfg = cfg.sane()
	if n := len(s.Events); n > 0 && s.Events[n-1].Seq > s.Seq {
		s.Seq = s.Events[n-1].Seq
	}
	sat.Inc(&s.Seq)
	e.Seq = s.Seq
	if n := len(s.Events); n >= cfg.Window {
		drop := n - cfg.Window + 1
		for j := range drop {
			s.remember(j)
		}
		copy(s.Events, s.Events[drop:])
		clear(s.Events[n-drop:])
		s.Events = s.Events[:n-drop]
	}
	s.Events = append(s.Events, e)
	if isEdit(&e) {
		sat.Inc(&s.Writes)
	}
	if len(s.Failures) > FailMemory {
		s.Failures = s.Failures[len(s.Failures)-FailMemory:]
	}
	if s.Patterns == nil {
		s.Patterns = make(map[string]PatternState, len(patterns))
	}
	// Names no pattern answers to (a damaged file, a pattern removed):
	// drop them, so the state holds only the patterns' own memory, each
	// EMA kept in [0, 1] by the updates below.
	for name := range s.Patterns {
		if !slices.ContainsFunc(patterns, func(p Pattern) bool { return p.Name() == name }) {
			delete(s.Patterns, name)
		}
	}

	var out, noLoop []Finding
	for _, p := range patterns {
		name := p.Name()
		if !cfg.On(name) {
			continue
		}
		var f Finding
		var hit bool
		if mp, remembers := p.(rememberingPattern); remembers {
			f, hit = mp.CheckRemembering(s.Failures, s.Events, s.Writes, cfg)
		} else {
			f, hit = p.Check(s.Events, cfg)
		}
		ps := s.Patterns[name]
		prev := ps.EMA
		if !(prev >= 0 && prev <= 1) {
			prev = 0
		}
		if hit && (f.Asked || f.Rollback) {
			// Not a loop: reported as it is, after the alerts, the
			// pattern's memory left as if it had not held.
			f.Pattern, f.Seq, f.Severity, f.EMA = name, s.Seq, Soft, prev
			noLoop = append(noLoop, f)
			hit = false
		}
		x := 0.0
		if hit {
			x = 1
		}
		ps.EMA = cfg.Alpha*x + (1-cfg.Alpha)*prev
		if hit && f.Once {
			// The agent's own lone revert: the pattern held, and its EMA
			// says so (a second revert soon after is then hard), but it
			// is reported after the alerts as no loop, with no alert and
			// no cooldown.
			f.Pattern, f.Seq, f.Severity, f.EMA = name, s.Seq, Soft, ps.EMA
			noLoop = append(noLoop, f)
			hit = false
		}
		if hit {
			cooldown := uint64(cfg.Cooldown)
			if ps.LastHard && ps.EMA >= cfg.HardEMA {
				cooldown *= uint64(cfg.CooldownStretch)
			}
			if ps.Last == 0 || ps.Last >= s.Seq || s.Seq-ps.Last > cooldown {
				f.Pattern = name
				f.Seq = s.Seq
				f.EMA = ps.EMA
				f.Severity = Soft
				if ps.EMA >= cfg.HardEMA {
					f.Severity = Hard
				}
				ps.Last = s.Seq
				ps.LastHard = f.Severity == Hard
				sat.Inc(&ps.Alerts)
				out = append(out, f)
			}
		}
		s.Patterns[name] = ps
	}
	if len(out) > 1 {
		slices.SortStableFunc(out, func(a, b Finding) int {
			return rank(a.Severity) - rank(b.Severity)
		})
	}
	return append(out, noLoop...)
}

// remember keeps the window's event j, about to be dropped, in Failures
// when it is a failure; any other event drops the remembered failures of
// its own call (it ran again and did not fail so) and, for a write, those
// of file tools on its file.
func (s *State) remember(j int) {
	d := s.Events[j]
	if _, _, failed := failIdentities(&d); failed {
		later := uint64(0)
		for i := j + 1; i < len(s.Events); i++ {
			if isEdit(&s.Events[i]) {
				later++
			}
		}
		writes := uint64(0)
		if s.Writes > later {
			writes = s.Writes - later
		}
		// What fail-loop reads of a failure; hashes and inputs are dropped.
		kept := Event{Seq: d.Seq, Tool: d.Tool, Target: d.Target, Failed: d.Failed, Error: d.Error, Fail: d.Fail, Call: d.Call, Prompt: d.Prompt, Edits: d.Edits, Batch: d.Batch}
		s.Failures = append(s.Failures, Remembered{Event: kept, Writes: writes})
		if len(s.Failures) > FailMemory {
			s.Failures = s.Failures[1:]
		}
		return
	}
	k, isFile := fileEvent(&d)
	s.Failures = slices.DeleteFunc(s.Failures, func(r Remembered) bool {
		if r.Tool == d.Tool && r.Target == d.Target {
			return true
		}
		rk := KindOf(r.Tool)
		return isFile && k == KindWrite && r.Failed && (rk == KindRead || rk == KindWrite) && r.Target == fileOf(&d)
	})
}

func rank(s Severity) int {
	if s == Hard {
		return 0
	}
	return 1
}
