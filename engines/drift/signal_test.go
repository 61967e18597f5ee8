package drift

import "testing"

// TestStateDocs: a file call on the agent's own plan and progress files
// carries no drift evidence; any other file in the call, or a shell
// command, does.
func TestStateDocs(t *testing.T) {
	for _, tc := range []struct {
		tool  string
		files []string
		want  bool
	}{
		{"Edit", []string{".planning/ROADMAP.md"}, true},
		{"Write", []string{".planning/phases/21-aat/21-01-SUMMARY.md"}, true},
		{"Read", []string{"STATE.md"}, true},
		{"Edit", []string{"docs/TODO.md"}, true},
		{"Edit", []string{"src/state.ts"}, false},
		{"Edit", []string{".planning/STATE.md", "src/app.ts"}, false},
		{"Bash", []string{".planning/STATE.md"}, false},
		{"Read", nil, false},
	} {
		if got := StateDocs(tc.tool, tc.files); got != tc.want {
			t.Errorf("StateDocs(%s, %q) = %v, want %v", tc.tool, tc.files, got, tc.want)
		}
	}
}
