package hooks

import (
	"context"
	"fmt"
	"time"

	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/internal/sat"
	"github.com/djinn-cc/djinn/state"
)

// handler handles one event for a locked session.
type handler func(ctx context.Context, s *session, p *Payload) (Response, error)

// handlerFor returns the handler of a wired event.
func handlerFor(event string) (handler, bool) {
	switch event {
	case SessionStart:
		return handleSessionStart, true
	case UserPromptSubmit:
		return handleUserPrompt, true
	case PreToolUse:
		return handlePreToolUse, true
	case PostToolUse, PostToolUseFailure:
		return handleToolCall, true
	case Stop, SubagentStop:
		return handleStop, true
	case PreCompact:
		return handlePreCompact, true
	case PostCompact:
		return handlePostCompact, true
	case SessionEnd:
		return handleSessionEnd, true
	}
	return nil, false
}

// readsMeter reports whether the context meter is read at an event.
func readsMeter(event string) bool {
	switch event {
	case UserPromptSubmit, PostToolUse, PostToolUseFailure, Stop, PreCompact:
		return true
	}
	return false
}

// Run handles one decoded hook payload and returns what to print, with the
// context reading it left (Response.Meter). On error
// nothing was written and nothing must be printed.
func Run(ctx context.Context, env *Env, p *Payload) (Response, error) {
	h, ok := handlerFor(p.HookEventName)
	if !ok {
		return Response{}, fmt.Errorf("%w %q", ErrUnknownEvent, p.HookEventName)
	}
	if p.HookEventName == PreToolUse && !env.Settings.Ask {
		// PreToolUse is wired for the ask setting only: off, it reads and
		// writes nothing.
		return Response{}, nil
	}
	if !env.Settings.Enabled {
		env.reportConfigProblems()
		return Response{}, nil
	}
	if err := state.ValidateSessionID(p.SessionID); err != nil {
		env.reportConfigProblems()
		return Response{}, err
	}
	if p.HookEventName == SessionEnd {
		env = env.forSessionEnd()
	}
	s, lock, err := openSession(ctx, env, p.SessionID)
	if err != nil {
		env.reportConfigProblems()
		return Response{}, err
	}
	defer func() { _ = lock.Unlock() }()
	if isToolCall(p.HookEventName) && p.ToolUseID != "" {
		if s.seenToolUse(p.ToolUseID) {
			// The same call delivered again: counted once, said once.
			// Nothing changed, so nothing is written (configuration
			// problems not yet reported in this session go to stderr, and
			// again at the next hook, which records them).
			if configHash(env.ConfigProblems) != s.w.ConfigProblems {
				env.reportConfigProblems()
			}
			return Response{Meter: pointOf(&s.w)}, nil
		}
		s.noteToolUse(p.ToolUseID)
	}
	s.configNotices(p)
	s.w.Events[p.HookEventName] = sat.Next(s.w.Events[p.HookEventName])
	if p.TranscriptPath != "" && s.w.TranscriptPath == "" {
		s.w.TranscriptPath = fit.Bytes(p.TranscriptPath, 4096)
	}
	if s.w.ProjectDir == "" {
		if d := env.getenv("CLAUDE_PROJECT_DIR"); d != "" {
			s.w.ProjectDir = fit.Bytes(d, 4096)
		} else if p.Cwd != "" {
			s.w.ProjectDir = fit.Bytes(p.Cwd, 4096)
		}
	}
	if p.PromptID != "" {
		s.w.PromptID = fit.Bytes(p.PromptID, 128)
	}
	var resp Response
	if readsMeter(p.HookEventName) && env.Settings.Pressure.Enabled && !s.disabled("all") && !s.disabled("pressure") && p.AgentID == "" {
		s.meterEvent(p)
	}
	if env.Gate != nil {
		if err := env.Gate(); err != nil {
			return Response{}, fmt.Errorf("hook gate: %w", err)
		}
	}
	if sw, ok := s.promptSwitch(p); ok {
		// /djinn:disable, /djinn:enable: applied even when all of Djinn is
		// off, so that /djinn:enable can turn it back on.
		resp = sw
	} else if fb, ok, err := s.promptWrong(ctx, p); ok {
		// /djinn:wrong: the user's judgement counts whatever is switched off.
		if err != nil {
			return Response{}, err
		}
		resp = fb
	} else if !s.disabled("all") {
		resp, err = h(ctx, s, p)
		if err != nil {
			return Response{}, err
		}
	}
	s.showNotices(p.HookEventName, &resp)
	if err := s.save(); err != nil {
		return Response{}, err
	}
	resp.Notices = append(resp.Notices, s.notices...)
	resp.Meter = pointOf(&s.w)
	return resp, nil
}

// reportConfigProblems puts the configuration problems on stderr, for a
// hook that has no session to remember them in.
func (e *Env) reportConfigProblems() {
	if e.Store == nil || e.Store.Notice == nil {
		return
	}
	for _, p := range e.ConfigProblems {
		e.Store.Notice(p)
	}
}

// sessionEndLockWait bounds each of SessionEnd's lock waits (the
// session's, then the global one): Claude Code gives all SessionEnd hooks
// 1.5 s together (hooks.json's timeout says the same), and lock_wait_ms
// may be longer. A SessionEnd that gives up has committed nothing, and the
// session is learned at its next end (after a resume).
const sessionEndLockWait = 500 * time.Millisecond

// forSessionEnd is env with its lock wait bounded by sessionEndLockWait.
func (e *Env) forSessionEnd() *Env {
	if e.Store.LockWait <= sessionEndLockWait {
		return e
	}
	c := *e
	c.Store = e.Store.WithLockWait(sessionEndLockWait)
	return &c
}

// maxToolUseIDs bounds the recent tool_use_ids window.json keeps to tell
// a repeated delivery of a tool call from a new one.
const maxToolUseIDs = 32

func isToolCall(event string) bool { return event == PostToolUse || event == PostToolUseFailure }

// seenToolUse reports whether a tool call with this tool_use_id was
// already handled (among the latest maxToolUseIDs).
func (s *session) seenToolUse(id string) bool {
	id = fit.Bytes(id, 128)
	for _, x := range s.w.ToolUseIDs {
		if x == id {
			return true
		}
	}
	return false
}

// noteToolUse remembers a tool_use_id, dropping the oldest beyond
// maxToolUseIDs.
func (s *session) noteToolUse(id string) {
	s.w.ToolUseIDs = append(s.w.ToolUseIDs, fit.Bytes(id, 128))
	if n := len(s.w.ToolUseIDs); n > maxToolUseIDs {
		s.w.ToolUseIDs = append(s.w.ToolUseIDs[:0], s.w.ToolUseIDs[n-maxToolUseIDs:]...)
	}
}
