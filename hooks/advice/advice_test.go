package advice

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/engines/loops"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// TestDriftDue is the verdict mapping of the design: real_drift is advised,
// refocus_moment only after the streak, tolerable_side_quest,
// insufficient_data, on_task and no_anchor never; nothing within the
// cooldown; nothing while the off-goal stretch has only looked around,
// unless it is ReadOnlyDrift calls long.
func TestDriftDue(t *testing.T) {
	for _, tc := range []struct {
		kind             string
		streak, since    int
		offGoal, changes int
		diagnosing       bool
		want             bool
	}{
		{"real_drift", 0, -1, 3, 1, false, true},
		{"real_drift", 0, 15, 3, 1, false, true},
		{"real_drift", 0, 14, 3, 1, false, false},
		{"real_drift", 0, -1, 3, 0, false, false},
		{"real_drift", 0, -1, ReadOnlyDrift - 1, 0, false, false},
		{"real_drift", 0, -1, ReadOnlyDrift, 0, false, true},
		{"refocus_moment", 2, -1, 3, 1, false, false},
		{"refocus_moment", 3, -1, 3, 1, false, true},
		{"refocus_moment", 3, -1, 3, 0, false, false},
		{"refocus_moment", 3, 3, 3, 1, false, false},
		{"tolerable_side_quest", 9, -1, 9, 9, false, false},
		{"on_task", 0, -1, 0, 0, false, false},
		{"insufficient_data", 0, -1, 9, 9, false, false},
		{"no_anchor", 0, -1, 9, 9, false, false},
		// A diagnosis reads where the failure leads: reading alone is
		// never drift then, work of its own still is.
		{"real_drift", 0, -1, 40, 0, true, false},
		{"real_drift", 0, -1, 40, 1, true, true},
	} {
		f := DriftFacts{Verdict: state.Verdict{Kind: tc.kind}, RefocusStreak: tc.streak, SinceAdvised: tc.since, Cooldown: 15, StreakNeeded: 3,
			OffGoal: tc.offGoal, OffChanges: tc.changes, Diagnosing: tc.diagnosing}
		if got := DriftDue(f); got != tc.want {
			t.Errorf("%s streak %d since %d off-goal %d changing %d: due=%v, want %v", tc.kind, tc.streak, tc.since, tc.offGoal, tc.changes, got, tc.want)
		}
	}
}

func TestOrderMostSevereFirst(t *testing.T) {
	advs := []Advisory{
		{Kind: KindPressure, Severity: Info},
		{Kind: KindDrift, Severity: Soft},
		{Kind: KindReadLoop, Severity: Hard},
		{Kind: KindFailLoop, Severity: Soft},
	}
	Order(advs)
	var got []string
	for _, a := range advs {
		got = append(got, a.Kind)
	}
	if want := "read-loop fail-loop drift pressure"; strings.Join(got, " ") != want {
		t.Fatalf("order %v, want %s", got, want)
	}
}

// TestEveryAdvisoryTaggedAndBounded: each wording starts with its tag, is
// under MaxChars however long its inputs, and names a next step.
func TestEveryAdvisoryTaggedAndBounded(t *testing.T) {
	long := strings.Repeat("very/long/path/segment/", 500)
	advs := []Advisory{
		Loop(loops.Finding{Pattern: loops.ReadLoop, Target: long, Count: 3, Events: []uint64{1, 2, 3}}, LoopContext{}),
		Loop(loops.Finding{Pattern: loops.EditRevert, Target: long, Count: 1, RevertTo: 2}, LoopContext{}),
		Loop(loops.Finding{Pattern: loops.FailLoop, Target: long, Count: 3, Fingerprint: long}, LoopContext{ErrorText: long}),
		Loop(loops.Finding{Pattern: loops.ToolLoop, Tool: "Grep", Target: long, Count: 3, Cycle: 2, Steps: []loops.Step{{Tool: "Read", Target: long}, {Tool: "Grep", Target: long}}}, LoopContext{}),
		DriftText(DriftFacts{Verdict: state.Verdict{Kind: "real_drift", N: 32}, AnchorText: long, Recent: []string{long, long}}),
		Pressure(PressureFacts{Tokens: 150000, Limit: 200000, Share: 0.75, Tier: 3, Tiers: 3, TierShare: 0.7, Top: true, Compact: CompactLine(long, []string{long}, []string{long}), ToolChars: 5, Biggest: []Output{{1, long, 9}}}),
		StallRollback(StallFacts{Unit: long, Before: long, Rule: "repetition", Period: 40, Repeats: 9, Max: 3, Rollbacks: 1}),
		Compacted(CompactedFacts{Target: long, Cuts: long, Saved: "/x"}),
	}
	for _, a := range advs {
		if !strings.HasPrefix(a.Text, Tag(a.Kind)+" ") {
			t.Errorf("%s: not tagged: %.60s", a.Kind, a.Text)
		}
		if n := utf8.RuneCountInString(a.Text); n > MaxChars {
			t.Errorf("%s: %d characters", a.Kind, n)
		}
		if a.Kind != KindCompacted && !strings.Contains(a.Text, "Next step") && !strings.Contains(a.Text, "Continue from") && !strings.Contains(a.Text, "Start the answer again") {
			t.Errorf("%s: no next step: %.200s", a.Kind, a.Text)
		}
	}
}

// TestEveryKindHasAMode: each advisory kind has its own mode setting (an
// unknown kind would be advised whatever the settings say).
func TestEveryKindHasAMode(t *testing.T) {
	var a settings.Advisories
	a.SetAll(settings.Off)
	for _, k := range []string{KindDrift, KindReadLoop, KindEditRevert, KindFailLoop, KindToolLoop, KindStall, KindPressure, KindReanchor, KindCompacted, KindRisk, KindRepeatComplaint} {
		if m := a.Mode(k); m != settings.Off {
			t.Errorf("kind %q has no mode setting", k)
		}
	}
}

// TestCompactLineNoDoubledStop: a goal that ends its sentence is quoted,
// so the /compact line never reads "first ready task.." (issue 15,
// finding 6).
func TestCompactLineNoDoubledStop(t *testing.T) {
	got := CompactLine("Start with the first ready task.", []string{"Keep the API."}, []string{"lib/a.ex"})
	if strings.Contains(got, "..") {
		t.Errorf("CompactLine = %q: a doubled full stop", got)
	}
	if want := `Keep the goal: "Start with the first ready task."`; !strings.Contains(got, want) {
		t.Errorf("CompactLine = %q, want it to hold %q", got, want)
	}
}

// TestToolLoopFamily: only the same call made again with the same result
// (respelled or not) is of the family with its own mode
// (advisories.tool_loop_repeat); the kind's other variants are not.
func TestToolLoopFamily(t *testing.T) {
	two := []loops.Step{{Tool: "Bash", Target: "a"}, {Tool: "Bash", Target: "b"}}
	for _, tc := range []struct {
		name string
		f    loops.Finding
		want string
	}{
		{"same call", loops.Finding{Count: 3, Cycle: 1}, FamilyToolLoopRepeat},
		{"same call respelled", loops.Finding{Count: 3, Cycle: 1, Respelled: true}, FamilyToolLoopRepeat},
		{"cycle", loops.Finding{Count: 2, Cycle: 2, Steps: two}, ""},
		{"empty output", loops.Finding{Count: 3, Cycle: 1, Empty: true}, ""},
		{"different commands, same output", loops.Finding{Count: 3, SameOutput: true, Steps: two}, ""},
		{"rerun through filters", loops.Finding{Count: 3, Rerun: true}, ""},
		{"poll", loops.Finding{Count: 3, Cycle: 1, Polled: true}, ""},
		{"looked at an empty file", loops.Finding{Count: 3, Looked: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f
			f.Pattern, f.Tool, f.Target = loops.ToolLoop, "Bash", "kubectl get pods"
			a := Loop(f, LoopContext{})
			if a.Kind != KindToolLoop {
				t.Fatalf("kind %q, want %q", a.Kind, KindToolLoop)
			}
			if a.Family != tc.want {
				t.Errorf("family %q, want %q; text %s", a.Family, tc.want, a.Text)
			}
		})
	}
}
