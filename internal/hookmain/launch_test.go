package hookmain

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestHookLinkPaths: a hook that Claude Code started through the link in
// the plugin data directory checks its own binary (the link's target)
// against $CLAUDE_PLUGIN_ROOT, with the launcher's inputs list of its
// version; anything else is not such a hook and checks nothing.
func TestHookLinkPaths(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "djinn-hook-1.2.3")
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "djinn-hook")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	exeIs := func(p string, err error) func() (string, error) {
		return func() (string, error) { return p, err }
	}
	cases := []struct {
		name       string
		env        map[string]string
		exe        func() (string, error)
		ok         bool
		wantInputs string
	}{
		{"link target (Linux)", map[string]string{"CLAUDE_PLUGIN_ROOT": "/root"}, exeIs(bin, nil), true, filepath.Join(dir, ".djinn-1.2.3.inputs")},
		{"the link itself (macOS)", map[string]string{"CLAUDE_PLUGIN_ROOT": "/root"}, exeIs(link, nil), true, filepath.Join(dir, ".djinn-1.2.3.inputs")},
		{"no plugin root", map[string]string{}, exeIs(bin, nil), false, ""},
		{"started by the launcher", map[string]string{"CLAUDE_PLUGIN_ROOT": "/root", "DJINN_LAUNCHER_ROOT": "/root"}, exeIs(bin, nil), false, ""},
		{"a rebuild run", map[string]string{"CLAUDE_PLUGIN_ROOT": "/root", "DJINN_REBUILD": "1"}, exeIs(bin, nil), false, ""},
		{"the command binary", map[string]string{"CLAUDE_PLUGIN_ROOT": "/root"}, exeIs(filepath.Join(dir, "djinn-1.2.3"), nil), false, ""},
		{"a test binary", map[string]string{"CLAUDE_PLUGIN_ROOT": "/root"}, exeIs("/tmp/go-build/hookmain.test", nil), false, ""},
		{"no executable", map[string]string{"CLAUDE_PLUGIN_ROOT": "/root"}, exeIs("", errors.New("gone")), false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, gotBin, inputs, ok := hookLinkPaths(func(k string) string { return c.env[k] }, c.exe)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if !ok {
				return
			}
			if root != "/root" || gotBin != bin || inputs != c.wantInputs {
				t.Errorf("got (%q, %q, %q), want (/root, %q, %q)", root, gotBin, inputs, bin, c.wantInputs)
			}
		})
	}
}

// TestChecksSources: the hooks where a session or a turn begins check the
// binary's sources, whatever the spelling of the event's name; the hooks
// inside a turn, and anything that is not an event, do not.
func TestChecksSources(t *testing.T) {
	for event, want := range map[string]bool{
		"SessionStart": true, "session-start": true, "UserPromptSubmit": true, "user_prompt_submit": true,
		"PreToolUse": false, "PostToolUse": false, "PostToolUseFailure": false, "Stop": false,
		"SubagentStop": false, "PreCompact": false, "SessionEnd": false, "": false, "--session": false,
	} {
		if got := checksSources(event); got != want {
			t.Errorf("checksSources(%q) = %v, want %v", event, got, want)
		}
	}
}
