package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/hooks/advice"
)

// The words status uses for a person who knows nothing of the engines:
// plain names for the state's enums, counts with their plurals, and text
// cut at a word boundary.

// count is n with the singular or plural noun: "1 tool call", "2 tool calls".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// prose is s cleaned of control characters (advice.Clean) and, when longer
// than n runes, cut at the last word boundary before n with an ellipsis.
func prose(s string, n int) string {
	s = advice.Clean(s, 1<<20)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := len(r)
	for i := len(r) - 1; i > n/2; i-- {
		if r[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimRight(string(r[:cut]), " ,;:.-") + "…"
}

// verdictWords says a drift verdict in plain words.
func verdictWords(kind string) string {
	switch kind {
	case "on_task":
		return "yes, on task"
	case "tolerable_side_quest":
		return "mostly: a short side quest, nothing to worry about yet"
	case "refocus_moment":
		return "drifting: a good moment to come back to the goal"
	case "real_drift":
		return "no: the work has drifted away from the goal"
	case "insufficient_data":
		return "too early to say"
	case "no_anchor":
		return "no goal to compare with"
	}
	return advice.Clean(kind, 40)
}

// thresholdWords says where the on-task cutoff comes from.
func thresholdWords(source string, n int) string {
	if source == "posterior_p10" {
		return "a cutoff learned from " + count(n, "past session", "past sessions")
	}
	return "the default cutoff, until past sessions teach one"
}

// intentWords names the goal's kind.
func intentWords(intent string) string {
	switch intent {
	case "bugfix":
		return "a bug fix"
	case "feature":
		return "a feature"
	case "refactor":
		return "a refactoring"
	case "research":
		return "research"
	case "docs":
		return "documentation"
	}
	return "kind unknown"
}

// anchorSourceWords says how the goal was set.
func anchorSourceWords(source string) string {
	switch source {
	case "prompt":
		return "from your prompt"
	case "pivot":
		return "from a prompt that changed the goal"
	case "reorient":
		return "set with /djinn:reorient"
	}
	return "from " + advice.Clean(source, 40)
}

// taskSourceWords says where the current task comes from.
func taskSourceWords(source string) string {
	switch source {
	case "goal":
		return "the goal itself"
	case "proposed":
		return "what the agent proposed, which you accepted"
	}
	return "from your latest prompt"
}
