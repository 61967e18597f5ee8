package hooks

import (
	"encoding/json"
	"testing"
)

// A Task or Agent call is labelled by its subagent type and description
// (issue 15, finding 6), not by its whole input clipped with a hash.
func TestCallSummaryLabelsTasks(t *testing.T) {
	for _, tc := range []struct {
		tool, input, want string
	}{
		{"Task", `{"model":"sonnet","prompt":"Very thorough exploration. I need to understand everything.","subagent_type":"Explore","description":"Explore transcript rendering codebase"}`, "Task Explore: Explore transcript rendering codebase"},
		{"Agent", `{"prompt":"Find   the flaky test","subagent_type":"general-purpose"}`, "Agent general-purpose: Find the flaky test"},
		{"Read", `{"file_path":"/work/proj/a.go"}`, "Read a.go"},
	} {
		p := &Payload{ToolName: tc.tool, ToolInput: json.RawMessage(tc.input)}
		if got := callSummary(p, "/work/proj"); got != tc.want {
			t.Errorf("%s: callSummary = %q, want %q", tc.tool, got, tc.want)
		}
	}
}
