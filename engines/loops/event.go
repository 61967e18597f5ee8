package loops

import (
	"bytes"
	"encoding/json"
	"math"
	"path"
	"strconv"
	"strings"
)

// MaxTarget bounds the length in bytes of Event.Target. A longer target (a
// heredoc command, a big MCP input) keeps its head and a hash of the whole,
// so it still identifies the call.
const MaxTarget = 160

// maxTool and maxRange bound the other strings of an Event: tool names are
// short, but an MCP server names its own, and a PDF page range is free text.
const (
	maxTool  = 80
	maxRange = 64
)

// Event is one tool call as the patterns see it. It is compact on purpose:
// the state file keeps Window of them per agent, so it holds short hashes,
// never contents. The hook fills it from a PostToolUse or PostToolUseFailure
// payload: NewEvent sets Tool, Target, Range and Input from tool_name and
// tool_input; the hook adds the outcome and the hashes it computes.
type Event struct {
	// Seq is the event's number in its agent's stream, 1 for the first;
	// State.Record assigns it.
	Seq uint64 `json:"n"`
	// Tool is the tool_name ("Read", "Bash", "mcp__server__tool").
	Tool string `json:"tool"`
	// Target is what the call acts on: the file of a file tool, the command
	// of Bash, pattern and path of Grep and Glob, the URL of WebFetch, the
	// canonical input otherwise (see TargetOf). At most MaxTarget bytes.
	Target string `json:"target,omitempty"`
	// Range is the part of the file a Read covers ("" for the whole file).
	Range string `json:"range,omitempty"`
	// Input is InputHash of the tool_input.
	Input string `json:"input,omitempty"`
	// Failed marks a PostToolUseFailure.
	Failed bool `json:"failed,omitempty"`
	// Interrupted marks a failure the user caused (is_interrupt).
	Interrupted bool `json:"interrupted,omitempty"`
	// Error is ErrorFingerprint of the failure's error text.
	Error string `json:"error,omitempty"`
	// Fail is FailureKey of a failure's error text, or OutputFailureKey of
	// the output of a call that succeeded but reports a failure ("" when
	// no line names a known class of failure). Fail-loop counts calls
	// with one key together whichever command they ran.
	Fail string `json:"fail,omitempty"`
	// Result is ResultHash of the tool_response of a successful call; ""
	// when unknown, and an unknown result never equals another.
	Result string `json:"result,omitempty"`
	// Before and After are content hashes of the file a file tool touched,
	// before the call (from Edit's or Write's originalFile) and on disk
	// after it; "" when unknown. For a Read, After is the content read.
	// The hashes are opaque: a hook may use a fixed token for "no file".
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Prompt is the number of user prompts the session had when the call
	// ran (0 when unknown): a prompt between two events means the user
	// spoke between them, and may have asked for what came after.
	Prompt uint64 `json:"prompt,omitempty"`
	// Shown is, for a shell command that shows one end of its output (a
	// View), a hash of the ShownLines lines at that end; Empty marks a shell
	// command that printed nothing. Both are set by Output.
	Shown string `json:"shown,omitempty"`
	Empty bool   `json:"empty,omitempty"`
	// Call is the call's number in the whole session (all agents), set by
	// the hook so a finding's events can be named as the session's calls;
	// the patterns do not read it.
	Call uint64 `json:"call,omitempty"`
	// Edits marks a shell command that writes a file: output redirected
	// to one (not to a stream or /dev/null), tee with a file, sed -i; read
	// from the parsed command (NewEventIn). Fail-loop counts it among the
	// edits made between failures when it succeeded.
	Edits bool `json:"edits,omitempty"`
	// Installs marks a shell command that runs a package manager's
	// install, add, remove or update ("pnpm install", "python -m pip
	// install -r …", "go mod tidy"), read from the parsed command: it
	// changes what a test or build run reads.
	Installs bool `json:"installs,omitempty"`
	// Batch names the assistant message that issued the call ("" when not
	// known): the calls of one message run as one batch, issued before any
	// of their results was seen, so fail-loop counts them as one round.
	Batch string `json:"batch,omitempty"`
	// Printed is, for a shell command that prints its own output (not a
	// file's or a search's), a hash of what it printed less warning lines,
	// when that is at least two lines: set by Printing. Different commands
	// that all print one output are not doing what they ask.
	Printed string `json:"printed,omitempty"`
	// Wrote is, for a shell command that writes one file whole from a
	// heredoc (cat > F << 'EOF', also over ssh, "host:F"), that file;
	// After is then the hash of what it wrote. Set by NewEventIn; the
	// patterns take it for a write of the file when the call succeeded.
	Wrote string `json:"wrote,omitempty"`
	// Run is, for a shell command that runs a test, build or package
	// script, its RunnerKey ("pnpm run coverage", at most MaxTarget
	// bytes): set by NewEventIn from the whole command, which Target may
	// cut. Runs of one key with no write between are a tool-loop.
	Run string `json:"run,omitempty"`
	// Look is, for a shell command that only shows one file (cat, head,
	// tail, less or more of it, whatever window, after a cd or a wait),
	// that file as ShellKey spells it: set by NewEventIn (LookOf). Looks
	// at one file that print nothing, again and again, are a tool-loop.
	Look string `json:"look,omitempty"`
}

// minPrinted bounds from below the output Printing hashes: shorter
// outputs ("ok", a count, a path) are printed alike by commands that did
// their different work.
const minPrinted = 40

// Printing takes in what a successful shell call printed and sets Printed:
// the hash of its lines that are not warnings or a shell's start-up
// complaints, when the command's first program prints its own work and
// those lines are at least two and minPrinted bytes. An output over
// maxFailureInput is left alone: what different commands print alike is
// short (a banner), and the hook reads no output whole.
func (e *Event) Printing(command, out string) {
	if KindOf(e.Tool) != KindShell || len(out) > maxFailureInput || !ownOutput(command) {
		return
	}
	var lines []string
	size := 0
	for l := range strings.Lines(out) {
		l = strings.TrimSpace(l)
		if l == "" || noiseLine(l) {
			continue
		}
		lines = append(lines, l)
		size += len(l)
	}
	if len(lines) < 2 || size < minPrinted {
		return
	}
	e.Printed = ShortHash([]byte(strings.Join(lines, "\n")))
}

// noiseLine tells a line a program prints whatever it was asked: a
// warning (ssh's "** WARNING: connection is not using a post-quantum key
// exchange", npm's "npm warn") or a shell's start-up complaint.
func noiseLine(l string) bool {
	low := strings.ToLower(l)
	return warningLine(low) || strings.HasPrefix(low, "** ") || StartupComplaint(low)
}

// ShownLines is how many lines at the shown end of a windowed command's
// output Event.Shown covers. Two windows onto one unchanged output (tail
// -10 and tail -20 of a log) agree on their last lines, however many each
// shows; a log that grew between them ends in other lines. Three lines are
// enough to tell a log that moved on from one that did not, and fewer than
// any window an agent asks for; a window of fewer lines than this (tail -2)
// compares by its whole output against another such window only.
const ShownLines = 3

// Output takes in what a successful shell call printed (stdout and
// stderr): Empty when it was nothing but whitespace, and for a windowed
// command (view, from NewEventIn: tail -N, | head -N) Shown, the hash of
// its last (or first) ShownLines non-blank lines. Events of other tools
// ignore it.
func (e *Event) Output(out string, view View) {
	if KindOf(e.Tool) != KindShell {
		return
	}
	var lines []string
	for l := range strings.Lines(out) {
		if l = strings.TrimRight(l, " \t\r\n"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	e.Empty = len(lines) == 0
	switch {
	case view == ViewNone || e.Empty:
		return
	case len(lines) > ShownLines && view == ViewTail:
		lines = lines[len(lines)-ShownLines:]
	case len(lines) > ShownLines:
		lines = lines[:ShownLines]
	}
	e.Shown = ShortHash([]byte(strings.Join(lines, "\n")))
}

// Kind classifies a tool by what it does to files.
type Kind uint8

// The kinds of tools the patterns tell apart.
const (
	KindOther Kind = iota
	KindRead       // reads one file: Read, NotebookRead
	KindWrite      // changes one file: Write, Edit, MultiEdit, NotebookEdit
	KindShell      // runs a command: Bash, PowerShell
)

// KindOf returns the kind of a built-in tool; every other tool is KindOther.
func KindOf(tool string) Kind {
	switch tool {
	case "Read", "NotebookRead":
		return KindRead
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return KindWrite
	case "Bash", "PowerShell":
		return KindShell
	}
	return KindOther
}

// NewEvent starts an Event for a call from its tool_name and tool_input:
// Tool, Target, Range and Input. The caller sets the outcome (Failed,
// Interrupted, Error via ErrorFingerprint) and the hashes (Result, Before,
// After).
func NewEvent(tool string, input json.RawMessage) Event {
	target, rng := TargetOf(tool, input)
	return NewEventWith(tool, input, target, rng)
}

// NewEventWith is NewEvent for a caller that already has the call's target
// and range from TargetOf, so the input (which can hold a whole file) is
// not read for them a second time.
func NewEventWith(tool string, input json.RawMessage, target, rng string) Event {
	e, _ := NewEventIn(tool, input, target, rng, "")
	return e
}

// NewEventIn is NewEventWith for a call run in the directory dir ("" when
// unknown). A Bash call's Input hashes its ShellKey rather than its
// tool_input, so cosmetic variants of one command (quoting, redirects that
// merge or discard streams, path spelling, how much of the output is
// shown) are one call; dir lets an absolute path under it match its
// relative spelling. The View is the command's, for Output.
func NewEventIn(tool string, input json.RawMessage, target, rng, dir string) (Event, View) {
	e := Event{Tool: clip(tool, maxTool, 60), Target: target, Range: rng}
	if tool == "Bash" {
		var in struct {
			Command *string `json:"command"`
		}
		if json.Unmarshal(input, &in) == nil && in.Command != nil {
			key, view, writes := shellKey(*in.Command, dir)
			e.Input = ShortHash([]byte("sh\x00" + key))
			e.Edits, e.Installs = writes.any, writes.installs
			// A file written whole from a heredoc: the write and what it
			// wrote, as a file tool's, so a rewrite back to earlier content
			// is an edit-revert whichever tool made the writes.
			e.Wrote, e.After = writes.whole.file, writes.whole.hash
			if len(writes.run) <= MaxTarget {
				e.Run = writes.run
			}
			e.Look = LookOf(key)
			return e, view
		}
	}
	e.Input = InputHash(input)
	return e, ViewNone
}

// TargetOf derives what a call acts on and, for Read, which part of the
// file:
//
//   - Read, Write, Edit, MultiEdit: file_path; NotebookEdit, NotebookRead:
//     notebook_path (cleaned, so "/a/./b" and "/a/b" are one file);
//   - Bash, PowerShell, Monitor: the command with whitespace runs collapsed;
//   - Grep, Glob: pattern, and " in " path when a path is given;
//   - WebFetch: url; WebSearch: query;
//   - anything else (MCP tools, Agent, TodoWrite…): the canonical input.
//
// The range of a Read is "" for the whole file, "lines A-B" for offset and
// limit (offset 0 and 1 both mean the first line), or "pages P" for a PDF.
// Targets longer than MaxTarget are clipped with a hash of the whole.
func TargetOf(tool string, input json.RawMessage) (target, rng string) {
	fields := topFields(input)
	str := func(key string) string {
		var s string
		if raw, ok := fields[key]; ok && json.Unmarshal(raw, &s) == nil {
			return s
		}
		return ""
	}
	switch tool {
	case "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead":
		p := str("file_path")
		if p == "" {
			p = str("notebook_path")
		}
		if p != "" {
			target = cleanPath(p)
		}
		if tool == "Read" {
			rng = readRange(fields)
		}
	case "Bash", "PowerShell", "Monitor":
		target = strings.Join(strings.Fields(str("command")), " ")
	case "Grep", "Glob":
		target = str("pattern")
		if p := str("path"); p != "" {
			target += " in " + cleanPath(p)
		}
	case "WebFetch":
		target = str("url")
	case "WebSearch":
		target = str("query")
	}
	if target == "" {
		target = CanonicalInput(input)
	}
	return clip(target, MaxTarget, 110), clip(rng, maxRange, 40)
}

func cleanPath(p string) string {
	if strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	return p
}

// readRange formats a Read's offset, limit and pages.
func readRange(fields map[string]json.RawMessage) string {
	if raw, ok := fields["pages"]; ok {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return "pages " + s
		}
	}
	offset, hasOffset := intField(fields, "offset")
	limit, hasLimit := intField(fields, "limit")
	if hasOffset && offset <= 1 {
		hasOffset = false
	}
	if hasLimit && limit <= 0 {
		hasLimit = false
	}
	if !hasOffset && !hasLimit {
		return ""
	}
	if !hasOffset {
		offset = 1
	}
	if !hasLimit {
		return "lines " + strconv.FormatInt(offset, 10) + "-"
	}
	return "lines " + strconv.FormatInt(offset, 10) + "-" + strconv.FormatInt(offset+limit-1, 10)
}

// intField reads an integer given as a JSON number or a numeric string (a
// model sometimes quotes numbers); anything else counts as absent.
func intField(fields map[string]json.RawMessage, key string) (int64, bool) {
	raw, ok := fields[key]
	if !ok {
		return 0, false
	}
	raw = bytes.Trim(bytes.TrimSpace(raw), `"`)
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsNaN(f) || f > 1e15 || f < -1e15 {
		return 0, false
	}
	return int64(f), true
}
