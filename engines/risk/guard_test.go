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
		{Call{Tool: "Bash", Command: "rm -f Fleet/CMakeCache.txt && rm -rf Fleet/CMakeFiles", ProjectDir: proj},
			[]Limit{{Class: GuardDelete, Target: proj + "/Fleet/CMakeCache.txt"}, {Class: GuardDelete, Target: proj + "/Fleet/CMakeFiles"}}},
		{Call{Tool: "Bash", Command: "cd hermes && git rm -r --quiet old scripts", ProjectDir: proj},
			[]Limit{{Class: GuardDelete, Target: proj + "/hermes/old"}, {Class: GuardDelete, Target: proj + "/hermes/scripts"}}},
		{Call{Tool: "Bash", Command: "rm -rf logs/*.json", ProjectDir: proj}, nil},
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

// TestGuardBroken: the same step in another form goes round a guard;
// moving aside, listing, or a file that only mentions the name does not.
func TestGuardBroken(t *testing.T) {
	cache := Limit{Class: GuardDelete, Target: proj + "/Fleet/CMakeCache.txt"}
	build := Limit{Class: GuardDelete, Target: proj + "/build"}
	env := Limit{Class: GuardAccess, Target: proj + "/.env"}
	for _, tc := range []struct {
		name string
		l    Limit
		c    Call
		want bool
	}{
		{"plain rm", cache, Call{Tool: "Bash", Command: "rm " + proj + "/Fleet/CMakeCache.txt"}, true},
		{"rm from inside", cache, Call{Tool: "Bash", Command: "cd Fleet && rm CMakeCache.txt"}, true},
		{"unlink", cache, Call{Tool: "Bash", Command: "unlink Fleet/CMakeCache.txt"}, true},
		{"moved aside", cache, Call{Tool: "Bash", Command: "mv Fleet/CMakeCache.txt /tmp/"}, false},
		{"listed", cache, Call{Tool: "Bash", Command: "ls -la Fleet/CMakeCache.txt"}, false},
		{"another file", cache, Call{Tool: "Bash", Command: "rm Fleet/Makefile"}, false},
		{"made again", build, Call{Tool: "Bash", Command: "mkdir -p build && cd build && cmake .."}, false},
		{"a build elsewhere", build, Call{Tool: "Bash", Command: "rm -r web/build"}, false},
		{"read by the Read tool", env, Call{Tool: "Read", FilePath: proj + "/.env"}, true},
		{"printed", env, Call{Tool: "Bash", Command: "cat .env"}, true},
		{"written by the shell", env, Call{Tool: "Bash", Command: "echo KEY=1 > .env"}, true},
		{"a script that makes it", env, Call{Tool: "Write", FilePath: proj + "/setup_env.py", NewText: "Path('.env').write_text(content)"}, true},
		{"docs that mention it", env, Call{Tool: "Write", FilePath: proj + "/README.md", NewText: "Copy .env.example to .env and fill in the key."}, false},
		{"its example", env, Call{Tool: "Read", FilePath: proj + "/.env.example"}, false},
		{"looked for", env, Call{Tool: "Bash", Command: "ls -la .env"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.ProjectDir = proj
			if got := Breaks(tc.l, tc.c) != ""; got != tc.want {
				t.Errorf("Breaks = %q, want broken %v", Breaks(tc.l, tc.c), tc.want)
			}
		})
	}
}
