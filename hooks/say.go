package hooks

import (
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// say is the one place where advisories become the hook's answer. Each
// advisory's kind has a mode (settings.Advisories): advise puts it into the
// response's context, most severe first, observe keeps it out of the
// context (Response.Observed, for replay), off drops it. Advise and observe
// advisories are recorded (advisories.jsonl with their mode, and the recent
// list that djinn status shows). With loops.block on, a hard loop of an
// advised kind on PostToolUse blocks the tool call (advice.LoopBlock): an
// observed kind never blocks. The developer's profile holds back what the
// user's feedback taught it to (feedback.go) before anything is recorded,
// and the notice that the user judged an advisory wrong goes first into
// the next main-agent context this assembles, once. Each advisory told (or
// blocking) also gives the person a one-line notice (toldNotice); an
// observed one does not, since nothing was said to the agent.
func (s *session) say(p *Payload, advs []advice.Advisory, resp *Response) {
	s.tellFeedback(p, resp)
	if len(advs) == 0 {
		return
	}
	voiced := make([]advice.Advisory, 0, len(advs))
	for i, a := range advs {
		if s.modeOf(a) != settings.Off && !saidBefore(advs[:i], a) {
			voiced = append(voiced, a)
		}
	}
	var told, observed, recorded []advice.Advisory
	for _, a := range s.hold(voiced) {
		m := s.modeOf(a)
		if a.Observed {
			// A finding its detector only records (an asked-for revert, a
			// lone one): kept in the state as observed, in any mode.
			recorded = append(recorded, a)
			continue
		}
		switch m {
		case settings.Advise:
			told = append(told, a)
		case settings.Observe:
			observed = append(observed, a)
		}
	}
	// Only PostToolUse can block a tool call.
	if b, rest, ok := advice.LoopBlock(told, s.env.Settings.Loops.Block && p.HookEventName == PostToolUse); ok {
		resp.Block, resp.Reason = true, b.Text
		s.record(p, b, settings.Advise)
		resp.Notify("djinn: blocked the tool call: "+advice.GistOf(b), true)
		told = rest
	}
	for _, a := range advice.Order(told) {
		s.record(p, a, settings.Advise)
		if a.Kind == advice.KindPressure && s.userMessage != "" {
			continue // the top tier's own message to the person says it
		}
		n := toldNotice(a)
		resp.Notify(n.Text, n.Warning)
	}
	for _, a := range advice.Order(observed) {
		s.record(p, a, settings.Observe)
	}
	for _, a := range advice.Order(recorded) {
		s.record(p, a, settings.Observe)
	}
	resp.Context = append(resp.Context, advice.Paragraphs(told)...)
	resp.Observed = append(resp.Observed, advice.Paragraphs(observed)...)
	resp.Recorded = append(resp.Recorded, advice.Paragraphs(recorded)...)
}

// saidBefore reports whether an advisory of the same kind and words is
// among earlier: one call that breaks several instructions of one source
// (a declined command's several steps) gives the same text for each, and
// saying it again says nothing more.
func saidBefore(earlier []advice.Advisory, a advice.Advisory) bool {
	for _, e := range earlier {
		if e.Kind == a.Kind && e.Text == a.Text {
			return true
		}
	}
	return false
}

// mode is the mode of an advisory kind.
func (s *session) mode(kind string) settings.Mode {
	return s.env.Settings.Advisories.Mode(kind)
}

// modeOf is the mode of one advisory: its family's (Advisory.Family) when
// it has one and its kind is not off, else its kind's.
func (s *session) modeOf(a advice.Advisory) settings.Mode {
	m := s.mode(a.Kind)
	if a.Family == "" || m == settings.Off {
		return m
	}
	return s.mode(a.Family)
}

// record logs one advisory with its mode. A reanchor is not added to the
// recent list: it restates the state, and is not part of it.
func (s *session) record(p *Payload, a advice.Advisory, mode settings.Mode) {
	adv := stateAdvisory(s, p, a.Kind, string(a.Severity), a.Text)
	adv.Numbers = a.Numbers
	adv.Loop = a.Loop
	adv.Mode = string(mode)
	adv.ID = state.AdvisoryID(s.id, adv)
	s.advs = append(s.advs, adv)
	if a.Kind == advice.KindReanchor {
		return
	}
	r := state.Recent{Seq: s.w.ToolCalls, Time: s.now, Kind: a.Kind, Text: fit.Runes(a.Text, 600), ID: adv.ID}
	if mode == settings.Observe {
		r.Mode = string(mode)
	}
	s.w.Recent = append(s.w.Recent, r)
	if len(s.w.Recent) > 8 {
		s.w.Recent = s.w.Recent[len(s.w.Recent)-8:]
	}
}

func stateAdvisory(s *session, p *Payload, kind, severity, text string) state.Advisory {
	return state.Advisory{
		SchemaVersion: state.SchemaVersion, Time: s.now, Event: p.HookEventName,
		PromptID: fit.Bytes(p.PromptID, 128), AgentID: fit.Bytes(p.AgentID, 128), Kind: kind,
		Severity: severity, Text: fit.Runes(text, 10000), Seq: s.w.ToolCalls,
	}
}

// tellFeedback puts the pending notice that the user judged an advisory
// wrong first into resp's context, and clears it: only a main-agent hook
// whose context reaches the model carries it.
func (s *session) tellFeedback(p *Payload, resp *Response) {
	f := s.w.Feedback
	if f == nil || f.Notice == "" || p.AgentID != "" {
		return
	}
	switch p.HookEventName {
	case SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure:
	default:
		return
	}
	resp.Context = append([]string{f.Notice}, resp.Context...)
	f.Notice = ""
}
