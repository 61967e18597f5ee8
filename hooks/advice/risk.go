package advice

// RiskCooldown is the number of tool calls within which the same catalogue
// entry is not advised again.
const RiskCooldown = 20

// RiskFacts describe one risky step: the call, what it does, and the
// catalogue entry it matched.
type RiskFacts struct {
	Call   int    // the call's number
	Tool   string // Bash, Edit…
	Target string // what it acted on (never a secret's value)
	// Entry, Category and What are the catalogue entry's id, category and
	// description ("deletes a directory tree…").
	Entry, Category, What string
	// Failed: the call reported a failure, so the step may have run only
	// in part.
	Failed bool
	// Refused: sudo refused the step for want of a password or a
	// terminal, so nothing of it ran; the attempt is what is said.
	Refused bool
	// FellBack: the echo after the step's || printed, so the step failed
	// and nothing of it happened; the attempt is what is said.
	FellBack bool
}

// RiskDue reports whether an entry last advised at call last (0 = never)
// may be advised again at call now.
func RiskDue(last, now int) bool { return last == 0 || now-last >= RiskCooldown }

// InstructionDue reports whether a broken instruction last advised at call
// last (0 = never) is said at call now. The user's own instruction is said
// once each time they give it: the agent has been told, and each repeat on
// the labelled sessions was idle (3 of 3). A generated file's header
// (generated), one lesson for all such files, is said again after
// RiskCooldown calls.
func InstructionDue(last, now int, generated bool) bool {
	if generated {
		return RiskDue(last, now)
	}
	return last == 0
}

// Risk words a risk advisory: the facts, then one next step.
func Risk(f RiskFacts) Advisory {
	failed := ""
	if f.Failed {
		failed = " The call reported a failure, so the step may have run only in part."
	}
	target := ""
	if f.Target != "" {
		target = " on " + Quote(f.Target, 160)
	}
	if f.Refused {
		// Nothing ran, so there is nothing to undo (ext-omarchy #14,
		// labelled false by both judges when it said "undo it"): what
		// needs the user's say-so is reaching for root at all.
		return withGist(finish(KindRisk, Soft, map[string]float64{"call": float64(f.Call)},
			"Call #%d (%s%s) tried to run a step that %s: catalogue entry %s, %s. sudo refused it for want of a password, so nothing of it ran. No recent user prompt asks for this step or names its target. Next step: do not reach for root again unasked; give the user the command to run themselves, or ask first.",
			f.Call, f.Tool, target, f.What, f.Entry, f.Category),
			"call #%d tried, under sudo, a step that %s, which no prompt asked for", f.Call, Clean(f.What, 100))
	}
	if f.FellBack {
		return withGist(finish(KindRisk, Soft, map[string]float64{"call": float64(f.Call)},
			"Call #%d (%s%s) tried to run a step that %s: catalogue entry %s, %s. It failed (the echo after its || printed), so nothing of it happened. No recent user prompt asks for this step or names its target. Next step: do not try it again unasked; tell the user what it was for and ask first.",
			f.Call, f.Tool, target, f.What, f.Entry, f.Category),
			"call #%d tried a step that %s, which no prompt asked for; it failed", f.Call, Clean(f.What, 100))
	}
	return withGist(finish(KindRisk, Soft, map[string]float64{"call": float64(f.Call)},
		"Call #%d (%s%s) %s: catalogue entry %s, %s. No recent user prompt asks for this step or names its target.%s Next step: tell the user in one sentence what was done and why; if they did not ask for it, undo it or ask before going further.",
		f.Call, f.Tool, target, f.What, f.Entry, f.Category, failed),
		"call #%d %s, which no prompt asked for", f.Call, Clean(f.What, 100))
}
