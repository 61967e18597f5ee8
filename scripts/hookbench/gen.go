package main

import (
	"encoding/json"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/internal/synth"
)

// nextEvents are the events measured at the session's current length: the
// next tool call (its transcript lines written), its failing twin, the next
// prompt, the turn's Stop, a subagent's tool call and SubagentStop, a
// resume, and the rare ones: PreCompact, SessionStart(compact),
// PostCompact, SessionEnd.
func nextEvents(s *synth.Session) ([]namedPayload, error) {
	n := s.Calls
	call, err := s.Call(n)
	if err != nil {
		return nil, err
	}
	fail := *call
	fail.HookEventName, fail.ToolResponse, fail.Error = hooks.PostToolUseFailure, nil, "Exit code 1\n--- FAIL: TestInvoice3 (0.00s)\n    invoice_test.go:41: got 10.01, want 10.00"
	sub := *call
	sub.AgentID, sub.AgentType = "a1b2c3d4e5f6", "general-purpose"
	subStop := s.Base(hooks.SubagentStop, n/25)
	subStop.AgentID, subStop.AgentType = "a1b2c3d4e5f6", "general-purpose"
	subStop.LastAssistantMessage = "The currency table rounds half to even; invoice_07.go uses it for the tax lines."
	resume := s.Base(hooks.SessionStart, n/25)
	resume.Source, resume.PromptID = "resume", ""
	pre := s.Base(hooks.PreCompact, n/25)
	pre.Trigger, pre.PromptID, pre.PermissionMode = "auto", "", ""
	compact := s.Base(hooks.SessionStart, n/25)
	compact.Source, compact.PromptID = "compact", ""
	// PostCompact on the grown state has no re-anchor pending (no
	// SessionStart(compact) ran before it), so it measures the event's
	// start and the early return; the narrowing, when one is pending,
	// renders the same snapshot SessionStart(compact) does.
	post := s.Base(hooks.PostCompact, n/25)
	post.Trigger, post.PromptID, post.PermissionMode = "auto", "", ""
	post.CompactSummary = "<summary>The user asked to fix the invoice rounding; the tests in internal/billing are being run.</summary>"
	// PreToolUse is wired for Bash, Write, Edit and MultiEdit; with the ask
	// setting off (its default) the hook returns before it opens the
	// session.
	preTool := *call
	preTool.HookEventName, preTool.ToolResponse = hooks.PreToolUse, nil
	preTool.ToolName, preTool.ToolInput = "Bash", json.RawMessage(`{"command":"go test ./internal/billing/ -run TestInvoice3","description":"run the invoice test"}`)
	end := s.Base(hooks.SessionEnd, n/25)
	end.Reason, end.PromptID = "other", ""
	return []namedPayload{
		{"PreToolUse", &preTool, true},
		{"PostToolUse", call, true},
		{"PostToolUseFailure", &fail, true},
		{"UserPromptSubmit", s.Prompt(n/25 + 1), true},
		{"Stop", s.Stop(n), true},
		{"PostToolUse(subagent)", &sub, true},
		{"SubagentStop", subStop, true},
		{"SessionStart(resume)", resume, false},
		{"PreCompact", pre, false},
		{"SessionStart(compact)", compact, false},
		{"PostCompact", post, false},
		{"SessionEnd", end, false},
	}, nil
}

type namedPayload struct {
	name string
	p    *hooks.Payload
	hot  bool // a per-call event (the O(1) hot path) rather than a rare one
}
