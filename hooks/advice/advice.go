// Package advice is the one place that decides what Djinn says and does:
// which verdicts become advisories, how findings are worded, in which order
// several advisories go out, when a repeat is suppressed, whether a hard
// loop blocks the tool call (LoopBlock) and whether a stall is rolled back
// (Stall). It is pure: the event handlers give it facts and the state it
// needs, and store and write what it returns.
//
// Every advisory starts with its tag, [djinn:<kind>], then states the facts
// and the numbers behind them (N and the interval where there is one, or
// "insufficient data"), then one concrete next step. Sentences are factual,
// never framed as system commands: Claude's prompt-injection defences distrust
// those, and the hook contract asks for facts.
package advice

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/internal/fit"
)

// Severity grades an advisory.
type Severity string

// Severities, least to most severe.
const (
	Info  Severity = "info"
	Soft  Severity = "soft"
	Hard  Severity = "hard"
	Block Severity = "block"
)

// The advisory kinds (the public contract: tags people, tests and the
// transcript can find).
const (
	KindDrift      = "drift"
	KindReadLoop   = "read-loop"
	KindEditRevert = "edit-revert"
	KindFailLoop   = "fail-loop"
	KindToolLoop   = "tool-loop"
	KindStall      = "stall"
	KindPressure   = "pressure"
	KindReanchor   = "reanchor"
	KindCompacted  = "compacted"
	KindRisk       = "risk"
	// FamilyToolLoopRepeat is the tool-loop of the same call made again
	// with the same result (not its variants about cut output, different
	// commands, polls, empty output or cycles): a family of its own mode,
	// advisories.tool_loop_repeat (docs/preregistered.md, H2).
	FamilyToolLoopRepeat = "tool-loop-repeat"
)

// MaxChars keeps each advisory well under Claude Code's 10,000-character
// cap, so several fit in one additionalContext.
const MaxChars = 2000

// Advisory is one thing to say.
type Advisory struct {
	Kind     string
	Severity Severity
	Text     string
	// Numbers are the figures behind the text, logged with it.
	Numbers map[string]float64
	// Observed marks a finding that is recorded (advisories.jsonl, the
	// recent list, djinn status) but not told to the agent: a revert the
	// user asked for is no loop.
	Observed bool
	// Loop are the session's tool calls that make a loop finding's loop
	// (set by the hook, which knows the session's numbering).
	Loop []int
	// Gist is what the agent is told, in a few plain words for the person
	// at the keyboard ("it re-read parse.go 3× unchanged"): the notice on
	// screen says "djinn: told the agent <gist>". Empty: GistOf makes one
	// from Text.
	Gist string
	// Family names a family of the kind that has a mode of its own
	// (settings.Advisories, the family's name with "_" for "-"), empty
	// for none: the kind's mode applies, and its off silences the family
	// too.
	Family string
}

// GistOf is a's gist, or, when it has none, the first sentence of its
// text without the tag, cut to 160 characters.
func GistOf(a Advisory) string {
	if a.Gist != "" {
		return a.Gist
	}
	t := strings.TrimSpace(strings.TrimPrefix(a.Text, Tag(a.Kind)))
	if i := strings.Index(t, ". "); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimSuffix(strings.Join(strings.Fields(t), " "), ".")
	return "(" + a.Kind + ") " + capRunes(t, 160)
}

// withGist sets an advisory's gist.
func withGist(a Advisory, format string, args ...any) Advisory {
	a.Gist = fmt.Sprintf(format, args...)
	return a
}

// Tag returns the tag an advisory of kind starts with.
func Tag(kind string) string { return "[djinn:" + kind + "]" }

// severityRank orders severities, most severe first.
func severityRank(s Severity) int {
	switch s {
	case Block:
		return 0
	case Hard:
		return 1
	case Soft:
		return 2
	case Info:
		return 3
	}
	return 0
}

// kindRank breaks ties between equally severe advisories: what stops the
// agent wasting work first.
func kindRank(kind string) int {
	switch kind {
	case KindStall:
		return 0
	case KindFailLoop:
		return 1
	case KindEditRevert:
		return 2
	case KindReadLoop:
		return 3
	case KindToolLoop:
		return 4
	case KindInstruction:
		return 5
	case KindRisk:
		return 5
	case KindDrift:
		return 5
	case KindPressure:
		return 6
	case KindCompacted:
		return 7
	case KindReanchor:
		return 8
	case KindRepeatComplaint:
		return 9
	}
	return 0
}

// Order sorts advisories most severe first, in place, and returns them.
func Order(advs []Advisory) []Advisory {
	sort.SliceStable(advs, func(i, j int) bool {
		a, b := advs[i], advs[j]
		if severityRank(a.Severity) != severityRank(b.Severity) {
			return severityRank(a.Severity) < severityRank(b.Severity)
		}
		return kindRank(a.Kind) < kindRank(b.Kind)
	})
	return advs
}

// Paragraphs returns the texts of ordered advisories, one paragraph each.
func Paragraphs(advs []Advisory) []string {
	out := make([]string, 0, len(advs))
	for _, a := range Order(advs) {
		out = append(out, a.Text)
	}
	return out
}

// finish tags, flattens and caps a text.
func finish(kind string, sev Severity, nums map[string]float64, format string, args ...any) Advisory {
	text := Tag(kind) + " " + fmt.Sprintf(format, args...)
	return Advisory{Kind: kind, Severity: sev, Text: capRunes(text, MaxChars), Numbers: nums}
}

// capRunes cuts s to at most n runes, marking the cut.
func capRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return fit.Runes(s, n-1) + "…"
}

// plural returns "1 time", "3 times".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// callList renders event numbers as "#12, #15 and #18".
func callList(ns []uint64) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprintf("#%d", n)
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
