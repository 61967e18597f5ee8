package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// synthSession builds a session of n tool calls the way a long Claude Code
// session looks: a goal prompt, then calls that read, edit, grep and run
// tests over a few dozen files of a real scratch project, a user prompt
// every 25 calls, and a transcript (assistant tool_use lines with usage,
// user tool_result lines) that grows with every call. It returns the hook
// environment and a payload maker for the next events.
type synthSession struct {
	env        *hooks.Env
	id         string
	project    string
	transcript string
	tw         *os.File
	calls      int
	clock      time.Time
}

func newSynthSession(tb testing.TB, root string) *synthSession {
	tb.Helper()
	s := &synthSession{
		id:      "bench-session-0001",
		project: filepath.Join(root, "project"),
		clock:   time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC),
	}
	s.transcript = filepath.Join(root, "transcript.jsonl")
	if err := os.MkdirAll(filepath.Join(s.project, "internal", "billing"), 0o700); err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		body := strings.Repeat(fmt.Sprintf("// line of file %d: invoice rounding, currency and tax rules\n", i), 40)
		if err := os.WriteFile(s.file(i), []byte("package billing\n"+body), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	f, err := os.OpenFile(s.transcript, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	s.tw = f
	s.env = &hooks.Env{
		Store:    &state.Store{Root: filepath.Join(root, "state"), LockWait: 5 * time.Second},
		Settings: settings.Default(),
		Now:      func() time.Time { return s.clock },
		Getenv: func(k string) string {
			if k == "CLAUDE_PROJECT_DIR" {
				return s.project
			}
			return ""
		},
	}
	return s
}

func (s *synthSession) file(i int) string {
	return filepath.Join(s.project, "internal", "billing", fmt.Sprintf("invoice_%02d.go", i%40))
}

func (s *synthSession) line(tb testing.TB, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := s.tw.Write(append(b, '\n')); err != nil {
		tb.Fatal(err)
	}
}

type obj = map[string]any

// call returns the payload of tool call i and writes its transcript lines.
func (s *synthSession) call(tb testing.TB, i int) *hooks.Payload {
	s.clock = s.clock.Add(7 * time.Second)
	id := fmt.Sprintf("toolu_%06d", i)
	var tool string
	var in, resp obj
	f := s.file(i * 7)
	switch i % 6 {
	case 0:
		tool, in = "Read", obj{"file_path": f}
		resp = obj{"type": "text", "file": obj{"filePath": f, "content": "package billing\n", "numLines": 41, "startLine": 1, "totalLines": 41}}
	case 1:
		tool, in = "Edit", obj{"file_path": f, "old_string": "invoice rounding", "new_string": "invoice rounding"}
		resp = obj{"filePath": f, "oldString": "invoice rounding", "newString": "invoice rounding", "originalFile": nil, "structuredPatch": []any{}}
	case 2:
		tool, in = "Bash", obj{"command": fmt.Sprintf("go test ./internal/billing/ -run TestInvoice%d", i%13), "description": "Run the invoice tests"}
		resp = obj{"stdout": strings.Repeat("ok  \texample.com/internal/billing\t0.012s\n", 3), "stderr": "", "interrupted": false, "isImage": false}
	case 3:
		tool, in = "Grep", obj{"pattern": fmt.Sprintf("roundCurrency%d", i%17), "path": s.project, "output_mode": "content"}
		resp = obj{"mode": "content", "numFiles": 2, "filenames": []any{}, "content": f + ":3: roundCurrency()", "numLines": 1}
	case 4:
		tool, in = "Glob", obj{"pattern": "internal/billing/*_test.go"}
		resp = obj{"filenames": []any{f}, "durationMs": 3, "numFiles": 1, "truncated": false}
	default:
		tool, in = "TodoWrite", obj{"todos": []any{obj{"content": fmt.Sprintf("fix tax rounding for invoice %d", i%9), "status": "in_progress", "activeForm": "Fixing tax rounding"}}}
		resp = obj{"oldTodos": []any{}, "newTodos": []any{}}
	}
	tokens := 30_000 + (i*53)%60_000
	s.line(tb, obj{"type": "assistant", "isSidechain": false, "sessionId": s.id, "uuid": fmt.Sprintf("a-%d", i),
		"timestamp": s.clock.Format(time.RFC3339Nano),
		"message": obj{"id": fmt.Sprintf("msg_%06d", i), "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{obj{"type": "text", "text": fmt.Sprintf("Checking the invoice rounding in file %d before changing the tax rule.", i%40)},
				obj{"type": "tool_use", "id": id, "name": tool, "input": in}},
			"usage": obj{"input_tokens": 4, "cache_creation_input_tokens": 900, "cache_read_input_tokens": tokens, "output_tokens": 120}}})
	out := strings.Repeat("result text of the tool call, as the model sees it\n", 6+i%20)
	s.line(tb, obj{"type": "user", "isSidechain": false, "sessionId": s.id, "uuid": fmt.Sprintf("u-%d", i),
		"timestamp":     s.clock.Format(time.RFC3339Nano),
		"message":       obj{"role": "user", "content": []any{obj{"type": "tool_result", "tool_use_id": id, "content": out}}},
		"toolUseResult": resp})
	rawIn, _ := json.Marshal(in)
	rawResp, _ := json.Marshal(resp)
	return &hooks.Payload{
		SessionID: s.id, TranscriptPath: s.transcript, Cwd: s.project, HookEventName: hooks.PostToolUse,
		PromptID: fmt.Sprintf("prompt-%d", i/25), PermissionMode: "default",
		ToolName: tool, ToolInput: rawIn, ToolResponse: rawResp, ToolUseID: id,
	}
}

func (s *synthSession) prompt(i int) *hooks.Payload {
	text := "Fix the invoice rounding in internal/billing so that tax is rounded per line, not per invoice, and keep the currency tests green"
	if i > 0 {
		text = fmt.Sprintf("also check invoice %d and the currency table", i)
	}
	return &hooks.Payload{SessionID: s.id, TranscriptPath: s.transcript, Cwd: s.project, HookEventName: hooks.UserPromptSubmit,
		PromptID: fmt.Sprintf("prompt-%d", i), PermissionMode: "default", Prompt: text}
}

func (s *synthSession) stop(i int) *hooks.Payload {
	return &hooks.Payload{SessionID: s.id, TranscriptPath: s.transcript, Cwd: s.project, HookEventName: hooks.Stop,
		PromptID: fmt.Sprintf("prompt-%d", i/25), PermissionMode: "default",
		LastAssistantMessage: "I changed the rounding of the tax lines in the invoice code and the tests pass. Next I will check the currency table."}
}

func (s *synthSession) run(tb testing.TB, p *hooks.Payload) hooks.Response {
	tb.Helper()
	resp, err := hooks.Run(context.Background(), s.env, p)
	if err != nil {
		tb.Fatalf("%s: %v", p.HookEventName, err)
	}
	if _, err := hooks.Encode(p.HookEventName, resp); err != nil {
		tb.Fatalf("%s: %v", p.HookEventName, err)
	}
	return resp
}

// grow runs the session up to n tool calls.
func (s *synthSession) grow(tb testing.TB, n int) {
	tb.Helper()
	if s.calls == 0 {
		s.run(tb, &hooks.Payload{SessionID: s.id, TranscriptPath: s.transcript, Cwd: s.project, HookEventName: hooks.SessionStart, Source: "startup"})
	}
	for ; s.calls < n; s.calls++ {
		if s.calls%25 == 0 {
			if s.calls > 0 {
				s.run(tb, s.stop(s.calls-1))
			}
			s.run(tb, s.prompt(s.calls/25))
		}
		s.run(tb, s.call(tb, s.calls))
	}
}

// snapshot keeps the session's files so every benchmark iteration starts
// from the same state: whole files are rewritten, append-only logs cut back
// to their length.
type snapshot struct {
	docs map[string][]byte
	logs map[string]int64
}

func takeSnapshot(tb testing.TB, dir string) snapshot {
	tb.Helper()
	sn := snapshot{docs: map[string][]byte{}, logs: map[string]int64{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case strings.HasSuffix(e.Name(), ".jsonl"):
			fi, _ := os.Stat(p)
			sn.logs[p] = fi.Size()
		case strings.HasSuffix(e.Name(), ".json"):
			b, _ := os.ReadFile(p)
			sn.docs[p] = b
		}
	}
	return sn
}

func (sn snapshot) restore(tb testing.TB) {
	for p, b := range sn.docs {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	for p, n := range sn.logs {
		if err := os.Truncate(p, n); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkHookInProcess measures hooks.Run (lock, load, handle, save with
// fsync) for each hot-path event at sessions of 10, 1,000 and 10,000 prior
// tool calls, in process: the process start and the launcher, which the
// script scripts/bench-hooks adds, are not in it. The state is on the
// test's temporary directory.
func BenchmarkHookInProcess(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		root := b.TempDir()
		s := newSynthSession(b, root)
		s.grow(b, n)
		dir, _ := s.env.Store.SessionDir(s.id)
		next := s.call(b, n) // its transcript lines are written once
		events := []*hooks.Payload{next, s.prompt(n/25 + 1), s.stop(n)}
		fail := *next
		fail.HookEventName, fail.ToolResponse, fail.Error = hooks.PostToolUseFailure, nil, "exit status 1: FAIL TestInvoice"
		events = append(events, &fail)
		sn := takeSnapshot(b, dir)
		for _, p := range events {
			b.Run(fmt.Sprintf("calls=%d/%s", n, p.HookEventName), func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					sn.restore(b)
					b.StartTimer()
					s.run(b, p)
				}
			})
		}
	}
}
