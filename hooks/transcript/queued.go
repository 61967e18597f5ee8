package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"strings"
	"syscall"
)

// keyQueued is what every line QueuedPrompts decodes contains.
var keyQueued = []byte(`"queued_command"`)

// queuedLine is the part of an attachment line that QueuedPrompts reads.
type queuedLine struct {
	Type        string `json:"type"`
	IsSidechain bool   `json:"isSidechain"`
	Attachment  struct {
		Type        string  `json:"type"`
		Prompt      Content `json:"prompt"`
		CommandMode string  `json:"commandMode"`
		Origin      *struct {
			Kind string `json:"kind"`
		} `json:"origin"`
	} `json:"attachment"`
}

// QueuedPrompts returns what the person typed while the agent was working
// and Claude Code handed to the model between two of its calls, oldest
// first, from the lines of the transcript at path that lie in [from, to):
// both offsets just after a newline, as a Cursor's Boundary is. No
// UserPromptSubmit hook runs for such a message: on a session whose user
// had one, the hook's output follows every typed prompt and none of the
// six queued ones (testdata/eval/sessions/jcode.jsonl, 2.1.191).
//
// Claude Code 2.1 (2.1.105 and later on the labelled sessions) records the
// message as an attachment line when it hands it over, {"type":
// "attachment","attachment":{"type":"queued_command","prompt":…,
// "commandMode":"prompt"}}: those are read, and a background task's
// notification (commandMode "task-notification") or an origin other than
// the person is not the person's words. Earlier versions record only the
// queue: "enqueue" with the text as it is typed, "remove" when the model
// is handed it mid-turn, "dequeue" when it is sent as the next prompt
// (which has its hook), "popAll" when the queue is cleared. For those, a
// remove among the lines of the range hands over the oldest text still
// queued, found among the lines up to lookback bytes before from (a text
// typed during a long call was queued before the hook before it ran):
// ext-dotfoldercleanup (2.0.76), whose agent acts at once on "io non uso
// manco piu rust", removed mid-turn, and ext-vlmservice (2.1.62), whose
// agent's next message takes up the text removed just before it. A
// version 2.1.105 or later, or a range with an attachment line, is read by
// its attachments only: there the remove can come calls before the text is
// handed over (ext-pvcase, 2.1.185). recorded reports texts from
// attachment lines. An inferred one may not have been handed over: a
// remove also takes a text back into the input box, and of 63 texts removed
// in the labelled sessions 25 came back later as a prompt (22 of them one
// text queued 22 times; mthis-router's "uninstall all traces of OpenVPN
// Server", 2.1.6, among the others).
//
// At most budget bytes of the range are read, the newest: a longer range is
// cut at a line start.
func QueuedPrompts(path string, from, to, budget, lookback int64) (texts []string, recorded bool, err error) {
	if to <= from || budget <= 0 {
		return nil, false, nil
	}
	f, err := openRegular(path)
	if err != nil {
		return nil, false, fmt.Errorf("queued prompts: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || to > fi.Size() {
		return nil, false, err // a size short of to: not the file the offsets were taken from
	}
	buf, at, err := readWindow(f, from, to, budget, lookback)
	if err != nil {
		return nil, false, fmt.Errorf("queued prompts %s: %w", path, err)
	}
	texts, recorded = queuedWindow(buf, at)
	return texts, recorded, nil
}

// readWindow reads the range [from, to) of f, at most budget bytes, the
// newest, and before it up to lookback bytes when a remove may need what
// was queued there. It returns the window, cut at a line start, and where
// the range starts in it; nil when the range hands nothing over.
func readWindow(f *os.File, from, to, budget, lookback int64) ([]byte, int64, error) {
	lineStart := to-from <= budget // from is a line start unless the budget cuts it
	from = max(from, to-budget)
	rng := make([]byte, to-from)
	if _, err := f.ReadAt(rng, from); err != nil {
		return nil, 0, err
	}
	if !bytes.Contains(rng, keyQueued) && !bytes.Contains(rng, keyRemove) {
		return nil, 0, nil // the common case: nothing handed over
	}
	start, buf := from, rng
	if lookback > 0 && from > 0 && !bytes.Contains(rng, keyQueued) {
		start = max(from-lookback, 0)
		buf = make([]byte, to-start)
		if _, err := f.ReadAt(buf[:from-start], start); err != nil {
			return nil, 0, err
		}
		copy(buf[from-start:], rng)
	}
	// Skip the part of a line that a cut, by the budget or the lookback,
	// leaves at the window's head.
	skip := 0
	if start > 0 && !(lineStart && start == from) {
		if skip = bytes.IndexByte(buf, '\n') + 1; skip == 0 {
			return nil, 0, nil
		}
	}
	return buf[skip:], from - start - int64(skip), nil
}

// openRegular opens path for reading if it is a regular file, without
// waiting should it be a FIFO.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = ErrNotRegular
		}
		return nil, err
	}
	return f, nil
}

// queuedWindow is QueuedPrompts on buf, whose lines from offset at on are
// the range (those before it only say what was queued).
// recorded reports that the texts come from attachment lines, which
// record the hand-over; otherwise they are inferred from removes.
func queuedWindow(buf []byte, at int64) (texts []string, recorded bool) {
	at = min(max(at, 0), int64(len(buf)))
	if attachmentsRecorded(buf) {
		return queuedIn(buf[at:]), true
	}
	return removedIn(buf, at), false
}

// keyVersion starts the CLI version every main line carries.
var keyVersion = []byte(`"version":"`)

// attachmentsRecorded reports whether the CLI that wrote buf records a
// message it hands over as a queued_command line: one is in buf, or the
// newest version named there is 2.1.105 or later.
func attachmentsRecorded(buf []byte) bool {
	if bytes.Contains(buf, keyQueued) {
		return true
	}
	i := bytes.LastIndex(buf, keyVersion)
	if i < 0 {
		return false
	}
	v := buf[i+len(keyVersion):]
	if j := bytes.IndexByte(v, '"'); j >= 0 {
		v = v[:j]
	}
	var major, minor, patch int
	if n, _ := fmt.Sscanf(string(v), "%d.%d.%d", &major, &minor, &patch); n < 3 {
		return false
	}
	return major > 2 || major == 2 && (minor > 1 || minor == 1 && patch >= 105)
}

// keyQueueOp is what every queue line contains; keyRemove, a remove.
var (
	keyQueueOp = []byte(`"queue-operation"`)
	keyRemove  = []byte(`"operation":"remove"`)
)

// queueLine is the part of a queue line removedIn reads.
type queueLine struct {
	Type      string `json:"type"`
	Operation string `json:"operation"`
	Content   string `json:"content"`
}

// removedIn returns the texts handed to the model by a remove at offset at
// or later in buf, oldest first, the queue rebuilt from buf's queue lines.
// A remove or dequeue that finds the queue empty (its text was queued
// before buf) hands over nothing known; a remove that carries its text
// hands that over. What the person typed is a text that is not a
// notification or a command (<…>, {…}, /…).
func removedIn(buf []byte, at int64) []string {
	var queue, out []string
	for lineAt, line := range linesWith(buf, keyQueueOp) {
		var q queueLine
		if json.Unmarshal(line, &q) != nil || q.Type != "queue-operation" {
			continue
		}
		switch q.Operation {
		case "enqueue":
			queue = append(queue, q.Content)
		case "popAll":
			queue = queue[:0]
		case "remove", "dequeue":
			text := q.Content
			if len(queue) > 0 {
				if text == "" {
					text = queue[0]
				}
				queue = queue[1:]
			}
			if q.Operation == "remove" && int64(lineAt) >= at && typed(text) {
				out = append(out, strings.TrimSpace(text))
			}
		}
	}
	return out
}

// linesWith yields the lines of buf that contain key, oldest first, each
// with the offset it starts at: one search of buf for key, not one a line.
func linesWith(buf, key []byte) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		for pos := 0; pos < len(buf); {
			i := bytes.Index(buf[pos:], key)
			if i < 0 {
				return
			}
			i += pos
			start := bytes.LastIndexByte(buf[:i], '\n') + 1
			end := len(buf)
			if j := bytes.IndexByte(buf[i:], '\n'); j >= 0 {
				end = i + j + 1
			}
			if !yield(start, buf[start:end]) {
				return
			}
			pos = end
		}
	}
}

// typed reports whether a queued text is the person's words: not empty,
// not a notification or tag (<task-notification>, <ide_opened_file>,
// {"task_id":…}), not a command.
func typed(text string) bool {
	t := strings.TrimSpace(text)
	return t != "" && !strings.HasPrefix(t, "<") && !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "/")
}

// queuedIn returns the texts of the queued_command lines of buf that the
// person typed, oldest first.
func queuedIn(buf []byte) []string {
	var out []string
	for _, line := range linesWith(buf, keyQueued) {
		var q queuedLine
		if unmarshalLenient(line, &q) != nil {
			continue // malformed; a value of the wrong type is skipped, as Decode skips it
		}
		a := q.Attachment
		if q.Type != "attachment" || q.IsSidechain || a.Type != "queued_command" || a.CommandMode != "prompt" ||
			a.Origin != nil && a.Origin.Kind != "human" {
			continue
		}
		if t := strings.TrimSpace(strings.Join(textParts(a.Prompt), "\n")); typed(t) {
			out = append(out, t)
		}
	}
	return out
}
