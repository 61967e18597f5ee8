package compress

import (
	"errors"
	"fmt"
)

// MinCap is the smallest cap Validate accepts. Below it a marker would take a
// large share of what is left, and Compress raises smaller caps to it.
const MinCap = 1000

// Config holds the compressor's settings. Counts are characters (runes).
type Config struct {
	// Cap is the most characters a tool output may keep (seed: 200,000).
	Cap int `json:"cap"`
	// SnapshotThreshold: page snapshots longer than this are cut to head
	// and tail (seed: 20,000).
	SnapshotThreshold int `json:"snapshot_threshold"`
	// SnapshotDesired is the target size of a shortened snapshot, before
	// min(cap, ·) (seed: 16,000).
	SnapshotDesired int `json:"snapshot_desired"`
	// HeadShare is the head's share of the snapshot budget (seed: 0.7).
	HeadShare float64 `json:"head_share"`
	// HeadMin and HeadMax clamp the head (seed: 500 and 10,000).
	HeadMin int `json:"head_min"`
	HeadMax int `json:"head_max"`
	// TailMax bounds the tail (seed: 3,000).
	TailMax int `json:"tail_max"`
	// Base64Min is the shortest bare base64 run that is cut (no seed value;
	// 1,000 keeps hashes, keys and ids, which are far shorter).
	Base64Min int `json:"base64_min"`
}

// DefaultConfig returns the seed's settings.
func DefaultConfig() Config {
	return Config{
		Cap:               200_000,
		SnapshotThreshold: 20_000,
		SnapshotDesired:   16_000,
		HeadShare:         0.7,
		HeadMin:           500,
		HeadMax:           10_000,
		TailMax:           3_000,
		Base64Min:         1_000,
	}
}

// Validate reports every bad setting, naming its JSON key.
func (c Config) Validate() error {
	var errs []error
	bad := func(key string, v any, want string) {
		errs = append(errs, fmt.Errorf("compress: %s is %v, want %s", key, v, want))
	}
	if c.Cap < MinCap {
		bad("cap", c.Cap, fmt.Sprintf("at least %d", MinCap))
	}
	if c.SnapshotThreshold < 1 {
		bad("snapshot_threshold", c.SnapshotThreshold, "at least 1")
	}
	// A shortened snapshot must not count as a snapshot over the threshold
	// again, or compressing twice would cut twice.
	if c.SnapshotDesired < 1 || c.SnapshotDesired > c.SnapshotThreshold {
		bad("snapshot_desired", c.SnapshotDesired, "between 1 and snapshot_threshold")
	}
	if !(c.HeadShare > 0 && c.HeadShare <= 1) {
		bad("head_share", c.HeadShare, "in (0, 1]")
	}
	if c.HeadMin < 0 {
		bad("head_min", c.HeadMin, "at least 0")
	}
	if c.HeadMax < c.HeadMin {
		bad("head_max", c.HeadMax, "at least head_min")
	}
	if c.TailMax < 0 {
		bad("tail_max", c.TailMax, "at least 0")
	}
	// Shorter runs would be replaced by a marker about as long as they are.
	if c.Base64Min < 100 {
		bad("base64_min", c.Base64Min, "at least 100")
	}
	return errors.Join(errs...)
}

// sanitized replaces every invalid setting with its default, so that Compress
// keeps its guarantees whatever it is handed; callers that want to report bad
// settings call Validate first.
func (c Config) sanitized() Config {
	d := DefaultConfig()
	if c.Cap < MinCap {
		c.Cap = MinCap
	}
	if c.SnapshotThreshold < 1 {
		c.SnapshotThreshold = d.SnapshotThreshold
	}
	if c.SnapshotDesired < 1 || c.SnapshotDesired > c.SnapshotThreshold {
		c.SnapshotDesired = min(d.SnapshotDesired, c.SnapshotThreshold)
	}
	if !(c.HeadShare > 0 && c.HeadShare <= 1) {
		c.HeadShare = d.HeadShare
	}
	if c.HeadMin < 0 {
		c.HeadMin = d.HeadMin
	}
	if c.HeadMax < c.HeadMin {
		c.HeadMax = max(d.HeadMax, c.HeadMin)
	}
	if c.TailMax < 0 {
		c.TailMax = d.TailMax
	}
	if c.Base64Min < 100 {
		c.Base64Min = d.Base64Min
	}
	return c
}
