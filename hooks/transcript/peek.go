package transcript

import (
	"bytes"
	"encoding/json"
)

// LineTypes may be implemented by the io.ReaderAt given to MeasureAt when
// it knows what PeekType gives for its lines: replay, which decodes each
// line once ahead of the hooks, while the meter of every hook peeked at
// each line again (each about twice over a corpus replay, on the hooks'
// goroutine). LineType returns PeekType of the n bytes at off (a line
// with its newline, as the meter cuts it), or known=false when it does
// not hold that line; the meter then peeks itself.
type LineTypes interface {
	LineType(off int64, n int) (typ string, ok, known bool)
}

// LineEntries may be implemented by the io.ReaderAt given to MeasureAt
// when it holds its lines decoded: replay, whose decoder decodes every
// line once (Decode) ahead of the hooks, while the meter of every hook
// decoded the lines it needed again. LineEntry returns what Decode gives
// for the n bytes at off (a line with its newline, as the meter cuts it),
// or known=false when it does not hold that line decoded; the meter then
// decodes it itself. The meter only reads the entry, and reads nothing
// Decode has that decodeNarrow leaves out (Block.Input,
// Entry.ToolUseResult).
type LineEntries interface {
	LineEntry(off int64, n int) (e *Entry, known bool)
}

// PeekType is what the meter takes of a transcript line before deciding
// whether to decode it: the value Decode would give Entry.Type, ok false
// when that is not sure without decoding (see peekType). For LineTypes.
func PeekType(line []byte) (typ string, ok bool) { return peekType(line) }

// peekType returns the value Decode would give Entry.Type for line, without
// decoding the line: it walks the top-level keys and skips their values
// (strings with a vectorised search for the closing quote), so a 1 MB tool
// result costs a scan, not a decode. It follows encoding/json's rules: keys
// match case-insensitively, the last "type" key holding a string wins, and
// other values of it are ignored. ok is false when the line is not a plain
// JSON object or when a key is spelt with escapes; the caller then decodes.
func peekType(line []byte) (typ string, ok bool) {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return "", false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return "", true
	}
	for {
		if i >= len(line) || line[i] != '"' {
			return "", false
		}
		end, esc := stringEnd(line, i)
		if end < 0 || esc {
			return "", false
		}
		key := line[i+1 : end]
		i = skipSpace(line, end+1)
		if i >= len(line) || line[i] != ':' {
			return "", false
		}
		i = skipSpace(line, i+1)
		if i >= len(line) {
			return "", false
		}
		if len(key) == 4 && bytes.EqualFold(key, []byte("type")) && line[i] == '"' {
			vend, vesc := stringEnd(line, i)
			if vend < 0 {
				return "", false
			}
			if vesc {
				var s string
				if json.Unmarshal(line[i:vend+1], &s) != nil {
					return "", false
				}
				typ = s
			} else {
				typ = string(line[i+1 : vend])
			}
			i = vend + 1
		} else if i = skipValue(line, i); i < 0 {
			return "", false
		}
		i = skipSpace(line, i)
		if i >= len(line) {
			return "", false
		}
		switch line[i] {
		case ',':
			i = skipSpace(line, i+1)
		case '}':
			if skipSpace(line, i+1) != len(line) {
				return "", false
			}
			return typ, true
		default:
			return "", false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index of the quote closing the string that opens at
// b[i], and whether the string holds a backslash escape; -1 if unclosed.
func stringEnd(b []byte, i int) (int, bool) {
	esc := false
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1, esc
		}
		q := j + k
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if !esc && bytes.IndexByte(b[j:q], '\\') >= 0 {
			esc = true
		}
		if n%2 == 0 {
			return q, esc
		}
		j = q + 1
	}
}

// skipString returns the index of the quote closing the string that opens
// at b[i], or -1: stringEnd without looking for escapes, for the values
// peekType skips (most of a line's bytes).
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		j = q + 1
	}
}

// skipValue returns the index just after the JSON value starting at b[i],
// or -1. Containers are skipped by counting brackets outside strings; the
// value's inner syntax is not checked (a line that is not valid JSON fails
// in Decode, which the caller runs on every line it keeps).
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		end := skipString(b, i)
		if end < 0 {
			return -1
		}
		return end + 1
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end := skipString(b, i)
				if end < 0 {
					return -1
				}
				i = end + 1
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	default:
		// A number or a literal: up to the next delimiter.
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
			i++
		}
		return i
	}
}
