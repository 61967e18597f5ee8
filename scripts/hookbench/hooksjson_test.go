package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHookCommand: the bench runs what hooks.json gives Claude Code for
// each event, placeholders substituted.
func TestHookCommand(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ event, on, want string }{
		{"SessionStart", "startup", root + "/hooks/djinn hook SessionStart"},
		{"SessionStart", "resume", root + "/hooks/djinn hook SessionStart"},
		{"SessionStart", "compact", "/data/bin/djinn-hook hook SessionStart"},
		{"PostToolUse", "Read", "/data/bin/djinn-hook hook PostToolUse"},
		{"PreCompact", "auto", "/data/bin/djinn-hook hook PreCompact"},
		{"SessionEnd", "other", "/data/bin/djinn-hook hook SessionEnd"},
	}
	for _, c := range cases {
		argv, err := hookCommand(root, "/data", c.event, c.on)
		if err != nil || strings.Join(argv, " ") != c.want {
			t.Errorf("%s(%s) = %q, %v; want %q", c.event, c.on, argv, err, c.want)
		}
	}
	if _, err := hookCommand(root, "/data", "SessionStart", "nonsense"); err == nil {
		t.Error("a SessionStart source no matcher matches found a command")
	}
}

func TestMatches(t *testing.T) {
	cases := []struct {
		m, v string
		want bool
	}{
		{"", "x", true}, {"*", "x", true}, {"compact", "compact", true},
		{"startup|resume", "resume", true}, {"startup|resume", "resumed", false},
		{"Edit", "NotebookEdit", false}, {"(", "(", false},
	}
	for _, c := range cases {
		if got := matches(c.m, c.v); got != c.want {
			t.Errorf("matches(%q, %q) = %v, want %v", c.m, c.v, got, c.want)
		}
	}
}
