package drift

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestGoalNumbers(t *testing.T) {
	for _, tc := range []struct {
		goal string
		want []string
	}{
		{"use the softwear factory and complete word order 044 think about this", []string{"044"}},
		{"do issue #312 and then (1207)", []string{"312", "1207"}},
		{"bump to v1.22.3 and fix src/v2/api.go", nil},
		{"serve it on localhost:8080", nil},
		{"fix step 2 of the migration", nil},
		{"close 17.", []string{"17"}},
	} {
		if got := GoalNumbers(tc.goal); !slices.Equal(got, tc.want) {
			t.Errorf("GoalNumbers(%q) = %q, want %q", tc.goal, got, tc.want)
		}
	}
}

func TestFetchesGoalDocument(t *testing.T) {
	nums := []string{"044"}
	for _, tc := range []struct {
		input string
		want  bool
	}{
		{`{"work_order_number":"044"}`, true},
		{`{"id":"044","verbose":true}`, true},
		{`{"path":"orders/044.md"}`, true},
		{`{"work_order_number":"045"}`, false},
		{`{"work_order_number":"10440"}`, false},
		{`{"work_order_number":"044a"}`, false},
	} {
		if got := FetchesGoalDocument(tc.input, nums); got != tc.want {
			t.Errorf("FetchesGoalDocument(%s) = %v, want %v", tc.input, got, tc.want)
		}
	}
	if FetchesGoalDocument(`{"id":"044"}`, nil) {
		t.Error("a goal without numbers points at no document")
	}
}

func TestNamesTool(t *testing.T) {
	for _, tc := range []struct {
		goal, tool string
		want       bool
	}{
		{"serena onboarding", "mcp__serena__onboarding", true},
		{"run the Serena onboarding please", "mcp__serena__onboarding", true},
		{"serena onboarding", "mcp__serena__write_memory", false},
		{"do the onboarding", "mcp__serena__onboarding", false},
		{"check the linear issue", "mcp__linear__get_issue", false},
		{"get the linear issue", "mcp__linear__get_issue", true},
		{"serena onboarding", "Read", false},
		{"serena onboarding", "mcp__serena", false},
	} {
		if got := NamesTool(tc.goal, tc.tool); got != tc.want {
			t.Errorf("NamesTool(%q, %q) = %v, want %v", tc.goal, tc.tool, got, tc.want)
		}
	}
}

// TestToolWords: an MCP tool name's part splits at _, - and . into lower-case words.
func TestToolWords(t *testing.T) {
	for in, want := range map[string]string{
		"chrome-devtools":    "chrome devtools",
		"Serena":             "serena",
		"claude_ai.Notion":   "claude ai notion",
		"list_pages":         "list pages",
		"":                   "",
		"__double--dash..x_": "double dash x",
	} {
		if got := strings.Join(ToolWords(in), " "); got != want {
			t.Errorf("ToolWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMCPParts: an MCP tool's name splits into its server's and its
// operation's; another tool's does not.
func TestMCPParts(t *testing.T) {
	for tool, want := range map[string]string{
		"mcp__serena__onboarding":             "serena onboarding true",
		"mcp__chrome-devtools__list_pages":    "chrome-devtools list_pages true",
		"mcp__claude_ai_Notion__notion-fetch": "claude_ai_Notion notion-fetch true",
		"Read":                                "  false",
		"mcp__lonely":                         "lonely  false",
		"xmcp__serena__onboarding":            "  false",
	} {
		s, o, ok := MCPParts(tool)
		if got := fmt.Sprintf("%s %s %v", s, o, ok); got != want {
			t.Errorf("MCPParts(%q) = %q, want %q", tool, got, want)
		}
	}
}
