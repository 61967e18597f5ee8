package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
// both offsets just after a newline, as a Cursor's Boundary is. Claude
// Code 2.1 (2.1.105 and later on the labelled sessions) records such a
// message as an attachment line, {"type":"attachment","attachment":
// {"type":"queued_command","prompt":…,"commandMode":"prompt"}}, and runs
// no UserPromptSubmit hook for it: on a session whose user had one, the
// hook's output follows every typed prompt and none of the six queued ones
// (testdata/eval/sessions/jcode.jsonl, 2.1.191). A background task's
// notification (commandMode "task-notification") and an origin other than
// the person are not the person's words. Older versions record only
// queue-operation lines, whose "remove" does not tell a message handed to
// the model from one the person took back: they are not read.
//
// At most budget bytes are read, the newest: a longer range is cut at a
// line start.
func QueuedPrompts(path string, from, to, budget int64) ([]string, error) {
	if to <= from || budget <= 0 {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("queued prompts: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("queued prompts: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("queued prompts %s: %w", path, ErrNotRegular)
	}
	if to > fi.Size() {
		return nil, nil // not the file the offsets were taken from
	}
	cut := false
	if to-from > budget {
		from, cut = to-budget, true
	}
	buf := make([]byte, to-from)
	if _, err := f.ReadAt(buf, from); err != nil {
		return nil, fmt.Errorf("queued prompts %s: %w", path, err)
	}
	if cut {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return nil, nil
		}
		buf = buf[i+1:]
	}
	return queuedIn(buf), nil
}

// queuedIn is QueuedPrompts on the lines of buf.
func queuedIn(buf []byte) []string {
	var out []string
	for line := range bytes.Lines(buf) {
		if !bytes.Contains(line, keyQueued) {
			continue
		}
		var q queuedLine
		if err := json.Unmarshal(line, &q); err != nil {
			var te *json.UnmarshalTypeError
			if !errors.As(err, &te) {
				continue // malformed; a value of the wrong type is skipped, as Decode skips it
			}
		}
		a := q.Attachment
		if q.Type != "attachment" || q.IsSidechain || a.Type != "queued_command" || a.CommandMode != "prompt" ||
			a.Origin != nil && a.Origin.Kind != "human" {
			continue
		}
		if t := strings.TrimSpace(strings.Join(textParts(a.Prompt), "\n")); t != "" {
			out = append(out, t)
		}
	}
	return out
}
