package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// PinnedVersion is the CLI version scripts/install-claude-cli installs.
const PinnedVersion = "2.1.197"

// installHint is how to get the CLI; it ends every skip or failure message.
const installHint = "run scripts/install-claude-cli (needs npm) or set DJINN_CLAUDE_BIN to a claude executable"

// CacheBinary is where scripts/install-claude-cli puts the executable:
// ${DJINN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/djinn-ci}/claude-code/node_modules/.bin/claude.
// It is computed like the script does, not with os.UserCacheDir, which
// differs on macOS.
func CacheBinary() string {
	dir := os.Getenv("DJINN_CACHE_DIR")
	if dir == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return ""
			}
			base = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(base, "djinn-ci")
	}
	return filepath.Join(dir, "claude-code", "node_modules", ".bin", "claude")
}

// FindCLI returns the Claude Code executable: $DJINN_CLAUDE_BIN if set (an
// error if it is not executable), else CacheBinary() if present, else
// `claude` on PATH.
func FindCLI() (string, error) {
	if p := os.Getenv("DJINN_CLAUDE_BIN"); p != "" {
		if !isExecutable(p) {
			return "", fmt.Errorf("DJINN_CLAUDE_BIN=%s is not an executable file", p)
		}
		return filepath.Abs(p)
	}
	if p := CacheBinary(); p != "" && isExecutable(p) {
		return p, nil
	}
	p, err := exec.LookPath("claude")
	if err != nil {
		return "", fmt.Errorf("claude CLI not found (not in DJINN_CLAUDE_BIN, %s, or PATH)", CacheBinary())
	}
	return filepath.Abs(p)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// versions caches `claude --version` per executable: it costs ~0.1 s and
// every test asks.
var versions sync.Map // path → versionResult

type versionResult struct {
	v   string
	err error
}

// CLIVersion runs `bin --version` once per process and returns the version
// number, e.g. "2.1.197".
func CLIVersion(bin string) (string, error) {
	if r, ok := versions.Load(bin); ok {
		return r.(versionResult).v, r.(versionResult).err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	var r versionResult
	if err != nil {
		r.err = fmt.Errorf("%s --version: %w", bin, err)
	} else if f := strings.Fields(string(out)); len(f) == 0 {
		r.err = fmt.Errorf("%s --version printed nothing", bin)
	} else {
		r.v = f[0]
	}
	versions.Store(bin, r)
	return r.v, r.err
}

// RequireCLI returns the CLI's path, or ends the test when there is none
// (or it does not run): with t.Fatal when CI=true, since CI must exercise
// the harness, else with t.Skip. Both messages say how to install it.
func RequireCLI(t testing.TB) string {
	t.Helper()
	bin, err := FindCLI()
	if err == nil {
		_, err = CLIVersion(bin)
	}
	if err != nil {
		msg := fmt.Sprintf("e2e: %v; %s", err, installHint)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true: e2e tests never skip in CI)")
		} else {
			t.Skip(msg)
		}
		return ""
	}
	return bin
}

// Env is a scratch world for the CLI: a throwaway HOME, a project directory
// used as the working directory, and the stub the CLI talks to.
type Env struct {
	T       testing.TB
	Bin     string // the claude executable
	Version string // its version, e.g. "2.1.197"
	Home    string // HOME of every run; ~/.claude lives here
	Project string // working directory of every run
	Stub    *Stub  // ANTHROPIC_BASE_URL points here
	// Env is added to every run's environment (KEY=VALUE).
	Env []string
}

// NewEnv requires the CLI (see RequireCLI) and makes a scratch HOME and
// project directory under t.TempDir() for runs against stub.
func NewEnv(t testing.TB, stub *Stub) *Env {
	t.Helper()
	bin := RequireCLI(t)
	v, _ := CLIVersion(bin) // RequireCLI checked it runs
	root := t.TempDir()
	e := &Env{T: t, Bin: bin, Version: v, Home: filepath.Join(root, "home"), Project: filepath.Join(root, "proj"), Stub: stub}
	for _, d := range []string{e.Home, e.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("e2e: %v", err)
		}
	}
	return e
}

// TranscriptDir is where the CLI writes this project's transcripts:
// ~/.claude/projects/<project path with every non-alphanumeric turned into '-'>.
func (e *Env) TranscriptDir() string {
	return filepath.Join(e.Home, ".claude", "projects", ProjectKey(e.Project))
}

// Transcript is the path of a session's transcript.
func (e *Env) Transcript(sessionID string) string {
	return filepath.Join(e.TranscriptDir(), sessionID+".jsonl")
}

// ProjectKey is the directory name Claude Code gives a project under
// ~/.claude/projects: the absolute path with every character outside
// [A-Za-z0-9] replaced by '-' (/tmp/proj → -tmp-proj).
func ProjectKey(dir string) string {
	b := []byte(dir)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// passEnv are the variables of the test's own environment a run inherits.
// Everything else is dropped so that the developer's CLAUDE_*, ANTHROPIC_*
// or a surrounding Claude Code session (CLAUDECODE=1) cannot leak in.
var passEnv = []string{"PATH", "TMPDIR", "LANG", "LC_ALL", "TZ", "SYSTEMROOT"}

// environ is the environment of one run.
func (e *Env) environ(extra []string) []string {
	var env []string
	for _, k := range passEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	env = append(env,
		"HOME="+e.Home,
		"USER=e2e",
		"ANTHROPIC_API_KEY=sk-ant-dummy",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
	)
	if e.Stub != nil {
		env = append(env, "ANTHROPIC_BASE_URL="+e.Stub.URL())
	}
	env = append(env, e.Env...)
	return append(env, extra...) // later entries win in os/exec
}

// Run describes one headless run, `claude -p`.
type Run struct {
	// Prompt is the -p argument; a slash command such as "/compact keep
	// notes" works too.
	Prompt string
	// PluginDirs are passed as --plugin-dir each.
	PluginDirs []string
	// Resume, if set, is passed as --resume.
	Resume string
	// MaxTurns is --max-turns; 0 means 6.
	MaxTurns int
	// AllowedTools is passed as --allowedTools (one argument, joined by
	// ","); nil means "Bash Read", empty non-nil means the flag is left out.
	AllowedTools []string
	// Args are appended after the built arguments, e.g. --model.
	Args []string
	// Env is added to the environment after Env.Env.
	Env []string
	// Dir is the working directory; empty means Env.Project.
	Dir string
	// Timeout bounds the run; 0 means 2 minutes (a run takes about a second,
	// but a loaded CI machine can take many seconds just to page in the
	// 245 MB binary). The process is killed after it.
	Timeout time.Duration
}

// Result is what a CLI run produced.
type Result struct {
	Args     []string // arguments after the executable
	Stdout   []byte
	Stderr   []byte
	ExitCode int // -1 when killed (e.g. by the timeout)
	// Events are the stream-json lines of stdout, in order (with
	// --include-hook-events, the hook_started / hook_response lines too).
	Events []Event
	// SessionID is the session_id of the first event that has one.
	SessionID string
}

// Event is one stream-json line.
type Event struct {
	Type      string `json:"type"`    // "system", "assistant", "user", "result"…
	Subtype   string `json:"subtype"` // "init", "hook_started", "hook_response", "compact_boundary", "success"…
	SessionID string `json:"session_id"`
	// Hook fields, set on hook_started / hook_response lines.
	HookName  string `json:"hook_name"`  // e.g. "PostToolUse:Bash", "SessionStart:startup"
	HookEvent string `json:"hook_event"` // e.g. "PostToolUse"
	Outcome   string `json:"outcome"`    // hook_response: "success" or "error"
	ExitCode  *int   `json:"exit_code"`  // hook_response
	Output    string `json:"output"`     // hook_response: stdout + stderr
	// Raw is the whole line.
	Raw json.RawMessage `json:"-"`
}

// Decode unmarshals the whole line into v.
func (ev Event) Decode(v any) error { return json.Unmarshal(ev.Raw, v) }

// ParseEvents parses stream-json output: one JSON object a line. Lines that
// are not JSON objects (a stray warning) are skipped, since the CLI's stdout
// format is not a contract.
func ParseEvents(stdout []byte) []Event {
	var out []Event
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var ev Event
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		ev.Raw = append(json.RawMessage(nil), line...)
		out = append(out, ev)
	}
	return out
}

// Find returns the events of the given type and, if subtype is not empty,
// subtype.
func (r *Result) Find(typ, subtype string) []Event {
	var out []Event
	for _, ev := range r.Events {
		if ev.Type == typ && (subtype == "" || ev.Subtype == subtype) {
			out = append(out, ev)
		}
	}
	return out
}

// HookResponses returns the hook_response events, optionally only those of
// one hook event (e.g. "PostToolUse").
func (r *Result) HookResponses(hookEvent string) []Event {
	var out []Event
	for _, ev := range r.Find("system", "hook_response") {
		if hookEvent == "" || ev.HookEvent == hookEvent {
			out = append(out, ev)
		}
	}
	return out
}

// String summarises the run for failure messages.
func (r *Result) String() string {
	return fmt.Sprintf("claude %s: exit %d\nstdout:\n%s\nstderr:\n%s",
		strings.Join(r.Args, " "), r.ExitCode, clip(r.Stdout), clip(r.Stderr))
}

func clip(b []byte) string {
	const max = 8000
	if len(b) > max {
		return string(b[:max]) + fmt.Sprintf("\n… (%d more bytes)", len(b)-max)
	}
	return string(b)
}

// args builds the command line of a headless run.
func (r Run) args() []string {
	a := []string{"-p", r.Prompt, "--output-format", "stream-json", "--verbose", "--include-hook-events"}
	turns := r.MaxTurns
	if turns == 0 {
		turns = 6
	}
	a = append(a, "--max-turns", strconv.Itoa(turns))
	for _, d := range r.PluginDirs {
		a = append(a, "--plugin-dir", d)
	}
	if r.Resume != "" {
		a = append(a, "--resume", r.Resume)
	}
	tools := r.AllowedTools
	if tools == nil {
		tools = []string{"Bash", "Read"}
	}
	if len(tools) > 0 {
		a = append(a, "--allowedTools", strings.Join(tools, ","))
	}
	return append(a, r.Args...)
}

// Claude runs `claude -p` as r says and returns its result. A non-zero exit
// is not an error (look at Result.ExitCode); failing to start, or the
// timeout, is.
func (e *Env) Claude(ctx context.Context, r Run) (*Result, error) {
	dir := r.Dir
	if dir == "" {
		dir = e.Project
	}
	res, err := e.exec(ctx, r.args(), r.Env, dir, r.Timeout)
	if res != nil {
		res.Events = ParseEvents(res.Stdout)
		for _, ev := range res.Events {
			if ev.SessionID != "" {
				res.SessionID = ev.SessionID
				break
			}
		}
	}
	return res, err
}

// MustClaude is Claude with the test's context that fails the test unless
// the run exits 0.
func (e *Env) MustClaude(r Run) *Result {
	e.T.Helper()
	return e.exited0(e.Claude(testContext(e.T), r))
}

// Plugin runs `claude plugin <args…>` (validate, marketplace add, install,
// list…) in the same scratch HOME and project directory. Like Claude, a
// non-zero exit is in the result, not the error.
func (e *Env) Plugin(ctx context.Context, args ...string) (*Result, error) {
	return e.exec(ctx, append([]string{"plugin"}, args...), nil, e.Project, 0)
}

// MustPlugin is Plugin that fails the test unless the command exits 0.
func (e *Env) MustPlugin(args ...string) *Result {
	e.T.Helper()
	return e.exited0(e.Plugin(testContext(e.T), args...))
}

// exited0 fails the test unless a run of the CLI exited 0, and returns
// its result.
func (e *Env) exited0(res *Result, err error) *Result {
	e.T.Helper()
	if err != nil {
		e.T.Fatalf("e2e: %v\n%v", err, res)
	}
	if res.ExitCode != 0 {
		e.T.Fatalf("e2e: %v", res)
	}
	return res
}

// testContext is the test's context when it has one (testing.T, B and F
// do); a bare TB gets Background.
func testContext(t testing.TB) context.Context {
	if c, ok := t.(interface{ Context() context.Context }); ok {
		return c.Context()
	}
	return context.Background()
}

func (e *Env) exec(ctx context.Context, args, extraEnv []string, dir string, timeout time.Duration) (*Result, error) {
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, args...)
	cmd.Dir = dir
	cmd.Env = e.environ(extraEnv)
	cmd.Stdin = nil // /dev/null: -p must not wait for input
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A hook that leaves a child holding stdout open must not hang the test.
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	res := &Result{Args: args, Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	} else {
		res.ExitCode = -1
	}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("claude %s: %w", args[0], ctx.Err())
	case err != nil && !errors.As(err, &exitErr):
		return res, fmt.Errorf("run claude: %w", err)
	}
	return res, nil
}
