package hooks

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Detectors are the names the per-session switch accepts.
var Detectors = []string{"drift", "loops", "stall", "pressure", "compress"}

// ValidDetector reports whether name is "all" or a detector.
func ValidDetector(name string) bool {
	if name == "all" {
		return true
	}
	for _, d := range Detectors {
		if d == name {
			return true
		}
	}
	return false
}

// SetDisabled turns a detector ("all" for every one) off or on for one
// session and returns the session's disabled list as text.
func SetDisabled(ctx context.Context, env *Env, id, detector string, off bool) (string, error) {
	if !ValidDetector(detector) {
		return "", fmt.Errorf("unknown detector %q (one of: all, %s)", detector, strings.Join(Detectors, ", "))
	}
	s, lock, err := openSession(ctx, env, id)
	if err != nil {
		return "", err
	}
	defer func() { _ = lock.Unlock() }()
	set := map[string]bool{}
	for _, d := range s.w.Disabled {
		set[d] = true
	}
	if off {
		set[detector] = true
	} else if detector == "all" {
		set = map[string]bool{}
	} else {
		delete(set, detector)
	}
	s.w.Disabled = s.w.Disabled[:0]
	for d := range set {
		s.w.Disabled = append(s.w.Disabled, d)
	}
	sort.Strings(s.w.Disabled)
	if err := s.save(); err != nil {
		return "", err
	}
	if len(s.w.Disabled) == 0 {
		return "none", nil
	}
	return strings.Join(s.w.Disabled, ", "), nil
}
