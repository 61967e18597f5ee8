// Package reorient is the backend of `djinn reorient`: it re-orients a
// session from a terminal, and shows what the last /djinn:reorient did.
// The re-orientation itself is the hooks' (hooks.Session.Reorient), the
// same step the /djinn:reorient prompt takes.
package reorient

import (
	"context"
	"path/filepath"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/state"
)

// Apply is `djinn reorient`: the session's goal replaced by intent, or the
// intent added to it as a constraint when it restates the goal and force
// is not set. It returns the words for the person.
func Apply(ctx context.Context, env *hooks.Env, id, intent string, force bool) (string, error) {
	if err := state.ValidateSessionID(id); err != nil {
		return "", err
	}
	s, err := hooks.OpenSession(ctx, env, id)
	if err != nil {
		return "", err
	}
	defer func() { _ = s.Close() }()
	res, err := s.Reorient(intent, force)
	if err != nil {
		return "", err
	}
	if err := s.Save(); err != nil {
		return "", err
	}
	return res.Text, nil
}

// Last returns what the last /djinn:reorient did, for the skill (which
// shows it after the UserPromptSubmit hook re-oriented the session).
func Last(st *state.Store, id string) (string, error) {
	dir, err := st.SessionDir(id)
	if err != nil {
		return "", err
	}
	var w state.Window
	found, err := st.Peek(filepath.Join(dir, "window.json"), state.KindWindow, &w)
	if err != nil {
		return "", err
	}
	if !found || w.Reorient == nil {
		return "djinn reorient: no re-orientation recorded in this session yet. Usage: /djinn:reorient <what the session should do now>", nil
	}
	return w.Reorient.Text, nil
}
