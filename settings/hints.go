package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/xrash/smetrics"
)

// suggest returns the known name nearest to name by edit distance
// (Levenshtein, case-insensitive), or "" when none is near enough to be a
// typo: at most 2 edits, and at most a third of the name's length.
func suggest(name string, known []string) string {
	best, bestD := "", 0
	low := strings.ToLower(name)
	for _, k := range known {
		d := smetrics.WagnerFischer(low, strings.ToLower(k), 1, 1, 1)
		if best == "" || d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" || bestD == 0 || bestD > 2 || bestD*3 > utf8.RuneCountInString(name) {
		return ""
	}
	return best
}

// unknownMessage is the message of an unknown key or variable, with the
// nearest known one when there is one.
func unknownMessage(what, name string, known []string) string {
	if s := suggest(name, known); s != "" {
		return fmt.Sprintf("%s (did you mean %s?)", what, s)
	}
	return what
}

// syntaxPosition finds where raw stops being JSON: the 1-based line and
// column (in characters) of the offending character, or of the end of the
// document when it ends too early. ok is false when raw is valid JSON.
func syntaxPosition(raw []byte) (line, col int, msg string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var v any
	err := dec.Decode(&v)
	var se *json.SyntaxError
	var off int64
	switch {
	case err == nil:
		return 0, 0, "", false
	case errors.As(err, &se):
		// Offset is the bytes read when the error was found: the
		// offending character is the last of them.
		off = max(se.Offset-1, 0)
		msg = se.Error()
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		off = int64(len(raw))
		msg = "unexpected end of the file"
	default:
		return 0, 0, "", false
	}
	off = min(off, int64(len(raw)))
	before := raw[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col, msg, true
}

// sectionKey returns the one key of a section whose name within it is
// name (read_threshold: loops.read_threshold), for a key written at the top
// level, or "" when there is none or several.
func sectionKey(name string, known []string) string {
	found := ""
	for _, k := range known {
		if _, sub, ok := strings.Cut(k, "."); ok && sub == name {
			if found != "" {
				return ""
			}
			found = k
		}
	}
	return found
}
