package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// runLauncher runs hooks/djinn as hooks.json does, with the given payload
// and environment (on top of a minimal one).
func runLauncher(t *testing.T, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runAs(t, filepath.Join(repoRootAbs(t), "hooks", "djinn"), env, stdin, args...)
}

func repoRootAbs(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// runAs runs path as Claude Code runs a hooks.json command (exec form),
// with the given payload and environment (on top of a minimal one).
func runAs(t *testing.T, path string, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	root := repoRootAbs(t)
	cmd := exec.Command(path, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "CLAUDE_PLUGIN_ROOT=" + root}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// TestLauncherWithoutGo: with no Go toolchain and no binary, SessionStart
// tells the user once through systemMessage, and every hook exits 0 with
// nothing on stdout otherwise.
func TestLauncherWithoutGo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the launcher")
	}
	data := t.TempDir()
	env := []string{"CLAUDE_PLUGIN_DATA=" + data, "DJINN_GO=/nonexistent/go", "DJINN_STATE_DIR=" + t.TempDir()}
	payload := `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`
	out, errOut, code := runLauncher(t, env, payload, "hook", "SessionStart")
	if code != 0 || !strings.HasPrefix(out, `{"systemMessage":"djinn: the Go toolchain was not found`) || !strings.HasPrefix(errOut, "djinn: ") {
		t.Fatalf("first SessionStart: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, _, code = runLauncher(t, env, payload, "hook", "SessionStart")
	if code != 0 || out != "" {
		t.Fatalf("second SessionStart told the user again: code %d, stdout %q", code, out)
	}
	out, errOut, code = runLauncher(t, env, `{"session_id":"s1","hook_event_name":"PostToolUse"}`, "hook", "PostToolUse")
	if code != 0 || out != "" || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("PostToolUse: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(data, "bin", "djinn-"+Version)); err == nil {
		t.Fatal("a binary appeared without a toolchain")
	}
	// The link that hooks.json runs for every other event points at the
	// launcher meanwhile, so those hooks exit 0 quietly too (no ENOENT).
	link := filepath.Join(data, "bin", "djinn-hook")
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("no link %s after SessionStart without a toolchain: %v", link, err)
	}
	out, errOut, code = runAs(t, link, env, `{"session_id":"s1","hook_event_name":"PostToolUse"}`, "hook", "PostToolUse")
	if code != 0 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "djinn: ") {
		t.Fatalf("PostToolUse through the link: code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestLauncherBuildsAndRebuilds: the first hook builds the binary into
// $CLAUDE_PLUGIN_DATA/bin (not under DJINN_STATE_DIR); a source newer than
// the binary makes the next hook rebuild it.
func TestLauncherBuildsAndRebuilds(t *testing.T) {
	data, stateDir, env := launcherEnv(t)
	out, errOut, code := runLauncher(t, env, "", "version")
	bin := filepath.Join(data, "bin", "djinn-"+Version)
	if code != 0 || !strings.HasPrefix(out, "djinn "+Version) {
		t.Fatalf("version: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	hookBin := filepath.Join(data, "bin", "djinn-hook-"+Version)
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatalf("no cached binary: %v", err)
	}
	if hfi, err := os.Stat(hookBin); err != nil || !hfi.ModTime().Equal(fi.ModTime()) {
		t.Fatalf("no hook binary beside %s, or not of its time: %v", bin, err)
	}
	if entries, _ := os.ReadDir(stateDir); len(entries) != 0 {
		t.Fatalf("the build wrote under DJINN_STATE_DIR: %v", entries)
	}
	// Age the binary to before go.mod, so it is stale however old the
	// checkout is, and the next run rebuilds.
	old := staleTime(t)
	if err := os.Chtimes(bin, old, old); err != nil {
		t.Fatal(err)
	}
	if _, _, code := runLauncher(t, env, "", "version"); code != 0 {
		t.Fatalf("rebuild run: code %d", code)
	}
	if !rebuilt(t, bin, old) {
		t.Fatalf("binary not rebuilt")
	}

	// A hook (the hook binary) checks beside its own work: aged, it hands
	// the payload it already read to the launcher before writing anything,
	// so the rebuilt binary records the event exactly once.
	for _, b := range []string{bin, hookBin} {
		if err := os.Chtimes(b, old, old); err != nil {
			t.Fatal(err)
		}
	}
	payload := `{"session_id":"stale-1","hook_event_name":"UserPromptSubmit","prompt":"Add a --json flag to the export command","cwd":"/tmp"}`
	out, errOut, code = runLauncher(t, env, payload, "hook", "UserPromptSubmit")
	if code != 0 || errOut != "" {
		t.Fatalf("stale hook: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if anchor, err := os.ReadFile(filepath.Join(stateDir, "sessions", "stale-1", "anchor.json")); err != nil || !bytes.Contains(anchor, []byte("--json flag")) {
		t.Errorf("the handed-over prompt was not anchored: %v %s", err, anchor)
	}
	for _, b := range []string{bin, hookBin} {
		if !rebuilt(t, b, old) {
			t.Fatalf("hook did not rebuild %s", b)
		}
	}
	raw, err := os.ReadFile(filepath.Join(stateDir, "sessions", "stale-1", "window.json"))
	if err != nil {
		t.Fatalf("the handed-over hook left no state: %v", err)
	}
	var w struct {
		Events map[string]int `json:"events"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatal(err)
	}
	if w.Events["UserPromptSubmit"] != 1 {
		t.Errorf("UserPromptSubmit recorded %d times, want exactly 1: %s", w.Events["UserPromptSubmit"], raw)
	}

	// The launcher left $CLAUDE_PLUGIN_DATA/bin/djinn-hook pointing at the
	// hook binary: what hooks.json runs for every event but SessionStart.
	link := filepath.Join(data, "bin", "djinn-hook")
	lfi, err := os.Lstat(link)
	if err != nil || lfi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("no link %s: %v", link, err)
	}
	hfi, err := os.Stat(hookBin)
	if tfi, err2 := os.Stat(link); err != nil || err2 != nil || !os.SameFile(hfi, tfi) {
		t.Fatalf("%s does not point at %s: %v %v", link, hookBin, err, err2)
	}
	// Run directly, the hook binary checks its sources itself: aged, it
	// hands the payload to the launcher, which rebuilds, and the event is
	// recorded once.
	for _, b := range []string{bin, hookBin} {
		if err := os.Chtimes(b, old, old); err != nil {
			t.Fatal(err)
		}
	}
	payload = `{"session_id":"stale-2","hook_event_name":"UserPromptSubmit","prompt":"Add a --yaml flag to the export command","cwd":"/tmp"}`
	out, errOut, code = runAs(t, link, env, payload, "hook", "UserPromptSubmit")
	if code != 0 || errOut != "" {
		t.Fatalf("stale hook through the link: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, b := range []string{bin, hookBin} {
		if !rebuilt(t, b, old) {
			t.Fatalf("the hook run through the link did not rebuild %s", b)
		}
	}
	// And fresh, it just runs.
	out, errOut, code = runAs(t, link, env, `{"session_id":"stale-2","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/tmp/a.go"},"tool_response":"x","cwd":"/tmp"}`, "hook", "PostToolUse")
	if code != 0 || errOut != "" {
		t.Fatalf("hook through the link: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	raw, err = os.ReadFile(filepath.Join(stateDir, "sessions", "stale-2", "window.json"))
	if err != nil {
		t.Fatal(err)
	}
	w.Events = nil
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatal(err)
	}
	if w.Events["UserPromptSubmit"] != 1 || w.Events["PostToolUse"] != 1 {
		t.Errorf("through the link: events %v, want UserPromptSubmit and PostToolUse once each", w.Events)
	}
}

// staleTime is a time a day before go.mod's: a binary given it is older
// than a source the launcher and the binaries always check, whenever the
// checkout was made, so a test that ages a binary to it cannot pass
// vacuously on an old checkout (as aging it by a fixed span from its build
// did).
func staleTime(t *testing.T) time.Time {
	t.Helper()
	fi, err := os.Stat(filepath.Join(repoRootAbs(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime().Add(-24 * time.Hour)
}

// rebuilt reports whether the binary at path was written after it was aged
// to old: a build gives it the build's time, which is after old (old is a
// day before a source, so before any build from it).
func rebuilt(t *testing.T, path string, old time.Time) bool {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return !fi.ModTime().Equal(old) && fi.ModTime().After(old)
}

func goEnv(t *testing.T, key string) string {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestLauncherEnsure: SessionStart(resume) runs the link and, beside it,
// `hooks/djinn ensure`. When a resumed session is the first since the
// install (no binary, no link), ensure builds and links, says nothing and
// records no event (the link's own hook, which failed to start, had no
// state to speak of); with the link in place it exits at once, leaving a
// stale binary to the link's hook, which checks its sources itself. Without
// Go it tells the user once, as SessionStart does, and points the link at
// the launcher so the other hooks exit 0 quietly.
func TestLauncherEnsure(t *testing.T) {
	data, stateDir, env := launcherEnv(t)
	payload := `{"session_id":"resumed-1","hook_event_name":"SessionStart","source":"resume","cwd":"/tmp"}`
	out, errOut, code := runLauncher(t, env, payload, "ensure")
	if code != 0 || out != "" || errOut != "" {
		t.Fatalf("ensure on a fresh install: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	hookBin := filepath.Join(data, "bin", "djinn-hook-"+Version)
	link := filepath.Join(data, "bin", "djinn-hook")
	hfi, err := os.Stat(hookBin)
	if err != nil {
		t.Fatalf("ensure built no hook binary: %v", err)
	}
	if lfi, err := os.Stat(link); err != nil || !os.SameFile(hfi, lfi) {
		t.Fatalf("ensure left %s not pointing at %s: %v", link, hookBin, err)
	}
	if _, err := os.Stat(filepath.Join(stateDir, "sessions", "resumed-1")); err == nil {
		t.Error("ensure ran the hook: the session has state")
	}
	// The link's hook, next time, runs and records the resume.
	if out, errOut, code := runAs(t, link, env, payload, "hook", "SessionStart"); code != 0 || errOut != "" {
		t.Fatalf("the link's SessionStart(resume): code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(stateDir, "sessions", "resumed-1", "window.json")); err != nil {
		t.Errorf("the link's hook recorded nothing: %v", err)
	}
	// With the link in place ensure does nothing, even for a stale binary
	// (older than go.mod whatever the checkout's age)...
	old := staleTime(t)
	if err := os.Chtimes(hookBin, old, old); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runLauncher(t, env, payload, "ensure"); code != 0 || out != "" || errOut != "" {
		t.Fatalf("ensure with the link in place: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if rebuilt(t, hookBin, old) {
		t.Errorf("ensure with the link in place rebuilt the binary")
	}
	// ...which the link's hook does rebuild: the binary was stale indeed.
	if out, errOut, code := runAs(t, link, env, payload, "hook", "SessionStart"); code != 0 || errOut != "" {
		t.Fatalf("the link's SessionStart(resume) on a stale binary: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !rebuilt(t, hookBin, old) {
		t.Errorf("the link's hook did not rebuild the stale binary: ensure's check above was vacuous")
	}

	// Without Go: the user is told once, the link points at the launcher.
	noGo := t.TempDir()
	env = []string{"CLAUDE_PLUGIN_DATA=" + noGo, "DJINN_GO=/nonexistent/go", "DJINN_STATE_DIR=" + t.TempDir()}
	out, errOut, code = runLauncher(t, env, payload, "ensure")
	if code != 0 || !strings.HasPrefix(out, `{"systemMessage":"djinn: the Go toolchain was not found`) || !strings.HasPrefix(errOut, "djinn: ") {
		t.Fatalf("ensure without Go: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if out, _, code = runLauncher(t, env, payload, "ensure"); code != 0 || out != "" {
		t.Fatalf("ensure without Go told the user again: code %d, stdout %q", code, out)
	}
	nl := filepath.Join(noGo, "bin", "djinn-hook")
	if target, err := os.Readlink(nl); err != nil || filepath.Base(target) != "djinn" {
		t.Fatalf("without Go the link is %q (%v); want the launcher", target, err)
	}

	// Both of SessionStart(resume)'s hooks at once, without Go, the link
	// pointing at the launcher: the user is told once between them.
	for round := range 20 {
		data := t.TempDir()
		env := []string{"CLAUDE_PLUGIN_DATA=" + data, "DJINN_GO=/nonexistent/go", "DJINN_STATE_DIR=" + t.TempDir()}
		if err := os.MkdirAll(filepath.Join(data, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(repoRootAbs(t), "hooks", "djinn"), filepath.Join(data, "bin", "djinn-hook")); err != nil {
			t.Fatal(err)
		}
		outs := make([]string, 2)
		var wg sync.WaitGroup
		for i, args := range [][]string{{"ensure"}, {"hook", "SessionStart"}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[i], _, _ = runAs(t, filepath.Join(data, "bin", "djinn-hook"), env, payload, args...)
			}()
		}
		wg.Wait()
		if n := strings.Count(outs[0]+outs[1], "systemMessage"); n != 1 {
			t.Fatalf("round %d: the two hooks told the user %d times: %q", round, n, outs)
		}
	}
}

// TestLauncherBuildFailure: when the build fails (here a go that fails
// after a while, as a module download offline does), SessionStart says so
// and every other hook, which runs the launcher through the link while
// there is no binary, exits 0 with one djinn: line and does not build
// again until a source changes after the failure; a new SessionStart
// tries again.
func TestLauncherBuildFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the launcher")
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	fakeGo := filepath.Join(dir, "go")
	script := "#!/bin/sh\necho \"$*\" >>" + calls + "\necho 'go: downloading github.com/urfave/cli/v2: network unreachable' >&2\nexit 1\n"
	if err := os.WriteFile(fakeGo, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	builds := func() int {
		b, _ := os.ReadFile(calls)
		return strings.Count(string(b), "build ")
	}
	data := t.TempDir()
	env := []string{"CLAUDE_PLUGIN_DATA=" + data, "DJINN_GO=" + fakeGo, "DJINN_STATE_DIR=" + t.TempDir()}
	start := `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`
	out, errOut, code := runLauncher(t, env, start, "hook", "SessionStart")
	if code != 0 || !strings.Contains(out, "building the djinn binary failed") || builds() != 1 {
		t.Fatalf("SessionStart with a failing build: code %d, stdout %q, stderr %q, %d builds", code, out, errOut, builds())
	}
	link := filepath.Join(data, "bin", "djinn-hook")
	ptu := `{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/tmp/a"},"tool_response":"x"}`
	for i := range 3 {
		out, errOut, code := runAs(t, link, env, ptu, "hook", "PostToolUse")
		if code != 0 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "djinn: the last build") {
			t.Fatalf("PostToolUse %d after the failed build: code %d, stdout %q, stderr %q", i, code, out, errOut)
		}
	}
	if n := builds(); n != 1 {
		t.Fatalf("the hooks after the failed build built %d more times, want none", n-1)
	}
	// A source changed since the failure (here: the marker aged to before
	// go.mod): the next hook tries again.
	marker := filepath.Join(data, "bin", ".build-failed-"+Version)
	old := staleTime(t)
	if err := os.Chtimes(marker, old, old); err != nil {
		t.Fatal(err)
	}
	if _, _, code := runAs(t, link, env, ptu, "hook", "PostToolUse"); code != 0 || builds() != 2 {
		t.Fatalf("after a source changed: code %d, %d builds, want 2", code, builds())
	}
	// And a new session tries again whatever changed.
	if _, _, code := runLauncher(t, env, start, "hook", "SessionStart"); code != 0 || builds() != 3 {
		t.Fatalf("the next SessionStart: code %d, %d builds, want 3", code, builds())
	}
}

// launcherEnv is a fresh plugin data directory and state directory and the
// environment a launcher that builds the binary runs with; in -short mode
// the test is skipped.
func launcherEnv(t *testing.T) (data, stateDir string, env []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	data, stateDir = t.TempDir(), t.TempDir()
	return data, stateDir, []string{"CLAUDE_PLUGIN_DATA=" + data, "DJINN_STATE_DIR=" + stateDir, "GOCACHE=" + goEnv(t, "GOCACHE"), "GOPATH=" + goEnv(t, "GOPATH"), "GOFLAGS=-mod=mod"}
}
