package hooks

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// The compaction hand-off. Claude Code appends a PreCompact hook's plain
// stdout to the compactor's instructions (checked with the real CLI), so
// Djinn prints the session's state there as an XML snapshot; and right
// after compaction SessionStart(source "compact") can inject context, so the
// same snapshot goes back to the agent as [djinn:reanchor], whatever the
// summary kept. Both stay under maxSnapshot characters (Claude Code cuts at
// 10,000).

const maxSnapshot = 6000

func handlePreCompact(ctx context.Context, s *session, p *Payload) (Response, error) {
	s.compacted()
	if s.mode(advice.KindReanchor) != settings.Advise {
		// The hand-off is the reanchor's other half: what the compactor
		// keeps, the agent reads.
		return Response{}, nil
	}
	snap := s.snapshot(ctx)
	if snap == "" {
		return Response{}, nil
	}
	return Response{Plain: "Djinn, the plugin that tracks this session's goal, asks that the summary keep this state (goal, constraints, load-bearing files, open failures) verbatim or nearly so:\n" + snap}, nil
}

// reanchor is SessionStart(compact)'s context. Without a recorded goal it
// says so rather than that "the goal still applies", and with nothing else
// tracked either (no files, failures or advisories) it says nothing.
func (s *session) reanchor(ctx context.Context) []string {
	snap := s.snapshot(ctx)
	if snap == "" {
		return nil
	}
	lead := " The conversation was just compacted. This is the session's goal and state as Djinn tracked them before compaction; the goal still applies unless the user changes it.\n"
	if a, err := s.loadAnchor(); err == nil && a == nil {
		if !strings.Contains(snap, "<load_bearing_files>") && !strings.Contains(snap, "<open_failures>") && !strings.Contains(snap, "<recent_advisories>") {
			return nil
		}
		lead = " The conversation was just compacted. Djinn recorded no goal for this session; this is the state it tracked before compaction.\n"
	}
	return []string{advice.Tag(advice.KindReanchor) + lead + snap}
}

// snapshot renders the state as XML, dropping the least important parts
// until it fits maxSnapshot.
func (s *session) snapshot(ctx context.Context) string {
	a, err := s.loadAnchor()
	if err != nil {
		return ""
	}
	var b strings.Builder
	esc := xmlEscape
	// Every value is Clean (one line, no control characters, no "[djinn"
	// tag) and then escaped: the elements and attributes mark it as data.
	attr := func(k, v string) string { return fmt.Sprintf(` %s="%s"`, k, esc(advice.Clean(v, 300))) }
	build := func(files, advs, fails int) string {
		b.Reset()
		b.WriteString("<djinn_state" + attr("session", s.id) + attr("tool_calls", fmt.Sprint(s.w.ToolCalls)) + ">\n")
		if a == nil {
			b.WriteString("  <goal>none recorded</goal>\n")
		} else {
			b.WriteString("  <goal" + attr("anchor", a.Hash) + attr("intent", a.IntentType) + ">" + esc(advice.Clean(a.Text, 1500)) + "</goal>\n")
			if len(a.Deltas) > 0 {
				b.WriteString("  <constraints>\n")
				for _, d := range a.Deltas[max(0, len(a.Deltas)-6):] {
					b.WriteString("    <constraint>" + esc(advice.Clean(d.Text, 300)) + "</constraint>\n")
				}
				b.WriteString("  </constraints>\n")
			}
		}
		if d := s.w.Drift; d != nil && d.Verdict != nil {
			v := d.Verdict
			b.WriteString("  <verdict" + attr("kind", v.Kind) + attr("score", fmt.Sprintf("%.2f", v.Score)) + attr("threshold", fmt.Sprintf("%.2f", v.Threshold)) + attr("n", fmt.Sprint(v.N)) + "/>\n")
		}
		if files > 0 {
			if fs := s.loadBearingFiles(files); len(fs) > 0 {
				b.WriteString("  <load_bearing_files>\n")
				for _, f := range fs {
					b.WriteString("    <file>" + esc(advice.Clean(f, 300)) + "</file>\n")
				}
				b.WriteString("  </load_bearing_files>\n")
			}
		}
		if fails > 0 && len(s.w.Failures) > 0 {
			b.WriteString("  <open_failures>\n")
			for _, f := range s.w.Failures[max(0, len(s.w.Failures)-fails):] {
				b.WriteString("    <failure" + attr("tool", f.Tool) + attr("times", fmt.Sprint(f.Count)) + attr("target", advice.Clean(s.display(f.Target), 200)) + ">" + esc(advice.Clean(f.Error, 200)) + "</failure>\n")
			}
			b.WriteString("  </open_failures>\n")
		}
		if told := toldRecent(s.w.Recent); advs > 0 && len(told) > 0 {
			b.WriteString("  <recent_advisories>\n")
			for _, r := range told[max(0, len(told)-advs):] {
				b.WriteString("    <advisory" + attr("kind", r.Kind) + attr("call", fmt.Sprint(r.Seq)) + ">" + esc(advice.Clean(strings.TrimPrefix(r.Text, advice.Tag(r.Kind)), 300)) + "</advisory>\n")
			}
			b.WriteString("  </recent_advisories>\n")
		}
		b.WriteString("</djinn_state>")
		return b.String()
	}
	for _, lim := range [][3]int{{8, 4, 5}, {5, 2, 3}, {3, 1, 2}, {0, 0, 0}} {
		if out := build(lim[0], lim[1], lim[2]); len([]rune(out)) <= maxSnapshot {
			return out
		}
	}
	return clipRunes(build(0, 0, 0), maxSnapshot)
}

// toldRecent is the recent advisories the agent was told: an observed one
// is not restated to it (nor to the compactor, whose summary it reads).
func toldRecent(rs []state.Recent) []state.Recent {
	var out []state.Recent
	for _, r := range rs {
		if r.Mode != string(settings.Observe) {
			out = append(out, r)
		}
	}
	return out
}

// xmlEscape is encoding/xml.EscapeText as a string function, written out
// so that hook processes do not link encoding/xml, whose package
// initialisation costs each of them about 25 µs (TestXMLEscape holds the
// two to the same output).
func xmlEscape(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			if !xmlChar(r) || (r == utf8.RuneError && width == 1) {
				esc = "\uFFFD"
			}
		}
		if esc != "" {
			b.WriteString(s[last:i])
			b.WriteString(esc)
			last = i + width
		}
		i += width
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// xmlChar reports whether r is in XML's Char production.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}
