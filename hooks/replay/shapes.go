package replay

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/djinn-cc/djinn/hooks/transcript"
)

// item is one transcript line in the order replay feeds it to the hooks:
// the main file's lines, with the lines of the subagents' own files
// (2.1.x) merged in by timestamp.
type item struct {
	raw []byte
	e   *transcript.Entry // nil: not a JSON object
	// line is the main file's line (1-based) the item belongs to: its own,
	// or for a subagent's line the last main line before it.
	line int
	// agent: from a subagents/agent-*.jsonl file; it is not written to the
	// main transcript, where Claude Code does not write it either.
	agent bool
	// repeat: a line Claude Code 2.0.x wrote again on resume (new uuid,
	// the same message id and content), whose hooks fired the first time.
	repeat bool
	// trigger is a compaction summary's: "manual" or "auto" (markTriggers).
	trigger string
}

// markTriggers gives each compaction summary the trigger of its
// compaction, for the PostCompact replay fires there: the trigger of the
// compact_boundary before it (2.x), or "manual" when the /compact command
// line follows it before any assistant line (1.0, which writes no
// boundary and the command after the summary), else "auto".
func markTriggers(items []item) {
	trigger := ""
	for i := range items {
		e := items[i].e
		switch {
		case e == nil || items[i].agent:
		case e.IsCompactBoundary():
			trigger = "auto"
			if e.CompactMetadata != nil && e.CompactMetadata.Trigger != "" {
				trigger = e.CompactMetadata.Trigger
			}
		case e.IsCompactSummary:
			if trigger == "" {
				trigger = "auto"
				for _, next := range items[i+1:] {
					if n := next.e; n != nil && !next.agent && n.Message != nil {
						if n.Type == "assistant" {
							break
						}
						if p, ok := userPrompt(n); ok && n.Type == "user" {
							if p == "/compact" || strings.HasPrefix(p, "/compact ") {
								trigger = "manual"
							}
							break
						}
					}
				}
			}
			items[i].trigger, trigger = trigger, ""
		}
	}
}

// subagentFiles lists the subagents' transcripts of the session whose main
// transcript is path: <dir>/<session-id>/subagents/agent-<id>.jsonl, the
// directory named after the file (the session id). The compaction
// summariser's (agent-acompact-*) is no subagent the hooks see.
func subagentFiles(path, sessionID string) []string {
	dir := filepath.Dir(path)
	names := []string{strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))}
	if sessionID != "" && sessionID != names[0] {
		names = append(names, sessionID)
	}
	for _, n := range names {
		m, _ := filepath.Glob(filepath.Join(dir, n, "subagents", "agent-*.jsonl"))
		var out []string
		for _, f := range m {
			if !strings.HasPrefix(filepath.Base(f), "agent-acompact-") {
				out = append(out, f)
			}
		}
		if len(out) > 0 {
			sort.Strings(out)
			return out
		}
	}
	return nil
}

// readSubagent reads one subagent's transcript into items; every line is
// the subagent's (a sidechain with its agent id, from the file name when
// the line has none).
func readSubagent(path string) ([]item, error) {
	lines, err := fileLines(path)
	if err != nil {
		return nil, err
	}
	id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "agent-"), ".jsonl")
	out := make([]item, 0, len(lines))
	for _, l := range lines {
		e, err := transcript.Decode(l)
		if err != nil {
			continue
		}
		e.IsSidechain = true
		if e.AgentID == "" {
			e.AgentID = id
		}
		out = append(out, item{raw: l, e: &e, agent: true})
	}
	return out, nil
}

// mergeItems merges the subagents' lines into the main file's by
// timestamp: each file keeps its own order, a line without a timestamp
// takes its file's last one, and on a tie the main file's line comes first
// (the Task call is written before its subagent starts).
func mergeItems(main []item, agents [][]item) []item {
	if len(agents) == 0 {
		return main
	}
	keys := func(its []item) []time.Time {
		out := make([]time.Time, len(its))
		var last time.Time
		for i, it := range its {
			if it.e != nil {
				if t, ok := it.e.Time(); ok {
					last = t
				}
			}
			out[i] = last
		}
		return out
	}
	mainKeys := keys(main)
	agentKeys := make([][]time.Time, len(agents))
	total := len(main)
	for i, a := range agents {
		agentKeys[i] = keys(a)
		total += len(a)
	}
	next := make([]int, len(agents))
	out := make([]item, 0, total)
	mi, line := 0, 0
	for len(out) < total {
		best := -1
		for k := range agents {
			if next[k] >= len(agents[k]) {
				continue
			}
			if best < 0 || agentKeys[k][next[k]].Before(agentKeys[best][next[best]]) {
				best = k
			}
		}
		if mi < len(main) && (best < 0 || !agentKeys[best][next[best]].Before(mainKeys[mi])) {
			line = main[mi].line
			out = append(out, main[mi])
			mi++
			continue
		}
		it := agents[best][next[best]]
		it.line = line
		out = append(out, it)
		next[best]++
	}
	return out
}

// markRepeats marks the lines of a stretch written again on resume: an
// assistant line whose message id and content an earlier line had, and a
// prompt the person typed before whose reply is such a line. Each tool
// call's id is handled apart (runner.done): one id is one call.
func markRepeats(items []item) {
	seen := map[string]bool{}
	prompts := map[string]bool{}
	var pendingPrompts []int // prompts whose reply is not seen yet
	for i := range items {
		e := items[i].e
		if e == nil || e.Message == nil {
			continue
		}
		switch {
		case e.Type == "assistant" && e.Message.ID != "":
			k := assistantKey(e)
			if seen[k] {
				items[i].repeat = true
			}
			seen[k] = true
			if !e.IsSidechain {
				for _, p := range pendingPrompts {
					items[p].repeat = items[i].repeat
				}
				pendingPrompts = pendingPrompts[:0]
			}
		case e.Type == "user" && !e.IsSidechain:
			if text, ok := userPrompt(e); ok {
				if prompts[text] {
					pendingPrompts = append(pendingPrompts, i)
				}
				prompts[text] = true
			}
		}
	}
}

// assistantKey identifies an assistant line by its message id, agent and
// content (a message is written one block per line, all with its id).
func assistantKey(e *transcript.Entry) string {
	var b strings.Builder
	b.WriteString(e.AgentID)
	b.WriteByte(0)
	b.WriteString(e.Message.ID)
	for _, bl := range e.Message.Content.Blocks {
		b.WriteByte(0)
		b.WriteString(bl.Type)
		b.WriteByte(0)
		b.WriteString(bl.ID)
		b.WriteByte(0)
		b.WriteString(strconv.Itoa(len(bl.Text) + len(bl.Thinking) + len(bl.Input)))
		b.WriteByte(0)
		b.WriteString(bl.Text)
		b.WriteString(bl.Thinking)
	}
	if e.Message.Content.Blocks == nil {
		b.WriteByte(0)
		b.WriteString(e.Message.Content.Text)
	}
	return b.String()
}
