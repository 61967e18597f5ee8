package hooks

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/engines/stall"
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/internal/sat"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// Text stalls (seed 000). At Stop, and at the SubagentStop of a real
// subagent, the finished message is run through the stall detector. A stall
// is rolled back: Stop answers decision "block" with the divergence prompt,
// so the model continues from before the loop. At most max_rollbacks per
// user prompt (prompt_id), counted here whether or not stop_hook_active is
// set (Claude Code itself gives up after 8); after that the turn ends and
// the user is told. With stall.rollback off, the finding is advice only: the
// user is told now and the agent at its next hook. advice.Stall decides;
// the handler keeps the counts and writes the answer.

func handleStop(ctx context.Context, s *session, p *Payload) (Response, error) {
	if p.HookEventName == SubagentStop && p.AgentType == "" {
		// The compactor's own SubagentStop (its message is the summary),
		// or a subagent that cannot be told apart from it: never blocked.
		return Response{}, nil
	}
	if s.env.Settings.Loops.Enabled && !s.disabled("loops") {
		s.noteClaim(p)
	}
	if p.HookEventName == Stop {
		// A message typed while the agent worked and handed over before
		// its last message came before that message, and before the next
		// prompt ("don't push yet", then "ok, push it now").
		s.noteQueued(p)
		// What a short "ok, start" from the user will accept.
		s.noteLastAssistant(p.LastAssistantMessage)
	}
	mode := s.mode(advice.KindStall)
	if !s.env.Settings.Stall.Enabled || s.disabled("stall") || mode == settings.Off {
		return Response{}, nil
	}
	text := p.LastAssistantMessage
	if text == "" && p.HookEventName == Stop {
		if scan, ok := s.measure(p); ok {
			text = scan.LastText
			s.noteLastAssistant(text)
		}
	}
	if text == "" {
		return Response{}, nil
	}
	res, err := stall.Detect(text, s.env.Settings.Stall.Config)
	if err != nil || !res.Stalled {
		return Response{}, err
	}
	st := s.stallState(p.PromptID)
	key := p.AgentID
	set := s.env.Settings.Stall
	facts := advice.StallFacts{
		Rule: res.Rule, Start: utf8.RuneCountInString(text[:res.Start]), Period: res.Period, Repeats: res.Repeats,
		Unit: res.Unit, Before: lastRunes(text[:res.Start], 80), Agent: p.AgentID, Prompt: set.DivergencePrompt,
		Rollbacks: st.count(key), Max: set.MaxRollbacks,
	}
	ans := advice.Stall(facts, set.Rollback)
	if mode == settings.Observe {
		ans = advice.StallObserve(facts)
	}
	switch {
	case ans.Block:
		st.add(key)
	case ans.GaveUp:
		st.GaveUp = true
	case ans.Pending:
		st.Pending = ans.Advisory.Text
	}
	if ans.Observed {
		s.record(p, ans.Advisory, settings.Observe)
		resp := Response{Observed: []string{ans.Advisory.Text}}
		if p.HookEventName == Stop {
			resp.Notify(ans.UserMessage, false)
		}
		return resp, nil
	}
	s.record(p, ans.Advisory, settings.Advise)
	if ans.Block {
		resp := Response{Block: true, Reason: ans.Advisory.Text}
		if p.HookEventName == Stop {
			resp.Notify(fmt.Sprintf("djinn: rolled back the agent's last message, which repeats %s (rollback %d of at most %d for this prompt)",
				advice.Quote(facts.Unit, 60), st.count(key), set.MaxRollbacks), true)
		}
		return resp, nil
	}
	if p.HookEventName == Stop {
		var resp Response
		resp.Notify(ans.UserMessage, ans.GaveUp)
		return resp, nil
	}
	return Response{}, nil
}

// stallState returns the rollback counts of the current prompt, resetting
// them when the prompt changed.
func (s *session) stallState(promptID string) *stallCounts {
	if s.w.Stall == nil || s.w.Stall.PromptID != fit.Bytes(promptID, 128) {
		total := 0
		pending := ""
		if s.w.Stall != nil {
			total, pending = s.w.Stall.Total, s.w.Stall.Pending
		}
		s.w.Stall = &state.Stall{PromptID: fit.Bytes(promptID, 128), Total: total, Pending: pending}
	}
	return (*stallCounts)(s.w.Stall)
}

type stallCounts state.Stall

func (c *stallCounts) count(agent string) int {
	if agent == "" {
		return c.Rollbacks
	}
	return c.Agents[agent]
}

func (c *stallCounts) add(agent string) {
	sat.Inc(&c.Total)
	if agent == "" {
		sat.Inc(&c.Rollbacks)
		return
	}
	if c.Agents == nil {
		c.Agents = map[string]int{}
	}
	if len(c.Agents) >= 8 {
		for k := range c.Agents {
			delete(c.Agents, k)
			break
		}
	}
	c.Agents[fit.Bytes(agent, 128)] = sat.Next(c.Agents[fit.Bytes(agent, 128)])
}

// pendingStall returns, once, a stall advisory waiting for the agent's
// next hook (advice-only mode).
func (s *session) pendingStall() []string {
	if s.w.Stall == nil || s.w.Stall.Pending == "" {
		return nil
	}
	t := s.w.Stall.Pending
	s.w.Stall.Pending = ""
	return []string{t}
}

// lastRunes returns the last n runes of s, on one line.
func lastRunes(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[len(r)-n:])
}
