package risk

import (
	"slices"
	"strings"
	"testing"
)

// TestDoesWork: looking around (reads of the shell, queries of a tool's
// state, git reading or recording, notes) is not work; a command that
// builds, installs, edits or runs a program is, and so is a write of a
// source file. Each case is labelled by hand.
func TestDoesWork(t *testing.T) {
	const project = "/home/u/app"
	for _, tc := range []struct {
		tool, command, file string
		want                bool
	}{
		{"Bash", "ls -la && cat README.md | head -20", "", false},
		{"Bash", "git status && git diff HEAD~1 -- src/", "", false},
		{"Bash", "git add -A && git commit -m 'wip' && git push", "", false},
		{"Bash", "git checkout -b other", "", true},
		{"Bash", "git branch -D old", "", true},
		{"Bash", "git branch -a", "", false},
		{"Bash", "lsof -i -P | grep LISTEN | head -40", "", false},
		{"Bash", "dscl . -list /Users | while read user; do groups \"$user\"; done", "", false},
		{"Bash", "csrutil status && spctl --status", "", false},
		{"Bash", "systemctl status nginx", "", false},
		{"Bash", "systemctl restart nginx", "", true},
		{"Bash", "gh pr view 12 && bd show spotter-fum", "", false},
		{"Bash", "bd create --title=x", "", true},
		{"Bash", "sed -n 1,20p main.go", "", false},
		{"Bash", "sed -i 's/a/b/' main.go", "", true},
		{"Bash", "npm install highlight.js", "", true},
		{"Bash", "go test ./...", "", true},
		{"Bash", "node --version", "", false},
		{"Bash", "echo hi > src/x.go", "", true},
		{"Bash", "echo hi > /tmp/x.txt", "", false},
		{"Bash", "grep -rn TODO . > notes.md", "", false},
		{"Write", "", project + "/src/app.go", true},
		{"Edit", "", project + "/CHANGELOG.md", false},
		{"Write", "", "/tmp/scratch.go", false},
		{"Read", "", project + "/src/app.go", false},
	} {
		c := Call{Tool: tc.tool, Command: tc.command, FilePath: tc.file, ProjectDir: project}
		if got := DoesWork(c); got != tc.want {
			t.Errorf("%s %q %q: DoesWork = %v, want %v", tc.tool, tc.command, tc.file, got, tc.want)
		}
		if tc.tool == "Bash" {
			if got := DoesWork(c.WithParse()); got != tc.want {
				t.Errorf("%s %q parsed once: DoesWork = %v, want %v", tc.tool, tc.command, got, tc.want)
			}
		}
	}
}

// TestPlaces: where a command would put, move or delete things, as written.
func TestPlaces(t *testing.T) {
	for _, tc := range []struct {
		command string
		want    []string
	}{
		{"mkdir -p ../projects/a ../projects/b", []string{"../projects"}},
		{"mkdir -p src data/input", []string{"src", "data/input"}},
		{"mv project-journal athena-ingest/", []string{"athena-ingest"}},
		{`mv ~/Library/x "/Volumes/Stick 4TB/Off/"`, []string{"/Volumes/Stick 4TB/Off"}},
		{"cp -R a b && ln -s b c", []string{"b", "c"}},
		{"rm -rf build/tmp notes.txt", []string{"build/tmp", "notes.txt"}},
		{"rm -rf *.log", nil},
		{"git status && ls", nil},
	} {
		got := Places(Call{Tool: "Bash", Command: tc.command})
		if !slices.Equal(got, tc.want) {
			t.Errorf("Places(%q) = %q, want %q", tc.command, got, tc.want)
		}
	}
}

// TestGoAhead: a short yes lets a declined step go on; anything longer, or
// with a no in it, does not.
func TestGoAhead(t *testing.T) {
	for _, tc := range []struct {
		prompt string
		want   bool
	}{
		{"go", true},
		{"yes, do it", true},
		{"ok proceed", true},
		{"Did you stop docker first", false},
		{"no, wait", false},
		{"ok but don't move it", false},
		{"yes please go ahead and move all of the docker data now", false},
		// Another step instead (ext-skogci #32).
		{"do a pr instead", false},
		{"오케이 업로드완료 분석시작", true},
		{"实施", true},
		// Capitals count as the same word (ext-fluxmemisolate #69, #133).
		{"Go ahead with this", true},
		{"Sure go for phase 3", true},
		{"OK", true},
		{"이번주에 사이잘룩러그 아이보리색상이 출시되었어", false},
	} {
		if got := GoAhead(tc.prompt); got != tc.want {
			t.Errorf("GoAhead(%q) = %v, want %v", tc.prompt, got, tc.want)
		}
	}
}

// TestInstallInPlace: a path deleted and filled again in the same command
// with the session's own copy (built in a temporary directory, or made by
// the session) is an install in place, not a deletion (mthis-1password
// #17, labelled useless by both judges); with a copy from elsewhere it is
// still rm-outside.
func TestInstallInPlace(t *testing.T) {
	const project = "/Users/m/proj"
	for _, tc := range []struct {
		command string
		written []string
		want    string
	}{
		{`if [ -d "/Applications/Claude Code.app" ]; then rm -rf "/Applications/Claude Code.app"; fi && cp -R "/tmp/Claude Code.app" /Applications/`, nil, ""},
		{`rm -rf ~/bin/tool && cp build/tool ~/bin/tool`, []string{project + "/build/tool"}, ""},
		{`rm -rf "/Applications/Claude Code.app" && cp -R ~/Downloads/Other.app /Applications/`, nil, "rm-outside"},
		{`rm -rf "/Applications/Claude Code.app"`, nil, "rm-outside"},
		// A folder with one thing moved out first is still a deletion of
		// what else it held (athena-reorg #36, labelled useful).
		{`mv ../projects/third-party dev-tools/ && rm -rf ../projects`, nil, "rm-outside"},
	} {
		got := idsOf(Check(Call{Tool: "Bash", Command: tc.command, ProjectDir: project, Written: tc.written}))
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%q: findings %s, want %q", tc.command, got, tc.want)
		}
	}
}
