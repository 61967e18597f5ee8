package hooks

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestVisibleChars: what of a tool response reaches the model. A Bash
// output at BASH_MAX_OUTPUT_LENGTH or over is kept out of the context by
// the CLI (a 2 KB <persisted-output> preview instead), so pressure never
// names it by its full size (mthis-router 134: 57,746 characters, 2,183
// in context).
func TestVisibleChars(t *testing.T) {
	for _, tc := range []struct {
		name, tool string
		resp       any
		want       int
	}{
		{"short Bash output", "Bash", map[string]any{"stdout": strings.Repeat("x", 1000), "stderr": "ab"}, 1002},
		{"Bash output just under the cap", "Bash", map[string]any{"stdout": strings.Repeat("x", bashPersisted-1)}, bashPersisted - 1},
		{"Bash output at the cap", "Bash", map[string]any{"stdout": strings.Repeat("x", bashPersisted)}, persistedPreview},
		{"Bash output far over", "Bash", map[string]any{"stdout": strings.Repeat("x", 58000)}, persistedPreview},
		{"Read content", "Read", map[string]any{"type": "text", "file": map[string]any{"content": strings.Repeat("y", 40000)}}, 40000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, _ := json.Marshal(tc.resp)
			s := &session{}
			p := &Payload{ToolName: tc.tool, ToolResponse: raw}
			if got := s.toolResponse(p).visibleChars(tc.tool, raw); got != tc.want {
				t.Errorf("visibleChars = %d, want %d", got, tc.want)
			}
		})
	}
}
