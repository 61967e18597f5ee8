package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// session is a synthetic Claude Code session: a goal prompt, then tool
// calls that read, edit, grep and run tests over forty files of a real
// scratch project, a user prompt every 25 calls with a Stop before it, and
// a transcript (assistant lines with text, tool_use and usage; user lines
// with the tool_result and toolUseResult) that grows with every call, as a
// long session's does.
type session struct {
	env        *hooks.Env
	id         string
	project    string
	transcript string
	tw         *os.File
	calls      int
	clock      time.Time
}

type obj = map[string]any

func newSession(dir, stateRoot, id string) (*session, error) {
	s := &session{
		id:      id,
		project: filepath.Join(dir, "project"),
		clock:   time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC),
	}
	s.transcript = filepath.Join(dir, "transcript.jsonl")
	if err := os.MkdirAll(filepath.Join(s.project, "internal", "billing"), 0o700); err != nil {
		return nil, err
	}
	for i := 0; i < 40; i++ {
		body := strings.Repeat(fmt.Sprintf("// line of file %d: invoice rounding, currency and tax rules\n", i), 40)
		if err := os.WriteFile(s.file(i), []byte("package billing\n"+body), 0o600); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(s.transcript, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	s.tw = f
	s.env = &hooks.Env{
		Store:    &state.Store{Root: stateRoot, LockWait: 5 * time.Second},
		Settings: settings.Default(),
		Now:      func() time.Time { return s.clock },
		Getenv: func(k string) string {
			if k == "CLAUDE_PROJECT_DIR" {
				return s.project
			}
			return os.Getenv(k)
		},
	}
	return s, nil
}

func (s *session) file(i int) string {
	return filepath.Join(s.project, "internal", "billing", fmt.Sprintf("invoice_%02d.go", i%40))
}

func (s *session) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = s.tw.Write(append(b, '\n'))
	return err
}

func (s *session) base(event string, prompt int) *hooks.Payload {
	return &hooks.Payload{SessionID: s.id, TranscriptPath: s.transcript, Cwd: s.project, HookEventName: event,
		PromptID: fmt.Sprintf("prompt-%d", prompt), PermissionMode: "default"}
}

// call returns the payload of tool call i after writing its transcript
// lines.
func (s *session) call(i int) (*hooks.Payload, error) {
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
	if err := s.line(obj{"type": "assistant", "isSidechain": false, "sessionId": s.id, "uuid": fmt.Sprintf("a-%d", i),
		"timestamp": s.clock.Format(time.RFC3339Nano),
		"message": obj{"id": fmt.Sprintf("msg_%06d", i), "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{obj{"type": "text", "text": fmt.Sprintf("Checking the invoice rounding in file %d before changing the tax rule.", i%40)},
				obj{"type": "tool_use", "id": id, "name": tool, "input": in}},
			"usage": obj{"input_tokens": 4, "cache_creation_input_tokens": 900, "cache_read_input_tokens": tokens, "output_tokens": 120}}}); err != nil {
		return nil, err
	}
	out := strings.Repeat("result text of the tool call, as the model sees it\n", 6+i%20)
	if err := s.line(obj{"type": "user", "isSidechain": false, "sessionId": s.id, "uuid": fmt.Sprintf("u-%d", i),
		"timestamp":     s.clock.Format(time.RFC3339Nano),
		"message":       obj{"role": "user", "content": []any{obj{"type": "tool_result", "tool_use_id": id, "content": out}}},
		"toolUseResult": resp}); err != nil {
		return nil, err
	}
	rawIn, _ := json.Marshal(in)
	rawResp, _ := json.Marshal(resp)
	p := s.base(hooks.PostToolUse, i/25)
	p.ToolName, p.ToolInput, p.ToolResponse, p.ToolUseID = tool, rawIn, rawResp, id
	return p, nil
}

func (s *session) prompt(i int) *hooks.Payload {
	p := s.base(hooks.UserPromptSubmit, i)
	p.Prompt = "Fix the invoice rounding in internal/billing so that tax is rounded per line, not per invoice, and keep the currency tests green"
	if i > 0 {
		p.Prompt = fmt.Sprintf("also check invoice %d and the currency table", i)
	}
	return p
}

func (s *session) stop(i int) *hooks.Payload {
	p := s.base(hooks.Stop, i/25)
	p.LastAssistantMessage = "I changed the rounding of the tax lines in the invoice code and the tests pass. Next I will check the currency table."
	return p
}

func (s *session) run(p *hooks.Payload) error {
	resp, err := hooks.Run(context.Background(), s.env, p)
	if err != nil {
		return fmt.Errorf("%s: %w", p.HookEventName, err)
	}
	if _, err := hooks.Encode(p.HookEventName, resp); err != nil {
		return fmt.Errorf("%s: %w", p.HookEventName, err)
	}
	return nil
}

// grow runs the session up to n tool calls; after each call count in marks
// it calls at(calls).
func (s *session) grow(n int, at func(calls int) error) error {
	if s.calls == 0 {
		p := s.base(hooks.SessionStart, 0)
		p.Source = "startup"
		if err := s.run(p); err != nil {
			return err
		}
	}
	for ; s.calls < n; s.calls++ {
		if s.calls%25 == 0 {
			if s.calls > 0 {
				if err := s.run(s.stop(s.calls - 1)); err != nil {
					return err
				}
			}
			if err := s.run(s.prompt(s.calls / 25)); err != nil {
				return err
			}
		}
		p, err := s.call(s.calls)
		if err != nil {
			return err
		}
		if err := s.run(p); err != nil {
			return err
		}
		if at != nil {
			if err := at(s.calls + 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// nextEvents are the events measured at the session's current length: the
// next tool call (its transcript lines written), its failing twin, the next
// prompt, the turn's Stop, a subagent's tool call and SubagentStop, a
// resume, and the rare ones: PreCompact, SessionStart(compact),
// SessionEnd.
func (s *session) nextEvents() ([]namedPayload, error) {
	n := s.calls
	call, err := s.call(n)
	if err != nil {
		return nil, err
	}
	fail := *call
	fail.HookEventName, fail.ToolResponse, fail.Error = hooks.PostToolUseFailure, nil, "Exit code 1\n--- FAIL: TestInvoice3 (0.00s)\n    invoice_test.go:41: got 10.01, want 10.00"
	sub := *call
	sub.AgentID, sub.AgentType = "a1b2c3d4e5f6", "general-purpose"
	subStop := s.base(hooks.SubagentStop, n/25)
	subStop.AgentID, subStop.AgentType = "a1b2c3d4e5f6", "general-purpose"
	subStop.LastAssistantMessage = "The currency table rounds half to even; invoice_07.go uses it for the tax lines."
	resume := s.base(hooks.SessionStart, n/25)
	resume.Source, resume.PromptID = "resume", ""
	pre := s.base(hooks.PreCompact, n/25)
	pre.Trigger, pre.PromptID, pre.PermissionMode = "auto", "", ""
	compact := s.base(hooks.SessionStart, n/25)
	compact.Source, compact.PromptID = "compact", ""
	end := s.base(hooks.SessionEnd, n/25)
	end.Reason, end.PromptID = "other", ""
	return []namedPayload{
		{"PostToolUse", call, true},
		{"PostToolUseFailure", &fail, true},
		{"UserPromptSubmit", s.prompt(n/25 + 1), true},
		{"Stop", s.stop(n), true},
		{"PostToolUse(subagent)", &sub, true},
		{"SubagentStop", subStop, true},
		{"SessionStart(resume)", resume, false},
		{"PreCompact", pre, false},
		{"SessionStart(compact)", compact, false},
		{"SessionEnd", end, false},
	}, nil
}

type namedPayload struct {
	name string
	p    *hooks.Payload
	hot  bool // a per-call event (the O(1) hot path) rather than a rare one
}
