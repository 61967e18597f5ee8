package loops

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Config holds every threshold of the engine; DefaultConfig gives seed 002's
// values.
type Config struct {
	// Window is the number of events kept per agent (seed: 20).
	Window int `json:"window"`
	// Alpha is the EMA smoothing factor (seed: 0.3).
	Alpha float64 `json:"alpha"`
	// Cooldown is the number of events after a pattern's alert during which
	// that pattern stays quiet (seed: 5).
	Cooldown int `json:"cooldown"`
	// CooldownStretch multiplies the cooldown after a hard alert while the
	// pattern's EMA stays at or above HardEMA (2).
	CooldownStretch int `json:"cooldown_stretch"`
	// HardEMA is the EMA at or above which an alert is hard (seed: 0.5).
	HardEMA float64 `json:"hard_ema"`
	// ReadThreshold is the number of reads of one file and range without a
	// change that makes a read-loop (seed: 3).
	ReadThreshold int `json:"read_threshold"`
	// FailThreshold is the number of same-error failures in a row that make
	// a fail-loop (seed: 3).
	FailThreshold int `json:"fail_threshold"`
	// ToolRepeats is how many times running an identical call or a cycle must
	// occur to make a tool-loop (3).
	ToolRepeats int `json:"tool_repeats"`
	// CycleMin and CycleMax bound the cycle lengths tool-loop looks for
	// besides identical calls (2 and 5). ToolRepeats·CycleMax should not
	// exceed Window, or the longest cycles can never be seen.
	CycleMin int `json:"cycle_min"`
	CycleMax int `json:"cycle_max"`
	// ExemptTools are tools tool-loop never reports: they exist to wait on
	// background work, so repeating them with the same answer is the point.
	ExemptTools []string `json:"exempt_tools"`
	// ExemptCommands are first words of shell commands tool-loop does not
	// report in a cycle ("sleep": waiting is not looping); the same one
	// made ToolRepeats times running with the same answer, it does (a
	// poll that waited each time and saw nothing move).
	ExemptCommands []string `json:"exempt_commands"`
	// ExemptRepeats is how many times running an exempt call (polling a
	// background job) must return the same answer before it is a
	// tool-loop after all: waiting is the point, polling that never
	// changes is not (4; 0: never).
	ExemptRepeats int `json:"exempt_repeats"`
	// Enabled switches patterns on or off by name; a pattern missing from the
	// map is on.
	Enabled map[string]bool `json:"enabled"`
}

// DefaultConfig returns seed 002's settings with all built-in patterns on.
func DefaultConfig() Config {
	return Config{
		Window:          20,
		Alpha:           0.3,
		Cooldown:        5,
		CooldownStretch: 2,
		HardEMA:         0.5,
		ReadThreshold:   3,
		FailThreshold:   3,
		ToolRepeats:     3,
		CycleMin:        2,
		CycleMax:        5,
		ExemptTools:     []string{"BashOutput", "TaskOutput"},
		ExemptCommands:  []string{"sleep"},
		ExemptRepeats:   4,
		Enabled: map[string]bool{
			ReadLoop:   true,
			EditRevert: true,
			FailLoop:   true,
			ToolLoop:   true,
		},
	}
}

// MaxWindow bounds Window, so that a state file stays small whatever the
// settings say.
const MaxWindow = 256

// maxCooldown caps Cooldown and CooldownStretch inside Record, so that their
// product cannot overflow; a million events is "never again" in practice.
const maxCooldown = 1 << 20

// ErrConfig is wrapped by every error Validate returns.
var ErrConfig = errors.New("invalid loops config")

// Validate reports the first bad setting by its JSON key. Record never fails
// on a bad config: it uses the default for any value Validate would refuse.
func (c Config) Validate() error {
	bad := func(key string, v any, want string) error {
		return fmt.Errorf("%w: %s = %v, want %s", ErrConfig, key, v, want)
	}
	switch {
	case c.Window < 2 || c.Window > MaxWindow:
		return bad("window", c.Window, fmt.Sprintf("2..%d", MaxWindow))
	case !(c.Alpha > 0 && c.Alpha <= 1):
		return bad("alpha", c.Alpha, "in (0, 1]")
	case c.Cooldown < 0:
		return bad("cooldown", c.Cooldown, ">= 0")
	case c.CooldownStretch < 1:
		return bad("cooldown_stretch", c.CooldownStretch, ">= 1")
	case !(c.HardEMA >= 0 && c.HardEMA <= 1):
		return bad("hard_ema", c.HardEMA, "in [0, 1]")
	case c.ReadThreshold < 2:
		return bad("read_threshold", c.ReadThreshold, ">= 2")
	case c.FailThreshold < 2:
		return bad("fail_threshold", c.FailThreshold, ">= 2")
	case c.ToolRepeats < 2:
		return bad("tool_repeats", c.ToolRepeats, ">= 2")
	case c.CycleMin < 2:
		return bad("cycle_min", c.CycleMin, ">= 2")
	case c.CycleMax < c.CycleMin-1:
		return bad("cycle_max", c.CycleMax, fmt.Sprintf(">= cycle_min-1 (%d)", c.CycleMin-1))
	case c.ToolRepeats*c.CycleMax > c.Window:
		return bad("cycle_max", c.CycleMax, fmt.Sprintf("tool_repeats × cycle_max <= window (%d)", c.Window))
	case c.ExemptRepeats != 0 && c.ExemptRepeats < c.ToolRepeats:
		return bad("exempt_repeats", c.ExemptRepeats, fmt.Sprintf("0 or >= tool_repeats (%d)", c.ToolRepeats))
	}
	known := []string{ReadLoop, EditRevert, FailLoop, ToolLoop}
	for name := range c.Enabled {
		if !slices.Contains(known, name) {
			return bad("enabled."+name, c.Enabled[name], "one of "+fmt.Sprint(known))
		}
	}
	return nil
}

// On reports whether the pattern called name is enabled.
func (c Config) On(name string) bool {
	on, ok := c.Enabled[name]
	return on || !ok
}

// sane returns c with every value Validate would refuse replaced by its
// default, field by field, so one bad setting does not disable the rest.
func (c Config) sane() Config {
	d := DefaultConfig()
	if c.Window < 2 || c.Window > MaxWindow {
		c.Window = d.Window
	}
	if !(c.Alpha > 0 && c.Alpha <= 1) {
		c.Alpha = d.Alpha
	}
	if c.Cooldown < 0 {
		c.Cooldown = d.Cooldown
	}
	c.Cooldown = min(c.Cooldown, maxCooldown)
	if c.CooldownStretch < 1 {
		c.CooldownStretch = d.CooldownStretch
	}
	c.CooldownStretch = min(c.CooldownStretch, maxCooldown)
	if !(c.HardEMA >= 0 && c.HardEMA <= 1) || math.IsNaN(c.HardEMA) {
		c.HardEMA = d.HardEMA
	}
	if c.ReadThreshold < 2 {
		c.ReadThreshold = d.ReadThreshold
	}
	if c.FailThreshold < 2 {
		c.FailThreshold = d.FailThreshold
	}
	if c.ToolRepeats < 2 {
		c.ToolRepeats = d.ToolRepeats
	}
	if c.CycleMin < 2 {
		c.CycleMin = d.CycleMin
	}
	if c.CycleMax > MaxWindow {
		c.CycleMax = MaxWindow
	}
	if c.ExemptRepeats != 0 && c.ExemptRepeats < c.ToolRepeats {
		c.ExemptRepeats = max(d.ExemptRepeats, c.ToolRepeats)
	}
	return c
}
