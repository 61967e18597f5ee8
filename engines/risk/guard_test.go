package risk

import (
	"slices"
	"testing"
)

// TestHookRefused: what a call the user's hook refused leaves guarded.
func TestHookRefused(t *testing.T) {
	for _, tc := range []struct {
		c    Call
		want []Limit
	}{
		// A refused deletion sets none: such hooks refuse a form (rm -rf),
		// not a place (ext-imatrix #158, labelled useless).
		{Call{Tool: "Bash", Command: "rm -f Fleet/CMakeCache.txt && rm -rf Fleet/CMakeFiles", ProjectDir: proj}, nil},
		{Call{Tool: "Bash", Command: "cat .env.example", ProjectDir: proj}, nil},
		{Call{Tool: "Read", FilePath: proj + "/.env.example", ProjectDir: proj}, []Limit{{Class: GuardAccess, Target: proj + "/.env.example"}}},
		{Call{Tool: "Write", FilePath: proj + "/.env", ProjectDir: proj}, []Limit{{Class: GuardAccess, Target: proj + "/.env"}}},
	} {
		got := HookRefused(tc.c)
		if !slices.EqualFunc(got, tc.want, func(a, b Limit) bool { return a.Class == b.Class && a.Target == b.Target }) {
			t.Errorf("HookRefused(%s %q%s) = %+v, want %+v", tc.c.Tool, tc.c.Command, tc.c.FilePath, got, tc.want)
		}
	}
}

// TestGuardBroken: the file reached another way goes round a guard;
// listing it, its example, or a file that only mentions the name does not.
func TestGuardBroken(t *testing.T) {
	env := Limit{Class: GuardAccess, Target: proj + "/.env"}
	for _, tc := range []struct {
		name string
		l    Limit
		c    Call
		want bool
	}{
		{"read by the Read tool", env, Call{Tool: "Read", FilePath: proj + "/.env"}, true},
		{"printed", env, Call{Tool: "Bash", Command: "cat .env"}, true},
		{"written by the shell", env, Call{Tool: "Bash", Command: "echo KEY=1 > .env"}, true},
		{"a script that makes it", env, Call{Tool: "Write", FilePath: proj + "/setup_env.py", NewText: "Path('.env').write_text(content)"}, true},
		{"docs that mention it", env, Call{Tool: "Write", FilePath: proj + "/README.md", NewText: "Copy .env.example to .env and fill in the key."}, false},
		{"its example", env, Call{Tool: "Read", FilePath: proj + "/.env.example"}, false},
		{"looked for", env, Call{Tool: "Bash", Command: "ls -la .env"}, false},
		{"another project's", env, Call{Tool: "Bash", Command: "cat ../other/.env"}, true},
		{"in a subfolder", env, Call{Tool: "Bash", Command: "cat web/.env.local"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.ProjectDir = proj
			if got := Breaks(tc.l, tc.c) != ""; got != tc.want {
				t.Errorf("Breaks = %q, want broken %v", Breaks(tc.l, tc.c), tc.want)
			}
		})
	}
}
