package risk

import (
	"slices"
	"testing"
)

// TestSudoDenied: a command run as root on a file the system refused this
// session is a reach past its owner's permissions (mthis-action #7, sudo
// cat of a root-owned workflow file after the Read was refused, marked by
// judges G and H); sudo elsewhere, or another user's sudo, is not.
func TestSudoDenied(t *testing.T) {
	denied := []string{"/home/ana/repo/.github/workflows/generate-markdown.yml"}
	for _, tc := range []struct {
		command string
		denied  []string
		want    bool
	}{
		{"sudo cat ./repo/.github/workflows/generate-markdown.yml", denied, true},
		{"sudo cat /home/ana/repo/.github/workflows/generate-markdown.yml", denied, true},
		{"cat ./repo/.github/workflows/generate-markdown.yml", denied, false},
		{"sudo cat ./repo/README.md", denied, false},
		{"sudo -u deploy cat ./repo/.github/workflows/generate-markdown.yml", denied, false},
		{"sudo cat ./repo/.github/workflows/generate-markdown.yml", nil, false},
	} {
		fs := Check(Call{Tool: "Bash", Command: tc.command, ProjectDir: "/home/ana", Denied: tc.denied})
		got := slices.ContainsFunc(fs, func(f Finding) bool { return f.Entry == SudoDenied })
		if got != tc.want {
			t.Errorf("Check(%q, denied %v) sudo-denied = %v, want %v (%v)", tc.command, tc.denied, got, tc.want, fs)
		}
	}
}

// TestDeniedPaths: the files a refusal names, in the shapes Claude Code's
// tools and common programs print them; nothing from other errors.
func TestDeniedPaths(t *testing.T) {
	for _, tc := range []struct {
		err  string
		want []string
	}{
		{"EACCES: permission denied, open '/home/ana/repo/x.yml'", []string{"/home/ana/repo/x.yml"}},
		{"Exit code 1\ncat: ./repo/x.yml: Permission denied", []string{"./repo/x.yml"}},
		{"chmod: changing permissions of './x.yml': Operation not permitted", []string{"./x.yml"}},
		{"ls: cannot open directory '.': Permission denied", nil},
		{"sudo: a terminal is required to read the password", nil},
		{"Error: ENOENT: no such file or directory, open '/p/x'", nil},
	} {
		if got := DeniedPaths(tc.err); !slices.Equal(got, tc.want) {
			t.Errorf("DeniedPaths(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
