package risk

import "testing"

func TestBranchRequest(t *testing.T) {
	for _, tc := range []struct {
		prompt string
		want   bool
	}{
		{"create a branch/pr for this change", true},
		{"push these changes to a fresh pr on a fresh feature branch", true},
		{"move these changes to a new branch created off main, commit and push to this new branch", true},
		{"checkout to another branch name enhance/serena, commit and push", true},
		{"Make a new branch called main and make it the default", true},
		{"Please open a feature branch for it.", true},
		{"can u check if its on another branch still?", false},
		{"You can do it on a branch for safety", false},
		{"commit it, no new branch needed", false},
		{"don't create a new branch, just commit to main", false},
		{"merge the main branch into this one", false},
		{"the new branch is fine", false},
		{"fix the tests", false},
	} {
		_, got := BranchRequest(tc.prompt)
		if got != tc.want {
			t.Errorf("BranchRequest(%q) = %v, want %v", tc.prompt, got, tc.want)
		}
	}
}

func TestBrokenNewBranch(t *testing.T) {
	l := Limit{Class: NewBranch, Text: "create a branch/pr for this change"}
	for _, tc := range []struct {
		command string
		broken  bool
	}{
		{`git add ai.md && git commit -m "docs: update"`, true},
		{"git push", true},
		{"git push origin main", true},
		{"git checkout -b docs/x && git add . && git commit -m x && git push -u origin docs/x", false},
		{"git switch -c fix && git commit -am x", false},
		{"git push origin HEAD:refs/heads/docs/new", false},
		{"git status && git diff", false},
		{"gh pr create --fill", false},
	} {
		got := Breaks(l, Call{Tool: "Bash", Command: tc.command, ProjectDir: "/p"}) != ""
		if got != tc.broken {
			t.Errorf("Breaks(new-branch, %q) = %v, want %v", tc.command, got, tc.broken)
		}
	}
}
