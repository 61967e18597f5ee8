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
		{"PostCompact", "manual", "/data/bin/djinn-hook hook PostCompact"},
		{"SessionEnd", "other", "/data/bin/djinn-hook hook SessionEnd"},
	}
	for _, c := range cases {
		cmds, err := hookCommands(root, "/data", c.event, c.on)
		var got []string
		for _, argv := range cmds {
			if len(argv) < 4 || argv[0] != "/bin/sh" || argv[1] != "-c" || argv[2] != guard {
				t.Errorf("%s(%s) runs %q, not under the guard", c.event, c.on, argv)
				continue
			}
			got = append(got, strings.Join(argv[3:], " "))
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

// guard is what every hook of hooks.json runs its target under, as
// /bin/sh -c guard target args...: a failure of the target (a Go runtime
// error exits 2, which would block the event; a missing binary exits 127)
// becomes exit 0 and one djinn: line, and the runtime's own report goes to
// /dev/null (the target writes its djinn: lines to fd 3, DJINN_ERR_FD).
const guard = `DJINN_ERR_FD=3 "$0" "$@" 3>&2 2>/dev/null || printf 'djinn: %s failed (exit status %s); the event is skipped\n' "$0 $*" $? >&2`

// TestHooksJSONWiring: every event Djinn handles is wired; SessionStart's
// startup and clear run the launcher (which builds the binary and makes the
// link before any other hook of the session); resume runs the link and,
// beside it, the launcher's ensure (which builds and links only when a
// resumed session is the first since the install); everything else runs
// the link. Every hook runs in exec form under the guard.
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
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "PreCompact", "PostCompact", "SessionEnd"} {
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
					t.Errorf("%s %q: a %s hook without args (Claude Code's shell would start it)", ev, g.Matcher, h.Type)
					continue
				}
				args := *h.Args
				if h.Command != "/bin/sh" || len(args) < 3 || args[0] != "-c" || args[1] != guard {
					t.Errorf("%s %q: %s %q does not run under the guard", ev, g.Matcher, h.Command, args)
					continue
				}
				got = append(got, args[2]+" "+strings.Join(args[3:], " "))
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
