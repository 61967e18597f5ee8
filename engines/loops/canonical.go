package loops

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// volatileInputFields are the top-level tool_input keys that CanonicalInput
// drops. Each says how a call is made or labelled, not what it does, so two
// calls that differ only in them are the same call:
//
//   - description: the label the model writes for a Bash or Agent call; it is
//     reworded from call to call while the command stays the same.
//   - timeout, timeout_ms: how long to wait (Bash, TaskOutput, Monitor); a
//     retry with a longer timeout is still the same command.
//   - run_in_background: where the output goes, not what runs.
//   - dangerouslyDisableSandbox: a permission override on the same command.
//   - task_progress: a progress checklist some harnesses (Cline) attach to
//     every call and rewrite each time.
//
// Only the top level is filtered: nested keys of the same name are content
// (an AskUserQuestion option's description, say).
var volatileInputFields = []string{
	"dangerouslyDisableSandbox",
	"description",
	"run_in_background",
	"task_progress",
	"timeout",
	"timeout_ms",
}

// VolatileInputFields returns the top-level tool_input keys dropped by
// CanonicalInput (a copy; see the list's comment for why each is dropped).
func VolatileInputFields() []string { return slices.Clone(volatileInputFields) }

// volatileResultFields are tool_response keys that change on every call even
// when the tool did exactly the same thing: timings, token counts, and ids
// and paths minted per call. They are dropped at every depth, because no
// built-in tool nests content under these names.
var volatileResultFields = []string{
	"agentId",
	"backgroundTaskId",
	"duration_ms",
	"durationMs",
	"durationSeconds",
	"persistedOutputPath",
	"rawOutputPath",
	"stdoutPersistedOutputPath",
	"tool_use_id",
	"totalDurationMs",
	"totalTokens",
	"usage",
}

// volatileResultTop are tool_response keys that change on every call at
// the top level only, where the CLI puts them (BashOutput's "timestamp" of
// the poll, 2.0.x); nested under the same name they may be content.
var volatileResultTop = []string{"timestamp"}

// ShortHash is the hash format events use: the first 8 bytes of SHA-256 as
// 16 lower-case hex digits. 64 bits keep the state small and make a collision
// inside a 20-event window negligible.
func ShortHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// CanonicalInput returns a canonical JSON text for a tool_input: object keys
// sorted, insignificant whitespace removed, numbers in one spelling (1, 1.0
// and 1e0 are the same), strings re-escaped, and the top-level volatile
// fields (VolatileInputFields) dropped. Equal calls give equal texts whatever
// their key order. Input that is not valid JSON is returned as "!" followed
// by its trimmed bytes, which no valid input can produce.
func CanonicalInput(raw []byte) string {
	return canonical(raw, volatileInputFields, false)
}

// InputHash is ShortHash of CanonicalInput: the Event.Input of a call.
func InputHash(raw []byte) string {
	return ShortHash([]byte(CanonicalInput(raw)))
}

// ResultHash hashes a tool_response (or a PostToolBatch string response) for
// Event.Result, after dropping the per-call metadata (timings, token counts,
// per-call ids and paths) at every depth. Only metadata is dropped: output
// text is compared exactly, so output that changes only in a number (a
// progress counter while polling) is a changed result, as it should be.
//
// A response over MaxCanonicalResult bytes is hashed as it is written
// (trimmed, behind a "#" that no canonical text starts with) instead:
// canonicalising it would hold it decoded and re-encoded beside the raw
// bytes, several times its size. Such a response is still the same result
// when it is repeated byte for byte.
func ResultHash(raw []byte) string {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > MaxCanonicalResult {
		h := sha256.New()
		h.Write([]byte("#"))
		h.Write(trimmed)
		return hex.EncodeToString(h.Sum(nil)[:8])
	}
	return ShortHash([]byte(canonical(raw, volatileResultFields, true)))
}

// MaxCanonicalResult is the size in bytes of the largest tool_response
// ResultHash canonicalises.
const MaxCanonicalResult = 1 << 20

// canonical decodes raw with encoding/json (numbers kept as written) and
// writes the value back canonically (writeCanonical), dropping the keys in
// drop at the top level, or at every depth when deep.
func canonical(raw []byte, drop []string, deep bool) string {
	trimmed := bytes.TrimSpace(raw)
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "!" + string(trimmed)
	}
	// Anything after the first value makes the text invalid JSON.
	if _, err := dec.Token(); err != io.EOF {
		return "!" + string(trimmed)
	}
	var b strings.Builder
	b.Grow(len(trimmed))
	writeCanonical(&b, v, drop, deep, true)
	return b.String()
}

func writeCanonical(b *strings.Builder, v any, drop []string, deep, top bool) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(canonicalNumber(string(x)))
	case string:
		writeString(b, x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e, drop, deep, false)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			if (top || deep) && slices.Contains(drop, k) || top && deep && slices.Contains(volatileResultTop, k) {
				continue
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			writeCanonical(b, x[k], drop, deep, false)
		}
		b.WriteByte('}')
	}
}

// canonicalNumber gives every spelling of a number one form: integers as
// written (JSON forbids leading zeros, so they are already unique, and big
// ones keep every digit), others through float64 in the shortest form.
func canonicalNumber(s string) string {
	if !strings.ContainsAny(s, ".eE") {
		if s == "-0" {
			return "0"
		}
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return s
	}
	if f == 0 {
		return "0"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// writeString writes s as a JSON string with a fixed escaping (the decoder
// has already replaced invalid UTF-8 with U+FFFD).
func writeString(b *strings.Builder, s string) {
	const hexDigits = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c < 0x20:
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xf])
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(`\ufffd`)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

// topFields is the top-level members of an object (nil when input is not
// one), for TargetOf.
func topFields(input []byte) map[string]json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(input, &fields) != nil {
		return nil
	}
	return fields
}
