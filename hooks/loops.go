package hooks

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/djinn-cc/djinn/engines/drift"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"

	"github.com/djinn-cc/djinn/engines/loops"
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/state"
)

// maxLoopAgents bounds how many agents' ring buffers window.json keeps: the
// main agent and the most recent subagents.
const maxLoopAgents = 8

// noFile is the content hash of a file that does not exist, so "created"
// and "deleted" compare like any other content.
const noFile = "none"

// loopEvent builds the pattern engine's event for a tool call: outcome,
// error fingerprint, result hash, and the file's content hash before (from
// the tool's originalFile) and after (read from disk, bounded).
func (s *session) loopEvent(p *Payload, target, rng string) loops.Event {
	// A Bash command's relative paths are relative to where it runs.
	dir := p.Cwd
	if dir == "" {
		dir = s.w.ProjectDir
	}
	ev, view := loops.NewEventIn(p.ToolName, p.ToolInput, target, rng, dir)
	ev.Prompt = s.w.UserPrompts
	if p.AgentID == "" {
		// The main agent's call was issued by the latest assistant message
		// the transcript holds: calls of one message share it. A
		// subagent's calls are not in the main transcript.
		if scan, ok := s.measure(p); ok && scan.Latest != "" {
			ev.Batch = loops.ShortHash([]byte(scan.Latest))
		}
	}
	if text, failed := s.failureText(p); failed {
		ev.Failed = true
		// A call the person declined did not fail: the person said no,
		// and saying no again to the next attempt is no loop of the
		// agent's (ext-polloai #22, #25, #30: three edits declined, a
		// fail-loop false to both judges of the thirtieth set).
		ev.Interrupted = p.IsInterrupt || userRejected(text) || siblingErrored(text)
		ev.Error = loops.ErrorFingerprint(text)
		switch {
		case loops.KindOf(p.ToolName) == loops.KindShell:
			in, _ := s.callInput(p)
			ev.Fail = loops.CommandFailureKeys(in.Command, text, false)
		case p.ToolName == "WebFetch":
			in, _ := s.callInput(p)
			ev.Fail = cmp.Or(loops.WebFetchFailureKey(in.URL, text), loops.FailureKey(text))
		default:
			ev.Fail = loops.FailureKey(text)
		}
	} else if loops.KindOf(p.ToolName) == loops.KindShell && p.HookEventName == PostToolUse {
		// A command that exited 0 may still print its failure (a script
		// that catches the error, a test run piped through grep); its own
		// output lines can tell.
		if out, ok := s.shellOutput(p); ok {
			ev.Output(out, view)
			if out != "" {
				in, _ := s.callInput(p)
				ev.Fail = loops.CommandFailureKeys(in.Command, out, true)
				ev.Printing(in.Command, out)
			}
		} else if in, _ := s.callInput(p); s.sentToBackground(p) && !in.RunInBackground {
			// Not asked to run in the background, yet it went there: it
			// did not finish in time (or the user sent it off, tired of
			// waiting). For a git command that is a hang.
			ev.Fail = loops.UnfinishedKey(in.Command)
		}
	} else if p.ToolName == "WebFetch" && p.HookEventName == PostToolUse {
		// WebFetch answers a page too long for its prompt as a result.
		if r := s.toolResponse(p); r.ok && !r.str {
			ev.Fail = loops.WebFetchKey(r.Result)
		}
	}
	// Hash the real path from the input: ev.Target may be clipped (long
	// paths keep a head and a hash), which is fine for comparing targets
	// but is not a path.
	k := loops.KindOf(p.ToolName)
	if (k == loops.KindRead || k == loops.KindWrite) && ev.Target != "" {
		max := int64(s.env.Settings.Loops.HashMaxBytes)
		ev.After = fileHash(s.inputPath(p), max)
		if k == loops.KindWrite && !ev.Failed {
			ev.Before = s.toolResponse(p).originalHash(max)
			if ev.After == noFile {
				// A write that succeeded left a file; if it is gone already
				// (moved, or written elsewhere), its content is unknown.
				ev.After = ""
			}
		}
	}
	// The result hash tells polling from looping. A file tool's content
	// hash already says what it saw, and its response (which carries the
	// whole original file) is the costliest to canonicalise, so it is
	// hashed only when the content is unknown.
	if !ev.Failed && len(p.ToolResponse) > 0 && !((k == loops.KindRead || k == loops.KindWrite) && ev.After != "") {
		ev.Result = loops.ResultHash(p.ToolResponse)
	}
	return ev
}

// failureText tells whether a tool call failed and gives its error text: a
// PostToolUseFailure's error, or the string a file tool answered instead
// of its result object ("Error: File has not been read yet…", a
// <tool_use_error>), which a PostToolUse may carry and which changed
// nothing on disk.
func (s *session) failureText(p *Payload) (string, bool) {
	if p.HookEventName == PostToolUseFailure {
		return p.Error, true
	}
	if p.HookEventName != PostToolUse {
		return "", false
	}
	if k := loops.KindOf(p.ToolName); k != loops.KindRead && k != loops.KindWrite {
		return "", false
	}
	// A file tool answers with an object; a string is its error text
	// (bounded: an error message, not a file).
	raw := p.ToolResponse
	var str string
	if len(raw) == 0 || raw[0] != '"' || len(raw) > 64<<10 || json.Unmarshal(raw, &str) != nil {
		return "", false
	}
	t := strings.TrimSpace(str)
	if strings.HasPrefix(t, "Error:") || strings.HasPrefix(t, "<tool_use_error>") {
		return t, true
	}
	return "", false
}

// decodedInput is the tool input, decoded once per hook for all who read
// it: the loop event, the risk catalogue and the instructions in force.
type decodedInput struct {
	riskInput
	ok bool
}

// callInput is the hook's tool input, decoded once; ok is false when it
// is not a JSON object of the fields read.
func (s *session) callInput(p *Payload) (*riskInput, bool) {
	if s.in == nil {
		s.in = &decodedInput{}
		s.in.ok = json.Unmarshal(p.ToolInput, &s.in.riskInput) == nil
	}
	return &s.in.riskInput, s.in.ok
}

// inputPath is the file a file tool acts on, as given.
func (s *session) inputPath(p *Payload) string {
	in, _ := s.callInput(p)
	if in.FilePath != "" {
		return in.FilePath
	}
	return in.NotebookPath
}

// maxShellOutput bounds the shell response read for a failure it reports:
// larger outputs are logs and builds, whose failures exit non-zero.
const maxShellOutput = 256 << 10

// shellOutput is readShellOutput of the hook's call, decoded once: the loop
// patterns and drift's failure check both read it.
func (s *session) shellOutput(p *Payload) (string, bool) {
	s.readShell(p)
	return s.shell.out, s.shell.ok
}

// sentToBackground tells a shell call whose command was moved to the
// background before it finished (its response carries a background task).
func (s *session) sentToBackground(p *Payload) bool {
	s.readShell(p)
	return s.shell.background
}

func (s *session) readShell(p *Payload) {
	if s.shell == nil {
		out, ok, bg := readShellOutput(p.ToolResponse)
		s.shell = &shellOut{out, ok, bg}
	}
}

// shellOut is a shell call's output, whether it is known, and whether the
// command went to the background.
type shellOut struct {
	out        string
	ok         bool
	background bool
}

// readShellOutput is a shell call's stdout and stderr (or its string
// response), telling whether the output is known: an
// empty output is a fact; a response too large, of another shape, or of a
// command sent to the background says nothing about it.
func readShellOutput(raw json.RawMessage) (out string, ok, background bool) {
	if len(raw) == 0 || len(raw) > maxShellOutput {
		return "", false, false
	}
	if raw[0] == '"' {
		var str string
		if json.Unmarshal(raw, &str) != nil {
			return "", false, false
		}
		return str, true, false
	}
	var r struct {
		Stdout     string `json:"stdout"`
		Stderr     string `json:"stderr"`
		Background string `json:"backgroundTaskId"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return "", false, false
	}
	if r.Background != "" {
		// A command sent to the background prints nothing here by design.
		return "", false, true
	}
	return r.Stdout + "\n" + r.Stderr, true, false
}

// originalHash hashes a write's originalFile (null: the file was new).
func (r *toolResp) originalHash(max int64) string {
	if !r.ok {
		return ""
	}
	switch {
	case r.OriginalFile != nil && int64(len(*r.OriginalFile)) <= max:
		return loops.ShortHash([]byte(*r.OriginalFile))
	case r.OriginalFile == nil && r.Type == "create":
		return noFile
	}
	return ""
}

// fileHash is the content hash of a regular file, reading at most max
// bytes: a larger file is identified by its size, modification time and
// first and last 64 KiB, so the cost is bounded whatever the file. Anything
// that is not a regular file (a directory, a FIFO, a device, a symlink loop)
// gives "" (unknown); a missing file gives noFile.
func fileHash(path string, max int64) string {
	if path == "" {
		return ""
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return noFile
	}
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi.Size() <= max {
		b, err := readUpTo(f, fi.Size(), max+1)
		if err != nil || int64(len(b)) > max {
			return ""
		}
		return loops.ShortHash(b)
	}
	const edge = 64 << 10
	h := sha256.New()
	fmt.Fprintf(h, "large:%d:%d:", fi.Size(), fi.ModTime().UnixNano())
	buf := make([]byte, edge)
	if n, _ := f.ReadAt(buf, 0); n > 0 {
		h.Write(buf[:n])
	}
	if n, _ := f.ReadAt(buf, fi.Size()-edge); n > 0 {
		h.Write(buf[:n])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// readUpTo reads r to its end or to limit bytes, whichever comes first,
// into a buffer sized for the size the file had (io.ReadAll starts at 512
// bytes and doubles, copying a file of a megabyte a dozen times).
func readUpTo(r io.Reader, size, limit int64) ([]byte, error) {
	b := make([]byte, 0, min(max(size, 0), limit)+1)
	for int64(len(b)) < limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):min(int64(cap(b)), limit)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// loopCall records a tool call in its agent's ring buffer and words the
// findings. target and rng are the call's, from loops.TargetOf (read once
// per call by handleToolCall).
func (s *session) loopCall(p *Payload, target, rng string) []advice.Advisory {
	key := "main"
	if p.AgentID != "" {
		key = fit.Bytes(p.AgentID, 128)
	}
	if s.w.Loops == nil {
		s.w.Loops = map[string]*state.LoopState{}
	}
	st, ok := s.w.Loops[key]
	if !ok {
		st = &state.LoopState{}
		s.w.Loops[key] = st
	}
	s.touchAgent(key)
	ls := loopsState(st)
	ev := s.loopEvent(p, target, rng)
	ev.Call = uint64(s.w.ToolCalls)
	findings := ls.Record(ev, s.env.Settings.Loops.Engine())
	storeLoops(st, ls)
	var out []advice.Advisory
	for _, f := range findings {
		c := advice.LoopContext{Agent: p.AgentID, Display: s.display}
		if f.Pattern == loops.FailLoop || f.SameOutput {
			var failed bool
			if c.ErrorText, failed = s.failureText(p); !failed {
				c.ErrorText, _ = s.shellOutput(p)
			}
			c.PortTaken = portTakenRuns(f, ls)
		}
		a := advice.Loop(asSessionCalls(f, ls), c)
		if !a.Observed || f.Once || f.Rollback {
			// A lone revert or a rollback is no loop to tell the agent
			// of, but its two calls still cancel out: rank keeps them
			// from the load-bearing list like a loop's.
			a.Loop = sessionCalls(ls, f.Events)
		}
		out = append(out, a)
	}
	return out
}

// sessionCalls names a finding's events (numbers in its agent's stream) as
// the session's tool calls, from the events' Call; an event recorded before
// events carried it is left out, and only the last 64 are kept (the
// advisory schema's bound).
func sessionCalls(ls loops.State, events []uint64) []int {
	events = events[max(0, len(events)-64):]
	var out []int
	for _, n := range events {
		if c, ok := sessionCall(ls, n); ok {
			out = append(out, int(c))
		}
	}
	return out
}

// eventAt is its agent's event n, from the window or the remembered
// failures.
func eventAt(ls loops.State, n uint64) (loops.Event, bool) {
	for _, e := range ls.Events {
		if e.Seq == n {
			return e, true
		}
	}
	for _, r := range ls.Failures {
		if r.Seq == n {
			return r.Event, true
		}
	}
	return loops.Event{}, false
}

// sessionCall is the session's number of its agent's event n (eventAt).
func sessionCall(ls loops.State, n uint64) (uint64, bool) {
	e, ok := eventAt(ls, n)
	return e.Call, ok && e.Call > 0 && e.Call <= math.MaxInt32
}

// portTakenRuns counts the events of a fail-loop, in the window or
// remembered, that found their port taken and were not killed by their
// timeout: their failure is the port's, their error no timeout's (a
// nodemon that found its port taken and then waited was killed too,
// p-claudeconfig-77e159f9 #135).
func portTakenRuns(f loops.Finding, ls loops.State) int {
	n := 0
	for _, seq := range f.Events {
		if e, ok := eventAt(ls, seq); ok && strings.HasPrefix(e.Fail, loops.PortBusyKey) && !strings.HasPrefix(e.Error, "Command timed out") {
			n++
		}
	}
	return n
}

// asSessionCalls renumbers a finding's events, which count its agent's
// calls, as the session's tool calls, the numbers the log, the timeline
// and the user see (a subagent's third call may be the session's 90th). It
// is all or nothing: a finding with an event recorded before events
// carried their session number keeps its agent's numbers.
func asSessionCalls(f loops.Finding, ls loops.State) loops.Finding {
	conv := func(n uint64) (uint64, bool) {
		if n == 0 {
			return 0, true
		}
		return sessionCall(ls, n)
	}
	seq, ok1 := conv(f.Seq)
	since, ok2 := conv(f.Since)
	revert, ok3 := conv(f.RevertTo)
	if !ok1 || !ok2 || !ok3 {
		return f
	}
	events := make([]uint64, len(f.Events))
	for i, n := range f.Events {
		c, ok := conv(n)
		if !ok {
			return f
		}
		events[i] = c
	}
	f.Seq, f.Since, f.RevertTo, f.Events = seq, since, revert, events
	return f
}

// touchAgent moves key to the end of the agent order, dropping the oldest
// subagent when there are too many (the main agent is never dropped).
func (s *session) touchAgent(key string) {
	order := s.w.LoopAgents[:0]
	for _, k := range s.w.LoopAgents {
		if k != key {
			order = append(order, k)
		}
	}
	order = append(order, key)
	for len(order) > maxLoopAgents {
		drop := 0
		if order[0] == "main" {
			drop = 1
		}
		delete(s.w.Loops, order[drop])
		order = append(order[:drop], order[drop+1:]...)
	}
	s.w.LoopAgents = order
}

// display shortens a path for advisories: relative to the project.
func (s *session) display(p string) string {
	if !strings.HasPrefix(p, "/") {
		return p // a URL, a command, a relative path: as it was given
	}
	return drift.RelPath(p, s.w.ProjectDir)
}
