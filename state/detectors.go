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
