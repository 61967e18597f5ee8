package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstalledPluginFoundFromShell (issue 15): djinn is installed from the
// marketplace in a scratch HOME and a session runs; then, in a plain shell
// in the project's directory (only HOME set: no --session, no --state-dir,
// no CLAUDE_PLUGIN_DATA), `djinn status` through bin/djinn, the stable
// link the README tells people to put on PATH, finds that session. The
// session start that built Djinn said so on screen, with how long it took.
func TestInstalledPluginFoundFromShell(t *testing.T) {
	t.Parallel()
	stub := NewStub(t,
		Bash("echo djinn-e2e", "Print a marker"),
		Text("The marker printed."),
	)
	env := NewEnv(t, stub)
	env.Env = append(env.Env, goBuildEnv(t)...)
	version := pluginVersion(t)
	_, data := installDjinn(t, env)

	run := env.MustClaude(Run{Prompt: "Fix the login redirect loop in the session middleware; print the marker first."})
	if run.SessionID == "" {
		t.Fatalf("no session id\n%v", run)
	}
	stable := filepath.Join(data, "bin", "djinn")
	if target, err := os.Readlink(stable); err != nil || target != "djinn-"+version {
		t.Fatalf("%s -> %q (%v); want djinn-%s, kept by the launcher", stable, target, err, version)
	}
	built := false
	for _, hr := range run.HookResponses("SessionStart") {
		if strings.Contains(hr.Output, `{"systemMessage":"djinn: built Djinn `+version+` in `) {
			built = true
		}
	}
	if !built {
		t.Errorf("the SessionStart that built Djinn did not say so on screen: %+v", run.HookResponses("SessionStart"))
	}

	// A plain shell: HOME, and the project as the working directory.
	cmd := exec.CommandContext(testContext(t), stable, "status")
	cmd.Dir = env.Project
	cmd.Env = []string{"HOME=" + env.Home}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("djinn status from the project's directory: %v\nstdout %s\nstderr %s", err, out.String(), errb.String())
	}
	if !strings.HasPrefix(out.String(), "djinn status: session "+run.SessionID+",") || !strings.Contains(out.String(), "Fix the login redirect loop") {
		t.Errorf("djinn status from a plain shell did not find the session %s:\n%s", run.SessionID, out.String())
	}

	// And the state is removed from there too, everything Djinn wrote.
	cmd = exec.CommandContext(testContext(t), stable, "state", "delete", "--all")
	cmd.Dir = env.Project
	cmd.Env = []string{"HOME=" + env.Home}
	del, err := cmd.Output()
	if err != nil {
		t.Fatalf("djinn state delete --all: %v\n%s", err, del)
	}
	if !strings.Contains(string(del), "deleted session "+run.SessionID) {
		t.Errorf("state delete --all said %q; want the session deleted", del)
	}
	if _, err := os.Stat(filepath.Join(data, "sessions", run.SessionID)); err == nil {
		t.Errorf("the session's state is still in %s", data)
	}
	if _, err := os.Stat(stable); err != nil {
		t.Errorf("state delete --all removed the binaries: %v", err)
	}
}
