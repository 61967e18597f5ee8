package hooks

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/engines/drift"
	"github.com/djinn-cc/djinn/engines/lcs"
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/internal/fit"
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
// tracked either (no files or failures) it says nothing.
func (s *session) reanchor(ctx context.Context) []string {
	snap := s.snapshot(ctx)
	if snap == "" {
		return nil
	}
	lead := " The conversation was just compacted. This is the session's goal and state as Djinn tracked them before compaction; the goal still applies unless the user changes it.\n"
	a, err := s.loadAnchor()
	if err == nil && a != nil && strings.Contains(snap, "<current_task") {
		lead = " The conversation was just compacted. This is the session's current task, goal and state as Djinn tracked them before compaction; they still apply unless the user changes them.\n"
	}
	if err == nil && a == nil {
		if !strings.Contains(snap, "<load_bearing_files>") && !strings.Contains(snap, "<open_failures>") {
			return nil
		}
		lead = " The conversation was just compacted. Djinn recorded no goal for this session; this is the state it tracked before compaction.\n"
	}
	return []string{advice.Tag(advice.KindReanchor) + lead + snap}
}

// snapshot renders what a compaction summary tends to lose as XML: the
// current task and the prompt it comes from, the session goal when it
// differs, the user's instructions still in force in their own words, the
// load-bearing files and the failures no later success cleared. Earlier
// advisories are not restated. It drops the least important parts, then
// shortens the texts, until it fits maxSnapshot, so a tag is never cut.
func (s *session) snapshot(ctx context.Context) string {
	return s.snapshotKeeping(ctx, nil)
}

// snapshotKeeping is snapshot with only the parts keep accepts (kind
// "task", "goal", "constraint", "limit", "file" or "failure", and the
// part's text), and without the drift verdict, Djinn's own figure; it is
// "" when keep accepts none. A nil keep keeps everything.
func (s *session) snapshotKeeping(ctx context.Context, keep func(kind, text string) bool) string {
	a, err := s.loadAnchor()
	if err != nil {
		return ""
	}
	kept := 0
	ok := func(kind, text string) bool {
		if keep == nil || keep(kind, text) {
			kept++
			return true
		}
		return false
	}
	var b strings.Builder
	esc := xmlEscape
	// Every value is Clean (one line, no control characters, no "[djinn"
	// tag) and then escaped: the elements and attributes mark it as data.
	attr := func(k, v string) string { return fmt.Sprintf(` %s="%s"`, k, esc(advice.Clean(v, 300))) }
	build := func(files, fails, instr, textLen int) string {
		b.Reset()
		kept = 0
		b.WriteString("<djinn_state" + attr("session", s.id) + attr("tool_calls", fmt.Sprint(s.w.ToolCalls)) + ">\n")
		if a == nil {
			if keep == nil {
				b.WriteString("  <goal>none recorded</goal>\n")
			}
		} else {
			// shown are the user's texts the block holds: a limit in one
			// of them is not said twice.
			var shown []string
			t := currentTask(a)
			if t.Source != "goal" && t.Text != a.Text && ok("task", t.Text) {
				b.WriteString("  <current_task" + attr("prompt_id", t.PromptID) + attr("source", t.Source) + ">" + esc(advice.Clean(t.Text, textLen)) + "</current_task>\n")
				shown = append(shown, t.Text)
			}
			if ok("goal", a.Text) {
				b.WriteString("  <goal" + attr("anchor", a.Hash) + attr("intent", a.IntentType) + ">" + esc(advice.Clean(a.Text, textLen)) + "</goal>\n")
				shown = append(shown, a.Text)
			}
			if in := keepOnly(inForce(a), "constraint", ok); len(in) > 0 && instr > 0 {
				b.WriteString("  <constraints>\n")
				for _, d := range in[max(0, len(in)-instr):] {
					b.WriteString("    <constraint>" + esc(advice.Clean(d, min(300, textLen))) + "</constraint>\n")
					shown = append(shown, d)
				}
				b.WriteString("  </constraints>\n")
			}
			if in := keepOnly(s.limitsBeyond(shown), "limit", ok); len(in) > 0 && instr > 0 {
				b.WriteString("  <instructions_in_force>\n")
				for _, d := range in[max(0, len(in)-instr):] {
					b.WriteString("    <limit>" + esc(advice.Clean(d, min(300, textLen))) + "</limit>\n")
				}
				b.WriteString("  </instructions_in_force>\n")
			}
		}
		if d := s.w.Drift; d != nil && d.Verdict != nil && keep == nil {
			v := d.Verdict
			b.WriteString("  <verdict" + attr("kind", v.Kind) + attr("score", fmt.Sprintf("%.2f", v.Score)) + attr("threshold", fmt.Sprintf("%.2f", v.Threshold)) + attr("n", fmt.Sprint(v.N)) + "/>\n")
		}
		if files > 0 {
			if fs := keepOnly(s.loadBearingFiles(files), "file", ok); len(fs) > 0 {
				b.WriteString("  <load_bearing_files>\n")
				for _, f := range fs {
					b.WriteString("    <file>" + esc(advice.Clean(f, 300)) + "</file>\n")
				}
				b.WriteString("  </load_bearing_files>\n")
			}
		}
		var failures []state.Failure
		for _, f := range s.w.Failures[max(0, len(s.w.Failures)-fails):] {
			if ok("failure", s.display(f.Target)+" "+f.Error) {
				failures = append(failures, f)
			}
		}
		if fails > 0 && len(failures) > 0 {
			b.WriteString("  <open_failures>\n")
			for _, f := range failures {
				b.WriteString("    <failure" + attr("tool", f.Tool) + attr("times", fmt.Sprint(f.Count)) + attr("target", advice.Clean(s.display(f.Target), 200)) + ">" + esc(advice.Clean(f.Error, 200)) + "</failure>\n")
			}
			b.WriteString("  </open_failures>\n")
		}
		b.WriteString("</djinn_state>")
		return b.String()
	}
	out := ""
	for _, lim := range [][4]int{{8, 5, 8, 1500}, {5, 3, 6, 1000}, {3, 2, 4, 600}, {0, 0, 2, 300}, {0, 0, 0, 200}} {
		if out = build(lim[0], lim[1], lim[2], lim[3]); len([]rune(out)) <= maxSnapshot {
			if keep != nil && kept == 0 {
				return ""
			}
			return out
		}
	}
	// Unreachable with maxSnapshot's 6,000 characters: two texts of 200
	// runes escape to at most 2,000 characters.
	return out
}

// keepOnly is the items ok accepts as kind.
func keepOnly(items []string, kind string, ok func(kind, text string) bool) []string {
	var out []string
	for _, it := range items {
		if ok(kind, it) {
			out = append(out, it)
		}
	}
	return out
}

// inForce are the user's instructions still in force, in their own words,
// oldest first: the follow-up prompts (task.go keeps them deduplicated and
// drops the ones a later prompt reversed), or the constraint deltas of an
// anchor recorded before instructions were kept.
func inForce(a *state.Anchor) []string {
	var out []string
	if len(a.Instructions) > 0 {
		for _, in := range a.Instructions {
			out = append(out, in.Text)
		}
		return out
	}
	for _, d := range a.Deltas {
		out = append(out, d.Text)
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

// maxPendingReanchor bounds Window.PendingReanchor: a snapshot and its lead.
const maxPendingReanchor = 7000

// handlePostCompact narrows the re-anchor SessionStart(compact) left
// pending to what the compaction summary leaves out of what the user
// said: the current task, the goal and the limits in force, whose words
// the summary does not hold. When it leaves out nothing, nothing is said: the
// summary, which the agent reads, already carries the session's state
// (judges found every re-anchor that restated it useless). After a
// manual compaction whose summary holds the conversation only the limits
// in force stay. Without a summary in the payload the whole block stays
// pending.
func handlePostCompact(ctx context.Context, s *session, p *Payload) (Response, error) {
	if s.w.PendingReanchor == "" || strings.TrimSpace(p.CompactSummary) == "" {
		return Response{}, nil
	}
	sum := summaryWords(p.CompactSummary)
	a, _ := s.loadAnchor()
	moved := a != nil && a.Task != nil && a.Task.Text != a.Text
	proposed := a != nil && a.Task != nil && a.Task.Source == "proposed"
	// A /compact the person typed is theirs: the agent had ended its turn,
	// most often with the task done, and the person's next prompt, which
	// the block would come with, says what is next. Restating the task or
	// the goal from before it is stale then (the twelve blocks after a
	// manual compaction on the draws, relabelled blind: none useful, seven
	// false, five of them a finished task restated as current); only the
	// limits in force, which no new prompt lifts by being given, stay.
	// A summary that lost the conversation ("5-hour limit reached", the
	// turn cut off mid-task: f-claudeagents-9f404f83 #44, useful to both
	// judges) leaves the task to the block whatever the trigger.
	manual := p.Trigger == "manual" && sum.words >= minSummaryWords
	snap := s.snapshotKeeping(ctx, func(kind, text string) bool {
		// Files and failures the summary leaves out are most often the ones
		// it was right to leave (judges found the restated failures long
		// fixed): only the user's task, goal and words are restated. The
		// session's first prompt, once a later one has become the task, is
		// left out too: a summary of the later work rightly drops it
		// (judges found it restated as the goal, stale, twice).
		// The follow-up prompts kept as constraints are left out as well:
		// in the user's raw words they are context, corrections and
		// chatter as often as limits (judges found them so), and the
		// limits among them are restated as instructions in force.
		if kind == "goal" && moved || manual && (kind == "task" || kind == "goal") {
			return false
		}
		// A task that is the agent's own proposal, which the user took
		// with a short reply, is the agent's words: the summary, made
		// from the agent's side of the conversation, keeps them better
		// than a restatement (judges found all three such blocks useless:
		// ext-posthog #109, ext-vlmservice #120, ext-squeezelms #83).
		if kind == "task" && proposed {
			return false
		}
		return (kind == "task" || kind == "goal" || kind == "limit") && !sum.covers(kind, text)
	})
	if snap == "" {
		s.w.PendingReanchor, s.w.ReanchorAfter = "", ""
		return Response{}, nil
	}
	lead := " The conversation was just compacted, and its summary leaves out this part of the session's state as Djinn tracked it before compaction; it still applies unless the user changes it.\n"
	s.w.PendingReanchor = fit.Runes(advice.Tag(advice.KindReanchor)+lead+snap, maxPendingReanchor)
	return Response{}, nil
}

// sayPendingReanchor says the re-anchor a compaction left pending, at the
// first main-agent hook after it that can give the agent context. When the
// main chain's latest response is still the one before the compaction, the
// main conversation was not compacted: a subagent was. Subagents compact
// (ten sessions of the draws hold a boundary in a subagent's transcript),
// the CLI's PreCompact and SessionStart inputs carry no agent id (read in
// 2.1.197's code; no e2e test could make the stub fill a subagent's
// context), and replay fires the hooks for such a compaction as for the
// main one. The main agent, which still has its context, is not told that
// it lost it (w-visionweb-3acf5580 #139 and r-visionweb-bad08b6b #407: a
// subagent's compaction, false and useless to both judges).
func (s *session) sayPendingReanchor(p *Payload, resp *Response) {
	if s.w.PendingReanchor == "" || p.AgentID != "" {
		return
	}
	text, after := s.w.PendingReanchor, s.w.ReanchorAfter
	s.w.PendingReanchor, s.w.ReanchorAfter = "", ""
	if after != "" {
		if scan, ok := s.measure(p); ok && scan.Reading.Found && scan.Reading.MessageID == after {
			return
		}
	}
	s.say(p, []advice.Advisory{{Kind: advice.KindReanchor, Severity: advice.Info, Text: text, Gist: "the goal again after the compaction"}}, resp)
}

// lastMainResponse is the id of the main chain's latest response as the
// meter last read it (PreCompact reads it), or "".
func (s *session) lastMainResponse() string {
	if c := s.meterCursor(); c != nil && c.Reading.Found {
		return fit.Bytes(c.Reading.MessageID, 256)
	}
	return ""
}

// summaryText is a compaction summary's words, for covers.
type summaryText struct {
	stems map[string]bool
	words int // of three letters or more
}

// minSummaryWords is the fewest words (of three letters or more) of a
// summary that holds the conversation. Of the 547 summaries in the
// labelled sets and the corpus, the six under 110 words were the CLI's
// preamble and closing lines around a usage-limit notice or nothing; the
// next held 203.
const minSummaryWords = 150

func summaryWords(summary string) summaryText {
	st := summaryText{stems: map[string]bool{}}
	for _, t := range lcs.Normalize(summary) {
		st.stems[drift.Stem(t)] = true
		if len(t) >= 3 {
			st.words++
		}
	}
	return st
}

// covers tells whether the summary holds a part of the state: at least
// 60 % of its words (stemmed, words of three letters or more).
func (st summaryText) covers(kind, text string) bool {
	n, hit := 0, 0
	for _, t := range lcs.Normalize(text) {
		if len(t) < 3 {
			continue
		}
		n++
		if st.stems[drift.Stem(t)] {
			hit++
		}
	}
	return n == 0 || hit*10 >= n*6
}
