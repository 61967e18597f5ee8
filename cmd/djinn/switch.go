package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/state"
)

// switchCommand builds "disable" and "enable": the per-session off switch,
// for all of Djinn or one detector.
func (a *app) switchCommand(name string) *cli.Command {
	return command(name, name+" Djinn, or one detector (drift, loops, stall, pressure, compress), for a session", "[detector]",
		func(c *cli.Context) error {
			if err := flagsFirst(c); err != nil {
				return err
			}
			if c.NArg() > 1 {
				return usagef("%s: expected at most one detector", name)
			}
			detector := "all"
			if c.NArg() == 1 {
				detector = c.Args().First()
			}
			env, id, err := a.session(c)
			if err != nil {
				return err
			}
			if !state.ValidDetector(detector) {
				return usagef("%s: unknown detector %q (one of: all, %s)", name, detector, strings.Join(state.Detectors(), ", "))
			}
			now, err := setDisabled(c.Context, env.Store, env.Now().UTC(), id, detector, name == "disable")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.stdout, "session %s: disabled: %s\n", id, now)
			return err
		})
}

// setDisabled turns a detector ("all" for every one) off or on for one
// session, under the session's lock, and returns the session's disabled
// list as text. A session with no state yet gets a window holding the
// switch, which its first hook then reads.
func setDisabled(ctx context.Context, st *state.Store, now time.Time, id, detector string, off bool) (string, error) {
	dir, err := st.SessionDir(id)
	if err != nil {
		return "", err
	}
	lock, err := st.LockSession(ctx, id)
	if err != nil {
		return "", err
	}
	defer func() { _ = lock.Unlock() }()
	path := filepath.Join(dir, "window.json")
	var w state.Window
	found, err := st.Load(path, state.KindWindow, &w)
	if err != nil {
		return "", err
	}
	if !found {
		w = state.NewWindow(id, now)
	}
	w.Disabled = state.SwitchDetector(w.Disabled, detector, off)
	w.UpdatedAt = now
	if err := st.Save(path, state.KindWindow, &w); err != nil {
		return "", fmt.Errorf("save window: %w", err)
	}
	if len(w.Disabled) == 0 {
		return "none", nil
	}
	return strings.Join(w.Disabled, ", "), nil
}
