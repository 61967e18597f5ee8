package risk

import (
	"path"
	"slices"
	"strings"
)

// NewBranch is the class of the limit a request to put the work on a new
// branch sets ("create a branch/pr for this change", "push it to a fresh
// feature branch"): until the session makes a branch, a commit or a push
// lands on the branch the work was already on, which the user asked not
// to be the place (procrypto-localapi #35-36: committed and pushed onto
// the open PR's branch after "create a branch/pr for this change",
// marked by judge O).
const NewBranch LimitClass = "new-branch"

// branchMakers are the verbs of a request to make a branch.
var branchMakers = []string{"creat", "make", "open", "start", "cut", "put", "mov", "push", "commit", "use", "do", "work", "switch", "checkout"}

// branchNew are the words before "branch" that mean one not there yet;
// "a" counts only after a verb that makes one (create, make, open, start,
// cut).
var branchNew = map[string]bool{"new": true, "fresh": true, "separate": true, "another": true}

// BranchRequest reads a prompt that asks for the work on a new branch: the
// limit, its text the user's sentence. A question ("is it on another
// branch?"), a negation ("no new branch") or a branch named as existing
// ("the main branch") sets none.
func BranchRequest(text string) (Limit, bool) {
	for _, s := range sentences(outsideFences(text)) {
		if strings.HasSuffix(s[0], "?") {
			continue
		}
		ws := words(s[1])
		for i, w := range ws {
			if (w != "branch" && !strings.HasPrefix(w, "branch/")) || i == 0 {
				continue
			}
			if asksNewBranch(ws, i) {
				return Limit{Class: NewBranch, Text: s[0]}, true
			}
		}
	}
	return Limit{}, false
}

// asksNewBranch tells a request for a new branch ending at ws[i]
// ("branch"): "[create|make|open|start|cut] a [new|feature] branch", or a
// verb up to ten words before "new|fresh|separate|another [feature]
// branch", with no negation before.
func asksNewBranch(ws []string, i int) bool {
	j := i - 1
	if ws[j] == "feature" || ws[j] == "git" || ws[j] == "pr" {
		j--
	}
	if j < 0 {
		return false
	}
	made := branchNew[ws[j]]
	if !made && ws[j] != "a" {
		return false
	}
	for k := j - 1; k >= max(0, j-10); k-- {
		if negation(ws, k) {
			return false
		}
		if !hasPrefix(ws[k], branchMakers) {
			continue
		}
		if made || hasPrefix(ws[k], []string{"creat", "make", "open", "start", "cut"}) {
			return !negatedBefore(ws, k)
		}
	}
	return false
}

// breaksNewBranch is the step of a command against a NewBranch limit: a
// commit, or a push that does not name where it goes (git push origin
// HEAD:feature/x, a refspec with a colon, makes the branch on the
// remote); "" for anything else. A command after one that makes a branch
// (git checkout -b x && git commit) keeps the limit: newBranchSteps.
func breaksNewBranch(x cmd) string {
	if path.Base(x.args[0]) != "git" {
		return ""
	}
	g, _, ok := readGit(Call{}, x)
	if !ok {
		return ""
	}
	switch g.sub {
	case "commit":
		return "runs git commit on the branch it was on"
	case "push":
		if slices.ContainsFunc(g.params, func(p string) bool { return strings.Contains(p, ":") }) {
			return ""
		}
		return "runs " + strings.Join(append([]string{"git", "push"}, g.params...), " ") + ", the branch it was on"
	}
	return ""
}

// newBranchSteps marks, in steps, the NewBranch limits a command's commit
// or push breaks before any of its commands makes a branch.
func newBranchSteps(ls []Limit, cmds []cmd, steps []string) {
	for _, x := range cmds {
		if len(x.args) == 0 {
			continue
		}
		if path.Base(x.args[0]) == "git" {
			if g, _, ok := readGit(Call{}, x); ok && len(branchesMade(g)) > 0 {
				return
			}
		}
		step := breaksNewBranch(x)
		if step == "" {
			continue
		}
		for i, l := range ls {
			if l.Class == NewBranch && steps[i] == "" {
				steps[i] = step
			}
		}
		return
	}
}
