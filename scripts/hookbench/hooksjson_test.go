package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHookCommands: the bench runs what hooks.json gives Claude Code for
// each event, placeholders substituted, all of an event's commands
// together.
func TestHookCommands(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ event, on, want string }{
		{"SessionStart", "startup", root + "/hooks/djinn hook SessionStart"},
		{"SessionStart", "clear", root + "/hooks/djinn hook SessionStart"},
		{"SessionStart", "resume", "/data/bin/djinn-hook hook SessionStart; " + root + "/hooks/djinn ensure"},
		{"SessionStart", "compact", "/data/bin/djinn-hook hook SessionStart"},
		{"PostToolUse", "Read", "/data/bin/djinn-hook hook PostToolUse"},
		{"PreCompact", "auto", "/data/bin/djinn-hook hook PreCompact"},
		{"SessionEnd", "other", "/data/bin/djinn-hook hook SessionEnd"},
	}
	for _, c := range cases {
		cmds, err := hookCommands(root, "/data", c.event, c.on)
		var got []string
		for _, argv := range cmds {
			got = append(got, strings.Join(argv, " "))
		}
		if err != nil || strings.Join(got, "; ") != c.want {
			t.Errorf("%s(%s) = %q, %v; want %q", c.event, c.on, got, err, c.want)
		}
	}
	if _, err := hookCommands(root, "/data", "SessionStart", "nonsense"); err == nil {
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
// startup and clear run the launcher (which builds the binary and makes the
// link before any other hook of the session); resume runs the link and,
// beside it, the launcher's ensure (which builds and links only when a
// resumed session is the first since the install); everything else runs
// the link, in exec form, without a shell.
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
			want := []string{link + " hook " + ev}
			switch {
			case ev == "SessionStart" && g.Matcher == "resume":
				want = append(want, launcher+" ensure")
			case ev == "SessionStart" && g.Matcher != "compact":
				want = []string{launcher + " hook " + ev}
			}
			var got []string
			for _, h := range g.Hooks {
				if h.Type != "command" || h.Args == nil {
					t.Errorf("%s %q: a %s hook without args (a shell would start it)", ev, g.Matcher, h.Type)
					continue
				}
				got = append(got, h.Command+" "+strings.Join(*h.Args, " "))
			}
			if strings.Join(got, "; ") != strings.Join(want, "; ") {
				t.Errorf("%s %q runs %q; want %q", ev, g.Matcher, got, want)
			}
		}
	}
	var ss []string
	for _, g := range cfg.Hooks["SessionStart"] {
		ss = append(ss, g.Matcher)
	}
	if strings.Join(ss, ",") != "startup|clear,resume,compact" {
		t.Errorf("SessionStart matchers %q; want startup|clear (the launcher), resume (the link and ensure), compact (the link)", ss)
	}
}
