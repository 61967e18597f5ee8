package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakeTB records Skip and Fatal instead of ending the test, to check the
// skip rule of RequireCLI.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Skip(args ...any)  { f.skipped = fmt.Sprint(args...) }
func (f *fakeTB) Fatal(args ...any) { f.failed = fmt.Sprint(args...) }

func writeExec(t *testing.T, path, script string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRequireCLISkipRule(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DJINN_CACHE_DIR", dir)
	t.Setenv("PATH", dir) // no claude anywhere
	tests := []struct {
		ci, bin    string
		wantSkip   bool
		wantFail   bool
		wantInHint string
	}{
		{"", "", true, false, "scripts/install-claude-cli"},
		{"false", "", true, false, "scripts/install-claude-cli"},
		{"true", "", false, true, "never skip in CI"},
		{"true", filepath.Join(dir, "missing"), false, true, "DJINN_CLAUDE_BIN"},
		{"", filepath.Join(dir, "missing"), true, false, "is not an executable"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("CI=%q,DJINN_CLAUDE_BIN=%q", tt.ci, filepath.Base(tt.bin)), func(t *testing.T) {
			t.Setenv("CI", tt.ci)
			t.Setenv("DJINN_CLAUDE_BIN", tt.bin)
			f := &fakeTB{}
			if got := RequireCLI(f); got != "" {
				t.Errorf("RequireCLI = %q, want \"\"", got)
			}
			if (f.skipped != "") != tt.wantSkip || (f.failed != "") != tt.wantFail {
				t.Errorf("skipped %q, failed %q", f.skipped, f.failed)
			}
			if !strings.Contains(f.skipped+f.failed, tt.wantInHint) {
				t.Errorf("message %q lacks %q", f.skipped+f.failed, tt.wantInHint)
			}
		})
	}
}

const fakeClaude = `#!/bin/sh
case $1 in --version) echo "2.1.197 (Claude Code)"; exit 0;; esac
[ -n "$FAKE_HANG" ] && exec sleep 1000
env > "$HOME/env.txt"
printf '%s\n' "$@" > "$HOME/args.txt"
pwd > "$HOME/pwd.txt"
echo '{"type":"system","subtype":"status","status":"compacting","session_id":"s-1"}'
echo 'a stray warning'
echo '{"type":"system","subtype":"hook_response","hook_event":"PostToolUse","hook_name":"PostToolUse:Bash","output":"x","exit_code":0,"outcome":"success","session_id":"s-1"}'
echo '{"type":"system","subtype":"hook_response","hook_event":"Stop","hook_name":"Stop","exit_code":1,"outcome":"error","session_id":"s-1"}'
echo '{"type":"result","subtype":"success","session_id":"s-1"}'
echo oops >&2
exit ${FAKE_EXIT:-0}
`

func TestFindCLI(t *testing.T) {
	dir := t.TempDir()
	onPath := writeExec(t, filepath.Join(dir, "path", "claude"), fakeClaude)
	cached := writeExec(t, filepath.Join(dir, "cache", "claude-code", "node_modules", ".bin", "claude"), fakeClaude)
	explicit := writeExec(t, filepath.Join(dir, "explicit"), fakeClaude)
	notExec := filepath.Join(dir, "plain")
	if err := os.WriteFile(notExec, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Dir(onPath))
	tests := []struct {
		name, bin, cache string
		want             string
		wantErr          bool
	}{
		{"DJINN_CLAUDE_BIN wins", explicit, filepath.Join(dir, "cache"), explicit, false},
		{"DJINN_CLAUDE_BIN must be executable", notExec, filepath.Join(dir, "cache"), "", true},
		{"cache before PATH", "", filepath.Join(dir, "cache"), cached, false},
		{"PATH last", "", filepath.Join(dir, "nocache"), onPath, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("DJINN_CLAUDE_BIN", tt.bin)
			t.Setenv("DJINN_CACHE_DIR", tt.cache)
			got, err := FindCLI()
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("FindCLI = %q, %v; want %q (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
	t.Setenv("PATH", filepath.Join(dir, "empty"))
	t.Setenv("DJINN_CLAUDE_BIN", "")
	t.Setenv("DJINN_CACHE_DIR", filepath.Join(dir, "nocache"))
	if _, err := FindCLI(); err == nil {
		t.Error("FindCLI found a CLI where there is none")
	}
	if v, err := CLIVersion(explicit); v != "2.1.197" || err != nil {
		t.Errorf("CLIVersion = %q, %v", v, err)
	}
	if _, err := CLIVersion(notExec); err == nil {
		t.Error("CLIVersion of a non-executable succeeded")
	}
}

func TestCacheBinary(t *testing.T) {
	tests := []struct{ djinn, xdg, home, want string }{
		{"/c", "/x", "/h", "/c/claude-code/node_modules/.bin/claude"},
		{"", "/x", "/h", "/x/djinn-ci/claude-code/node_modules/.bin/claude"},
		{"", "", "/h", "/h/.cache/djinn-ci/claude-code/node_modules/.bin/claude"},
	}
	for _, tt := range tests {
		t.Setenv("DJINN_CACHE_DIR", tt.djinn)
		t.Setenv("XDG_CACHE_HOME", tt.xdg)
		t.Setenv("HOME", tt.home)
		if got := CacheBinary(); got != tt.want {
			t.Errorf("CacheBinary(%+v) = %q", tt, got)
		}
	}
}

// fakeEnv is an Env around the fake CLI script, so that the runner is
// tested without the real CLI.
func fakeEnv(t *testing.T) *Env {
	dir := t.TempDir()
	e := &Env{T: t, Bin: writeExec(t, filepath.Join(dir, "claude"), fakeClaude), Home: filepath.Join(dir, "home"), Project: filepath.Join(dir, "proj")}
	for _, d := range []string{e.Home, e.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func TestClaudeRunner(t *testing.T) {
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "leak")
	t.Setenv("CLAUDECODE", "1")
	t.Setenv("CLAUDE_CONFIG_DIR", "/leak")
	e := fakeEnv(t)
	e.Stub = NewStub(t)
	e.Env = []string{"A=env", "B=env"}
	res, err := e.Claude(t.Context(), Run{
		Prompt: "hi there", PluginDirs: []string{"/p1", "/p2"}, Resume: "sid", MaxTurns: 3,
		AllowedTools: []string{"Bash(echo *)", "Read"}, Args: []string{"--model", "x"}, Env: []string{"B=run", "FAKE_EXIT=3"},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantArgs := []string{"-p", "hi there", "--output-format", "stream-json", "--verbose", "--include-hook-events",
		"--max-turns", "3", "--plugin-dir", "/p1", "--plugin-dir", "/p2", "--resume", "sid",
		"--allowedTools", "Bash(echo *),Read", "--model", "x"}
	if !reflect.DeepEqual(res.Args, wantArgs) {
		t.Errorf("args %q\nwant %q", res.Args, wantArgs)
	}
	args, _ := os.ReadFile(filepath.Join(e.Home, "args.txt"))
	if string(args) != strings.Join(wantArgs, "\n")+"\n" {
		t.Errorf("the CLI got %q", args)
	}
	if pwd, _ := os.ReadFile(filepath.Join(e.Home, "pwd.txt")); strings.TrimSpace(string(pwd)) != e.Project {
		t.Errorf("working dir %q, want %q", pwd, e.Project)
	}
	envTxt, _ := os.ReadFile(filepath.Join(e.Home, "env.txt"))
	for _, want := range []string{"HOME=" + e.Home, "ANTHROPIC_BASE_URL=" + e.Stub.URL(), "ANTHROPIC_API_KEY=sk-ant-dummy",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "A=env", "B=run"} {
		if !bytes.Contains(envTxt, []byte("\n"+want+"\n")) && !bytes.HasPrefix(envTxt, []byte(want+"\n")) {
			t.Errorf("environment lacks %s", want)
		}
	}
	for _, leak := range []string{"ANTHROPIC_AUTH_TOKEN", "CLAUDECODE", "CLAUDE_CONFIG_DIR", "B=env"} {
		if bytes.Contains(envTxt, []byte(leak)) {
			t.Errorf("environment has %s", leak)
		}
	}
	if res.ExitCode != 3 || res.SessionID != "s-1" || string(res.Stderr) != "oops\n" {
		t.Errorf("exit %d session %q stderr %q", res.ExitCode, res.SessionID, res.Stderr)
	}
	if len(res.Events) != 4 || len(res.Find("system", "")) != 3 || len(res.Find("result", "success")) != 1 {
		t.Errorf("events %+v", res.Events)
	}
	hr := res.HookResponses("PostToolUse")
	if len(hr) != 1 || hr[0].HookName != "PostToolUse:Bash" || hr[0].Output != "x" || *hr[0].ExitCode != 0 || hr[0].Outcome != "success" {
		t.Errorf("hook responses %+v", hr)
	}
	if all := res.HookResponses(""); len(all) != 2 || *all[1].ExitCode != 1 {
		t.Errorf("all hook responses %+v", all)
	}
	var v struct{ Status string }
	if err := res.Events[0].Decode(&v); err != nil || v.Status != "compacting" {
		t.Errorf("Decode: %+v %v", v, err)
	}
	if !strings.Contains(res.String(), "exit 3") {
		t.Errorf("String() = %q", res.String())
	}

	// Defaults: 6 turns, Bash and Read allowed; an empty list drops the flag.
	if got := (Run{Prompt: "x"}).args(); !reflect.DeepEqual(got[6:], []string{"--max-turns", "6", "--allowedTools", "Bash,Read"}) {
		t.Errorf("default args %q", got)
	}
	if got := (Run{Prompt: "x", AllowedTools: []string{}}).args(); len(got) != 8 {
		t.Errorf("args without tools %q", got)
	}

	p, err := e.Plugin(t.Context(), "validate", "/dir")
	if err != nil || !reflect.DeepEqual(p.Args, []string{"plugin", "validate", "/dir"}) {
		t.Errorf("Plugin: %v %q", err, p.Args)
	}
}

func TestClaudeTimeout(t *testing.T) {
	e := fakeEnv(t)
	res, err := e.Claude(t.Context(), Run{Prompt: "x", Env: []string{"FAKE_HANG=1"}, Timeout: 50 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || res == nil || res.ExitCode != -1 {
		t.Errorf("err %v, result %v; want a deadline error and exit -1", err, res)
	}
	e.Bin = filepath.Join(t.TempDir(), "absent")
	if _, err := e.Claude(t.Context(), Run{Prompt: "x"}); err == nil {
		t.Error("running a missing executable is not an error")
	}
}

func TestParseEvents(t *testing.T) {
	out := "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"a\"}\n\n  \nnot json\n{broken\n[1]\n{\"type\":\"result\"}\r\n"
	evs := ParseEvents([]byte(out))
	if len(evs) != 2 || evs[0].SessionID != "a" || evs[1].Type != "result" || string(evs[1].Raw) != `{"type":"result"}` {
		t.Errorf("ParseEvents = %+v", evs)
	}
}

func FuzzParseEvents(f *testing.F) {
	f.Add([]byte("{\"type\":\"system\",\"subtype\":\"hook_response\",\"exit_code\":0}\nx\n"))
	f.Add([]byte("{\"exit_code\":\"no\"}\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, ev := range ParseEvents(data) {
			var m map[string]any
			if err := ev.Decode(&m); err != nil {
				t.Fatalf("event %s does not decode: %v", ev.Raw, err)
			}
			if !bytes.Contains(data, ev.Raw) {
				t.Fatalf("event %s is not a line of the input", ev.Raw)
			}
		}
	})
}

func TestProjectKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/tmp/proj", "-tmp-proj"},
		{"/work/proj", "-work-proj"},
		{"/home/a.b/my_project-2", "-home-a-b-my-project-2"},
		{"/tmp/é", "-tmp---"},
	}
	for _, tt := range tests {
		if got := ProjectKey(tt.in); got != tt.want {
			t.Errorf("ProjectKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// fakeNpm stands in for npm: it lays out what the real package leaves after
// its postinstall (a claude executable behind node_modules/.bin) and counts
// its calls.
const fakeNpm = `#!/bin/sh
echo "npm $*" >>"$FAKE_NPM_LOG"
echo "added 2 packages"
while [ $# -gt 0 ]; do
	case $1 in --prefix) prefix=$2; shift ;; esac
	shift
done
pkg=$prefix/node_modules/@anthropic-ai/claude-code
mkdir -p "$pkg/bin" "$prefix/node_modules/.bin"
printf '#!/bin/sh\necho "%s (Claude Code)"\n' "${FAKE_NPM_VERSION:-2.1.197}" >"$pkg/bin/claude.exe"
chmod +x "$pkg/bin/claude.exe"
ln -sf ../@anthropic-ai/claude-code/bin/claude.exe "$prefix/node_modules/.bin/claude"
`

// TestInstallScript runs scripts/install-claude-cli against a fake npm:
// stdout is exactly the path FindCLI looks at, a second run reuses the
// install, a wrong version is reinstalled, and a failed install says so.
func TestInstallScript(t *testing.T) {
	script, err := filepath.Abs("../scripts/install-claude-cli")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	writeExec(t, filepath.Join(dir, "bin", "npm"), fakeNpm)
	log := filepath.Join(dir, "npm.log")
	run := func(env ...string) (string, string, error) {
		cmd := exec.Command("sh", script)
		cmd.Env = append([]string{"PATH=" + filepath.Join(dir, "bin") + ":" + os.Getenv("PATH"), "HOME=" + dir, "FAKE_NPM_LOG=" + log}, env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	calls := func() int {
		b, _ := os.ReadFile(log)
		return bytes.Count(b, []byte("\n"))
	}

	// Default location: $XDG_CACHE_HOME/djinn-ci, the same as CacheBinary.
	xdg := filepath.Join(dir, "xdg")
	t.Setenv("DJINN_CACHE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", xdg)
	out, stderr, err := run("XDG_CACHE_HOME=" + xdg)
	if err != nil {
		t.Fatalf("install: %v\n%s", err, stderr)
	}
	if out != CacheBinary()+"\n" {
		t.Errorf("stdout %q, want exactly %q", out, CacheBinary()+"\n")
	}
	if !strings.Contains(stderr, "added 2 packages") || !strings.Contains(readString(log), "@anthropic-ai/claude-code@2.1.197") {
		t.Errorf("npm's output should go to stderr and install the pinned version; stderr %q", stderr)
	}
	if v, err := exec.Command(strings.TrimSpace(out), "--version").Output(); err != nil || !strings.HasPrefix(string(v), PinnedVersion+" ") {
		t.Errorf("installed claude --version: %q %v", v, err)
	}
	if _, _, err := run("XDG_CACHE_HOME=" + xdg); err != nil || calls() != 1 {
		t.Errorf("second run: %v, npm called %d times, want 1", err, calls())
	}

	// DJINN_CACHE_DIR wins; a wrong version is reinstalled, and an install
	// that still has the wrong version fails.
	cache := filepath.Join(dir, "djinn-cache")
	if _, _, err := run("DJINN_CACHE_DIR="+cache, "FAKE_NPM_VERSION=2.1.100"); err == nil {
		t.Error("an install of the wrong version succeeded")
	}
	out, _, err = run("DJINN_CACHE_DIR=" + cache)
	if err != nil || out != filepath.Join(cache, "claude-code", "node_modules", ".bin", "claude")+"\n" || calls() != 3 {
		t.Errorf("reinstall: %q %v, npm called %d times, want 3", out, err, calls())
	}

	// No npm: a clear message, exit 1.
	cmd := exec.Command("/bin/sh", script)
	cmd.Env = []string{"PATH=" + filepath.Join(dir, "empty"), "HOME=" + dir, "DJINN_CACHE_DIR=" + filepath.Join(dir, "none")}
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "npm not found") {
		t.Errorf("without npm: %v %q", err, msg)
	}
}

func readString(path string) string {
	b, _ := os.ReadFile(path) // a missing file reads as ""
	return string(b)
}
