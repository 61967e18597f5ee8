package advice

import (
	"fmt"
	"strings"

	"github.com/djinn-cc/djinn/internal/thousands"
)

// Output is one big tool output.
type Output struct {
	Call    int
	Summary string
	Chars   int
}

// PressureFacts describe a context tier crossing.
type PressureFacts struct {
	Tokens, Limit int64
	Share         float64
	Tier, Tiers   int
	TierShare     float64
	Top           bool
	// Unknown: the window's size is not known; Limit is the largest it can
	// be, so Share is the least the context fills of it.
	Unknown bool
	// ToolChars is the characters of tool output since the session began
	// (or its last compaction), TextChars the recent assistant text seen.
	ToolChars, TextChars int
	Biggest              []Output
	// Compact is the ready /compact line (top tier only).
	Compact string
}

// PressureWorthSaying decides whether a tier crossing is said: the top tier
// always (the session nears compaction); a lower one only when the biggest
// tool output in the context holds at least minShare of the window, at four
// characters a token, because its advice (read narrowly) needs an output
// to point at. Growth from many small outputs and conversation has none.
func PressureWorthSaying(f PressureFacts, minShare float64) bool {
	if f.Top || minShare <= 0 {
		return true
	}
	if len(f.Biggest) == 0 || f.Limit <= 0 {
		return false
	}
	return float64(f.Biggest[0].Chars)/4 >= minShare*float64(f.Limit)
}

// Pressure words a tier crossing: the percentage, what fills the context,
// and at the top tier a ready /compact line.
func Pressure(f PressureFacts) Advisory {
	nums := map[string]float64{"tokens": float64(f.Tokens), "limit": float64(f.Limit), "share": round2(f.Share), "tier": float64(f.Tier)}
	fill := ""
	if f.ToolChars > 0 {
		parts := make([]string, 0, len(f.Biggest))
		for _, b := range f.Biggest {
			parts = append(parts, fmt.Sprintf("%s at call #%d (%s chars)", Quote(b.Summary, 70), b.Call, thousands.Group(b.Chars)))
		}
		fill = fmt.Sprintf(" Tool outputs account for about %s characters", thousands.Group(f.ToolChars))
		if len(parts) > 0 {
			fill += "; the biggest: " + strings.Join(parts, ", ")
		}
		fill += "."
	}
	sev := Info
	next := "prefer targeted reads (offset/limit, Grep) over whole files and long command output."
	if f.Top {
		sev = Soft
		next = "wrap up the current step, then compact with a focus that keeps the goal. Ready to paste: " + f.Compact
	}
	if f.Unknown {
		return withGist(finish(KindPressure, sev, nums, "Context is at least %.0f%% of the window (window unknown, at most %s tokens; %s tokens; tier %d of %d, %.0f%%).%s Next step: %s",
			f.Share*100, thousands.Group(f.Limit), thousands.Group(f.Tokens), f.Tier, f.Tiers, f.TierShare*100, fill, next),
			"the context is at least %.0f%% full", f.Share*100)
	}
	return withGist(finish(KindPressure, sev, nums, "Context is at %.0f%% of the %s-token window (%s tokens; tier %d of %d, %.0f%%).%s Next step: %s",
		f.Share*100, thousands.Group(f.Limit), thousands.Group(f.Tokens), f.Tier, f.Tiers, f.TierShare*100, fill, next),
		"the context is %.0f%% full", f.Share*100)
}

// PressureUserMessage is the systemMessage shown to the user at the top
// tier.
func PressureUserMessage(f PressureFacts) string {
	if f.Unknown {
		return fmt.Sprintf("djinn: context at least %.0f%% of the window (window unknown, at most %s tokens). To keep the goal through compaction, run: %s", f.Share*100, thousands.Group(f.Limit), f.Compact)
	}
	return fmt.Sprintf("djinn: context at %.0f%% of %s tokens. To keep the goal through compaction, run: %s", f.Share*100, thousands.Group(f.Limit), f.Compact)
}

// CompactLine builds "/compact <focus>" from the goal, its constraints and
// the load-bearing files, on one line.
func CompactLine(goal string, constraints, files []string) string {
	var b strings.Builder
	b.WriteString("/compact Keep the goal: ")
	if goal == "" {
		b.WriteString("(no goal recorded)")
	} else {
		b.WriteString(Quote(goal, 300))
	}
	if len(constraints) > 0 {
		q := make([]string, 0, len(constraints))
		for _, c := range constraints[max(0, len(constraints)-3):] {
			q = append(q, Quote(c, 120))
		}
		b.WriteString(". Constraints: " + strings.Join(q, "; "))
	}
	if len(files) > 0 {
		q := make([]string, len(files))
		for i, f := range files {
			q[i] = Quote(f, 120)
		}
		b.WriteString(". Load-bearing files: " + strings.Join(q, ", "))
	}
	b.WriteString(". Keep open failures and the current plan.")
	return b.String()
}
