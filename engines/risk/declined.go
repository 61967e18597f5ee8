package risk

import (
	"path"
	"slices"
	"strings"
)

// DeclinedStep is the class of a limit on one step of a shell command the
// person declined when the CLI asked, its Target the step as StepsOf
// words it ("git push origin develop", "git add -A"): the same step run
// again before a go-ahead, or a prompt that asks for it, goes against
// their No (ext-skogci #32, the push of develop the person had declined,
// with "do a pr instead"; ext-adminfilter #70, the checkout of master
// declined at #63; ext-todonext #77, the git add -A declined at #76 after
// the user gave the commands that add README.md alone).
const DeclinedStep LimitClass = "declined-step"

// Commits tells a Bash call with a git commit among its commands.
func Commits(c Call) bool {
	if c.Tool != "Bash" {
		return false
	}
	cmds, _ := c.commands()
	for _, x := range cmds {
		if len(x.args) > 0 && path.Base(x.args[0]) == "git" {
			if g, _, ok := readGit(Call{}, x); ok && g.sub == "commit" {
				return true
			}
		}
	}
	return false
}

// PushStep tells a step StepsOf words as a push.
func PushStep(step string) bool { return strings.HasPrefix(step, "git push") }

// StepsOf words the steps of a Bash call that a person's No holds on:
// pushing a branch, switching to one, staging everything, merging,
// rebasing, a hard reset, installing packages. Each is its program, its
// subcommand and its parameters, with only the options that change what
// it does (a force, -A): a push with -u is the push without it. Steps
// that write what they are given (a commit and its message, an edit) are
// left out: run again after a No they are most often the step redone as
// the person asked.
func StepsOf(c Call) []string {
	if c.Tool != "Bash" {
		return nil
	}
	cmds, _ := c.commands()
	var out []string
	for _, x := range cmds {
		if len(x.args) == 0 {
			continue
		}
		if s := stepOf(x); s != "" && len(s) <= maxStep && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// maxStep is the longest step kept: a limit's target is kept to 256
// characters, and a step cut short would never match again.
const maxStep = 200

// stepOf words one simple command as a step StepsOf keeps, or "".
func stepOf(x cmd) string {
	name, args := path.Base(x.args[0]), x.args[1:]
	if name == "git" {
		if g, _, ok := readGit(Call{}, x); ok {
			return gitStep(g)
		}
		return ""
	}
	if !installs(name, args) {
		return ""
	}
	_, params := splitFlags(args)
	return strings.Join(append([]string{name}, params...), " ")
}

// gitStep words a git command as a step StepsOf keeps, or "".
func gitStep(g gitCall) string {
	step := func(sub string, opts ...string) string {
		return strings.Join(append(append([]string{"git", sub}, opts...), g.params...), " ")
	}
	switch g.sub {
	case "push":
		if g.has("--force", 'f') || g.has("--force-with-lease", 0) {
			return step("push", "--force")
		}
		return step("push")
	case "checkout", "switch":
		if len(g.params) > 0 {
			return step("checkout")
		}
	case "add":
		if g.has("--all", 'A') || g.has("--update", 'u') || slices.Contains(g.params, ".") {
			return "git add -A"
		}
	case "merge", "rebase":
		return step(g.sub)
	case "reset":
		if g.has("--hard", 0) {
			return step("reset", "--hard")
		}
	}
	return ""
}

// asksForStep tells whether a prompt asks, without a negation, for a
// declined step: it says the step's verb (push, checkout or switch, add,
// merge, rebase, reset, install) and each option the step was given
// ("add -A" asks for git add -A; "git add README.md" does not).
func asksForStep(step, prompt string) bool {
	fs := strings.Fields(step)
	if len(fs) < 2 {
		return false
	}
	verbs := []string{fs[1]}
	switch fs[1] {
	case "checkout":
		verbs = append(verbs, "switch")
	case "add":
		if fs[0] != "git" {
			verbs = append(verbs, "install")
		}
	}
	ws := words(strings.ToLower(prompt))
	asked := false
	for i, w := range ws {
		if slices.Contains(verbs, w) && !negatedBefore(ws, i) {
			asked = true
			break
		}
	}
	if !asked {
		return false
	}
	for _, f := range fs[2:] {
		if strings.HasPrefix(f, "-") && !saysOption(f, prompt, ws) {
			return false
		}
	}
	return true
}

// saysOption tells whether a prompt gives a step's option: as written, or
// in words ("force push", "hard reset", "add all").
func saysOption(opt, prompt string, ws []string) bool {
	if strings.Contains(prompt, opt) {
		return true
	}
	switch opt {
	case "--force":
		return slices.Contains(ws, "force")
	case "--hard":
		return slices.Contains(ws, "hard")
	case "-A":
		return slices.Contains(ws, "all") || slices.Contains(ws, "everything")
	}
	return false
}
