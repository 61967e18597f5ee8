// Package replay feeds a real Claude Code transcript through Djinn's hook
// handlers, in process, against a scratch state directory, as Claude Code
// would have fired the hooks. It is the main tool for evaluating the
// detectors and for users tuning thresholds.
//
// Events are synthesised from the transcript's lines:
//
//   - SessionStart(startup) first, SessionEnd(other) last;
//   - UserPromptSubmit for each real user prompt (not tool results, meta
//     lines, compact summaries or local command output), with slash commands
//     rebuilt as typed;
//   - PostToolUse or PostToolUseFailure for each tool_use and tool_result
//     pair: tool_input from the tool_use, tool_response from the result line's
//     toolUseResult, error from the tool_result text when is_error;
//   - Stop at the end of each main-chain assistant turn, with its last text;
//   - PreCompact at each compact_boundary, SessionStart(compact) and
//     PostCompact (with the summary) at the summary line after it;
//   - sidechain (subagent) tool calls as events with their agent id, and a
//     SubagentStop when the subagent's Task returns; a 2.1.x subagent's own
//     file (<session-id>/subagents/agent-<id>.jsonl beside the transcript)
//     is merged in by timestamp.
//
// Each tool_use id is one call: a stretch 2.0.x writes again on resume
// fires no hook again, and a result written before its tool_use (2.1.1xx)
// waits for it.
//
// Files are written into a scratch project as the tools left them (Write
// content, Edit applied to the original, a full Read's content), so content
// hashes are real, and each hook sees the transcript cut where it would have
// stood when the hook fired. Each hook is hooks.Run, as a hook process runs
// it, on a store that does not fsync a scratch state directory.
package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/djinn-cc/djinn/engines/risk"
	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/hooks/transcript"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// Options configure a replay.
type Options struct {
	// StateDir holds the replay's state; empty means a scratch directory
	// that is removed afterwards.
	StateDir string
	// WorkDir is where the scratch project and transcript go; empty means a
	// temporary directory (on /dev/shm when it exists) removed afterwards.
	WorkDir string
	// Settings are the detectors' settings.
	Settings settings.Settings
	// OnEvent, if set, is called after every synthesised hook.
	OnEvent func(Event)
	// Notice receives state notices (quarantined files and the like).
	Notice func(string)
	// Finish, if set, is called after the last hook with the replay's
	// store and session id, while its state still exists (djinn replay
	// --report draws the session report from it).
	Finish func(st *state.Store, sessionID string) error
}

// Event is one synthesised hook and what Djinn answered.
type Event struct {
	Index     int    // 1-based event number
	Name      string // hook event name
	Line      int    // transcript line (1-based) the event belongs to
	ToolCalls int    // tool calls so far, this one included
	ToolName  string
	ToolUseID string
	ToolInput json.RawMessage
	AgentID   string
	Response  hooks.Response
	Fired     []Advisory
}

// Advisory is one piece of advice found in a response.
type Advisory struct {
	Kind  string `json:"kind"`
	Event string `json:"event"`
	Line  int    `json:"line"`
	Call  int    `json:"tool_call"`
	Agent string `json:"agent_id,omitempty"`
	Block bool   `json:"block,omitempty"`
	Text  string `json:"text"`
	// Mode is "advise" (the agent was told), "observe" (the kind is in
	// observe mode: recorded, the agent not told) or "record" (a finding
	// its detector only records in any mode, such as a revert the user
	// asked for: no advisory Djinn would give).
	Mode string `json:"mode"`
}

// ContextPoint is the context meter's reading at one hook.
type ContextPoint struct {
	Event  string  `json:"event"`
	Line   int     `json:"line"`
	Call   int     `json:"tool_call"`
	Tokens int64   `json:"tokens"`
	Limit  int64   `json:"limit"`
	Share  float64 `json:"share"`
	Tier   int     `json:"tier"`
	// Stale: the context is unknown since a compaction.
	Stale bool `json:"stale,omitempty"`
	// Expected is what the transcript held at that moment: the usage of
	// its last main-chain assistant line, -1 when a compact boundary came
	// after it or there was none. Replay keeps it by reading the lines it
	// writes, independently of the meter, so tests can compare the two.
	Expected int64 `json:"expected"`
}

// Report summarises a replay.
type Report struct {
	File       string             `json:"file"`
	SessionID  string             `json:"session_id"`
	Lines      int                `json:"lines"`
	BadLines   int                `json:"bad_lines"`
	Events     map[string]int     `json:"events"`
	EventCount int                `json:"event_count"`
	ToolCalls  int                `json:"tool_calls"`
	Advisories []Advisory         `json:"advisories"`
	ByKind     map[string]int     `json:"by_kind"`
	Per100     map[string]float64 `json:"per_100_tool_calls"`
	Context    []ContextPoint     `json:"context"`
	Duration   time.Duration      `json:"duration_ns"`
	// Subagents are the subagents' own transcripts (2.1.x,
	// <session-id>/subagents/agent-*.jsonl beside the file) replayed with it.
	Subagents []string `json:"subagent_files,omitempty"`
	StateDir  string   `json:"state_dir,omitempty"`
}

var tagRe = lazy(`\[djinn:([a-z-]+)\]`)

// lazy compiles a pattern on first use: the hook binary links this
// package (for the replay command) and must not pay for it on every hook.
func lazy(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// Run replays the transcript at path.
func Run(ctx context.Context, path string, opt Options) (*Report, error) {
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("replay %s: not a regular file", path)
	}

	work := opt.WorkDir
	if work == "" {
		work, err = scratchDir(ScratchBase())
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(work)
	}
	r, err := newRunner(path, work, opt)
	if err != nil {
		return nil, err
	}
	defer r.tf.Close()

	lines, err := readLines(f, fi.Size())
	if err != nil {
		return nil, err
	}
	items, err := r.items(path, lines)
	if err != nil {
		return nil, err
	}
	if err := r.fire(ctx, &hooks.Payload{HookEventName: hooks.SessionStart, Source: "startup"}, 0); err != nil {
		return nil, err
	}
	for _, it := range items {
		if err := r.feed(ctx, it); err != nil {
			return nil, err
		}
	}
	if err := r.end(ctx, len(lines)); err != nil {
		return nil, err
	}
	r.rep.Duration = time.Since(start)
	return r.rep, nil
}

// newRunner sets up a replay in work: the scratch file system, the state
// store (opt.StateDir when kept, else scratch, not synced), the hooks'
// environment and the transcript the hooks read, written as the replay
// goes.
func newRunner(path, work string, opt Options) (*runner, error) {
	stateDir := opt.StateDir
	keepState := stateDir != ""
	if !keepState {
		stateDir = filepath.Join(work, "state")
	}
	r := &runner{
		opt:       opt,
		work:      work,
		paths:     paths{fsRoot: filepath.Join(work, "fs")},
		rep:       &Report{File: path, Events: map[string]int{}, ByKind: map[string]int{}, Per100: map[string]float64{}},
		pending:   map[string]pendingTool{},
		done:      map[string]bool{},
		early:     map[string]earlyResult{},
		agentText: map[string]string{}, chains: map[string]string{},
	}
	if keepState {
		r.rep.StateDir = stateDir
	}
	r.env = &hooks.Env{
		Store: &state.Store{
			Root:     stateDir,
			LockWait: 5 * time.Second,
			Now:      func() time.Time { return r.now },
			Notice:   opt.Notice,
			// The scratch state is removed afterwards; a crash loses it
			// whether or not it was synced.
			NoSync: !keepState,
		},
		Settings: opt.Settings,
		Now:      func() time.Time { return r.now },
		FSRoot:   r.fsRoot,
		Getenv: func(k string) string {
			if k == "CLAUDE_PROJECT_DIR" {
				return r.projectDir
			}
			return ""
		},
	}
	if err := os.MkdirAll(r.fsRoot, 0o700); err != nil {
		return nil, err
	}
	r.transcriptPath = filepath.Join(work, "transcript.jsonl")
	tf, err := os.Create(r.transcriptPath)
	if err != nil {
		return nil, err
	}
	r.tf = tf
	// Lines are written through a buffer, flushed before every hook (fire)
	// and at the end: a hook sees the transcript as it stood.
	r.tw = bufio.NewWriterSize(tf, 64<<10)
	return r, nil
}

// items decodes the transcript's lines, takes the session's id, project
// and start from them, and merges in the subagents' own transcripts, each
// call met again on a resume marked as a repeat.
func (r *runner) items(path string, lines [][]byte) ([]item, error) {
	r.rep.Lines = len(lines)
	decoded := r.decodeAll(lines)
	if r.sessionID == "" {
		r.sessionID = "replay-" + sanitize(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	}
	if r.now.IsZero() {
		r.now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	_ = os.MkdirAll(r.projectDir, 0o700)
	r.rep.SessionID = r.sessionID

	items := make([]item, len(lines))
	for i := range lines {
		items[i] = item{raw: lines[i], e: decoded[i], line: i + 1}
	}
	var agents [][]item
	for _, sf := range subagentFiles(path, r.sessionID) {
		a, err := readSubagent(sf)
		if err != nil {
			return nil, err
		}
		agents = append(agents, a)
		r.rep.Subagents = append(r.rep.Subagents, filepath.Base(sf))
	}
	items = mergeItems(items, agents)
	markRepeats(items)
	markTriggers(items)
	return items, nil
}

// feed replays one line: the hooks due before it, the line written to the
// transcript the hooks read (a main-chain line), the hooks due after it.
func (r *runner) feed(ctx context.Context, it item) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e := it.e
	if e != nil {
		if t, ok := e.Time(); ok && t.UTC().After(r.now) {
			r.now = t.UTC()
		}
		r.noteChain(e)
		if !it.repeat {
			if err := r.before(ctx, e, it.line); err != nil {
				return err
			}
		}
	}
	if !it.agent {
		if _, err := r.tw.Write(it.raw); err != nil {
			return err
		}
		if err := r.tw.WriteByte('\n'); err != nil {
			return err
		}
	}
	if e == nil {
		return nil
	}
	switch {
	case it.agent:
	case e.IsMainAssistant():
		r.expected = e.Message.Usage.Context()
	case e.IsCompactBoundary():
		r.expected = -1
	}
	if it.repeat {
		return nil
	}
	return r.after(ctx, e, it.line, it.trigger)
}

// end closes the session (the last Stop and SessionEnd), runs
// opt.Finish, and works out the advisories per 100 calls.
func (r *runner) end(ctx context.Context, lines int) error {
	if err := r.stop(ctx, lines); err != nil {
		return err
	}
	if err := r.fire(ctx, &hooks.Payload{HookEventName: hooks.SessionEnd, Reason: "other"}, lines); err != nil {
		return err
	}
	if r.opt.Finish != nil {
		if err := r.opt.Finish(r.env.Store, r.sessionID); err != nil {
			return err
		}
	}
	if r.rep.ToolCalls > 0 {
		for k, n := range r.rep.ByKind {
			r.rep.Per100[k] = float64(n) * 100 / float64(r.rep.ToolCalls)
		}
	}
	return nil
}

// decodeAll decodes the transcript's lines (nil: not a JSON object,
// counted as a bad line) and takes from them the session id, the first
// main-chain working directory (the project, mapped under the scratch
// file system) and the first timestamp.
//
// The lines are decoded side by side, a share per CPU: decoding is a good
// part of a replay and, unlike the hooks, needs no order.
func (r *runner) decodeAll(lines [][]byte) []*transcript.Entry {
	out := make([]*transcript.Entry, len(lines))
	parts := min(runtime.GOMAXPROCS(0), len(lines)/256+1)
	var wg sync.WaitGroup
	for k := range parts {
		wg.Go(func() {
			for i := k * len(lines) / parts; i < (k+1)*len(lines)/parts; i++ {
				if e, err := transcript.Decode(lines[i]); err == nil {
					out[i] = &e
				}
			}
		})
	}
	wg.Wait()
	cwd := ""
	for _, e := range out {
		if e == nil {
			r.rep.BadLines++
			continue
		}
		if r.sessionID == "" && e.SessionID != "" && state.ValidateSessionID(e.SessionID) == nil {
			r.sessionID = e.SessionID
		}
		if cwd == "" && e.CWD != "" && !e.IsSidechain {
			cwd = e.CWD
		}
		if t, ok := e.Time(); ok && r.now.IsZero() {
			r.now = t.UTC()
		}
	}
	if cwd != "" {
		r.projectDir = r.mapPath(cwd)
		r.origCwd = cwd
	}
	if r.projectDir == "" {
		r.projectDir = filepath.Join(r.fsRoot, "project")
	}
	return out
}

// ScratchBase is where replay's scratch directories go: /dev/shm, in
// memory, when the machine has it (a replay writes and fsyncs a dozen state
// files per event), else "" for the system's temporary directory.
func ScratchBase() string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		return "/dev/shm"
	}
	return ""
}

// scratchDir makes a new private directory under base (the temporary
// directory when empty) whose name always has the same length: replay
// maps the transcript's paths under it, and a tool response that quotes
// them must measure the same on every run (os.MkdirTemp's suffix varies
// in length, and with it the sizes in the report).
func scratchDir(base string) (string, error) {
	if base == "" {
		base = os.TempDir()
	}
	for range 100 {
		dir := filepath.Join(base, fmt.Sprintf("djinn-replay-%016x", rand.Uint64()))
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("replay: no free scratch directory name under %s", base)
}

// readLines reads a JSONL file into lines without their newlines (a
// trailing run of \r and \n is dropped from each; an empty last line,
// after the final newline, is no line).
func readLines(rd io.Reader, sizeHint int64) ([][]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, max(0, min(sizeHint, 1<<30))+bytes.MinRead))
	if _, err := buf.ReadFrom(rd); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	out := make([][]byte, 0, bytes.Count(data, []byte{'\n'})+1)
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		// Capacity cut to the line: nothing appended to one may spill
		// into the next.
		line = bytes.TrimRight(line, "\r\n")
		out = append(out, line[:len(line):len(line)])
	}
	return out, nil
}

// earlyResult is a tool result whose tool_use is not written yet: it
// waits for its call.
type earlyResult struct {
	block    transcript.Block
	response json.RawMessage
}

type pendingTool struct {
	name    string
	input   json.RawMessage
	agentID string
}

type runner struct {
	opt            Options
	env            *hooks.Env
	rep            *Report
	work           string
	paths          // fixed once the lines are decoded
	transcriptPath string
	tw             *bufio.Writer
	tf             *os.File // the transcript file tw writes
	sessionID      string
	now            time.Time
	promptID       string
	prompts        int

	// expected is the last main-chain assistant usage written so far (-1
	// none, or stale after a compact boundary).
	expected int64

	pending    map[string]pendingTool
	done       map[string]bool        // tool_use ids whose call has fired: one id is one call
	early      map[string]earlyResult // results written before their tool_use (2.1.1xx)
	turnActive bool                   // main-chain assistant activity since the last prompt
	lastText   string                 // last main-chain assistant text of the turn
	agentText  map[string]string
	agentOrder []string
	// chains maps a 1.0.x sidechain line's uuid to its subagent run
	// (agentOf), and sidechains counts the runs.
	chains      map[string]string
	sidechains  int
	lastAgentID string
}

var reSanitize = lazy(`[^A-Za-z0-9_-]+`)

func sanitize(s string) string {
	s = reSanitize().ReplaceAllString(s, "-")
	if len(s) > 100 {
		s = s[:100]
	}
	return s
}

// paths moves the original machine's paths into the scratch file system:
// the root there, the project directory (the first main-chain cwd, mapped),
// and that cwd as the transcript has it.
type paths struct {
	fsRoot, projectDir, origCwd string
	// win matches every spelling of a Windows project and the rest of
	// the path after it (mapString), made on first use.
	win *regexp.Regexp
}

// mapPath moves an absolute path of the original machine under the scratch
// file system.
func (r *paths) mapPath(p string) string {
	if p == "" {
		return p
	}
	if w := risk.SlashPath(p); w != p {
		// A Windows path (C:\Users\ana, c:/Users/ana) goes where Git
		// Bash would name it (/c/Users/ana), as the hooks read it.
		return filepath.Join(r.fsRoot, w)
	}
	if !filepath.IsAbs(p) {
		base := r.projectDir
		if base == "" {
			base = filepath.Join(r.fsRoot, "project")
		}
		return filepath.Join(base, p)
	}
	return filepath.Join(r.fsRoot, filepath.Clean(p))
}

// fire runs one hook in process and records what it said.
func (r *runner) fire(ctx context.Context, p *hooks.Payload, line int) error {
	p.SessionID = r.sessionID
	p.TranscriptPath = r.transcriptPath
	if p.Cwd == "" {
		p.Cwd = r.projectDir
	}
	if p.PromptID == "" {
		p.PromptID = r.promptID
	}
	if p.PermissionMode == "" && p.HookEventName != hooks.SessionStart && p.HookEventName != hooks.PreCompact && p.HookEventName != hooks.PostCompact && p.HookEventName != hooks.SessionEnd {
		p.PermissionMode = "default"
	}
	if err := r.tw.Flush(); err != nil {
		return fmt.Errorf("replay line %d: write transcript: %w", line, err)
	}
	resp, err := hooks.Run(ctx, r.env, p)
	if err != nil {
		return fmt.Errorf("replay line %d, %s: %w", line, p.HookEventName, err)
	}
	if _, err := hooks.Encode(p.HookEventName, resp); err != nil {
		return fmt.Errorf("replay line %d, %s: %w", line, p.HookEventName, err)
	}
	r.rep.Events[p.HookEventName]++
	r.rep.EventCount++
	ev := Event{Index: r.rep.EventCount, Name: p.HookEventName, Line: line, ToolCalls: r.rep.ToolCalls, ToolName: p.ToolName, ToolUseID: p.ToolUseID, ToolInput: p.ToolInput, AgentID: p.AgentID, Response: resp}
	texts := append([]string(nil), resp.Context...)
	if resp.Reason != "" {
		texts = append(texts, resp.Reason)
	}
	if resp.Plain != "" {
		texts = append(texts, resp.Plain)
	}
	told := len(texts)
	texts = append(texts, resp.Observed...)
	observed := len(texts)
	texts = append(texts, resp.Recorded...)
	for i, t := range texts {
		mode := "advise"
		switch {
		case i >= observed:
			mode = "record" // a finding its detector only records
		case i >= told:
			mode = "observe"
		}
		for _, para := range strings.Split(t, "\n\n") {
			m := tagRe().FindStringSubmatch(para)
			if m == nil || !strings.HasPrefix(strings.TrimSpace(para), m[0]) {
				continue
			}
			a := Advisory{Kind: m[1], Event: p.HookEventName, Line: line, Call: r.rep.ToolCalls, Agent: p.AgentID, Block: resp.Block && t == resp.Reason && mode == "advise", Text: para, Mode: mode}
			ev.Fired = append(ev.Fired, a)
			r.rep.Advisories = append(r.rep.Advisories, a)
			if mode != "record" {
				r.rep.ByKind[a.Kind]++
			}
		}
	}
	if pt := resp.Meter; pt != nil {
		r.rep.Context = append(r.rep.Context, ContextPoint{Event: p.HookEventName, Line: line, Call: r.rep.ToolCalls, Tokens: pt.Tokens, Limit: pt.Limit, Share: pt.Share, Tier: pt.Tier, Stale: pt.Stale, Expected: r.expected})
	}
	if r.opt.OnEvent != nil {
		r.opt.OnEvent(ev)
	}
	return nil
}

// before fires the hooks that happen before the line is written to the
// transcript: a prompt, a tool result, a compaction.
func (r *runner) before(ctx context.Context, e *transcript.Entry, line int) error {
	switch {
	case e.Type == "system" && e.Subtype == "compact_boundary":
		// A subagent's too: the CLI runs PreCompact for it with no agent
		// id, as it runs SessionStart(compact) at its summary (below).
		trigger := "auto"
		if e.CompactMetadata != nil && e.CompactMetadata.Trigger != "" {
			trigger = e.CompactMetadata.Trigger
		}
		return r.fire(ctx, &hooks.Payload{HookEventName: hooks.PreCompact, Trigger: trigger}, line)
	case e.Type == "system" && (e.Subtype == "stop_hook_summary" || e.Subtype == "turn_duration"):
		return r.stop(ctx, line)
	case e.Type == "user" && e.Message != nil && !e.IsSidechain:
		if prompt, ok := userPrompt(e); ok {
			if err := r.stop(ctx, line); err != nil {
				return err
			}
			r.prompts++
			r.promptID = e.PromptID
			if r.promptID == "" {
				r.promptID = fmt.Sprintf("replay-prompt-%d", r.prompts)
			}
			return r.fire(ctx, &hooks.Payload{HookEventName: hooks.UserPromptSubmit, Prompt: prompt}, line)
		}
		return r.toolResults(ctx, e, line)
	case e.Type == "user" && e.Message != nil && e.IsSidechain:
		return r.toolResults(ctx, e, line)
	}
	return nil
}

// after records what a written line means for later events; trigger is a
// compaction summary's (item.trigger).
func (r *runner) after(ctx context.Context, e *transcript.Entry, line int, trigger string) error {
	switch {
	case e.IsCompactSummary:
		if err := r.fire(ctx, &hooks.Payload{HookEventName: hooks.SessionStart, Source: "compact"}, line); err != nil {
			return err
		}
		// PostCompact gets the summary (live, after SessionStart(compact)).
		var summary string
		if e.Message != nil {
			summary = e.Message.Content.PlainText()
		}
		if trigger == "" {
			trigger = "auto" // a subagent's
		}
		return r.fire(ctx, &hooks.Payload{HookEventName: hooks.PostCompact, Trigger: trigger, CompactSummary: summary}, line)
	case e.Type == "assistant" && e.Message != nil:
		var ready []string
		for _, b := range e.Message.Content.Blocks {
			if b.Type == "tool_use" && b.ID != "" {
				if _, ok := r.pending[b.ID]; ok || r.done[b.ID] {
					continue // written again on resume: one id is one call
				}
				agent := ""
				if e.IsSidechain {
					agent = r.agentOf(e)
				}
				r.pending[b.ID] = pendingTool{name: b.Name, input: b.Input, agentID: agent}
				if _, ok := r.early[b.ID]; ok {
					ready = append(ready, b.ID)
				}
			}
		}
		for _, id := range ready {
			er := r.early[id]
			delete(r.early, id)
			if err := r.result(ctx, er.block, er.response, line); err != nil {
				return err
			}
		}
		text := strings.TrimSpace(e.Message.Content.PlainText())
		if e.IsSidechain {
			id := r.agentOf(e)
			if _, seen := r.agentText[id]; !seen {
				r.agentOrder = append(r.agentOrder, id)
			}
			if text != "" || r.agentText[id] == "" {
				r.agentText[id] = text
			}
			r.lastAgentID = id
			return nil
		}
		r.turnActive = true
		if text != "" && e.Message.Model != "<synthetic>" {
			// A <synthetic> line is Claude Code's own notice (an API
			// error, a usage limit), not the agent's message; a turn
			// that ends on one fires StopFailure, not Stop.
			r.lastText = text
		}
	}
	return nil
}

// agentOf is the agent a sidechain line belongs to: its agentId (2.x),
// else the chain it continues (1.0.x, where every subagent run is a chain
// of its own from the Task prompt, parentUuid null, and lines carry no
// agent id): the first such chain is "sidechain", the next "sidechain-2"
// and so on, as live hooks see each subagent under its own agent_id.
func (r *runner) agentOf(e *transcript.Entry) string {
	if e.AgentID != "" {
		return sanitize(e.AgentID)
	}
	if a, ok := r.chains[e.UUID]; ok && e.UUID != "" {
		return a
	}
	if a, ok := r.chains[e.ParentUUID]; ok && e.ParentUUID != "" {
		return a
	}
	return "sidechain"
}

// noteChain records which sidechain a 1.0.x sidechain line (with no agent
// id) belongs to: the chain of its parent, or a new one at a root.
func (r *runner) noteChain(e *transcript.Entry) {
	if !e.IsSidechain || e.AgentID != "" || e.UUID == "" {
		return
	}
	if _, seen := r.chains[e.UUID]; seen {
		return
	}
	if a, ok := r.chains[e.ParentUUID]; ok && e.ParentUUID != "" {
		r.chains[e.UUID] = a
		return
	}
	r.sidechains++
	a := "sidechain"
	if r.sidechains > 1 {
		a = fmt.Sprintf("sidechain-%d", r.sidechains)
	}
	r.chains[e.UUID] = a
}

// stop fires the Stop of a main-chain assistant turn, once.
func (r *runner) stop(ctx context.Context, line int) error {
	if !r.turnActive {
		return nil
	}
	r.turnActive = false
	msg := r.lastText
	r.lastText = ""
	return r.fire(ctx, &hooks.Payload{HookEventName: hooks.Stop, LastAssistantMessage: msg}, line)
}

var (
	commandNameRe = lazy(`(?s)<command-name>(.*?)</command-name>`)
	commandArgsRe = lazy(`(?s)<command-args>(.*?)</command-args>`)
)

// userPrompt returns the prompt a person typed on a user line, rebuilding a
// slash command as typed; ok is false for tool results, meta lines, compact
// summaries, interruptions and local command output.
func userPrompt(e *transcript.Entry) (string, bool) {
	if e.IsMeta || e.IsCompactSummary {
		return "", false
	}
	c := e.Message.Content
	text := c.Text
	if c.Blocks != nil {
		for _, b := range c.Blocks {
			if b.Type == "tool_result" {
				return "", false
			}
		}
		text = c.PlainText()
	}
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return "", false
	case strings.HasPrefix(text, "[Request interrupted"):
		return "", false
	case strings.HasPrefix(text, "<local-command-stdout>"), strings.HasPrefix(text, "<local-command-stderr>"), strings.HasPrefix(text, "<local-command-caveat>"):
		return "", false
	case strings.HasPrefix(text, "Stop hook feedback:"):
		// What a Stop hook that blocked said, written as a user line:
		// no prompt, and UserPromptSubmit does not fire for it (the
		// hooks reference's §2.4; ext-teamplanusage #50, where it became the
		// /compact goal, false to judge CW of the forty-fourth set).
		return "", false
	}
	if m := commandNameRe().FindStringSubmatch(text); m != nil {
		cmd := strings.TrimSpace(m[1])
		if a := commandArgsRe().FindStringSubmatch(text); a != nil && strings.TrimSpace(a[1]) != "" {
			cmd += " " + strings.TrimSpace(a[1])
		}
		return cmd, true
	}
	return text, true
}

// toolResults fires PostToolUse or PostToolUseFailure for each tool_result
// on a user line.
func (r *runner) toolResults(ctx context.Context, e *transcript.Entry, line int) error {
	blocks := e.Message.Content.Blocks
	var results []transcript.Block
	for _, b := range blocks {
		if b.Type == "tool_result" {
			results = append(results, b)
		}
	}
	for _, b := range results {
		var response json.RawMessage
		if len(results) == 1 && len(e.ToolUseResult) > 0 {
			response = e.ToolUseResult
		}
		if _, ok := r.pending[b.ToolUseID]; !ok {
			if !r.done[b.ToolUseID] && b.ToolUseID != "" {
				// Written before its tool_use: it waits for its call.
				r.early[b.ToolUseID] = earlyResult{block: b, response: response}
			}
			continue
		}
		if err := r.result(ctx, b, response, line); err != nil {
			return err
		}
	}
	return nil
}

// result fires PostToolUse or PostToolUseFailure for the pending call a
// tool_result answers, response being the result line's toolUseResult.
func (r *runner) result(ctx context.Context, b transcript.Block, response json.RawMessage, line int) error {
	pt := r.pending[b.ToolUseID]
	delete(r.pending, b.ToolUseID)
	r.done[b.ToolUseID] = true
	input, effect := r.mapInput(pt.input), parseEffectInput(pt.name, pt.input)
	// A failed call ("File has not been read yet", "String to replace
	// not found") left the file as it was.
	if effect != nil && !b.IsError {
		var resp effectResp
		if response != nil && needsEffectResp(pt.name) {
			resp = parseEffectResp(response)
		}
		r.applyEffects(pt.name, effect, resp)
	}
	if len(response) > 0 {
		response = r.mapInput(response)
	}
	p := &hooks.Payload{
		HookEventName: hooks.PostToolUse,
		ToolName:      pt.name,
		ToolInput:     input,
		ToolResponse:  response,
		ToolUseID:     b.ToolUseID,
		AgentID:       pt.agentID,
	}
	if pt.agentID != "" {
		p.AgentType = "subagent"
	}
	if b.IsError {
		p.HookEventName = hooks.PostToolUseFailure
		p.ToolResponse = nil
		if b.Content != nil {
			p.Error = b.Content.PlainText()
		}
		if p.Error == "" {
			p.Error = "tool failed"
		}
	}
	if len(p.ToolResponse) == 0 && !b.IsError && b.Content != nil {
		raw, _ := json.Marshal(b.Content.PlainText())
		p.ToolResponse = raw
	}
	// Djinn's own command takes no call number in the hooks; the
	// report counts the calls as they do.
	if !hooks.IsSelfCall(p, r.env.Getenv) {
		r.rep.ToolCalls++
	}
	if err := r.fire(ctx, p, line); err != nil {
		return err
	}
	if pt.name == "Task" || pt.name == "Agent" {
		if err := r.subagentStop(ctx, pt, line); err != nil {
			return err
		}
	}
	return nil
}

// subagentStop fires the SubagentStop of the most recent subagent that has
// not stopped yet, when its Task returns on the main chain.
func (r *runner) subagentStop(ctx context.Context, task pendingTool, line int) error {
	if len(r.agentOrder) == 0 {
		return nil
	}
	id := r.agentOrder[len(r.agentOrder)-1]
	r.agentOrder = r.agentOrder[:len(r.agentOrder)-1]
	var in struct {
		SubagentType string `json:"subagent_type"`
	}
	_ = json.Unmarshal(task.input, &in)
	typ := in.SubagentType
	if typ == "" {
		typ = "general-purpose"
	}
	return r.fire(ctx, &hooks.Payload{HookEventName: hooks.SubagentStop, AgentID: id, AgentType: typ, LastAssistantMessage: r.agentText[id]}, line)
}

// mapInput rewrites the original machine's absolute paths inside a tool
// input or response into the scratch file system: the value json.Unmarshal
// decodes, strings mapped (mapString), as json.Marshal encodes it.
func (r *paths) mapInput(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || r.origCwd == "" {
		return raw
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return raw
	}
	out, err := json.Marshal(r.mapValue(v))
	if err != nil {
		return raw
	}
	return out
}

// mapString maps one string value: a path alone is moved under the
// scratch file system, the original project directory elsewhere in a text
// becomes the scratch project.
func (r *paths) mapString(x string) string {
	if strings.Contains(x, "[USER]") {
		// An archive that redacted user names as [USER] in commands and
		// paths but kept the cwd's (M-Claude): one user, one home.
		if u := r.user(); u != "" {
			x = strings.ReplaceAll(x, "[USER]", u)
		}
	}
	if (filepath.IsAbs(x) || risk.SlashPath(x) != x) && !strings.ContainsAny(x, "\n ") {
		return r.mapPath(x)
	}
	w := risk.SlashPath(r.origCwd)
	if w == r.origCwd {
		x = strings.ReplaceAll(x, r.origCwd, r.projectDir)
		if strings.Contains(r.origCwd, " ") {
			// A command spells a project with spaces escaped too
			// (Week\ 03), as a shell reads it.
			x = strings.ReplaceAll(x, strings.ReplaceAll(r.origCwd, " ", `\ `), strings.ReplaceAll(r.projectDir, " ", `\ `))
		}
		return x
	}
	if r.win == nil {
		// Every spelling of a Windows project (C:\x, C:/x, c:/x, /c/x), in
		// one pass: the scratch project ends in /c/x, which a second pass
		// would map again. With it, the rest of the path that follows
		// (\src\a.ts), whose backslashes become slashes: the hook reads
		// C:\x\src\a.ts whole as a path in the project.
		fwd := strings.ReplaceAll(r.origCwd, `\`, "/")
		var alts []string
		for _, sp := range []string{r.origCwd, strings.ToUpper(fwd[:1]) + fwd[1:], strings.ToLower(fwd[:1]) + fwd[1:], w} {
			alts = append(alts, regexp.QuoteMeta(sp))
		}
		r.win = regexp.MustCompile(`(` + strings.Join(alts, "|") + `)([\\/][^\s"'|;&<>()` + "`" + `]*)?`)
	}
	var b strings.Builder
	last := 0
	for _, m := range r.win.FindAllStringSubmatchIndex(x, -1) {
		if m[4] < 0 && m[1] < len(x) && pathNameByte(x[m[1]]) {
			continue // a longer name that begins alike (C:\x\app, C:\x\apple)
		}
		b.WriteString(x[last:m[0]])
		b.WriteString(r.projectDir)
		if m[4] >= 0 {
			b.WriteString(strings.ReplaceAll(x[m[4]:m[5]], `\`, "/"))
		}
		last = m[1]
	}
	b.WriteString(x[last:])
	return b.String()
}

// pathNameByte tells a byte that may go on a file name (a letter, a digit,
// '.', '-', '_' or any byte of a multi-byte character).
func pathNameByte(c byte) bool {
	return c >= 0x80 || c == '.' || c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// user is the user name the original cwd shows under /Users/, /home/ or
// C:\Users\, "" when it shows none or a redacted one.
func (r *paths) user() string {
	w := strings.ReplaceAll(risk.SlashPath(r.origCwd), `\`, "/")
	for _, root := range []string{"/Users/", "/home/"} {
		if _, rest, ok := strings.Cut(w, root); ok {
			name, _, _ := strings.Cut(rest, "/")
			if name != "" && !strings.ContainsAny(name, "[]") {
				return name
			}
		}
	}
	return ""
}

func (r *paths) mapValue(v any) any {
	switch x := v.(type) {
	case string:
		return r.mapString(x)
	case map[string]any:
		for k, c := range x {
			x[k] = r.mapValue(c)
		}
	case []any:
		for i, c := range x {
			x[i] = r.mapValue(c)
		}
	}
	return v
}

// effectTool reports whether replay reproduces a tool's effect on disk.
func effectTool(tool string) bool {
	switch tool {
	case "Write", "Edit", "MultiEdit", "Read":
		return true
	}
	return false
}

// effectInput is what applyEffects needs of a file tool's input.
type effectInput struct {
	FilePath   string `json:"file_path"`
	Content    string `json:"content"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
	Edits      []struct {
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	} `json:"edits"`
}

// effectResp is what applyEffects needs of a file tool's response (its
// originalFile and file), as the hooks decode it too.
type effectResp = transcript.ToolResponse

// parseEffectInput decodes a tool's input for applyEffects; nil means the
// call leaves nothing replay reproduces.
func parseEffectInput(tool string, rawIn json.RawMessage) *effectInput {
	if !effectTool(tool) {
		return nil
	}
	var in effectInput
	if json.Unmarshal(rawIn, &in) != nil || in.FilePath == "" {
		return nil
	}
	return &in
}

// needsEffectResp reports whether applyEffects reads the response of the
// tool: a Write's (which repeats the whole content) is not decoded.
func needsEffectResp(tool string) bool {
	return effectTool(tool) && tool != "Write"
}

// parseEffectResp decodes a file tool's response as json.Unmarshal
// would, its error ignored (what a value of the wrong type leaves in the
// other fields counts, as before).
func parseEffectResp(rawResp json.RawMessage) effectResp {
	r, _ := transcript.DecodeToolResponse(rawResp)
	return r
}

// applyEffects writes into the scratch project what a tool left on disk.
func (r *runner) applyEffects(tool string, in *effectInput, resp effectResp) {
	p := r.mapPath(in.FilePath)
	// The tool's originalFile is the file as it really was before the
	// edit (a formatter may have changed it since Djinn's copy was
	// written), so it wins over the scratch copy.
	current := func() (string, bool) {
		if resp.OriginalFile != nil {
			return *resp.OriginalFile, true
		}
		if b, err := os.ReadFile(p); err == nil {
			return string(b), true
		}
		return "", false
	}
	write := func(s string) {
		_ = os.MkdirAll(filepath.Dir(p), 0o700)
		_ = os.WriteFile(p, []byte(s), 0o600)
	}
	switch tool {
	case "Write":
		write(in.Content)
	case "Edit":
		if s, ok := current(); ok {
			write(applyEdit(s, in.OldString, in.NewString, in.ReplaceAll))
		}
	case "MultiEdit":
		if s, ok := current(); ok {
			for _, ed := range in.Edits {
				s = applyEdit(s, ed.OldString, ed.NewString, ed.ReplaceAll)
			}
			write(s)
		}
	case "Read":
		// A whole read shows the file as it was then, also when a command
		// replay does not run (a generator, a formatter) rewrote it: the
		// scratch copy follows it, so the hook hashes what the agent read.
		full := resp.File.StartLine <= 1 && resp.File.TotalLines > 0 && resp.File.NumLines >= resp.File.TotalLines
		if b, err := os.ReadFile(p); full && (err != nil || string(b) != resp.File.Content) {
			write(resp.File.Content)
		}
	}
}

func applyEdit(s, old, new string, all bool) string {
	if old == "" || !strings.Contains(s, old) {
		return s
	}
	if all {
		return strings.ReplaceAll(s, old, new)
	}
	return strings.Replace(s, old, new, 1)
}

// millis renders a duration to the millisecond, in milliseconds below a
// second ("0ms", not "0s", for a replay faster than half a millisecond).
func millis(d time.Duration) string {
	d = d.Round(time.Millisecond)
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return d.String()
}

// Summary renders the report as text.
func (rep *Report) Summary(w io.Writer) {
	fmt.Fprintf(w, "replay %s\n", rep.File)
	fmt.Fprintf(w, "  session %s: %d lines (%d unreadable), %d events, %d tool calls, %s\n", rep.SessionID, rep.Lines, rep.BadLines, rep.EventCount, rep.ToolCalls, millis(rep.Duration))
	if len(rep.Subagents) > 0 {
		fmt.Fprintf(w, "  with the subagents' files: %s\n", strings.Join(rep.Subagents, ", "))
	}
	names := slices.Sorted(maps.Keys(rep.Events))
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s %d", k, rep.Events[k]))
	}
	fmt.Fprintf(w, "  events: %s\n", strings.Join(parts, ", "))
	kinds := slices.Sorted(maps.Keys(rep.ByKind))
	if len(kinds) == 0 {
		fmt.Fprintf(w, "  advisories: none\n")
	} else {
		fmt.Fprintf(w, "  advisories (per 100 tool calls):\n")
		for _, k := range kinds {
			fmt.Fprintf(w, "    %-12s %3d  (%.2f)\n", k, rep.ByKind[k], rep.Per100[k])
		}
	}
	if len(rep.Context) > 0 {
		fmt.Fprintf(w, "  context curve (at the end of each turn and at compaction; tiers announced so far):\n")
		for _, c := range rep.Context {
			if c.Event != hooks.Stop && c.Event != hooks.PreCompact && !(c.Event == hooks.SessionStart && c.Stale) {
				continue
			}
			if c.Stale {
				fmt.Fprintf(w, "    line %5d  call %4d  %-13s  unknown until the next response (compacted)\n", c.Line, c.Call, c.Event)
				continue
			}
			if c.Limit == 0 {
				// The window is unknown (docs/context-window.md): no share, no tier.
				fmt.Fprintf(w, "    line %5d  call %4d  %-13s %8d tokens, window unknown\n", c.Line, c.Call, c.Event, c.Tokens)
				continue
			}
			fmt.Fprintf(w, "    line %5d  call %4d  %-13s %8d / %d  %5.1f%%  tier %d\n", c.Line, c.Call, c.Event, c.Tokens, c.Limit, c.Share*100, c.Tier)
		}
	}
}
