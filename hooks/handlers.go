package hooks

import (
	"github.com/djinn-cc/djinn/engines/drift"
	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/state"
)

// Point is the context meter's reading of a session, for replay's curve.
type Point struct {
	Tokens int64
	Limit  int64
	Share  float64
	Tier   int
	Stale  bool
}

// pointOf is a window's context reading, nil when it has none.
func pointOf(w *state.Window) *Point {
	if w == nil || w.Pressure == nil || (w.Pressure.Limit == 0 && w.Pressure.Window == "") {
		return nil // no reading yet
	}
	ps := w.Pressure
	tier := 0
	for i, a := range ps.Announced {
		if a {
			tier = i + 1
		}
	}
	pt := &Point{Tokens: ps.Tokens, Limit: ps.Limit, Tier: tier, Stale: ps.Stale}
	if ps.Limit > 0 { // else the window is unknown: Limit and Share stay 0
		pt.Share = float64(ps.Tokens) / float64(ps.Limit)
	}
	return pt
}

// newAssistantWords returns the signal words of the agent's latest prose
// from the transcript, once per assistant message.
func (s *session) newAssistantWords(p *Payload) []string {
	scan, ok := s.measure(p)
	d := s.w.Drift
	if !ok || d == nil {
		return nil
	}
	if scan.LastText == "" {
		// A message with no prose (tool calls only) is marked too: it is
		// complete by the time any hook sees it, so it will never have
		// text, and the mark lets the next hook's meter stop at it
		// (KnownMessage) instead of walking back through its tool results
		// to the message before it.
		if id := scan.Reading.MessageID; id != "" && id != d.TextMark {
			d.TextMark = fit.Bytes(id, 256)
		}
		return nil
	}
	mark := scan.Reading.MessageID
	if mark == "" {
		mark = "text:" + anchorHash(scan.LastText)
	}
	if mark == d.TextMark {
		return nil
	}
	d.TextMark = fit.Bytes(mark, 256)
	return drift.Words(scan.LastText)
}
