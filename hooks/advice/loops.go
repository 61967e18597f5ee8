package advice

import (
	"fmt"
	"strings"

	"github.com/djinn-cc/djinn/engines/loops"
)

// LoopContext is what the loop advisories need besides the finding.
type LoopContext struct {
	// Agent is "" for the main agent, else the subagent's id.
	Agent string
	// Display shortens a target for text (project-relative paths).
	Display func(string) string
	// ErrorText is the latest failure's error, quoted in a fail-loop (the
	// finding holds only its fingerprint).
	ErrorText string
}

func (c LoopContext) show(s string) string {
	if c.Display != nil {
		s = c.Display(s)
	}
	return Quote(s, 120)
}

// nextSteps are each loop pattern's next step: soft, then hard.
var nextSteps = map[string][2]string{
	loops.ReadLoop: {
		"work from the content already read: quote the part you need, or Grep for the specific symbol instead of reading the whole file again.",
		"stop re-reading it; write down what you are looking for in it, then use Grep or a narrower offset/limit to get exactly that.",
	},
	loops.EditRevert: {
		"decide which version is right and say why in one sentence before editing this file again.",
		"the edits are oscillating; stop editing this file, compare the two versions side by side, and commit to one approach (or ask the user which one they want).",
	},
	loops.FailLoop: {
		"read the error text itself and change the code or the command before running it again.",
		"retrying has not worked; investigate the cause (read the failing file or the error's first frame) or ask the user, instead of running the same command again.",
	},
	loops.ToolLoop: {
		"use the result you already have; if you are waiting for something to change, say what and check something else meanwhile.",
		"these calls are not making progress; try a different approach or ask the user.",
	},
}

// Loop words a loop finding of the pattern engine. Soft findings state the
// loop and a next step; hard ones (the pattern is chronic: EMA ≥ 0.5) say so
// and ask for a different approach.
func Loop(f loops.Finding, c LoopContext) Advisory {
	nums := map[string]float64{"count": float64(f.Count), "ema": round2(f.EMA), "event": float64(f.Seq)}
	sev := Soft
	if f.Severity == loops.Hard {
		sev = Hard
	}
	who := ""
	if c.Agent != "" {
		who = " (subagent " + Quote(c.Agent, 40) + ")"
	}
	chronic := ""
	if sev == Hard {
		chronic = fmt.Sprintf(" This loop keeps coming back (pattern EMA %.2f ≥ 0.5).", f.EMA)
	}
	next := nextSteps[f.Pattern][0]
	if sev == Hard {
		next = nextSteps[f.Pattern][1]
	}
	target := c.show(f.Target)
	switch f.Pattern {
	case loops.ReadLoop:
		rng := ""
		if f.Range != "" {
			rng = " (" + Clean(f.Range, 40) + ")"
		}
		since := "in the last 20 tool calls"
		if f.Since > 0 {
			since = fmt.Sprintf("since it last changed at call #%d", f.Since)
		}
		return finish(KindReadLoop, sev, nums, "%s%s was read %s %s%s, unchanged each time (calls %s).%s Next step: %s",
			target, rng, plural(f.Count, "time"), since, who, callList(f.Events), chronic, next)
	case loops.EditRevert:
		what := fmt.Sprintf("the content it had at call #%d", f.RevertTo)
		if f.FromBefore {
			what = fmt.Sprintf("the content it had before the edit at call #%d", f.RevertTo)
		}
		if f.Original {
			what += " (its original content in this window)"
		}
		undone := ""
		if f.Undone > 0 {
			undone = fmt.Sprintf(", undoing %s", plural(f.Undone, "edit"))
		}
		return finish(KindEditRevert, sev, nums, "The write at call #%d returned %s to %s%s%s.%s Next step: %s",
			f.Seq, target, what, undone, who, chronic, next)
	case loops.FailLoop:
		fp := Quote(firstLine(f.Fingerprint), 160)
		if t := strings.TrimSpace(c.ErrorText); t != "" {
			fp = Quote(lastMeaningfulLine(t), 160)
		}
		changed := "with no edit in between"
		if f.Edits > 0 {
			changed = fmt.Sprintf("although %s were made in between, none touched the cause", plural(f.Edits, "edit"))
		}
		return finish(KindFailLoop, sev, nums, "%s failed %s in a row with the same error (calls %s), %s%s. The error: %s.%s Next step: %s",
			target, plural(f.Count, "time"), callList(f.Events), changed, who, fp, chronic, next)
	case loops.ToolLoop:
		var what string
		if f.Cycle <= 1 {
			what = fmt.Sprintf("The same %s call on %s was made %s running with the same result", Clean(f.Tool, 80), target, plural(f.Count, "time"))
		} else {
			steps := make([]string, len(f.Steps))
			for i, s := range f.Steps {
				steps[i] = Clean(s.Tool, 80) + " " + c.show(s.Target)
			}
			what = fmt.Sprintf("The cycle of %d calls (%s) repeated %s with the same results", f.Cycle, strings.Join(steps, " → "), plural(f.Count, "time"))
		}
		return finish(KindToolLoop, sev, nums, "%s (calls %s)%s.%s Next step: %s", what, callList(f.Events), who, chronic, next)
	}
	return finish(f.Pattern, sev, nums, "%s on %s, %s%s.%s", f.Pattern, target, plural(f.Count, "time"), who, chronic)
}

// lastMeaningfulLine picks the line of an error worth quoting: the first
// that is not just an exit code.
func lastMeaningfulLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "Exit code") {
			return l
		}
	}
	return firstLine(s)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// isLoopKind reports whether kind is one of the loop patterns' advisories.
func isLoopKind(kind string) bool {
	switch kind {
	case KindReadLoop, KindEditRevert, KindFailLoop, KindToolLoop:
		return true
	}
	return false
}

// LoopBlock decides whether a tool call is answered with decision "block".
// With blocking on (loops.block, and an event that can block), the first
// hard loop among advs is the block's reason, shown next to the tool
// result, and is left out of the rest so it is said once. ok is false, and
// rest is advs, when nothing blocks.
func LoopBlock(advs []Advisory, blockOn bool) (block Advisory, rest []Advisory, ok bool) {
	if !blockOn {
		return Advisory{}, advs, false
	}
	for i, a := range advs {
		if a.Severity == Hard && isLoopKind(a.Kind) {
			return a, append(advs[:i:i], advs[i+1:]...), true
		}
	}
	return Advisory{}, advs, false
}
