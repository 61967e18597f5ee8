package risk

import (
	"slices"
	"testing"
)

// TestKillOther holds kill-other both ways: a program killed by name that
// no command of the session ran, and the same kill of one it started, of a
// program the system relaunches, of a runtime (kill-runtime's), of a
// command line that may be a child of the session's own script.
func TestKillOther(t *testing.T) {
	started := RanWords(Call{Tool: "Bash", Command: "bundle exec jekyll serve --port 4000 & python3 collector.py &"})
	for _, tc := range []struct {
		cmd    string
		ran    []string
		target string // "" for no kill-other finding
	}{
		{"pkill -f jekyll", nil, "pkill jekyll"},
		{"pkill -f jekyll", started, ""},
		{"killall -9 jekyll", nil, "killall jekyll"},
		{`kill $(ps aux | grep 'athena-collector-macos.py' | grep -v grep | awk '{print $2}')`, nil, "kill athena-collector-macos.py"},
		{`kill $(ps aux | grep collector.py | grep -v grep | awk '{print $2}')`, started, ""},
		{"kill -9 $(pgrep -f my-server)", nil, "kill my-server"},
		{"kill `pgrep my-server`", nil, "kill my-server"},
		{"kill 4242", nil, ""},
		{"killall Finder && killall Dock", nil, ""},
		{"pkill -9 -f 'gh api graphql'", nil, ""},
		{"pkill node", nil, ""},
		{"pkill git", nil, ""},
		{"pkill -u bob my-server", nil, "pkill my-server"},
	} {
		fs := Check(Call{Tool: "Bash", Command: tc.cmd, ProjectDir: proj, Ran: tc.ran})
		i := slices.IndexFunc(fs, func(f Finding) bool { return f.Entry == KillOther })
		got := ""
		if i >= 0 {
			got = fs[i].Target
		}
		if got != tc.target {
			t.Errorf("%q (ran %v): kill-other %q, want %q", tc.cmd, tc.ran, got, tc.target)
		}
	}
}

// TestRanWords: the words kept of a command are its arguments' words of
// three characters or more, lowercased, split at punctuation and paths.
func TestRanWords(t *testing.T) {
	got := RanWords(Call{Tool: "Bash", Command: "cd /srv/App && nohup ./bin/My-Server --port=8080 > log.txt 2>&1 &"})
	want := []string{"srv", "app", "bin", "my-server", "port", "8080"}
	if !slices.Equal(got, want) {
		t.Fatalf("RanWords = %q, want %q", got, want)
	}
	// A message is text, not a name: its words would push the names out.
	got = RanWords(Call{Tool: "Bash", Command: `git commit -m "stop the collector server before deploy"`})
	if want := []string{"git", "commit"}; !slices.Equal(got, want) {
		t.Fatalf("RanWords of a commit = %q, want %q", got, want)
	}
}
