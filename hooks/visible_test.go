package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
		// A Grep result over what any CLI shows is a preview too
		// (procrypto-screenerstyle #126-#127, the sixteenth held-out set:
		// pressure named them as the biggest outputs, useless to both
		// judges AI and AJ, as only 2 KB previews had reached the context).
		{"Grep content at the cap", "Grep", map[string]any{"mode": "content", "content": strings.Repeat("x", grepShown)}, grepShown},
		{"Grep content over it", "Grep", map[string]any{"mode": "content", "content": strings.Repeat("x", 41000)}, persistedPreview},
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

// TestFailedCallOutputCounts: a failed call's error text is in the context
// like an output (mthis-audit 31: a 10,041-character error, left out of
// the biggest outputs while a 6,767-character output was named; judges M
// and N), and is counted so in turns.jsonl; one as long as a persisted
// Bash output counts as its preview.
func TestFailedCallOutputCounts(t *testing.T) {
	s := newSim(t)
	s.userPrompt("audit the machine's security settings")
	s.fail("Bash", jsonStr(map[string]any{"command": "powershell.exe -Command Get-Thing"}), "Exit code 1\n"+strings.Repeat("e", 10041))
	s.fail("Bash", jsonStr(map[string]any{"command": "powershell.exe -Command Get-Other"}), strings.Repeat("f", 60000))
	dir, _ := s.env.Store.SessionDir(s.id)
	b, err := os.ReadFile(filepath.Join(dir, "turns.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var turn struct {
			OutputChars int `json:"output_chars"`
		}
		if err := json.Unmarshal([]byte(l), &turn); err != nil {
			t.Fatal(err)
		}
		got = append(got, turn.OutputChars)
	}
	if want := []int{len("Exit code 1\n") + 10041, persistedPreview}; !slices.Equal(got, want) {
		t.Errorf("output_chars of the failed calls = %v, want %v", got, want)
	}
}
