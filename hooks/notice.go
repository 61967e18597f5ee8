package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/state"
)

// Notice is one line for the person at the keyboard, shown on screen as
// the hook's systemMessage (never sent to the model). Warning marks a
// notice the person should act on or know about even under
// notify=warnings: a hard or blocking advisory, a configuration problem, a
// state file repaired, the context near full.
type Notice = state.Notice

// maxPendingNotices bounds the notices window.json keeps for a later hook.
const maxPendingNotices = 8

// maxConfigNotices bounds the configuration problems shown on screen at
// once; the rest are counted, and `djinn config` lists them all.
const maxConfigNotices = 5

// Notify adds a notice for the person to the response. Any handler (or
// anything that holds the response) may call it; Run filters the notices
// by the notify setting and shows them, or keeps them for the next hook
// whose event can show them.
func (r *Response) Notify(text string, warning bool) {
	r.Notices = append(r.Notices, Notice{Text: text, Warning: warning})
}

// tell queues a notice from anywhere in a hook, outside a handler's
// response (opening the session, repairing a state file): Run shows it
// with the response's.
func (s *session) tell(text string, warning bool) {
	s.notices = append(s.notices, Notice{Text: text, Warning: warning})
}

// toldNotice is the notice for an advisory told to the agent: what it was
// told, in a few plain words. Hard and blocking advisories are warnings.
func toldNotice(a advice.Advisory) Notice {
	return Notice{Text: "djinn: told the agent " + advice.GistOf(a), Warning: a.Severity == advice.Hard || a.Severity == advice.Block}
}

// showNotices moves the hook's notices, and those earlier hooks left in the
// window, into the response's systemMessage when the event can carry one,
// one line each after any message the handler set, dropping those the
// notify setting hides. At an event that cannot show them they wait in the
// window (the latest maxPendingNotices).
func (s *session) showNotices(event string, resp *Response) {
	all := append(append(s.w.Notices, s.notices...), resp.Notices...)
	s.w.Notices, s.notices, resp.Notices = nil, nil, nil
	var shown []Notice
	for _, n := range all {
		if s.env.Settings.Notify.Shows(n.Warning) && strings.TrimSpace(n.Text) != "" {
			n.Text = fit.Runes(n.Text, 2000)
			shown = append(shown, n)
		}
	}
	if len(shown) == 0 {
		return
	}
	if rule, _ := allowed(event); !rule.system {
		s.w.Notices = shown[max(0, len(shown)-maxPendingNotices):]
		return
	}
	lines := make([]string, 0, len(shown)+1)
	if resp.SystemMessage != "" {
		lines = append(lines, resp.SystemMessage)
	}
	for _, n := range shown {
		lines = append(lines, n.Text)
	}
	resp.SystemMessage = strings.Join(lines, "\n")
}

// configHash is the hash of a list of configuration problems that the
// window keeps, "" for none.
func configHash(probs []string) string {
	if len(probs) == 0 {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.Join(probs, "\n")))
	return hex.EncodeToString(sum[:8])
}

// configNotices reports the configuration problems (Env.ConfigProblems):
// on stderr when they differ from those last reported in this session (a
// hash in the window), and on screen then and at each session start (not
// after a compaction), instead of on every hook.
func (s *session) configNotices(p *Payload) {
	probs := s.env.ConfigProblems
	h := configHash(probs)
	changed := h != s.w.ConfigProblems
	s.w.ConfigProblems = h
	if changed && s.env.Store.Notice != nil {
		for _, pr := range probs {
			s.env.Store.Notice(pr)
		}
	}
	start := p.HookEventName == SessionStart && p.Source != "compact"
	if len(probs) == 0 || !changed && !start {
		return
	}
	for i, pr := range probs {
		if i == maxConfigNotices {
			s.tell(fmt.Sprintf("djinn: and %d more configuration problems; run djinn config to see them all", len(probs)-i), true)
			break
		}
		s.tell("djinn: configuration problem: "+pr, true)
	}
}
