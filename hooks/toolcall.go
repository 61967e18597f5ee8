package hooks

import (
	"context"
	"encoding/json"
	"github.com/djinn-cc/djinn/engines/drift"
	"strings"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/engines/loops"
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/hooks/transcript"
	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/internal/sat"
	"github.com/djinn-cc/djinn/state"
)

// maxFailures bounds the recent failures kept for the compaction snapshot.
const maxFailures = 5

// handleToolCall handles PostToolUse and PostToolUseFailure: it logs the
// call, runs the loop patterns for its agent, the drift detector for the
// main agent, the context meter, and the tool-result compressor.
func handleToolCall(ctx context.Context, s *session, p *Payload) (Response, error) {
	if isSelfCall(p, s.env.getenv) {
		// Djinn's own command (a skill's /djinn:status, /djinn:reorient):
		// not the agent's work. It takes no call number (advisories cite
		// the agent's calls as #n), no turn (rank ranks the agent's calls),
		// no loop event (three /djinn:status in a row are no tool-loop and
		// do not break the agent's streaks), no drift signal (the window
		// holds the agent's work), no failure for the snapshot, and no
		// advisory is given on it: its output is shown to the person
		// verbatim, and a pressure tier or a stall waits for the next call.
		return Response{}, nil
	}
	sat.Inc(&s.w.ToolCalls)
	s.noteQueued(p)
	sig := drift.Extract(p.ToolName, p.ToolInput, s.w.ProjectDir)
	// The target is read once: the input can hold a whole file (Write).
	target, rng := loops.TargetOf(p.ToolName, p.ToolInput)
	outChars := s.toolResponse(p).visibleChars(p.ToolName, p.ToolResponse)
	if p.HookEventName == PostToolUseFailure {
		// A failed call's result is its error text, which the model reads
		// as it would an output (a failing build's log is in context).
		outChars = errorChars(p.Error)
	}
	turn := state.Turn{
		SchemaVersion: state.SchemaVersion, Seq: s.w.ToolCalls, Time: s.now,
		PromptID: fit.Bytes(p.PromptID, 128), AgentID: fit.Bytes(p.AgentID, 128), Tool: fit.Bytes(p.ToolName, 256),
		Failed: p.HookEventName == PostToolUseFailure, Files: clipAll(sig.Files, 4096),
		Summary: fit.Runes(labelOr(p, summarize(p.ToolName, target, rng, s.w.ProjectDir)), 400), OutputChars: outChars,
	}
	s.callFailed = turn.Failed
	if turn.Failed {
		s.failText = p.Error
	} else if loops.KindOf(p.ToolName) == loops.KindShell && p.HookEventName == PostToolUse {
		if out, ok := s.shellOutput(p); ok && drift.ShowsFailure(ends(out, 4000)) {
			s.callFailed, s.failText = true, out
		}
	}
	if turn.Failed {
		s.noteFailure(p, target)
	} else if len(s.w.Failures) > 0 {
		s.clearFailure(p, target)
	}
	var advs []advice.Advisory
	set := s.env.Settings
	if set.Loops.Enabled && !s.disabled("loops") {
		advs = append(advs, s.loopCall(p, target, rng)...)
	}
	// A plan is bookkeeping, no evidence either way, but the one the
	// person approves says what the work is.
	s.learnPlan(p)
	s.learnTodos(p)
	// Bookkeeping (todo lists, plans, the agent's state documents) is no
	// evidence either way: it leaves drift, the agent's pending prose and
	// the turn's score alone.
	if set.Drift.Enabled && !s.disabled("drift") && p.AgentID == "" && s.w.Drift != nil && !drift.NoEvidence(p.ToolName, sig) {
		sig.AddNarrative(s.newAssistantWords(p))
		var failed []string
		if s.failText != "" {
			// What failed names what the work must reach next: the files
			// of a failing test and of the code it calls are the task's
			// when the failing run was.
			failed = drift.FailedFiles(ends(s.failText, 4000), s.realProject(), maxFailedLearned)
			sig.Files = append(sig.Files, failed...)
			sig.Files = sig.Files[:min(len(sig.Files), maxCallFiles)]
		}
		advs = append(advs, s.driftCall(p.ToolName, sig, s.changesWork(p))...)
		s.learnTicket(p)
		s.learnGoalDocument(p)
		s.learnFailed(failed)
		if v := s.w.Drift.Verdict; v != nil {
			sc := v.Score
			turn.Score, turn.Verdict = &sc, fit.Bytes(v.Kind, 40)
		}
		if n := len(s.w.Drift.Recent); n > 0 {
			turn.Topic = s.w.Drift.Recent[n-1].Topic
		}
		if p.IsInterrupt {
			// The user stopped the work: the drift window starts again.
			s.interrupted()
		}
	}
	if set.Pressure.Enabled && !s.disabled("pressure") && p.AgentID == "" {
		advs = append(advs, s.pressureCheck(p)...)
	}
	if set.Enabled && !s.disabled("risk") {
		advs = append(advs, s.riskCall(p)...)
	}
	var resp Response
	if set.Compress.Enabled && !s.disabled("compress") && p.HookEventName == PostToolUse {
		var a []advice.Advisory
		resp, a = s.compressOutput(p)
		advs = append(advs, a...)
	}
	turn.Goals = s.w.Goals
	if ps := s.w.Pressure; ps != nil {
		turn.Compactions = ps.Compactions
		if !ps.Stale {
			turn.Context = ps.Tokens
		}
	}
	s.turns = append(s.turns, turn)
	resp.Context = append(resp.Context, s.pendingStall()...)
	s.sayPendingReanchor(p, &resp)
	s.say(p, advs, &resp)
	if s.userMessage != "" {
		resp.Notify(s.userMessage, true)
	}
	return resp, nil
}

// maxCallFiles bounds the files one call's drift signal keeps
// (window.json's drift.recent[].files).
const maxCallFiles = 16

// noteFailure keeps the recent failing commands for the snapshot; target is
// the call's (loops.TargetOf).
func (s *session) noteFailure(p *Payload, target string) {
	fp := fit.Runes(firstLineOf(strings.TrimSpace(p.Error)), 300)
	for i := range s.w.Failures {
		f := &s.w.Failures[i]
		if f.Tool == p.ToolName && f.Target == fit.Bytes(target, 1024) {
			sat.Inc(&f.Count)
			f.Seq, f.Error = s.w.ToolCalls, fp
			return
		}
	}
	s.w.Failures = append(s.w.Failures, state.Failure{Seq: s.w.ToolCalls, Tool: fit.Bytes(p.ToolName, 256), Target: fit.Bytes(target, 1024), Error: fp, Count: 1})
	if len(s.w.Failures) > maxFailures {
		s.w.Failures = s.w.Failures[len(s.w.Failures)-maxFailures:]
	}
}

// clearFailure forgets a command once it succeeds; target is the call's.
func (s *session) clearFailure(p *Payload, target string) {
	out := s.w.Failures[:0]
	for _, f := range s.w.Failures {
		if !(f.Tool == p.ToolName && f.Target == fit.Bytes(target, 1024)) {
			out = append(out, f)
		}
	}
	s.w.Failures = out
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// callSummary is a one-line description of a call for turns.jsonl and
// /djinn:rank: the tool and its target, paths relative to the project.
func callSummary(p *Payload, project string) string {
	target, rng := loops.TargetOf(p.ToolName, p.ToolInput)
	return labelOr(p, summarize(p.ToolName, target, rng, project))
}

// labelOr is a readable label for a call whose target is its whole input
// (a Task or Agent call: "Task Explore: Explore the transcript code", from
// its subagent type and description), else summary.
func labelOr(p *Payload, summary string) string {
	if p.ToolName != "Task" && p.ToolName != "Agent" {
		return summary
	}
	var in struct {
		SubagentType string `json:"subagent_type"`
		Description  string `json:"description"`
		Prompt       string `json:"prompt"`
	}
	if json.Unmarshal(p.ToolInput, &in) != nil {
		return summary
	}
	what := strings.Join(strings.Fields(in.Description), " ")
	if what == "" {
		what = fit.Runes(strings.Join(strings.Fields(in.Prompt), " "), 80)
	}
	if what == "" {
		return summary
	}
	label := p.ToolName
	if t := strings.Join(strings.Fields(in.SubagentType), " "); t != "" {
		label += " " + t
	}
	return label + ": " + what
}

// summarize is callSummary from the call's target and range.
func summarize(tool, target, rng, project string) string {
	target = drift.RelPath(target, project)
	if project != "" {
		target = strings.ReplaceAll(target, project+"/", "")
	}
	out := tool
	if target != "" {
		out += " " + strings.Join(strings.Fields(target), " ")
	}
	if rng != "" {
		out += " (" + rng + ")"
	}
	return out
}

// toolResp is what Djinn reads of a tool_response, decoded once per hook:
// several detectors need a field of it, and a response can be large (an
// Edit's carries the whole original file). An object response is decoded
// only for the tools whose fields are read (readsFields).
type toolResp struct {
	transcript.ToolResponse
	ok    bool // the response was a string, or an object that decoded
	str   bool // the response was a JSON string, of chars characters
	chars int
}

func (s *session) toolResponse(p *Payload) *toolResp {
	if s.resp != nil {
		return s.resp
	}
	r := &toolResp{}
	s.resp = r
	raw := p.ToolResponse
	switch {
	case len(raw) == 0:
	case raw[0] == '"':
		var str string
		if json.Unmarshal(raw, &str) == nil {
			r.str, r.ok, r.chars = true, true, utf8.RuneCountInString(str)
		}
	case raw[0] == '{' && readsFields(p.ToolName):
		// As json.Unmarshal(raw, &r.ToolResponse), in one pass.
		r.ToolResponse, r.ok = transcript.DecodeToolResponse(raw)
	}
	return r
}

// readsFields reports whether a tool's response fields are read: by
// visibleChars, or by originalHash for a write.
func readsFields(tool string) bool {
	switch tool {
	case "Read", "Bash", "PowerShell", "Grep", "WebFetch":
		return true
	}
	return loops.KindOf(tool) == loops.KindWrite
}

// bashPersisted is the Bash output length (BASH_MAX_OUTPUT_LENGTH's
// default, 30,000 characters) from which the CLI keeps the output out of
// the context, and persistedPreview about what the model sees instead: the
// <persisted-output> note and its 2 KB preview.
const (
	bashPersisted    = 30000
	persistedPreview = 2300
	// grepShown is the most of a Grep result any CLI shows the model.
	grepShown = 20000
)

// visibleChars estimates how many characters of a tool response reach the
// model's context. tool_response is the structured result, which for file
// tools also carries the whole original file (originalFile, structuredPatch)
// that the model never sees; the model sees the command output, the read
// content, the fetched text, or a short confirmation.
func (r *toolResp) visibleChars(tool string, raw json.RawMessage) int {
	if len(raw) == 0 {
		return 0
	}
	if r.str {
		return r.chars
	}
	if !r.ok {
		return utf8.RuneCount(raw)
	}
	switch tool {
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		// "The file … has been updated" plus a short snippet.
		return 200 + utf8.RuneCountInString(r.NewString)
	case "Read":
		return utf8.RuneCountInString(r.File.Content)
	case "Bash", "PowerShell":
		// The CLI (2.x) saves an output this long to a file and shows the
		// model a 2 KB "<persisted-output>" preview of it
		// (e2e/compress_test.go).
		return shown(utf8.RuneCountInString(r.Stdout)+utf8.RuneCountInString(r.Stderr), bashPersisted-1)
	case "Grep":
		var c string
		_ = json.Unmarshal(r.Content, &c)
		// The CLI never shows more of a Grep result: 2.1.x saves it to a
		// file with a 2 KB preview ("Output too large (41KB). Full output
		// saved to:", procrypto-screenerstyle #126, CLI 2.1.2), as it does
		// a long Bash output; 1.x and 2.0 cut it at grepShown characters.
		return shown(utf8.RuneCountInString(c)+80*len(r.Filenames), grepShown)
	case "WebFetch":
		return utf8.RuneCountInString(r.Result)
	}
	return utf8.RuneCount(raw)
}

// errorChars is how much of a failed call's error text reaches the
// context: all of it, unless it is as long as a Bash output the CLI
// saves to a file and shows as a preview.
func errorChars(text string) int {
	return shown(utf8.RuneCountInString(text), bashPersisted-1)
}

// shown is how many of n characters the model sees when the CLI shows at
// most max of them and saves a longer output to a file behind its preview.
func shown(n, max int) int {
	if n > max {
		return persistedPreview
	}
	return n
}

func clipAll(xs []string, n int) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fit.Bytes(x, n)
	}
	return out
}

// ends is s cut to its first and last n bytes (on rune boundaries) when it
// is longer than 2n.
func ends(s string, n int) string {
	if len(s) <= 2*n {
		return s
	}
	i, j := n, len(s)-n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	for j < len(s) && !utf8.RuneStart(s[j]) {
		j++
	}
	return s[:i] + "\n" + s[j:]
}
