package e2e

// End-to-end tests of the Djinn plugin itself (this repository), with the
// real Claude Code CLI against the scripted stub. This file holds the
// foundation tests (validate, marketplace install, every wired event) and
// the helpers shared by the other plugin tests: advisory_test.go,
// skills_test.go, stall_test.go, compact_test.go, compress_test.go and
// mcp_test.go. Those load the repository with --plugin-dir and let the
// launcher build once into a shared DJINN_BIN_DIR; each gets its own HOME,
// project and (through DJINN_STATE_DIR) state.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// sharedBinDir is the DJINN_BIN_DIR of every test that does not look at
// the build itself: the launcher builds the binary there once (its lock
// serialises parallel first hooks) and every later hook of every test
// reuses it. TestMain removes it.
var sharedBinDir string

func TestMain(m *testing.M) {
	if os.Getenv(mcpServerEnv) == "1" {
		// Started by Claude Code as the MCP server of TestCompressorMCPToolOutput.
		serveMCP(os.Stdin, os.Stdout)
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "djinn-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	sharedBinDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// repoRoot is the repository root, which is both the plugin root and the
// single-plugin marketplace (marketplace.json has "source": "./").
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".claude-plugin", "plugin.json")); err != nil {
		t.Fatalf("repository root not found from e2e/: %v", err)
	}
	return root
}

// pluginVersion is the version in .claude-plugin/plugin.json, which names
// the launcher's cached binary (djinn-<version>).
func pluginVersion(t testing.TB) string {
	t.Helper()
	var m struct {
		Version string `json:"version"`
	}
	data, err := os.ReadFile(filepath.Join(repoRoot(t), ".claude-plugin", "plugin.json"))
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil || m.Version == "" {
		t.Fatalf("plugin.json version: %v", err)
	}
	// The launcher has its own copy of the version; they must agree or the
	// binary the tests look for is not the one the hooks run.
	launcher, err := os.ReadFile(filepath.Join(repoRoot(t), "hooks", "djinn"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(launcher, []byte("\nversion="+m.Version+"\n")) {
		t.Fatalf("hooks/djinn does not say version=%s", m.Version)
	}
	return m.Version
}

var (
	goEnvOnce sync.Once
	goEnvVars []string
	goEnvErr  error
)

// goBuildEnv is what the launcher needs to build in a scratch HOME without
// a cold compile and a module download: the test's GOCACHE and GOMODCACHE
// (as `go env` reports them, since their defaults live under HOME), and the
// Go variables of the test's environment that change how go build behaves.
func goBuildEnv(t testing.TB) []string {
	t.Helper()
	goEnvOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
		if err != nil {
			goEnvErr = fmt.Errorf("go env (the launcher needs the Go toolchain on PATH): %w", err)
			return
		}
		f := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(f) != 3 {
			goEnvErr = fmt.Errorf("go env printed %q", out)
			return
		}
		goEnvVars = []string{"GOCACHE=" + f[0], "GOMODCACHE=" + f[1], "GOPATH=" + f[2]}
		for _, k := range []string{"GOFLAGS", "GOPROXY", "GONOSUMDB", "GOPRIVATE", "GOTOOLCHAIN", "GOROOT"} {
			if v, ok := os.LookupEnv(k); ok {
				goEnvVars = append(goEnvVars, k+"="+v)
			}
		}
	})
	if goEnvErr != nil {
		t.Fatal(goEnvErr)
	}
	return goEnvVars
}

// djinnEnv is an Env for runs with the Djinn plugin loaded from the
// repository (--plugin-dir, see pluginRun): the launcher can build, and
// builds into sharedBinDir. stateDir, if not empty, becomes DJINN_STATE_DIR.
func djinnEnv(t testing.TB, stub *Stub, stateDir string) *Env {
	t.Helper()
	env := NewEnv(t, stub)
	env.Env = append(env.Env, goBuildEnv(t)...)
	env.Env = append(env.Env, "DJINN_BIN_DIR="+sharedBinDir)
	if stateDir != "" {
		env.Env = append(env.Env, "DJINN_STATE_DIR="+stateDir)
	}
	return env
}

// djinnScratch is a stub model with no replies yet and a scratch CLI
// environment (djinnEnv) whose state lives in a fresh directory, returned
// third; vars are further environment variables for the CLI and its hooks.
func djinnScratch(t testing.TB, vars ...string) (stub *Stub, env *Env, stateDir string) {
	t.Helper()
	stateDir = t.TempDir()
	stub = NewStub(t)
	env = djinnEnv(t, stub, stateDir)
	env.Env = append(env.Env, vars...)
	return stub, env, stateDir
}

// configRead writes config.yaml into env's project and returns a Read of
// it: three of them in a row are a read-loop.
func configRead(t *testing.T, env *Env) Response {
	t.Helper()
	file := filepath.Join(env.Project, "config.yaml")
	writeFile(t, file, "retries: 3\ntimeout: 30s\n")
	return Tool("Read", map[string]string{"file_path": file})
}

// installDjinn installs the working tree in env's scratch HOME as a user
// would: a copy of it is added as a directory marketplace (named by its
// marketplace.json) and djinn@djinn is installed from it with the extra
// install arguments. It returns the marketplace directory and the plugin's
// data directory, where the launcher builds Djinn and Djinn keeps its state
// unless told otherwise.
func installDjinn(t testing.TB, env *Env, installArgs ...string) (mkt, data string) {
	t.Helper()
	mkt = filepath.Join(t.TempDir(), "djinn")
	copyPlugin(t, repoRoot(t), mkt)
	env.MustPlugin("marketplace", "add", mkt)
	env.MustPlugin(append([]string{"install", "djinn@djinn"}, installArgs...)...)
	// The plugin data directory id is plugin@marketplace with '@' turned into '-'.
	return mkt, filepath.Join(env.Home, ".claude", "plugins", "data", "djinn-djinn")
}

// pluginRun is r with the repository loaded as a plugin (--plugin-dir).
func pluginRun(t testing.TB, r Run) Run {
	r.PluginDirs = append([]string{repoRoot(t)}, r.PluginDirs...)
	return r
}

// djinnCommand runs the launcher, hooks/djinn <args…>, as a user would in a
// terminal, in env's HOME and project with env's extra variables (so it
// uses the same binary and, through DJINN_STATE_DIR, the same state).
func djinnCommand(t testing.TB, env *Env, args ...string) (stdout string, code int) {
	t.Helper()
	cmd := exec.CommandContext(testContext(t), filepath.Join(repoRoot(t), "hooks", "djinn"), args...)
	cmd.Dir = env.Project
	cmd.Env = env.environ(nil)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run hooks/djinn %v: %v", args, err)
	}
	if errb.Len() > 0 {
		t.Logf("hooks/djinn %s stderr: %s", strings.Join(args, " "), errb.String())
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// spaceInHome moves env's HOME to a directory whose name has a space, as
// on a machine where HOME is "/Users/Jane Doe": the plugin data directory
// under it then has one too, which the launcher and the skills' command
// lines must quote.
func spaceInHome(t testing.TB, env *Env) {
	t.Helper()
	env.Home = filepath.Join(filepath.Dir(env.Home), "home dir")
	if err := os.MkdirAll(env.Home, 0o755); err != nil {
		t.Fatal(err)
	}
}

// window is the part of a session's window.json the tests read.
type window struct {
	Events    map[string]int `json:"events"`
	ToolCalls int            `json:"tool_calls"`
	Stall     *struct {
		PromptID  string `json:"prompt_id"`
		Rollbacks int    `json:"rollbacks"`
	} `json:"stall"`
	Raw json.RawMessage `json:"-"`
}

// sessionFile is the path of a session's state file name under stateDir.
func sessionFile(stateDir, session, name string) string {
	return filepath.Join(stateDir, "sessions", session, name)
}

// readWindow loads <stateDir>/sessions/<id>/window.json.
func readWindow(t testing.TB, stateDir, session string) window {
	t.Helper()
	path := sessionFile(stateDir, session, "window.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("session state: %v", err)
	}
	var w window
	if err := json.Unmarshal(data, &w); err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	w.Raw = data
	return w
}

// lastMain is the last main-chain request the stub received.
func lastMain(t testing.TB, stub *Stub) Request {
	t.Helper()
	main := stub.Messages(KindMain)
	if len(main) == 0 {
		t.Fatal("the stub received no main-chain request")
	}
	return main[len(main)-1]
}

// lastUserTexts are the texts of the last user message of a request: what
// a slash command or a tool result added for this turn.
func lastUserTexts(req Request) []string {
	var out []string
	last := -1
	for _, l := range Locate(req.Body) {
		if l.Role == "user" && l.Message > last {
			last, out = l.Message, nil
		}
		if l.Message == last {
			out = append(out, l.Text)
		}
	}
	return out
}

// TestPluginValidateStrict: `claude plugin validate --strict` passes for the
// plugin manifest (which also validates hooks/hooks.json and every
// skills/*/SKILL.md) and for the marketplace manifest.
func TestPluginValidateStrict(t *testing.T) {
	t.Parallel()
	env := NewEnv(t, nil)
	root := repoRoot(t)
	for _, manifest := range []string{"plugin.json", "marketplace.json"} {
		t.Run(manifest, func(t *testing.T) {
			path := filepath.Join(root, ".claude-plugin", manifest)
			res, err := env.Plugin(t.Context(), "validate", "--strict", path)
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("validate --strict %s: %v\n%v", manifest, err, res)
			}
			if !bytes.Contains(res.Stdout, []byte("Validation passed")) {
				t.Errorf("validate --strict %s did not say it passed\n%v", manifest, res)
			}
		})
	}
	// The plugin manifest's validation covers the skills: a broken one fails it.
	t.Run("skills are validated", func(t *testing.T) {
		bad := t.TempDir()
		copyPlugin(t, root, bad)
		writeFile(t, filepath.Join(bad, "skills", "rank", "SKILL.md"), "---\ndescription: [unclosed\n---\nx\n")
		res, err := env.Plugin(t.Context(), "validate", "--strict", filepath.Join(bad, ".claude-plugin", "plugin.json"))
		if err != nil || res.ExitCode == 0 || !bytes.Contains(res.Stdout, []byte("skills/rank/SKILL.md")) {
			t.Errorf("validate of a plugin with a broken SKILL.md: err %v\n%v\nwant a failure naming the skill", err, res)
		}
	})
}

// copyPlugin copies the plugin's working tree (what a marketplace install
// copies: no .git, no build output) to dst.
func copyPlugin(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && rel != "." && (name == ".git" || rel == "bin") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(name, ".test") || rel == "djinn") {
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatalf("copy plugin: %v", err)
	}
}

// TestInstalledPluginFiresEveryEvent is the foundation: the repository is
// added as a marketplace and djinn is installed from it in a scratch HOME,
// as a user would; then a scripted session runs against the installed plugin
// (no --plugin-dir): a tool call, a failing tool call, an answer, and
// /compact on the resumed session. The launcher must build the binary on
// the first hook (into $CLAUDE_PLUGIN_DATA/bin, where it was absent) and
// every event Djinn wires must be recorded in the session's state, which
// lives in $CLAUDE_PLUGIN_DATA since nothing overrides it. /djinn:status then
// shows that state to the model. HOME has a space in it.
func TestInstalledPluginFiresEveryEvent(t *testing.T) {
	t.Parallel()
	stub := NewStub(t,
		Bash("echo djinn-e2e", "Print a marker"),
		Bash("sh -c 'echo boom >&2; exit 3'", "Fail on purpose"),
		Text("Both commands ran; the second failed with exit code 3."),
	)
	env := NewEnv(t, stub)
	spaceInHome(t, env)
	env.Env = append(env.Env, goBuildEnv(t)...)
	version := pluginVersion(t)

	// A copy of the working tree, as a checkout would be.
	mkt, data := installDjinn(t, env)
	list := env.MustPlugin("list")
	if !bytes.Contains(list.Stdout, []byte("djinn@djinn")) {
		t.Fatalf("plugin list does not show djinn@djinn\n%v", list)
	}

	bin := filepath.Join(data, "bin", "djinn-"+version)
	if _, err := os.Stat(bin); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("binary %s before the first session: %v; want none", bin, err)
	}

	start := time.Now()
	run1 := env.MustClaude(Run{Prompt: "Run the marker command, then the failing one, and report."})
	t.Logf("first session (cold build in the first hook): %v", time.Since(start).Round(time.Millisecond))
	if run1.SessionID == "" {
		t.Fatalf("no session id\n%v", run1)
	}
	// The plugin was loaded as installed (djinn@djinn, not djinn@inline).
	// 2.1.197 copies a directory marketplace's "./" plugin to
	// ~/.claude/plugins/cache/djinn/djinn/<version> but runs it in place:
	// init lists the marketplace directory, and CLAUDE_PLUGIN_ROOT is that
	// directory with a trailing slash (checked by swapping its launcher for
	// one that logs; the plugin does not load at all once the marketplace
	// directory is gone).
	var init struct {
		Plugins []struct{ Name, Path, Source string } `json:"plugins"`
	}
	if evs := run1.Find("system", "init"); len(evs) == 0 || evs[0].Decode(&init) != nil {
		t.Fatalf("no init event\n%v", run1)
	}
	installed := false
	for _, p := range init.Plugins {
		if p.Source == "djinn@djinn" && filepath.Clean(p.Path) == mkt {
			installed = true
		}
	}
	if !installed {
		t.Errorf("init lists plugins %+v; want djinn@djinn loaded from the marketplace %s", init.Plugins, mkt)
	}
	// The first hook is SessionStart(startup), and it was handled: the
	// launcher built the binary there, where none was before.
	if fi, err := os.Stat(bin); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Fatalf("binary %s after the first session: %v; want an executable built by the launcher", bin, err)
	}
	// It also linked bin/djinn-hook to the hook binary: hooks.json runs
	// every later event through that link, without the launcher, so their
	// being recorded below shows that Claude Code ran it.
	link := filepath.Join(data, "bin", "djinn-hook")
	if target, err := os.Readlink(link); err != nil || target != filepath.Join(data, "bin", "djinn-hook-"+version) {
		t.Errorf("link %s -> %q (%v); want the hook binary", link, target, err)
	}
	if hr := run1.HookResponses("SessionStart"); len(hr) == 0 || hr[0].Outcome != "success" || complaintRE.MatchString(hr[0].Output) {
		t.Errorf("first SessionStart hook response %+v; want success with no djinn: complaint", hr)
	}
	if w := readWindow(t, data, run1.SessionID); w.Events["SessionStart"] != 1 {
		t.Errorf("after the first session, SessionStart handled %d times, want 1 (the build happened in it)", w.Events["SessionStart"])
	}

	run2 := env.MustClaude(Run{Prompt: "/compact keep the marker", Resume: run1.SessionID})
	if len(stub.Messages(KindCompact)) != 1 || len(run2.Find("system", "compact_boundary")) != 1 {
		t.Fatalf("/compact made %d compaction requests; want 1 and a compact_boundary\n%v", len(stub.Messages(KindCompact)), run2)
	}
	// SessionStart(resume) ran both of its hooks, the link's and
	// `hooks/djinn ensure` beside it, and both succeeded.
	resumed := 0
	for _, hr := range run2.HookResponses("SessionStart") {
		if hr.HookName == "SessionStart:resume" {
			resumed++
			if hr.Outcome != "success" {
				t.Errorf("SessionStart(resume) hook response %+v; want success", hr)
			}
		}
	}
	if resumed != 2 {
		t.Errorf("SessionStart(resume) gave %d hook responses; want 2 (the link's hook and ensure)", resumed)
	}

	// /djinn:status on the installed plugin, with no DJINN_STATE_DIR: the
	// skill's CLAUDE_PLUGIN_DATA leads the binary to the hooks' state, and
	// the launcher to the binary the first hook built (nothing is built
	// under ~/.cache). The expected text is the cached binary's own output.
	status, err := exec.Command(bin, "status", "--state-dir", data, "--session", run1.SessionID).Output()
	if err != nil {
		t.Fatalf("%s status: %v", bin, err)
	}
	stub.Push(Text("(shown to the user)"))
	run3 := env.MustClaude(Run{Prompt: "/djinn:status", Resume: run1.SessionID, AllowedTools: []string{}})
	checkSkillRan(t, run3)
	if got := lastUserTexts(lastMain(t, stub)); !containsExact(got, string(status)) {
		t.Errorf("the request after /djinn:status does not hold the binary's output.\nwant:\n%s\nlast user message:\n%s", status, strings.Join(got, "\n---\n"))
	}
	if _, err := os.Stat(filepath.Join(env.Home, ".cache", "djinn")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the skill's launcher used another binary cache under ~/.cache/djinn (%v)", err)
	}

	w := readWindow(t, data, run1.SessionID)
	t.Logf("events recorded: %v", w.Events)
	want := map[string]int{
		"SessionStart":       4, // startup, resume, compact, resume
		"UserPromptSubmit":   2, // the prompt and /djinn:status (/compact fires none)
		"PostToolUse":        1,
		"PostToolUseFailure": 1,
		"Stop":               1,
		"PreCompact":         1,
		"SubagentStop":       1, // the compactor
		"SessionEnd":         3, // one per run
	}
	for _, ev := range HookEvents {
		if w.Events[ev] < want[ev] {
			t.Errorf("%s recorded %d times, want at least %d", ev, w.Events[ev], want[ev])
		}
	}
	if w.ToolCalls != 2 {
		t.Errorf("tool_calls = %d, want 2 (the marker and the failing command)", w.ToolCalls)
	}
	// No hook of either run complained.
	for _, r := range []*Result{run1, run2, run3} {
		for _, hr := range r.HookResponses("") {
			if hr.Outcome != "success" || complaintRE.MatchString(hr.Output) {
				t.Errorf("hook %s: outcome %s, output %q", hr.HookName, hr.Outcome, hr.Output)
			}
		}
	}
}

// complaintRE finds the one line Djinn prints on stderr when something
// went wrong inside it ("djinn: …"), in a hook_response's output.
var complaintRE = regexp.MustCompile(`(?m)^djinn: `)

// tagRE finds Djinn's advisory tags in a text.
var tagRE = regexp.MustCompile(`\[djinn:[a-z-]+\]`)

// djinnTags lists the advisory tags anywhere in a request, for failure
// messages.
func djinnTags(req Request) []string {
	seen := map[string]bool{}
	var out []string
	for _, txt := range req.Texts() {
		for _, m := range tagRE.FindAllString(txt, -1) {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}
