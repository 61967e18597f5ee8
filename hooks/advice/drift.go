package advice

import (
	"fmt"
	"strings"

	"github.com/djinn-cc/djinn/state"
)

// DriftFacts is what the drift advisory is decided and worded from.
type DriftFacts struct {
	Verdict state.Verdict
	// SinceAdvised is the number of tool calls since the last drift
	// advisory, -1 if there was none.
	SinceAdvised int
	// RefocusStreak counts consecutive refocus_moment verdicts.
	RefocusStreak int
	Cooldown      int
	StreakNeeded  int
	// Advised counts drift advisories already given this anchor; Repeated
	// those given since the work was last on task, and OffGoal the
	// off-goal calls in that stretch.
	Advised  int
	Repeated int
	OffGoal  int
	// OffChanges counts the calls of that stretch that changed the work:
	// with none, the agent is only reading around, and nothing is said.
	OffChanges int
	// Diagnosing tells that the task is the search for a failure's cause
	// (drift.Diagnostic): a stretch that only reads is then the diagnosis,
	// however long.
	Diagnosing bool
	AnchorText string
	AnchorHash string
	// Recent names the latest off-goal work (files or words).
	Recent []string
}

// ReadOnlyDrift is how many off-goal calls a stretch that has changed
// nothing takes before drift is said: reading around is orientation, a
// long stretch of it is not.
const ReadOnlyDrift = 8

// DriftDue applies the verdict mapping of the design: real_drift is
// advised; refocus_moment only after StreakNeeded verdicts in a row;
// tolerable_side_quest, on_task, insufficient_data and no_anchor never;
// none while the off-goal stretch has changed nothing (reading around is
// orientation), for ReadOnlyDrift calls, or at all while the task is a
// diagnosis. No drift advisory repeats within Cooldown tool calls.
func DriftDue(f DriftFacts) bool {
	switch f.Verdict.Kind {
	case "real_drift":
	case "refocus_moment":
		if f.RefocusStreak < f.StreakNeeded {
			return false
		}
	default:
		return false
	}
	if f.OffChanges == 0 && (f.OffGoal < ReadOnlyDrift || f.Diagnosing) {
		return false
	}
	return f.SinceAdvised < 0 || f.SinceAdvised >= f.Cooldown
}

// DriftText words a drift advisory: the anchor, the numbers, the evidence,
// one next step.
func DriftText(f DriftFacts) Advisory {
	v := f.Verdict
	nums := map[string]float64{
		"score": v.Score, "threshold": v.Threshold, "n": float64(v.N),
		"mean": v.Mean, "ci_lo": v.CILo, "ci_hi": v.CIHi, "lost": float64(v.Lost), "side": float64(v.Side),
	}
	src := "the default, until 3 past sessions of this kind of task teach a personal one"
	if v.ThresholdSource == "posterior_p10" {
		src = "your usual drift for this kind of task"
	}
	what := "look unrelated to"
	sev := Soft
	if v.Kind == "real_drift" {
		what = "have moved away from"
		if f.Advised > 0 {
			sev = Hard
		}
	}
	evidence := ""
	if len(f.Recent) > 0 {
		q := make([]string, len(f.Recent))
		for i, r := range f.Recent {
			q[i] = Quote(r, 60)
		}
		evidence = " Recent off-goal work: " + strings.Join(q, ", ") + "."
	}
	if f.Repeated > 0 {
		return driftAgain(f, nums, evidence)
	}
	hmmPart := ""
	if v.Tail != "" {
		hmmPart = fmt.Sprintf(" The task-state model labels %d of the last 5 calls lost and %d a side quest.", v.Lost, v.Side)
	}
	ci := fmt.Sprintf("session mean %.2f, 95%% CI %.2f–%.2f, N=%d", v.Mean, v.CILo, v.CIHi, v.N)
	gist := "its recent work looks unrelated to the goal " + Quote(f.AnchorText, 60)
	if v.Kind == "real_drift" {
		gist = "its recent work has moved away from the goal " + Quote(f.AnchorText, 60)
	}
	return withGist(finish(KindDrift, sev, nums,
		"The last tool calls %s the session's goal: %s (anchor %s). Alignment of recent work %.2f, below the on-task threshold %.2f (%s); %s.%s%s Next step: if this work serves the goal, say how in one sentence and carry on; if not, return to the goal. If the user changed the task, they can record it with /djinn:reorient.",
		what, Quote(f.AnchorText, 200), f.AnchorHash, v.Score, v.Threshold, src, ci, hmmPart, evidence), "%s", gist)
}

// driftAgain words the advisory repeated after the cooldown while the work
// stays off the goal: firmer, with the count of off-goal calls.
func driftAgain(f DriftFacts, nums map[string]float64, evidence string) Advisory {
	v := f.Verdict
	nums["off_goal"] = float64(f.OffGoal)
	nums["repeated"] = float64(f.Repeated)
	return withGist(finish(KindDrift, Hard, nums,
		"The work is still away from the session's goal: %s (anchor %s). %s since it last served the goal, after %s already; alignment of recent work %.2f, threshold %.2f.%s Next step: stop and return to the goal now, or say in one sentence why this work is needed for it. If the user changed the task, they can record it with /djinn:reorient.",
		Quote(f.AnchorText, 200), f.AnchorHash, capitalize(plural(f.OffGoal, "off-goal tool call")), plural(f.Repeated, "drift notice"), v.Score, v.Threshold, evidence),
		"its work is still away from the goal %s (%s)", Quote(f.AnchorText, 60), plural(f.OffGoal, "off-goal call"))
}

// capitalize upper-cases the first letter of an ASCII sentence.
func capitalize(s string) string {
	if s != "" && 'a' <= s[0] && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
