package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	cmd.Env = append([]string{"PATH=" + pathWithoutDjinn(), "HOME=" + t.TempDir(), "CLAUDE_PLUGIN_ROOT=" + root}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	r := runProcess(t, context.Background(), path, cmd)
	return string(r.stdout), string(r.stderr), r.code
}

// pathWithoutDjinn is $PATH without the directories holding a djinn (the
// test binary's own, which testscript puts there): the launcher would run
// it when it finds no Go (see TestLauncherUsesDjinnOnPath).
func pathWithoutDjinn() string {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "djinn")); err != nil {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
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
	// Inside a turn the binary runs as it is: a stale one's PostToolUse
	// through the link neither checks nor rebuilds, and records the call
	// (the sources are checked where a session or a turn begins).
	out, errOut, code = runAs(t, link, env, `{"session_id":"stale-3","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/tmp/a.go"},"tool_response":"x","cwd":"/tmp"}`, "hook", "PostToolUse")
	if code != 0 || errOut != "" {
		t.Fatalf("stale PostToolUse through the link: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, b := range []string{bin, hookBin} {
		if rebuilt(t, b, old) {
			t.Fatalf("a PostToolUse rebuilt %s", b)
		}
	}
	raw, err = os.ReadFile(filepath.Join(stateDir, "sessions", "stale-3", "window.json"))
	if err != nil {
		t.Fatalf("the stale binary's PostToolUse left no state: %v", err)
	}
	w.Events = nil
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatal(err)
	}
	if w.Events["PostToolUse"] != 1 {
		t.Errorf("the stale binary's PostToolUse: events %v, want PostToolUse once", w.Events)
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

// TestLauncherBuildFailureShowsTheError: a build that fails after go's
// "go: downloading" lines shows the error itself (go's last lines), the
// plugin's directory and the Go it used, on screen at SessionStart and in
// the stderr line.
func TestLauncherBuildFailureShowsTheError(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the launcher")
	}
	dir := t.TempDir()
	fakeGo := filepath.Join(dir, "go")
	script := "#!/bin/sh\nfor m in a b c d e; do echo \"go: downloading example.com/$m v1.0.0\" >&2; done\necho 'go: example.com/e@v1.0.0: module lookup disabled by GOPROXY=off' >&2\nexit 1\n"
	if err := os.WriteFile(fakeGo, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	msg, errOut := startWithGo(t, fakeGo)
	root := repoRootAbs(t)
	for _, want := range []string{"module lookup disabled by GOPROXY=off", root, fakeGo} {
		if !strings.Contains(msg, want) || !strings.Contains(errOut, want) {
			t.Errorf("the failure does not show %q:\nsystemMessage %q\nstderr %q", want, msg, errOut)
		}
	}
	if strings.Contains(msg, "downloading") {
		t.Errorf("the systemMessage shows go's download lines instead of the error: %q", msg)
	}
}

// startWithGo runs the launcher's SessionStart with DJINN_GO=goPath, fresh
// plugin data and state, and returns its systemMessage and stderr; it
// fails the test unless the hook exits 0 with a JSON answer.
func startWithGo(t *testing.T, goPath string) (message, stderr string) {
	t.Helper()
	env := []string{"CLAUDE_PLUGIN_DATA=" + t.TempDir(), "DJINN_GO=" + goPath, "DJINN_STATE_DIR=" + t.TempDir()}
	out, errOut, code := runLauncher(t, env, `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`, "hook", "SessionStart")
	var msg struct {
		SystemMessage string `json:"systemMessage"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &msg) != nil {
		t.Fatalf("SessionStart: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	return msg.SystemMessage, errOut
}

// TestLauncherNamesAWrongDJINN_GO: a DJINN_GO that is not an executable
// file is named, with advice that needs no Go (where to get it).
func TestLauncherNamesAWrongDJINN_GO(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the launcher")
	}
	for _, goPath := range []string{"/nonexistent/go", t.TempDir()} {
		msg, errOut := startWithGo(t, goPath)
		for _, want := range []string{"DJINN_GO=" + goPath + " is not an executable file", "djinn " + Version + " binary on PATH"} {
			if !strings.Contains(msg, want) {
				t.Errorf("DJINN_GO=%s: systemMessage %q does not say %q", goPath, msg, want)
			}
		}
		if !strings.Contains(errOut, "DJINN_GO="+goPath) {
			t.Errorf("DJINN_GO=%s: stderr %q does not name it", goPath, errOut)
		}
	}
}

// TestLauncherUsesDjinnOnPath: without Go, a djinn on PATH whose `djinn
// version` is this version runs the hooks and the commands (the link the
// hooks run points at it); one of another version, or a launcher, is not
// taken.
func TestLauncherUsesDjinnOnPath(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the launcher")
	}
	pathDir := t.TempDir()
	calls := filepath.Join(t.TempDir(), "calls")
	fake := func(version string) {
		script := "#!/bin/sh\nif [ \"$1\" = version ]; then echo \"djinn " + version + " (go1.26, linux/amd64)\"; exit 0; fi\necho \"$*\" >>" + calls + "\n"
		if err := os.WriteFile(filepath.Join(pathDir, "djinn"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	payload := `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`
	newEnv := func() ([]string, string) {
		data := t.TempDir()
		return []string{"PATH=" + pathDir + ":/usr/bin:/bin", "CLAUDE_PLUGIN_DATA=" + data, "DJINN_GO=/nonexistent/go", "DJINN_STATE_DIR=" + t.TempDir()}, data
	}
	// notTaken checks that, with what on PATH, SessionStart tells the
	// person as without Go.
	notTaken := func(what string) {
		t.Helper()
		env, _ := newEnv()
		out, _, code := runLauncher(t, env, payload, "hook", "SessionStart")
		if code != 0 || !strings.Contains(out, "the Go toolchain was not found") {
			t.Errorf("%s on PATH: code %d, stdout %q; want the no-Go message", what, code, out)
		}
	}

	fake(Version)
	env, data := newEnv()
	out, errOut, code := runLauncher(t, env, payload, "hook", "SessionStart")
	if code != 0 || strings.Contains(out, "systemMessage") {
		t.Fatalf("SessionStart with djinn %s on PATH: code %d, stdout %q, stderr %q", Version, code, out, errOut)
	}
	if b, _ := os.ReadFile(calls); string(b) != "hook SessionStart\n" {
		t.Fatalf("the djinn on PATH ran %q, want the hook", b)
	}
	link := filepath.Join(data, "bin", "djinn-hook")
	if target, err := os.Readlink(link); err != nil || target != filepath.Join(pathDir, "djinn") {
		t.Errorf("link %s -> %q (%v); want the djinn on PATH", link, target, err)
	}
	if _, _, code := runLauncher(t, env, "", "status"); code != 0 {
		t.Errorf("status through the djinn on PATH: exit %d", code)
	}
	if b, _ := os.ReadFile(calls); string(b) != "hook SessionStart\nstatus\n" {
		t.Errorf("the djinn on PATH ran %q, want the hook then status", b)
	}

	// Another version on PATH: not taken, the person is told as without Go.
	fake("0.0.9")
	_ = os.Remove(calls)
	notTaken("djinn 0.0.9")
	if _, err := os.Stat(calls); err == nil {
		t.Error("a djinn of another version on PATH was run")
	}

	// A launcher on PATH (a link to hooks/djinn) is not taken either, and
	// does not recurse.
	_ = os.Remove(filepath.Join(pathDir, "djinn"))
	if err := os.Symlink(filepath.Join(repoRootAbs(t), "hooks", "djinn"), filepath.Join(pathDir, "djinn")); err != nil {
		t.Fatal(err)
	}
	notTaken("the launcher")
}

// TestLauncherTellsTheBuild: the SessionStart that builds Djinn says so
// on screen, with how long it took, once; the build keeps bin/djinn, the
// stable name for PATH, pointing at the command binary.
func TestLauncherTellsTheBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	data := t.TempDir()
	env := []string{"CLAUDE_PLUGIN_DATA=" + data, "DJINN_STATE_DIR=" + t.TempDir(), "GOCACHE=" + goEnv(t, "GOCACHE"), "GOPATH=" + goEnv(t, "GOPATH"), "GOFLAGS=-mod=mod"}
	payload := `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","cwd":"/tmp"}`
	out, errOut, code := runLauncher(t, env, payload, "hook", "SessionStart")
	var msg struct {
		SystemMessage string `json:"systemMessage"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &msg) != nil || !regexp.MustCompile(`^djinn: built Djinn `+regexp.QuoteMeta(Version)+` in \d+ s\b`).MatchString(msg.SystemMessage) {
		t.Fatalf("the building SessionStart: code %d, stdout %q, stderr %q; want a systemMessage saying it built, in how long", code, out, errOut)
	}
	out, errOut, code = runLauncher(t, env, payload, "hook", "SessionStart")
	if code != 0 || strings.Contains(out, "built Djinn") {
		t.Errorf("the next SessionStart: code %d, stdout %q, stderr %q; want no build notice", code, out, errOut)
	}
	stable := filepath.Join(data, "bin", "djinn")
	if target, err := os.Readlink(stable); err != nil || target != "djinn-"+Version {
		t.Fatalf("%s -> %q (%v); want djinn-%s", stable, target, err, Version)
	}
	if v, err := exec.Command(stable, "version").Output(); err != nil || !strings.HasPrefix(string(v), "djinn "+Version+" ") {
		t.Errorf("%s version: %q %v", stable, v, err)
	}
	// A lost link comes back at the next session start.
	if err := os.Remove(stable); err != nil {
		t.Fatal(err)
	}
	if _, _, code := runLauncher(t, env, payload, "hook", "SessionStart"); code != 0 {
		t.Fatalf("SessionStart: exit %d", code)
	}
	if _, err := os.Readlink(stable); err != nil {
		t.Errorf("the next SessionStart did not put %s back: %v", stable, err)
	}
}
