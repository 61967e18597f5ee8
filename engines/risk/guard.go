package risk

import (
	"path"
	"slices"
	"strings"
)

// The limits the user's own PreToolUse hook sets by refusing a call: the
// hook is the user's rule, written down before the session, and a later
// call that does the refused step in a form the hook does not catch goes
// round the user (ext-imatrix #158: rm -rf of a CMake cache refused, then
// plain rm of it; ext-adhs #17: a Write of .env refused, then a script
// written that creates .env).
const (
	// GuardDelete keeps its Target from being deleted: the hook refused
	// a deletion of it.
	GuardDelete LimitClass = "guard-delete"
	// GuardAccess keeps its Target from being read or written: the hook
	// refused a file tool on it.
	GuardAccess LimitClass = "guard-access"
)

// readers are programs that print or copy a file they name.
var readers = map[string]bool{"cat": true, "head": true, "tail": true, "less": true, "more": true, "bat": true,
	"grep": true, "egrep": true, "rg": true, "awk": true, "strings": true, "xxd": true, "cp": true, "source": true, ".": true}

// HookRefused returns the limits a call the user's hook refused sets, each
// with its Target (a path as the call named it, resolved against the
// directory it ran in) and no Text: the operands of a shell deletion
// (rm, git rm, unlink, find -delete), or the file of a file tool (Read,
// Write, Edit). A shell command that was not a deletion sets none: what
// the hook refused in it is not known.
func HookRefused(c Call) []Limit {
	var out []Limit
	add := func(class LimitClass, p string) {
		if p == "" || p == "/" || strings.ContainsAny(p, "*?$") {
			return
		}
		if !slices.ContainsFunc(out, func(o Limit) bool { return o.Class == class && o.Target == p }) {
			out = append(out, Limit{Class: class, Target: p})
		}
	}
	switch c.Tool {
	case "Read", "Write", "Edit", "MultiEdit":
		add(GuardAccess, path.Clean(c.FilePath))
	case "Bash":
		cmds, _ := c.commands()
		home := homeOf(c.ProjectDir)
		inDirs(cmds, c.ProjectDir, func(name string, x cmd) {
			if !deletes(name, x.args[1:]) {
				return
			}
			_, params := splitFlags(x.args[1:])
			if name == "git" && len(params) > 0 {
				params = params[1:] // the subcommand
			}
			if name == "find" {
				params = params[:min(len(params), 1)]
			}
			for _, p := range params {
				add(GuardDelete, resolve(expandHome(p, home), x.cwd))
			}
		})
	}
	return out
}

// samePlace tells whether a path a call names is a guarded target: the
// same path, or, since a shell's directory is not always known, the same
// file name when that name is distinctive (four characters or more, not a
// build directory such as "build").
func samePlace(p, target string) bool {
	if p == "" {
		return false
	}
	if path.Clean(p) == target || inDir(path.Clean(p), target) {
		return true
	}
	b := path.Base(p)
	return b == path.Base(target) && len(b) >= 4 && !buildDirs[b]
}

// guardFile is the step of a file tool call that goes round a guard: the
// file itself, or, for GuardAccess, a file written whose text names the
// target in quotes (a script that will read or create it).
func guardFile(l Limit, c Call) string {
	switch {
	case l.Class == GuardAccess && samePlace(c.FilePath, l.Target):
		if c.Tool == "Read" {
			return "reads " + c.FilePath
		}
		return "writes " + c.FilePath
	case l.Class == GuardAccess && c.Tool != "Read" && quotesName(c.NewText, path.Base(l.Target)):
		return "writes " + c.FilePath + ", which names " + path.Base(l.Target)
	}
	return ""
}

// quotesName tells whether a text holds a name as a quoted string, or as
// the last element of a quoted path ('.env', "config/.env").
func quotesName(text, name string) bool {
	for _, q := range []string{`"`, `'`} {
		for _, pre := range []string{q, "/"} {
			if strings.Contains(text, pre+name+q) {
				return true
			}
		}
	}
	return false
}

// guardCommand is the step of a shell command (run in x.cwd) that goes
// round a guard: a deletion of a GuardDelete target, or a command that
// changes a GuardAccess target or prints it.
func guardCommand(l Limit, name string, x cmd, home string) string {
	_, params := splitFlags(x.args[1:])
	if !slices.ContainsFunc(append(params, x.writes...), func(p string) bool {
		return samePlace(resolve(expandHome(p, home), x.cwd), l.Target)
	}) {
		return ""
	}
	runs := "runs " + strings.Join(x.args[:min(len(x.args), 4)], " ")
	switch l.Class {
	case GuardDelete:
		if deletes(name, x.args[1:]) {
			return runs
		}
	case GuardAccess:
		if readers[name] || len(x.writes) > 0 || !inspects(name, x.args[1:]) {
			return runs
		}
	}
	return ""
}

// brokenGuards fills steps with the guards a call goes round.
func brokenGuards(ls []Limit, c Call, steps []string) {
	for i, l := range ls {
		if steps[i] != "" || l.Class != GuardDelete && l.Class != GuardAccess {
			continue
		}
		switch c.Tool {
		case "Read", "Write", "Edit", "MultiEdit":
			steps[i] = guardFile(l, c)
		case "Bash":
			cmds, _ := c.commands()
			home := homeOf(c.ProjectDir)
			inDirs(cmds, c.ProjectDir, func(name string, x cmd) {
				if steps[i] == "" {
					steps[i] = guardCommand(l, name, x, home)
				}
			})
		}
	}
}
