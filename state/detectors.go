package state

import (
	"slices"
	"time"
)

// Detectors are the detectors a session can switch off one by one;
// Window.Disabled holds some of them, or "all".
func Detectors() []string { return []string{"drift", "loops", "stall", "pressure", "compress"} }

// ValidDetector reports whether name is "all" or a detector.
func ValidDetector(name string) bool { return name == "all" || slices.Contains(Detectors(), name) }

// NewWindow is the window of a session Djinn has no state for yet.
func NewWindow(id string, now time.Time) Window {
	return Window{SchemaVersion: SchemaVersion, SessionID: id, CreatedAt: now, Events: map[string]int{}}
}

// SwitchDetector is a session's disabled list after turning a detector
// ("all" for every one) off or on: sorted, without repeats. Enabling "all"
// clears the list. The CLI's disable/enable and the /djinn:disable and
// /djinn:enable prompts share it.
func SwitchDetector(disabled []string, detector string, off bool) []string {
	out := slices.Clone(disabled)
	switch {
	case off:
		out = append(out, detector)
	case detector == "all":
		out = nil
	default:
		out = slices.DeleteFunc(out, func(d string) bool { return d == detector })
	}
	slices.Sort(out)
	return slices.Compact(out)
}
