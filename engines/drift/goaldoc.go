package drift

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// A goal often points at a document rather than saying the task: "complete
// work order 044", "do issue 312". The call that fetches it (an MCP tool's
// get_work_order with "044") returns what the task is, as the user's prompt
// would have said it, and its words are the goal's (ext-gameplan #23: the
// endpoint work order 044 asked for, advised as drift against the nine
// words of the prompt, false to judges AS and AT). Ticket identifiers
// (PROJ-123) are taught the same way by learnTicket's commands.

// goalNumberRe finds a number standing alone in a goal: two to eight digits
// after a space, '(' or '#', and before a space, punctuation or the end;
// not a version (1.2.3), a path's part or a port after a colon.
var goalNumberRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s(#])(\d{2,8})(?:[\s),;!?]|[.:](?:\s|$)|$)`)
})

// GoalNumbers returns the numbers standing alone in a goal (at most 8).
func GoalNumbers(goal string) []string {
	var out []string
	for _, m := range goalNumberRe().FindAllStringSubmatch(goal, 8) {
		out = appendNew(out, m[1])
	}
	return out
}

// FetchesGoalDocument reports whether a call that reads a document (the
// caller says which tools do) has one of the goal's numbers as a whole
// value or word of its input.
func FetchesGoalDocument(input string, nums []string) bool {
	for _, w := range strings.FieldsFunc(input, func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r|0x20 && r|0x20 <= 'z') }) {
		if slices.Contains(nums, w) {
			return true
		}
	}
	return false
}

// NamesTool reports whether a goal names an MCP tool by its server and its
// operation: "serena onboarding" names mcp__serena__onboarding. What such a
// tool returns is the procedure the goal asks to follow (Serena's
// onboarding lists what to gather and write; ext-serenafe #21, drift
// against the two words of the prompt, false to judges BY and BZ). Every
// word of three letters or more of the server and the operation must be a
// word of the goal.
func NamesTool(goal, tool string) bool {
	server, op, ok := MCPParts(tool)
	if !ok {
		return false
	}
	goalWords := strings.FieldsFunc(strings.ToLower(goal), func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') })
	n := 0
	for _, w := range ToolWords(server + "_" + op) {
		if len(w) < 3 {
			continue
		}
		if !slices.Contains(goalWords, w) {
			return false
		}
		n++
	}
	return n >= 2
}

// ToolWords splits a part of an MCP tool's name (its server, its
// operation) into its lower-case words at _, - and . ("chrome-devtools" →
// chrome, devtools).
func ToolWords(name string) []string {
	return strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
}

// MCPParts splits an MCP tool's name into its server's and its
// operation's: mcp__serena__onboarding is serena and onboarding; ok is
// false for a tool that is not an MCP server's.
func MCPParts(tool string) (server, op string, ok bool) {
	rest, isMCP := strings.CutPrefix(tool, "mcp__")
	if !isMCP {
		return "", "", false
	}
	return strings.Cut(rest, "__")
}
