package pressure

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestObserve: each tier is announced once as it is crossed going up,
// re-armed once the context falls RearmDrop below it, and the highest of
// several crossed at once is the one returned.
func TestObserve(t *testing.T) {
	c := DefaultConfig()
	const m = "claude-sonnet-4-5-20250929" // a 200,000-token window
	var s State
	for _, step := range []struct {
		tokens int64
		want   int
	}{
		{70_000, -1},  // 0.35
		{80_000, 0},   // 0.40: tier 1
		{90_000, -1},  // still above, already announced
		{71_000, -1},  // 0.355: within rearm_drop of 0.40, not re-armed
		{80_000, -1},  // so not announced again
		{69_000, -1},  // 0.345: re-armed
		{80_000, 0},   // announced again
		{150_000, 2},  // 0.75: tiers 2 and 3 at once, the highest returned
		{150_000, -1}, // nothing new
	} {
		if got := s.Observe(step.tokens, m, c, firstParty); got != step.want {
			t.Fatalf("Observe(%d) = %d, want %d (state %+v)", step.tokens, got, step.want, s)
		}
	}
	if diff := cmp.Diff([]bool{true, true, true}, s.Announced); diff != "" {
		t.Errorf("announced (-want +got):\n%s", diff)
	}
	// A compaction that leaves the context as full says nothing new; one
	// that brings it down re-arms the tiers it fell below.
	s.Pending = 3
	s.Compacted()
	if !s.Stale || !s.Announced[2] || s.Pending != 0 {
		t.Errorf("after Compacted: %+v", s)
	}
	if got := s.Observe(150_000, "", c, firstParty); got != -1 || s.Stale {
		t.Errorf("after Compacted at 75%%, Observe = %d (stale %v), want -1", got, s.Stale)
	}
	// From 75 % to 48 %: every tier is re-armed, so tier 1 (40 %), under
	// which the context never fell, is said at once.
	s.Compacted()
	if got := s.Observe(96_000, "", c, firstParty); got != 0 || s.Announced[1] || s.Announced[2] {
		t.Errorf("after Compacted to 48%%, Observe = %d (announced %v), want 0 and tiers 2 and 3 re-armed", got, s.Announced)
	}
	if got := s.Observe(150_000, "", c, firstParty); got != 2 {
		t.Errorf("climbing back to 75%%, Observe = %d, want 2", got)
	}
	// From 75 % to 72 %, less than RearmDrop: nothing re-armed.
	s.Compacted()
	if got := s.Observe(144_000, "", c, firstParty); got != -1 {
		t.Errorf("after Compacted to 72%%, Observe = %d, want -1", got)
	}
}

// TestCrossesLeavesState: Crosses answers as Observe would, on a copy.
func TestCrossesLeavesState(t *testing.T) {
	c := DefaultConfig()
	s := State{Announced: []bool{true, false, false}, Peak: 90_000, Model: "claude-opus-4-1-20250805"}
	before := State{Announced: []bool{true, false, false}, Peak: 90_000, Model: "claude-opus-4-1-20250805"}
	if !s.Crosses(120_000, "", c, firstParty) || s.Crosses(85_000, "", c, firstParty) {
		t.Error("Crosses disagrees with Observe")
	}
	if diff := cmp.Diff(before, s); diff != "" {
		t.Errorf("Crosses changed the state (-before +after):\n%s", diff)
	}
}

func TestTakePending(t *testing.T) {
	c := DefaultConfig()
	for _, tc := range []struct {
		name string
		s    State
		tier int
		ok   bool
	}{
		{"none", State{Announced: []bool{true, false, false}}, 0, false},
		{"pending", State{Announced: []bool{true, true, false}, Pending: 2}, 1, true},
		{"re-armed meanwhile", State{Announced: []bool{false, false, false}, Pending: 1}, 0, false},
		{"beyond the tiers", State{Announced: []bool{true, true, true}, Pending: 9}, 0, false},
	} {
		s := tc.s
		tier, ok := s.TakePending(c)
		if tier != tc.tier || ok != tc.ok || s.Pending != 0 {
			t.Errorf("%s: TakePending = %d, %v (pending %d), want %d, %v", tc.name, tier, ok, s.Pending, tc.tier, tc.ok)
		}
	}
}
