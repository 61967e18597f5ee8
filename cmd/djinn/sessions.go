package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/state"
)

// errNoSession is returned when no session can be chosen.
var errNoSession = errors.New("no session")

// sessionID resolves --session, else $DJINN_SESSION, else the newest session
// of the current project ($CLAUDE_PROJECT_DIR, else the working directory).
func (a *app) sessionID(c *cli.Context, st *state.Store) (string, error) {
	for _, v := range []string{c.String("session"), a.getenv("DJINN_SESSION")} {
		if v != "" {
			if err := state.ValidateSessionID(v); err != nil {
				return "", usagef("--session: %v", err)
			}
			return v, nil
		}
	}
	project := a.project()
	sessions, err := st.Sessions()
	if err != nil {
		return "", fmt.Errorf("list sessions: %w", err)
	}
	for _, s := range sessions {
		if s.ProjectDir != "" && sameDir(s.ProjectDir, project) {
			return s.ID, nil
		}
	}
	if a.searched != nil {
		return "", fmt.Errorf("%w for project %s%s", errNoSession, project, a.searchHint())
	}
	return "", fmt.Errorf("%w for project %s under %s; pass --session", errNoSession, project, st.Root)
}

func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
