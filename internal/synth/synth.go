// Package synth builds a synthetic Claude Code session for the hook
// benchmarks (hooks' BenchmarkHookInProcess and scripts/hookbench): one
// generator, so both measure the same session.
package synth

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

// Session is a synthetic Claude Code session: a goal prompt, then tool
// calls that read, edit, grep and run tests over forty files of a real
// scratch project, a user prompt every 25 calls with a Stop before it, and
// a transcript (assistant lines with text, tool_use and usage; user lines
// with the tool_result and toolUseResult) that grows with every call, as a
// long session's does.
type Session struct {
	Env        *hooks.Env
	ID         string
	Project    string // the scratch project, CLAUDE_PROJECT_DIR
	Transcript string
	Calls      int // tool calls run so far (Grow)
	tw         *os.File
	clock      time.Time
}

type obj = map[string]any

// New writes the project under dir and opens the transcript there; the
// state lives under stateRoot. The hook environment answers
// CLAUDE_PROJECT_DIR itself and asks getenv for the rest.
func New(dir, stateRoot, id string, getenv func(string) string) (*Session, error) {
	s := &Session{
		ID:      id,
		Project: filepath.Join(dir, "project"),
		clock:   time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC),
	}
	s.Transcript = filepath.Join(dir, "transcript.jsonl")
	if err := os.MkdirAll(filepath.Join(s.Project, "internal", "billing"), 0o700); err != nil {
		return nil, err
	}
	for i := 0; i < 40; i++ {
		body := strings.Repeat(fmt.Sprintf("// line of file %d: invoice rounding, currency and tax rules\n", i), 40)
		if err := os.WriteFile(s.File(i), []byte("package billing\n"+body), 0o600); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(s.Transcript, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	s.tw = f
	s.Env = &hooks.Env{
		Store:    &state.Store{Root: stateRoot, LockWait: 5 * time.Second},
		Settings: settings.Default(),
		Now:      func() time.Time { return s.clock },
		Getenv: func(k string) string {
			if k == "CLAUDE_PROJECT_DIR" {
				return s.Project
			}
			return getenv(k)
		},
	}
	return s, nil
}

// File is the path of the project's file i (of forty).
func (s *Session) File(i int) string {
	return filepath.Join(s.Project, "internal", "billing", fmt.Sprintf("invoice_%02d.go", i%40))
}

func (s *Session) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = s.tw.Write(append(b, '\n'))
	return err
}

// Close closes the transcript.
func (s *Session) Close() error { return s.tw.Close() }

// Base is a payload of event in prompt number prompt, with no event fields.
func (s *Session) Base(event string, prompt int) *hooks.Payload {
	return &hooks.Payload{SessionID: s.ID, TranscriptPath: s.Transcript, Cwd: s.Project, HookEventName: event,
		PromptID: fmt.Sprintf("prompt-%d", prompt), PermissionMode: "default"}
}

// call returns the payload of tool call i after writing its transcript
// lines.
func (s *Session) Call(i int) (*hooks.Payload, error) {
	s.clock = s.clock.Add(7 * time.Second)
	id := fmt.Sprintf("toolu_%06d", i)
	var tool string
	var in, resp obj
	f := s.File(i * 7)
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
		tool, in = "Grep", obj{"pattern": fmt.Sprintf("roundCurrency%d", i%17), "path": s.Project, "output_mode": "content"}
		resp = obj{"mode": "content", "numFiles": 2, "filenames": []any{}, "content": f + ":3: roundCurrency()", "numLines": 1}
	case 4:
		tool, in = "Glob", obj{"pattern": "internal/billing/*_test.go"}
		resp = obj{"filenames": []any{f}, "durationMs": 3, "numFiles": 1, "truncated": false}
	default:
		tool, in = "TodoWrite", obj{"todos": []any{obj{"content": fmt.Sprintf("fix tax rounding for invoice %d", i%9), "status": "in_progress", "activeForm": "Fixing tax rounding"}}}
		resp = obj{"oldTodos": []any{}, "newTodos": []any{}}
	}
	tokens := 30_000 + (i*53)%60_000
	if err := s.line(obj{"type": "assistant", "isSidechain": false, "sessionId": s.ID, "uuid": fmt.Sprintf("a-%d", i),
		"timestamp": s.clock.Format(time.RFC3339Nano),
		"message": obj{"id": fmt.Sprintf("msg_%06d", i), "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{obj{"type": "text", "text": fmt.Sprintf("Checking the invoice rounding in file %d before changing the tax rule.", i%40)},
				obj{"type": "tool_use", "id": id, "name": tool, "input": in}},
			"usage": obj{"input_tokens": 4, "cache_creation_input_tokens": 900, "cache_read_input_tokens": tokens, "output_tokens": 120}}}); err != nil {
		return nil, err
	}
	out := strings.Repeat("result text of the tool call, as the model sees it\n", 6+i%20)
	if err := s.line(obj{"type": "user", "isSidechain": false, "sessionId": s.ID, "uuid": fmt.Sprintf("u-%d", i),
		"timestamp":     s.clock.Format(time.RFC3339Nano),
		"message":       obj{"role": "user", "content": []any{obj{"type": "tool_result", "tool_use_id": id, "content": out}}},
		"toolUseResult": resp}); err != nil {
		return nil, err
	}
	rawIn, _ := json.Marshal(in)
	rawResp, _ := json.Marshal(resp)
	p := s.Base(hooks.PostToolUse, i/25)
	p.ToolName, p.ToolInput, p.ToolResponse, p.ToolUseID = tool, rawIn, rawResp, id
	return p, nil
}

// Prompt is the payload of user prompt i: the goal, then short follow-ups.
func (s *Session) Prompt(i int) *hooks.Payload {
	p := s.Base(hooks.UserPromptSubmit, i)
	p.Prompt = "Fix the invoice rounding in internal/billing so that tax is rounded per line, not per invoice, and keep the currency tests green"
	if i > 0 {
		p.Prompt = fmt.Sprintf("also check invoice %d and the currency table", i)
	}
	return p
}

// Stop is the payload of the Stop ending the turn of tool call i.
func (s *Session) Stop(i int) *hooks.Payload {
	p := s.Base(hooks.Stop, i/25)
	p.LastAssistantMessage = "I changed the rounding of the tax lines in the invoice code and the tests pass. Next I will check the currency table."
	return p
}

// Run runs p through hooks.Run and encodes the response, as a hook does.
func (s *Session) Run(p *hooks.Payload) error {
	resp, err := hooks.Run(context.Background(), s.Env, p)
	if err != nil {
		return fmt.Errorf("%s: %w", p.HookEventName, err)
	}
	if _, err := hooks.Encode(p.HookEventName, resp); err != nil {
		return fmt.Errorf("%s: %w", p.HookEventName, err)
	}
	return nil
}

// Grow runs the session up to n tool calls; after each call count in marks
// it calls at(calls).
func (s *Session) Grow(n int, at func(calls int) error) error {
	if s.Calls == 0 {
		p := s.Base(hooks.SessionStart, 0)
		p.Source = "startup"
		if err := s.Run(p); err != nil {
			return err
		}
	}
	for ; s.Calls < n; s.Calls++ {
		if s.Calls%25 == 0 {
			if s.Calls > 0 {
				if err := s.Run(s.Stop(s.Calls - 1)); err != nil {
					return err
				}
			}
			if err := s.Run(s.Prompt(s.Calls / 25)); err != nil {
				return err
			}
		}
		p, err := s.Call(s.Calls)
		if err != nil {
			return err
		}
		if err := s.Run(p); err != nil {
			return err
		}
		if at != nil {
			if err := at(s.Calls + 1); err != nil {
				return err
			}
		}
	}
	return nil
}
