package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// These tests run the real binaries (go build -tags
// urfave_cli_no_docs, as the launcher builds them: djinn-hook for
// hooks, djinn for commands) as separate processes. The go test versions are kept
// small; scripts/reliability runs them at full size through
// DJINN_RELIABILITY_ROUNDS and DJINN_RELIABILITY_TRIALS.

var (
	hookBinOnce sync.Once
	hookBinDir  string
	hookBinErr  error
)

// builtBinaries builds cmd/djinn and cmd/djinn-hook as the launcher does,
// once per test run, and returns their directory.
func builtBinaries(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the hook binary")
	}
	hookBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "djinn-reliability-bin-")
		if err != nil {
			hookBinErr = err
			return
		}
		hookBinDir = dir
		out, err := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", dir+"/", ".", "../djinn-hook").CombinedOutput()
		if err != nil {
			hookBinErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if hookBinErr != nil {
		t.Fatal(hookBinErr)
	}
	return hookBinDir
}

// hookBinary is djinn-hook, what the launcher runs for every hook.
func hookBinary(t *testing.T) string { return filepath.Join(builtBinaries(t), "djinn-hook") }

// cmdBinary is djinn, what the launcher runs for the commands.
func cmdBinary(t *testing.T) string { return filepath.Join(builtBinaries(t), "djinn") }

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// killTrials is a kill test's number of trials (DJINN_RELIABILITY_TRIALS,
// 30 by default) and its random source: DJINN_RELIABILITY_SEED (1 by
// default) on the test's own stream.
func killTrials(stream uint64) (int, *rand.Rand) {
	seed := uint64(envInt("DJINN_RELIABILITY_SEED", 1))
	return envInt("DJINN_RELIABILITY_TRIALS", 30), rand.New(rand.NewPCG(seed, stream))
}

// scratch is a test's temporary directory with the paths of the state root
// and the project in it.
func scratch(t *testing.T) (dir, root, project string) {
	dir = t.TempDir()
	return dir, filepath.Join(dir, "state"), filepath.Join(dir, "project")
}

// hookRun is one finished hook process.
type hookRun struct {
	stdout, stderr []byte
	code           int
	err            error
	took           time.Duration
}

// hookTimeout bounds every hook process: a hook that reads /dev/zero to
// the end or waits on a FIFO never finishes, and fails the test here.
const hookTimeout = 60 * time.Second

// runHook runs the hook binary for event with stdin, the given state root
// and extra environment, in dir (its working directory).
func runHook(t *testing.T, dir, root, event string, stdin []byte, extra ...string) hookRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hookTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, hookBinary(t), "hook", event)
	cmd.Dir = dir
	cmd.Env = append(hookEnv(dir, root), extra...)
	cmd.Stdin = bytes.NewReader(stdin)
	return runProcess(t, ctx, "hook "+event, cmd)
}

// runProcess runs cmd, made with ctx (context.Background() for no bound),
// and returns its output and exit code. It fails the test, naming the
// process what, when ctx ran out first or cmd could not run at all.
func runProcess(t *testing.T, ctx context.Context, what string, cmd *exec.Cmd) hookRun {
	t.Helper()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	start := time.Now()
	err := cmd.Run()
	r := hookRun{stdout: o.Bytes(), stderr: e.Bytes(), took: time.Since(start), err: err}
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within %v", what, hookTimeout)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return r
}

// hookEnv is a clean environment: home, caches and temporary files inside
// dir, so a test can see every file the hook writes.
func hookEnv(dir, root string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(dir, "home"),
		"TMPDIR=" + filepath.Join(dir, "tmp"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "xdg-state"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "xdg-cache"),
		"DJINN_STATE_DIR=" + root,
		"CLAUDE_PROJECT_DIR=" + filepath.Join(dir, "project"),
		"USER=tester",
	}
}

// checkHookContract: exit 0, and stdout empty or one valid JSON object
// (PreCompact's answer is plain text for the compactor, never JSON).
func checkHookContract(t *testing.T, what string, r hookRun) {
	t.Helper()
	if r.code != 0 {
		t.Errorf("%s: exit %d (stderr %q)", what, r.code, r.stderr)
	}
	out := bytes.TrimSpace(r.stdout)
	if what == "PreCompact" {
		if len(out) > 0 && out[0] == '{' {
			t.Errorf("%s: plain text expected, got %q", what, clipBytes(r.stdout))
		}
		return
	}
	if len(out) > 0 && (!json.Valid(out) || out[0] != '{') {
		t.Errorf("%s: stdout is not one JSON object: %q", what, clipBytes(r.stdout))
	}
	for _, line := range strings.Split(strings.TrimSpace(string(r.stderr)), "\n") {
		if line != "" && !strings.HasPrefix(line, "djinn: ") {
			t.Errorf("%s: stderr line without the djinn: prefix: %q", what, line)
		}
	}
}

func clipBytes(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// checkState validates every state file under root: no invalid file, no
// quarantined copy.
func checkState(t *testing.T, root string) state.CheckReport {
	t.Helper()
	st := &state.Store{Root: root}
	rep, err := st.CheckWith(nil, settings.ValidateBytes)
	if err != nil {
		t.Fatalf("check %s: %v", root, err)
	}
	for _, p := range rep.Problems {
		t.Errorf("invalid state: %s", p)
	}
	for _, n := range rep.Notes {
		if strings.Contains(n, "moved aside") {
			t.Errorf("state was quarantined: %s", n)
		}
	}
	return rep
}

func loadWindow(t *testing.T, root, id string) state.Window {
	return peekDoc[state.Window](t, root, id, "window.json", state.KindWindow)
}

// peekDoc reads a session's state document, which must be there and valid.
func peekDoc[T any](t *testing.T, root, id, name string, k state.Kind) T {
	t.Helper()
	var v T
	st := &state.Store{Root: root}
	found, err := st.Peek(filepath.Join(root, "sessions", id, name), k, &v)
	if err != nil || !found {
		t.Fatalf("%s of %s: found=%v err=%v", name, id, found, err)
	}
	return v
}

// restoredRE is the notice of a hook that restored the lines an
// interrupted hook had logged in window.json but not appended.
var restoredRE = regexp.MustCompile(`^djinn: .*(turns|advisories)\.jsonl: restored [0-9]+ line\(s\) that the last hook logged in window\.json but had not appended \(it was interrupted\)(; its torn last line was cut off)?$`)

// wholeLines counts the lines of path that are whole JSON objects.
func wholeLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(l) > 0 && json.Valid(l) {
			n++
		}
	}
	return n
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

func toolPayload(id string, i int, project string) []byte {
	p := map[string]any{
		"session_id": id, "hook_event_name": "PostToolUse", "cwd": project,
		"tool_name": "Bash", "tool_use_id": fmt.Sprintf("toolu_%d", i),
		"tool_input":    map[string]any{"command": fmt.Sprintf("go test ./pkg%d", i%7)},
		"tool_response": map[string]any{"stdout": fmt.Sprintf("ok pkg%d", i), "stderr": ""},
	}
	b, _ := json.Marshal(p)
	return b
}

// TestOverlappingHooks starts 64 PostToolUse processes of one session at
// once, round after round: every event must be counted exactly once (a hook
// that gave up on the lock is a lost event), and every file stays valid.
func TestOverlappingHooks(t *testing.T) {
	rounds := envInt("DJINN_RELIABILITY_ROUNDS", 2)
	const procs = 64
	dir := t.TempDir()
	root := filepath.Join(dir, "state")
	id := "overlap-session"
	total := 0
	for round := 0; round < rounds; round++ {
		var wg sync.WaitGroup
		runs := make([]hookRun, procs)
		for i := 0; i < procs; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runs[i] = runHook(t, dir, root, "PostToolUse", toolPayload(id, round*procs+i, filepath.Join(dir, "project")))
			}()
		}
		wg.Wait()
		total += procs
		for i, r := range runs {
			checkHookContract(t, fmt.Sprintf("round %d hook %d", round, i), r)
			if len(r.stderr) > 0 {
				t.Errorf("round %d hook %d: %s (a hook that gave up is a lost event)", round, i, bytes.TrimSpace(r.stderr))
			}
		}
		w := loadWindow(t, root, id)
		if w.ToolCalls != total || w.Events["PostToolUse"] != total {
			t.Fatalf("round %d: tool_calls %d, PostToolUse events %d, want %d: events were lost or double counted", round, w.ToolCalls, w.Events["PostToolUse"], total)
		}
		if n := countLines(t, filepath.Join(root, "sessions", id, "turns.jsonl")); n != total {
			t.Fatalf("round %d: turns.jsonl has %d lines, want %d", round, n, total)
		}
		checkState(t, root)
	}
	t.Logf("%d rounds of %d overlapping hooks: %d events, none lost", rounds, procs, total)
}

// TestCrashTrials kills the hook with SIGKILL at random moments of its life
// (the write path included: a hook spends most of its time writing and
// fsyncing) and checks after each kill that every state file is the old or
// the new version and schema-valid, and that the next hook runs normally.
func TestCrashTrials(t *testing.T) {
	trials, rng := killTrials(7)
	dir, root, project := scratch(t)
	id := "crash-session"

	// Prepare: a session with a goal and a few calls; learn how long a hook
	// takes here, so the kills spread over its whole life.
	prompt, _ := json.Marshal(map[string]any{"session_id": id, "hook_event_name": "UserPromptSubmit", "cwd": project,
		"prompt": "Fix the invoice rounding in internal/billing so that tax is rounded per line"})
	checkHookContract(t, "prompt", runHook(t, dir, root, "UserPromptSubmit", prompt))
	var took []time.Duration
	for i := 0; i < 5; i++ {
		r := runHook(t, dir, root, "PostToolUse", toolPayload(id, i, project))
		checkHookContract(t, "warm-up", r)
		took = append(took, r.took)
	}
	span := took[len(took)/2] * 3 / 2

	outcomes := map[string]int{}
	next := 5
	for trial := 0; trial < trials; trial++ {
		before := loadWindow(t, root, id).ToolCalls
		tempBefore := tempFiles(t, filepath.Join(root, "sessions", id))
		turnsBefore := countLines(t, filepath.Join(root, "sessions", id, "turns.jsonl"))
		delay := time.Duration(rng.Int64N(int64(span)))
		killed := killAfter(t, dir, root, "PostToolUse", toolPayload(id, next, project), delay, syscall.SIGKILL)
		next++

		rep := checkState(t, root)
		after := loadWindow(t, root, id).ToolCalls
		if after != before && after != before+1 {
			t.Fatalf("trial %d: tool_calls went %d -> %d: window.json is neither the old nor the new version", trial, before, after)
		}
		_ = rep
		temp := tempFiles(t, filepath.Join(root, "sessions", id)) > tempBefore
		turnsAfter := countLines(t, filepath.Join(root, "sessions", id, "turns.jsonl"))
		switch {
		case !killed:
			outcomes["finished before the kill"]++
		case temp:
			outcomes["killed inside the atomic write (temporary file left)"]++
		case after == before+1 && turnsAfter == turnsBefore:
			outcomes["killed after window.json, before the log append (the next hook restores the line)"]++
		case after == before+1:
			outcomes["killed after every write"]++
		case turnsAfter > turnsBefore:
			outcomes["killed between the log append and window.json"]++
		default:
			outcomes["killed before any write"]++
		}
		if t.Failed() {
			t.Fatalf("trial %d (kill after %v) left invalid state", trial, delay)
		}
		// The next hook runs normally and counts its event.
		r := runHook(t, dir, root, "PostToolUse", toolPayload(id, next, project))
		next++
		checkHookContract(t, "hook after a kill", r)
		// It may say only that it restored lines the killed hook had
		// logged in window.json but not appended.
		for _, l := range strings.Split(strings.TrimSpace(string(r.stderr)), "\n") {
			if l != "" && !(killed && restoredRE.MatchString(l)) {
				t.Fatalf("trial %d: the hook after the kill said %q", trial, r.stderr)
			}
		}
		if len(r.stderr) > 0 {
			outcomes["the next hook restored log lines"]++
		}
		got := loadWindow(t, root, id).ToolCalls
		if got != after+1 {
			t.Fatalf("trial %d: the hook after the kill moved tool_calls %d -> %d", trial, after, got)
		}
		// No event lost from the log either: one whole turns.jsonl line per
		// counted call (a torn line, cut mid-append, is not whole).
		if n := wholeLines(t, filepath.Join(root, "sessions", id, "turns.jsonl")); n != got {
			t.Fatalf("trial %d: turns.jsonl has %d whole lines for %d tool calls", trial, n, got)
		}
	}
	t.Logf("%d kill -9 trials (kill within %v), outcomes: %v", trials, span, outcomes)
}

// tempFiles counts the temporary files of interrupted atomic writes.
func tempFiles(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}

// TestTornAppendRestored: a hook killed inside its turns.jsonl write (the
// kernel may cut a write at a page boundary) leaves the first part of its
// line and no newline. The next hook restores the whole line from
// window.json, cuts the fragment off and says so on one line; the log is
// left with whole lines only, one per counted call, so no later reader
// skips and reports a broken line. A random kill lands there too rarely
// for TestCrashTrials to be sure of meeting it; here the write is cut by
// hand.
func TestTornAppendRestored(t *testing.T) {
	dir, root, project := scratch(t)
	id := "crash-session"
	for i := range 3 {
		checkHookContract(t, "call", runHook(t, dir, root, "PostToolUse", toolPayload(id, i, project)))
	}
	turns := filepath.Join(root, "sessions", id, "turns.jsonl")
	raw, err := os.ReadFile(turns)
	if err != nil {
		t.Fatal(err)
	}
	last := bytes.LastIndexByte(raw[:len(raw)-1], '\n') + 1
	cut := last + (len(raw)-last)/2
	if err := os.Truncate(turns, int64(cut)); err != nil {
		t.Fatal(err)
	}
	r := runHook(t, dir, root, "PostToolUse", toolPayload(id, 3, project))
	checkHookContract(t, "hook after the torn write", r)
	msg := strings.TrimSpace(string(r.stderr))
	if !restoredRE.MatchString(msg) || !strings.HasSuffix(msg, "its torn last line was cut off") {
		t.Errorf("the next hook said %q; want one notice of the restore and the cut", msg)
	}
	got, err := os.ReadFile(turns)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.SplitAfter(string(got), "\n") {
		if l != "" && !json.Valid([]byte(l)) {
			t.Errorf("turns.jsonl keeps an invalid line %q", l)
		}
	}
	if n, calls := wholeLines(t, turns), loadWindow(t, root, id).ToolCalls; n != calls {
		t.Errorf("turns.jsonl has %d whole lines for %d tool calls", n, calls)
	}
	// And the hook after that has nothing to say.
	r = runHook(t, dir, root, "PostToolUse", toolPayload(id, 4, project))
	checkHookContract(t, "the hook after", r)
	if len(r.stderr) > 0 {
		t.Errorf("the hook after the restore said %q", r.stderr)
	}
}
