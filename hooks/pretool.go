package hooks

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/djinn-cc/djinn/engines/risk"
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// handlePreToolUse answers "ask" for a call that goes against an
// instruction in force or takes a risky step no recent instruction covers,
// so that the person decides before it runs (the ask setting; Run returns
// early when it is off). The reason names what Djinn saw, and that the
// person declined the same call before, if they did.
func handlePreToolUse(_ context.Context, s *session, p *Payload) (Response, error) {
	if p.ToolUseID == "" {
		return Response{}, nil
	}
	c, _, ok := s.riskCallOf(p)
	if !ok {
		return Response{}, nil
	}
	var why []string
	kind := advice.KindInstruction
	if s.mode(advice.KindInstruction) != settings.Off {
		for _, b := range s.brokenLimits(c) {
			where := "the user said"
			if b.l.Source == fromClaudeMD {
				where = "CLAUDE.md says"
			}
			why = append(why, fmt.Sprintf("it %s, but %s: %s", advice.Clean(b.step, 160), where, advice.Quote(b.l.Text, 200)))
		}
	}
	if len(why) == 0 && s.mode(advice.KindRisk) != settings.Off {
		kind = advice.KindRisk
		ins := s.instructions()
		for _, f := range risk.Check(c) {
			if s.stepCovered(f, ins) {
				continue
			}
			t := ""
			if f.Target != "" {
				t = " (" + advice.Clean(relTargets(f.Target, c.ProjectDir), 160) + ")"
			}
			why = append(why, fmt.Sprintf("it %s%s, and no recent prompt asks for that", f.Entry.What, t))
		}
	}
	if len(why) == 0 {
		return Response{}, nil
	}
	key := callKey(p)
	reason := advice.Tag(kind) + " Djinn asks before this call: " + strings.Join(why, "; ") + "."
	r := s.riskState()
	for _, a := range r.Asked {
		if a.Key == key && a.ID != p.ToolUseID {
			reason += fmt.Sprintf(" You declined the same call earlier (at call #%d).", a.Call)
			break
		}
	}
	r.Asked = append(r.Asked, state.Asked{ID: fit.Bytes(p.ToolUseID, 128), Key: key, Call: s.w.ToolCalls + 1})
	if len(r.Asked) > state.MaxAsked {
		r.Asked = r.Asked[len(r.Asked)-state.MaxAsked:]
	}
	return Response{Ask: true, Reason: reason}, nil
}

// approved reports whether a call that ran is one Djinn asked about, and
// forgets it: the person said yes.
func (s *session) approved(id string) bool {
	if id == "" || s.w.Risk == nil {
		return false
	}
	for i, a := range s.w.Risk.Asked {
		if a.ID == id {
			s.w.Risk.Asked = append(s.w.Risk.Asked[:i], s.w.Risk.Asked[i+1:]...)
			return true
		}
	}
	return false
}

// callKey identifies a call by its tool and input.
func callKey(p *Payload) string {
	h := fnv.New64a()
	h.Write([]byte(p.ToolName))
	h.Write([]byte{0})
	h.Write(p.ToolInput)
	return fmt.Sprintf("%016x", h.Sum64())
}
