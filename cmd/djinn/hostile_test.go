package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// sandbox is one hostile-input case's world: a home, a temporary
// directory, a project and a state root, all under one directory, so the
// test sees every file a hook writes.
type sandbox struct {
	dir, root, project string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	dir := t.TempDir()
	sb := &sandbox{dir: dir, root: filepath.Join(dir, "state"), project: filepath.Join(dir, "project")}
	for _, d := range []string{"home", "tmp", "project"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return sb
}

// tree maps every path under dir, except the state root, to a digest of
// its type and content.
func (sb *sandbox) tree(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(sb.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p == sb.root {
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		sum := fi.Mode().String()
		if fi.Mode().IsRegular() && fi.Size() < 1<<20 {
			b, _ := os.ReadFile(p)
			sum += fmt.Sprintf(" %x", sha256.Sum256(b))
		} else if fi.Mode().IsRegular() {
			sum += fmt.Sprintf(" size %d", fi.Size())
		}
		out[p] = sum
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (sb *sandbox) payload(event string, fields map[string]any) []byte {
	p := map[string]any{"session_id": "hostile-session", "hook_event_name": event, "cwd": sb.project}
	for k, v := range fields {
		p[k] = v
	}
	b, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	return b
}

// hostileCase runs one hook in a fresh sandbox (after a normal prompt, so
// there is state to keep intact) and checks the contract: exit 0, nothing
// or one JSON object on stdout, nothing written outside the state root,
// every state file valid, bounded time.
func hostileCase(t *testing.T, event string, stdin func(sb *sandbox) []byte, counted bool) {
	t.Helper()
	sb := newSandbox(t)
	prompt := sb.payload("UserPromptSubmit", map[string]any{"prompt": "Fix the invoice rounding in internal/billing so tax is rounded per line"})
	checkHookContract(t, "prompt", runHook(t, sb.dir, sb.root, "UserPromptSubmit", prompt))
	in := stdin(sb)
	base := loadWindow(t, sb.root, "hostile-session").Events[event]
	before := sb.tree(t)
	r := runHook(t, sb.dir, sb.root, event, in)
	checkHookContract(t, event, r)
	after := sb.tree(t)
	for p, sum := range after {
		if before[p] != sum {
			t.Errorf("the hook wrote %s outside the state root", p)
		}
	}
	checkState(t, sb.root)
	w := loadWindow(t, sb.root, "hostile-session")
	n := w.Events[event] - base
	if counted && n != 1 {
		t.Errorf("the event was not handled: %s count %d (stderr %q)", event, n, r.stderr)
	}
	if !counted && n != 0 {
		t.Errorf("a refused payload changed the state: %s count %d", event, n)
	}
	if !counted && len(r.stderr) == 0 {
		t.Errorf("a refused payload was not reported on stderr")
	}
}

func TestHostileSessionIDs(t *testing.T) {
	for name, id := range map[string]string{
		"dot-dot":   "../escape",
		"slash":     "a/b",
		"root":      "/",
		"nul":       "x\x00y",
		"10k-chars": strings.Repeat("a", 10000),
		"empty":     "",
	} {
		t.Run(name, func(t *testing.T) {
			sb := newSandbox(t)
			in, _ := json.Marshal(map[string]any{"session_id": id, "hook_event_name": "PostToolUse", "tool_name": "Bash",
				"tool_input": map[string]any{"command": "ls"}, "cwd": sb.project})
			before := sb.tree(t)
			r := runHook(t, sb.dir, sb.root, "PostToolUse", in)
			checkHookContract(t, "hook", r)
			if len(r.stdout) > 0 || !bytes.Contains(r.stderr, []byte("session id")) {
				t.Errorf("stdout %q stderr %q: want nothing on stdout and the refusal on stderr", r.stdout, r.stderr)
			}
			for p := range sb.tree(t) {
				if _, ok := before[p]; !ok {
					t.Errorf("wrote %s", p)
				}
			}
			if entries, _ := os.ReadDir(filepath.Join(sb.root, "sessions")); len(entries) > 0 {
				t.Errorf("a session directory was created for a refused id: %v", entries)
			}
		})
	}
}

// oddPaths are the paths a hostile or broken payload may name: each must be
// refused or read within a bound, never block or stream forever.
func oddPaths(t *testing.T, sb *sandbox) map[string]string {
	t.Helper()
	out := map[string]string{"directory": sb.project, "dev-zero": "/dev/zero", "missing": filepath.Join(sb.dir, "nope.jsonl")}
	fifo := filepath.Join(sb.dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		out["fifo"] = fifo
	}
	sparse := filepath.Join(sb.dir, "sparse")
	if f, err := os.Create(sparse); err == nil {
		if f.Truncate(2<<30) == nil {
			out["sparse-2GB"] = sparse
		}
		f.Close()
	}
	loop := filepath.Join(sb.dir, "loop")
	if os.Symlink(loop, loop) == nil {
		out["symlink-loop"] = loop
	}
	return out
}

func TestHostilePaths(t *testing.T) {
	probe := newSandbox(t)
	for name := range oddPaths(t, probe) {
		t.Run("transcript_path="+name, func(t *testing.T) {
			for _, event := range []string{"PostToolUse", "Stop", "UserPromptSubmit", "PreCompact"} {
				hostileCase(t, event, func(sb *sandbox) []byte {
					fields := map[string]any{"transcript_path": oddPaths(t, sb)[name]}
					if event == "PostToolUse" {
						fields["tool_name"], fields["tool_input"] = "Bash", map[string]any{"command": "ls"}
					}
					if event == "UserPromptSubmit" {
						fields["prompt"] = "and keep the currency tests green"
					}
					return sb.payload(event, fields)
				}, true)
			}
		})
		t.Run("file_path="+name, func(t *testing.T) {
			for _, tool := range []string{"Read", "Write", "Edit"} {
				hostileCase(t, "PostToolUse", func(sb *sandbox) []byte {
					p := oddPaths(t, sb)[name]
					return sb.payload("PostToolUse", map[string]any{"tool_name": tool,
						"tool_input":    map[string]any{"file_path": p, "content": "x", "old_string": "a", "new_string": "b"},
						"tool_response": map[string]any{"filePath": p, "originalFile": "a", "type": "update"}})
				}, true)
			}
		})
	}
}

func TestHostilePayloads(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 50<<20/16)
	for _, tc := range []struct {
		name    string
		event   string
		stdin   func(sb *sandbox) []byte
		counted bool
	}{
		{"50MB-tool_response", "PostToolUse", func(sb *sandbox) []byte {
			return sb.payload("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "cat big"},
				"tool_response": map[string]any{"stdout": big}})
		}, true},
		{"50MB-mcp-tool_response", "PostToolUse", func(sb *sandbox) []byte {
			return sb.payload("PostToolUse", map[string]any{"tool_name": "mcp__browser__snapshot", "tool_input": map[string]any{},
				"tool_response": []any{map[string]any{"type": "text", "text": big}}})
		}, true},
		{"invalid-utf8", "UserPromptSubmit", func(sb *sandbox) []byte {
			return []byte("{\"session_id\":\"hostile-session\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"fix the \xff\xfe invoice \xc3\x28 rounding in billing per line\"}")
		}, true},
		{"invalid-utf8-tool-input", "PostToolUse", func(sb *sandbox) []byte {
			return []byte("{\"session_id\":\"hostile-session\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls \xff\xfe\"},\"tool_response\":{\"stdout\":\"\xc3\x28\"}}")
		}, true},
		{"nested-10000", "PostToolUse", func(sb *sandbox) []byte {
			deep := strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)
			return []byte(`{"session_id":"hostile-session","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":` + deep + `}`)
		}, false},
		{"nested-9000-in-response", "PostToolUse", func(sb *sandbox) []byte {
			deep := strings.Repeat(`[`, 9000) + strings.Repeat("]", 9000)
			return []byte(`{"session_id":"hostile-session","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"x"},"tool_response":` + deep + `}`)
		}, true},
		{"duplicate-keys", "PostToolUse", func(sb *sandbox) []byte {
			return []byte(`{"session_id":"other","session_id":"hostile-session","hook_event_name":"PostToolUse","tool_name":"Read","tool_name":"Bash","tool_input":{"command":"a","command":"b"}}`)
		}, true},
		{"numbers-out-of-range", "PostToolUse", func(sb *sandbox) []byte {
			return []byte(`{"session_id":"hostile-session","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"x","offset":1e999,"limit":-1e999},"tool_response":{"file":{"numLines":1e400}}}`)
		}, true},
		{"number-out-of-range-in-known-field", "SessionStart", func(sb *sandbox) []byte {
			return []byte(`{"session_id":"hostile-session","hook_event_name":"SessionStart","source":"resume","context_tokens":1e999}`)
		}, false},
		{"not-json", "Stop", func(sb *sandbox) []byte { return []byte("\x00\x01garbage") }, false},
		{"empty", "Stop", func(sb *sandbox) []byte { return nil }, false},
	} {
		t.Run(tc.name, func(t *testing.T) { hostileCase(t, tc.event, tc.stdin, tc.counted) })
	}
}

// unprivileged runs cmd as nobody when the test runs as root, so that
// permissions apply (root ignores them).
func unprivileged(cmd *exec.Cmd) bool {
	if os.Getuid() != 0 {
		return true
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	return true
}

// TestHostileStateDir: a state root that is read-only, missing, under a
// regular file, or on a full disk (a file size limit: every write fails
// with EFBIG, as on a full file system). The hook exits 0, says why on
// stderr, prints nothing, and the state is left as it was.
func TestHostileStateDir(t *testing.T) {
	bin := hookBinary(t)
	run := func(t *testing.T, sb *sandbox, wrap func(*exec.Cmd) *exec.Cmd) hookRun {
		cmd := exec.Command(bin, "hook", "PostToolUse")
		cmd.Dir = sb.dir
		cmd.Env = hookEnv(sb.dir, sb.root)
		cmd.Stdin = bytes.NewReader(toolPayload("hostile-session", 1, sb.project))
		if wrap != nil {
			cmd = wrap(cmd)
		}
		return runProcess(t, context.Background(), "hook PostToolUse", cmd)
	}
	prepared := func(t *testing.T) (*sandbox, map[string]string) {
		sb := newSandbox(t)
		checkHookContract(t, "first", runHook(t, sb.dir, sb.root, "PostToolUse", toolPayload("hostile-session", 0, sb.project)))
		return sb, stateTree(t, sb.root)
	}
	intact := func(t *testing.T, sb *sandbox, want map[string]string, r hookRun) {
		checkHookContract(t, "hook", r)
		if len(r.stdout) > 0 || len(r.stderr) == 0 {
			t.Errorf("stdout %q stderr %q: want nothing on stdout and the failure on stderr", r.stdout, r.stderr)
		}
		got := stateTree(t, sb.root)
		for p, sum := range want {
			if got[p] != sum && !strings.HasSuffix(p, "/lock") {
				t.Errorf("%s changed", p)
			}
		}
		checkState(t, sb.root)
	}

	t.Run("read-only", func(t *testing.T) {
		sb, want := prepared(t)
		_ = filepath.WalkDir(sb.root, func(p string, d fs.DirEntry, err error) error {
			if err == nil {
				mode := os.FileMode(0o400)
				if d.IsDir() {
					mode = 0o755
				}
				_ = os.Chmod(p, mode)
			}
			return nil
		})
		_ = os.Chmod(sb.dir, 0o755)
		_ = os.Chmod(filepath.Dir(sb.dir), 0o755)
		_ = os.Chmod(filepath.Dir(bin), 0o755)
		r := run(t, sb, func(c *exec.Cmd) *exec.Cmd { unprivileged(c); return c })
		_ = filepath.WalkDir(sb.root, func(p string, d fs.DirEntry, err error) error {
			if err == nil {
				_ = os.Chmod(p, 0o700)
			}
			return nil
		})
		intact(t, sb, want, r)
	})
	t.Run("full", func(t *testing.T) {
		sb, want := prepared(t)
		r := run(t, sb, func(c *exec.Cmd) *exec.Cmd {
			// ulimit -f 1: no file may grow past 512 bytes, so every
			// whole-file write fails as on a full disk.
			args := append([]string{"-c", `ulimit -f 1; exec "$0" "$@"`}, c.Args...)
			args[2] = c.Path
			w := exec.Command("/bin/sh", args...)
			w.Dir, w.Env, w.Stdin = c.Dir, c.Env, c.Stdin
			return w
		})
		intact(t, sb, want, r)
	})
	t.Run("under-a-file", func(t *testing.T) {
		sb := newSandbox(t)
		if err := os.WriteFile(sb.root, []byte("not a directory"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := run(t, sb, nil)
		checkHookContract(t, "hook", r)
		if len(r.stdout) > 0 || len(r.stderr) == 0 {
			t.Errorf("stdout %q stderr %q", r.stdout, r.stderr)
		}
		if b, _ := os.ReadFile(sb.root); string(b) != "not a directory" {
			t.Errorf("the file in the way was changed")
		}
	})
	t.Run("missing", func(t *testing.T) {
		sb := newSandbox(t)
		sb.root = filepath.Join(sb.dir, "does", "not", "exist")
		r := run(t, sb, nil)
		checkHookContract(t, "hook", r)
		if w := loadWindow(t, sb.root, "hostile-session"); w.ToolCalls != 1 {
			t.Errorf("tool_calls %d, want 1", w.ToolCalls)
		}
	})
}

// stateTree digests every file under root.
func stateTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		out[p] = fmt.Sprintf("%x", sha256.Sum256(b))
		return nil
	})
	return out
}

// hooksJSONCommands returns the argv of every command hook hooks.json
// gives Claude Code for event (for SessionStart, the group whose matcher is
// matcher), placeholders substituted: what Claude Code runs, in exec form.
func hooksJSONCommands(t *testing.T, event, matcher, pluginRoot, pluginData string) [][]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(pluginRoot, "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	sub := strings.NewReplacer("${CLAUDE_PLUGIN_ROOT}", pluginRoot, "${CLAUDE_PLUGIN_DATA}", pluginData)
	var cmds [][]string
	for _, g := range cfg.Hooks[event] {
		if event == "SessionStart" && g.Matcher != matcher {
			continue
		}
		for _, h := range g.Hooks {
			argv := []string{sub.Replace(h.Command)}
			for _, a := range h.Args {
				argv = append(argv, sub.Replace(a))
			}
			cmds = append(cmds, argv)
		}
	}
	if len(cmds) == 0 {
		t.Fatalf("hooks.json runs nothing for %s %q", event, matcher)
	}
	return cmds
}

// pluginData is a plugin data directory as the launcher leaves it after a
// build: bin/djinn-hook-<version> (here a link to the test's hook binary)
// and the link bin/djinn-hook to it.
func pluginData(t *testing.T) string {
	t.Helper()
	data := t.TempDir()
	bin := filepath.Join(data, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	hookBin := filepath.Join(bin, "djinn-hook-"+Version)
	if err := os.Symlink(hookBinary(t), hookBin); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(hookBin, filepath.Join(bin, "djinn-hook")); err != nil {
		t.Fatal(err)
	}
	return data
}

// runUnderLimit runs argv as Claude Code would, under ulimit -v kb (an
// address-space limit, as a container or a cautious user sets; 0: none),
// in sb.
func runUnderLimit(t *testing.T, sb *sandbox, kb int, argv []string, stdin []byte, env ...string) hookRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hookTimeout)
	defer cancel()
	limit := "unlimited"
	if kb > 0 {
		limit = strconv.Itoa(kb)
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", `ulimit -v "$0" && exec "$@"`, limit}, argv...)...)
	cmd.Dir = sb.project
	cmd.Env = append(hookEnv(sb.dir, sb.root), env...)
	cmd.Stdin = bytes.NewReader(stdin)
	return runProcess(t, ctx, fmt.Sprintf("%q", argv), cmd)
}

// TestHookRuntimeFailureNeverExits2: a Go process cannot even start under
// ulimit -v 200 MB (its runtime reserves more address space than that) and
// dies with exit 2 and a stack trace, which Claude Code would take as a
// blocking answer: UserPromptSubmit's erases the prompt, PostToolUse's
// shows the trace to the model, Stop's keeps the agent going. Run as
// hooks.json says, every hook, the launcher's included, exits 0 with one
// djinn: line on stderr and nothing on stdout.
func TestHookRuntimeFailureNeverExits2(t *testing.T) {
	root := repoRootAbs(t)
	data := pluginData(t)
	sb := newSandbox(t)
	cases := []struct{ event, matcher string }{
		{"SessionStart", "startup|clear"}, {"SessionStart", "resume"}, {"SessionStart", "compact"},
		{"UserPromptSubmit", ""}, {"PostToolUse", ""}, {"PostToolUseFailure", ""},
		{"Stop", ""}, {"SubagentStop", ""}, {"PreCompact", ""}, {"SessionEnd", ""},
	}
	for _, c := range cases {
		payload := sb.payload(c.event, map[string]any{"prompt": "Add a --json flag", "tool_name": "Bash",
			"tool_input": map[string]any{"command": "ls"}, "tool_response": map[string]any{"stdout": "a"}, "source": "startup"})
		for _, argv := range hooksJSONCommands(t, c.event, c.matcher, root, data) {
			r := runUnderLimit(t, sb, 200<<10, argv, payload, "CLAUDE_PLUGIN_ROOT="+root, "CLAUDE_PLUGIN_DATA="+data)
			what := c.event + " " + c.matcher + " " + argv[len(argv)-1]
			if r.code != 0 || len(r.stdout) != 0 {
				t.Errorf("%s under ulimit -v: exit %d, stdout %q, stderr %q", what, r.code, clipBytes(r.stdout), clipBytes(r.stderr))
				continue
			}
			if c.event == "SessionStart" && c.matcher == "resume" && argv[len(argv)-1] == "ensure" {
				// ensure starts no Go process when the link is in place.
				if len(r.stderr) != 0 {
					t.Errorf("%s: stderr %q", what, r.stderr)
				}
				continue
			}
			if s := string(r.stderr); strings.Count(s, "\n") != 1 || !strings.HasPrefix(s, "djinn: ") || !strings.Contains(s, "exit status 2") {
				t.Errorf("%s under ulimit -v: stderr %q, want one djinn: line naming exit status 2", what, clipBytes(r.stderr))
			}
		}
	}
}

// TestHookLargeResponseUnderLimit: a 50 MB MCP response under ulimit -v
// 1 GB, of which Go's runtime reserves about 750 MB before main, run as
// hooks.json says, is handled every time: exit 0, no djinn: line, the
// compressed response on stdout, the full one saved in outputs/ and the
// call counted. The hook holds the response about twice (the bytes read
// and its text decoded for the compressor), which fits; a handler that
// copies it again does not, in some runs or all.
func TestHookLargeResponseUnderLimit(t *testing.T) {
	root := repoRootAbs(t)
	data := pluginData(t)
	big := strings.Repeat("0123456789abcdef", 50<<20/16)
	const runs = 6
	for i := range runs {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			payload := sb.payload("PostToolUse", map[string]any{"tool_name": "mcp__browser__snapshot", "tool_input": map[string]any{},
				"tool_use_id": "toolu_big", "tool_response": []any{map[string]any{"type": "text", "text": big}}})
			argv := hooksJSONCommands(t, "PostToolUse", "", root, data)[0]
			r := runUnderLimit(t, sb, 1<<20, argv, payload, "CLAUDE_PLUGIN_ROOT="+root, "CLAUDE_PLUGIN_DATA="+data)
			checkHookContract(t, "PostToolUse", r)
			if r.code != 0 || len(r.stderr) != 0 {
				t.Fatalf("not handled: exit %d, stderr %q", r.code, clipBytes(r.stderr))
			}
			var out struct {
				HookSpecificOutput struct {
					UpdatedMCPToolOutput []map[string]any `json:"updatedMCPToolOutput"`
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal(r.stdout, &out); err != nil || len(out.HookSpecificOutput.UpdatedMCPToolOutput) != 1 || len(r.stdout) > 1<<20 {
				t.Fatalf("no compressed response (%v): %q", err, clipBytes(r.stdout))
			}
			fi, err := os.Stat(filepath.Join(sb.root, "sessions", "hostile-session", "outputs", "toolu_big.json"))
			if err != nil || fi.Size() < 50<<20 {
				t.Errorf("the full response was not saved: %v", err)
			}
			if w := loadWindow(t, sb.root, "hostile-session"); w.ToolCalls != 1 {
				t.Errorf("window.json counts %d tool calls, want 1", w.ToolCalls)
			}
		})
	}
}

// TestHookPayloadOverBound: a payload over DJINN_MAX_PAYLOAD_MB is not read
// to the end: the hook says so in one djinn: line, exits 0, prints nothing
// and records nothing. Run under hooks.json's guard, which sends the
// runtime's stderr to /dev/null, the line still reaches stderr (through
// fd 3).
func TestHookPayloadOverBound(t *testing.T) {
	sb := newSandbox(t)
	payload := sb.payload("PostToolUse", map[string]any{"tool_name": "mcp__browser__snapshot", "tool_input": map[string]any{},
		"tool_response": strings.Repeat("x", 3<<20)})
	root := repoRootAbs(t)
	data := pluginData(t)
	argv := hooksJSONCommands(t, "PostToolUse", "", root, data)[0]
	for _, r := range []hookRun{
		runHook(t, sb.dir, sb.root, "PostToolUse", payload, "DJINN_MAX_PAYLOAD_MB=2"),
		runUnderLimit(t, sb, 0, argv, payload, "DJINN_MAX_PAYLOAD_MB=2", "CLAUDE_PLUGIN_ROOT="+root, "CLAUDE_PLUGIN_DATA="+data),
	} {
		if r.code != 0 || len(r.stdout) != 0 || strings.Count(string(r.stderr), "\n") != 1 || !strings.Contains(string(r.stderr), "over 2 MiB") {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, clipBytes(r.stdout), r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(sb.root, "sessions", "hostile-session")); err == nil {
		t.Error("a skipped payload left session state")
	}
	// Under the bound it is handled, and neither DJINN_MAX_PAYLOAD_MB nor
	// the guard's DJINN_ERR_FD is taken for an unknown setting.
	r := runUnderLimit(t, sb, 0, argv, payload, "DJINN_MAX_PAYLOAD_MB=4", "CLAUDE_PLUGIN_ROOT="+root, "CLAUDE_PLUGIN_DATA="+data)
	if r.code != 0 || len(r.stderr) != 0 || len(r.stdout) == 0 {
		t.Fatalf("under the bound: exit %d, stdout %q, stderr %q", r.code, clipBytes(r.stdout), r.stderr)
	}
}
