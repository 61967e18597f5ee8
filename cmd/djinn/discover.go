package main

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/state"
)

// A command run from a plain shell has neither --state-dir nor
// $DJINN_STATE_DIR nor $CLAUDE_PLUGIN_DATA, while the hooks of an installed
// plugin keep their state in Claude Code's plugin data directory
// (~/.claude/plugins/data/djinn-<marketplace>, djinn-inline under
// --plugin-dir). Such a command looks in the XDG state root and in every one
// of those directories, and takes the one that holds the session asked for,
// else the current project's newest session.

// explicitRoot reports whether the state root is given (flag or
// environment), so nothing is searched.
func (a *app) explicitRoot(stateDir string) bool {
	return stateDir != "" || a.getenv("DJINN_STATE_DIR") != "" || a.getenv("CLAUDE_PLUGIN_DATA") != ""
}

// candidateRoots are the state roots a command without one searches: the
// default root (state.ResolveRoot), the plugin data directories the hooks
// listed in its plugin-data file, then Claude Code's plugin data
// directories of Djinn ($CLAUDE_CONFIG_DIR, else ~/.claude), sorted.
func (a *app) candidateRoots() []string {
	var roots []string
	add := func(r string) {
		if fi, err := os.Stat(r); err == nil && fi.IsDir() && !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	if r, err := state.ResolveRoot("", a.getenv); err == nil {
		roots = append(roots, r)
		// The plugin data directories the hooks recorded there.
		for _, d := range (&state.Store{Root: r}).PluginData() {
			add(d)
		}
	}
	config := a.getenv("CLAUDE_CONFIG_DIR")
	if config == "" {
		if h := a.getenv("HOME"); h != "" {
			config = filepath.Join(h, ".claude")
		}
	}
	if config != "" {
		matches, _ := filepath.Glob(filepath.Join(config, "plugins", "data", "djinn-*"))
		sort.Strings(matches)
		for _, m := range matches {
			add(m)
		}
	}
	return roots
}

// rootSession is a session found under one of the candidate roots.
type rootSession struct {
	root string
	info state.SessionInfo
}

// discoverRoot returns the state root a command uses when none is given:
// the candidate root holding session (when set), else the one holding the
// newest session of project, else "" (the default resolution). It records
// what it searched, for sessionID's error.
func (a *app) discoverRoot(stateDir, session, project string) string {
	if a.explicitRoot(stateDir) {
		return stateDir
	}
	a.searched = a.candidateRoots()
	var best *rootSession
	for _, r := range a.searched {
		st := &state.Store{Root: r, Now: a.now}
		if session != "" {
			if state.ValidateSessionID(session) != nil {
				return ""
			}
			if fi, err := os.Lstat(filepath.Join(r, "sessions", session)); err == nil && fi.IsDir() {
				return r
			}
			continue
		}
		sessions, err := st.Sessions()
		if err != nil {
			continue
		}
		for _, s := range sessions {
			if a.newest == nil || s.UpdatedAt.After(a.newest.info.UpdatedAt) {
				a.newest = &rootSession{root: r, info: s}
			}
			if s.ProjectDir != "" && sameDir(s.ProjectDir, project) && (best == nil || s.UpdatedAt.After(best.info.UpdatedAt)) {
				best = &rootSession{root: r, info: s}
			}
		}
	}
	if best != nil {
		return best.root
	}
	return ""
}

// discover is discoverRoot for a command's flags and the environment.
func (a *app) discover(c *cli.Context) string {
	session := c.String("session")
	if session == "" {
		session = a.getenv("DJINN_SESSION")
	}
	return a.discoverRoot(c.String("state-dir"), session, a.project())
}

// project is the current project: $CLAUDE_PROJECT_DIR, else the working
// directory.
func (a *app) project() string {
	if p := a.getenv("CLAUDE_PROJECT_DIR"); p != "" {
		return p
	}
	p, _ := os.Getwd()
	return p
}

// searchHint is what an error adds when the command searched for its state
// root: where it looked, and the --state-dir (and --session) of the newest
// session it saw, ready to paste.
func (a *app) searchHint() string {
	if a.searched == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(" (searched: ")
	b.WriteString(strings.Join(a.searched, ", "))
	b.WriteString(")")
	if a.newest != nil {
		b.WriteString("; the newest session anywhere is ")
		b.WriteString(a.newest.info.ID)
		if a.newest.info.ProjectDir != "" {
			b.WriteString(" of " + a.newest.info.ProjectDir)
		}
		b.WriteString(": pass --state-dir " + a.newest.root + " --session " + a.newest.info.ID)
	} else {
		b.WriteString("; no Djinn state there: pass --state-dir with the directory the hooks write to ($CLAUDE_PLUGIN_DATA of the plugin)")
	}
	return b.String()
}
