package state

import (
	"errors"
	"fmt"
	"path/filepath"
)

// ErrNoRoot is returned when no state root can be resolved.
var ErrNoRoot = errors.New("no state directory: set --state-dir, DJINN_STATE_DIR, CLAUDE_PLUGIN_DATA or HOME")

// ResolveRoot picks the state root in the design's order: the --state-dir
// flag, then $DJINN_STATE_DIR, then $CLAUDE_PLUGIN_DATA, then
// $XDG_STATE_HOME/djinn, then ~/.local/state/djinn. It never picks the plugin
// directory, which Claude Code replaces on every update. getenv is injected so
// tests do not depend on the process environment.
func ResolveRoot(flag string, getenv func(string) string) (string, error) {
	for _, v := range []string{flag, getenv("DJINN_STATE_DIR"), getenv("CLAUDE_PLUGIN_DATA")} {
		if v != "" {
			return absClean(v)
		}
	}
	if x := getenv("XDG_STATE_HOME"); x != "" {
		return absClean(filepath.Join(x, "djinn"))
	}
	if h := getenv("HOME"); h != "" {
		return absClean(filepath.Join(h, ".local", "state", "djinn"))
	}
	return "", ErrNoRoot
}

func absClean(p string) (string, error) {
	a, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("state directory %q: %w", p, err)
	}
	return a, nil
}
