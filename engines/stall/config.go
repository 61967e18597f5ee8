package stall

import (
	"errors"
	"fmt"

	"github.com/djinn-cc/djinn/engines/entropy"
)

// Config holds every threshold of the detector. The entropy fields keep the
// seed's defaults (seed 000 §3–7); the others are this package's, chosen by
// measurement (docs/stall-eval.md). JSON names are the settings keys.
type Config struct {
	// Seed 000's entropy window and its two triggers.
	Window        int     `json:"window"`         // N, runes in the entropy window (64)
	K             int     `json:"k"`              // updates spanned by dH = H_t − H_{t−K} (8)
	MinEntropy    float64 `json:"min_entropy"`    // absolute trigger: H < MinEntropy (1.5 bits)
	DropThreshold float64 `json:"drop_threshold"` // cliff trigger: dH < −DropThreshold (0.3 bits)
	WarmUp        int     `json:"warm_up"`        // runes in the window before a trigger counts (min(N, 16))

	// Confirmation of an entropy trigger: the text since the trigger's run
	// began must repeat a unit of at most ConfirmMaxPeriod runes, containing
	// a letter, over at least ConfirmMinRunes runes.
	ConfirmMaxPeriod int `json:"confirm_max_period"`
	ConfirmMinRunes  int `json:"confirm_min_runes"`

	// The repetition (chanting) rule: a unit of at most MaxPeriod runes
	// repeated back to back, at least MinRepeats times and over at least
	// MinRunes runes.
	MaxPeriod  int `json:"max_period"`
	MinRepeats int `json:"min_repeats"`
	MinRunes   int `json:"min_runes"`

	// MaxBytes bounds the work on huge messages: only the last MaxBytes
	// bytes are examined (from the first line start within them); the part
	// before is only scanned for code fences. 0 examines everything.
	MaxBytes int `json:"max_bytes"`
}

// DefaultConfig returns the seed's entropy defaults and the measured
// defaults of the confirmation and repetition rules.
func DefaultConfig() Config {
	return Config{
		Window:           entropy.DefaultSize,
		K:                entropy.DefaultLag,
		MinEntropy:       1.5,
		DropThreshold:    0.3,
		WarmUp:           entropy.DefaultWarmUp(entropy.DefaultSize),
		ConfirmMaxPeriod: 8,
		ConfirmMinRunes:  48,
		MaxPeriod:        512,
		MinRepeats:       4,
		MinRunes:         192,
		MaxBytes:         64 << 10,
	}
}

// ErrConfig is wrapped by every error Validate returns.
var ErrConfig = errors.New("invalid stall detector setting")

// maxPeriodLimit bounds MaxPeriod, and with it the detector's buffers.
const maxPeriodLimit = 1 << 14

// minConfirm is the shortest confirmation allowed: two periods, and a
// period plus the chunk the detector hashes to find it, so that any run
// long enough to confirm is also long enough to be found.
func minConfirm(period int) int { return max(2*period, period+chunk) }

// Validate reports the first setting that is out of range, by its JSON name.
func (c Config) Validate() error {
	bad := func(key string, v any, want string) error {
		return fmt.Errorf("%s = %v: want %s: %w", key, v, want, ErrConfig)
	}
	switch {
	case c.Window < 1 || c.Window > entropy.MaxSize:
		return bad("window", c.Window, fmt.Sprintf("1..%d", entropy.MaxSize))
	case c.K < 1:
		return bad("k", c.K, "at least 1")
	case c.MinEntropy < 0:
		return bad("min_entropy", c.MinEntropy, "at least 0")
	case c.DropThreshold < 0:
		return bad("drop_threshold", c.DropThreshold, "at least 0")
	case c.WarmUp < 1 || c.WarmUp > c.Window:
		return bad("warm_up", c.WarmUp, fmt.Sprintf("1..window (%d)", c.Window))
	case c.MaxPeriod < 1 || c.MaxPeriod > maxPeriodLimit:
		return bad("max_period", c.MaxPeriod, fmt.Sprintf("1..%d", maxPeriodLimit))
	case c.ConfirmMaxPeriod < 1 || c.ConfirmMaxPeriod > c.MaxPeriod:
		return bad("confirm_max_period", c.ConfirmMaxPeriod, fmt.Sprintf("1..max_period (%d)", c.MaxPeriod))
	case c.ConfirmMinRunes < minConfirm(c.ConfirmMaxPeriod) || c.ConfirmMinRunes > 1<<16:
		return bad("confirm_min_runes", c.ConfirmMinRunes, fmt.Sprintf("%d..65536", minConfirm(c.ConfirmMaxPeriod)))
	case c.MinRepeats < 2 || c.MinRepeats > 64:
		return bad("min_repeats", c.MinRepeats, "2..64")
	case c.MinRunes < 2*chunk || c.MinRunes > 1<<16:
		return bad("min_runes", c.MinRunes, fmt.Sprintf("%d..65536", 2*chunk))
	case c.MaxBytes < 0:
		return bad("max_bytes", c.MaxBytes, "at least 0 (0 examines the whole message)")
	}
	return nil
}
