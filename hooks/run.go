package hooks

import (
	"context"
	"fmt"

	"github.com/djinn-cc/djinn/state"
)

// handler handles one event for a locked session.
type handler func(ctx context.Context, s *session, p *Payload) (Response, error)

var handlers = map[string]handler{
	SessionStart:       handleSessionStart,
	UserPromptSubmit:   handleUserPrompt,
	PostToolUse:        handleToolCall,
	PostToolUseFailure: handleToolCall,
	Stop:               handleStop,
	SubagentStop:       handleStop,
	PreCompact:         handlePreCompact,
	SessionEnd:         handleSessionEnd,
}

// meterEvents are the events at which the context meter is read.
var meterEvents = map[string]bool{
	UserPromptSubmit: true, PostToolUse: true, PostToolUseFailure: true, Stop: true, PreCompact: true,
}

// Run handles one decoded hook payload and returns what to print. On error
// nothing was written and nothing must be printed.
func Run(ctx context.Context, env *Env, p *Payload) (Response, error) {
	h, ok := handlers[p.HookEventName]
	if !ok {
		return Response{}, fmt.Errorf("%w %q", ErrUnknownEvent, p.HookEventName)
	}
	if !env.Settings.Enabled {
		return Response{}, nil
	}
	if err := state.ValidateSessionID(p.SessionID); err != nil {
		return Response{}, err
	}
	s, lock, err := openSession(ctx, env, p.SessionID)
	if err != nil {
		return Response{}, err
	}
	defer func() { _ = lock.Unlock() }()
	s.w.Events[p.HookEventName]++
	if p.TranscriptPath != "" && s.w.TranscriptPath == "" {
		s.w.TranscriptPath = clip(p.TranscriptPath, 4096)
	}
	if s.w.ProjectDir == "" {
		if d := env.getenv("CLAUDE_PROJECT_DIR"); d != "" {
			s.w.ProjectDir = clip(d, 4096)
		} else if p.Cwd != "" {
			s.w.ProjectDir = clip(p.Cwd, 4096)
		}
	}
	if p.PromptID != "" {
		s.w.PromptID = clip(p.PromptID, 128)
	}
	var resp Response
	if meterEvents[p.HookEventName] && env.Settings.Pressure.Enabled && !s.disabled("all") && !s.disabled("pressure") && p.AgentID == "" {
		s.meterEvent(p)
	}
	if env.Gate != nil {
		if err := env.Gate(); err != nil {
			return Response{}, fmt.Errorf("hook gate: %w", err)
		}
	}
	if !s.disabled("all") {
		resp, err = h(ctx, s, p)
		if err != nil {
			return Response{}, err
		}
	}
	if err := s.save(); err != nil {
		return Response{}, err
	}
	return resp, nil
}

// clip cuts a string to at most n bytes on a rune boundary.
func clip(str string, n int) string {
	if len(str) <= n {
		return str
	}
	for n > 0 && n < len(str) && str[n]&0xC0 == 0x80 {
		n--
	}
	return str[:n]
}
