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

// TestHooksJSONWiring: every event Djinn handles is wired; SessionStart's
// startup, resume and clear run the launcher (which builds the binary and
// makes the link before any other hook of the session), and everything
// else runs the link, in exec form, without a shell.
func TestHooksJSONWiring(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := loadHooksJSON(root)
	if err != nil {
		t.Fatal(err)
	}
	const launcher, link = "${CLAUDE_PLUGIN_ROOT}/hooks/djinn", "${CLAUDE_PLUGIN_DATA}/bin/djinn-hook"
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "PreCompact", "SessionEnd"} {
		groups := cfg.Hooks[ev]
		if len(groups) == 0 {
			t.Errorf("%s is not wired", ev)
		}
		for _, g := range groups {
			if len(g.Hooks) != 1 {
				t.Fatalf("%s %q: %d hooks, want 1", ev, g.Matcher, len(g.Hooks))
			}
			h := g.Hooks[0]
			want := link
			if ev == "SessionStart" && g.Matcher != "compact" {
				want = launcher
			}
			if h.Type != "command" || h.Command != want || h.Args == nil || strings.Join(*h.Args, " ") != "hook "+ev {
				t.Errorf("%s %q runs %s %q %v; want %s hook %s", ev, g.Matcher, h.Type, h.Command, h.Args, want, ev)
			}
		}
	}
	var ss []string
	for _, g := range cfg.Hooks["SessionStart"] {
		ss = append(ss, g.Matcher)
	}
	if strings.Join(ss, ",") != "startup|resume|clear,compact" {
		t.Errorf("SessionStart matchers %q; want startup|resume|clear (the launcher) then compact", ss)
	}
}
