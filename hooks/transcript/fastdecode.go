package transcript

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The fast decoder: a one-pass recursive-descent parser that checks the
// whole line's syntax as encoding/json's scanner does and fills an Entry
// directly, for the common shape of a transcript line. Whatever it is not
// sure to decode exactly as decodeReflect does (a key spelt with escapes or
// in another case, a field given twice, a value of an unexpected type,
// null where a pointer or raw value is expected, a number that is not a
// plain integer, deep nesting, any syntax error) makes it give up, and
// Decode falls back to encoding/json: the fast path is an optimisation
// only, held to decodeReflect by TestFastDecodeMatchesReflect (every line
// of the corpus) and FuzzFastDecode.
//
// Strings are scanned eight bytes at a time for a quote, a backslash or a
// control character (the word tricks of Anderson's "Bit Twiddling Hacks",
// haszero/hasless), so a tool input holding a whole file costs a fast scan
// and, when the caller wants it (not narrow), one copy.

// maxFastDepth bounds the nesting the fast path follows (encoding/json
// allows 10,000; deeper lines fall back to it).
const maxFastDepth = 256

type fastParser struct {
	b      []byte
	i      int
	depth  int
	narrow bool // raw values (tool inputs, toolUseResult) are checked, not kept
	shared bool // raw values are slices of b, not copies (DecodeShared)
}

// decodeFast decodes a line already trimmed of space. ok is false when the
// line must go to decodeReflect. With narrow, Block.Input and
// Entry.ToolUseResult are left nil (the meter reads neither).
func decodeFast(line []byte, narrow bool) (e Entry, ok bool) {
	return parseFast(fastParser{b: line, narrow: narrow})
}

// parseFast is decodeFast with the parser given (its line in p.b).
func parseFast(p fastParser) (e Entry, ok bool) {
	if !p.entry(&e) {
		return Entry{}, false
	}
	p.space()
	if p.i != len(p.b) {
		return Entry{}, false
	}
	return e, true
}

// Field bits, to refuse a field given twice (encoding/json merges or
// overwrites; the fast path does not follow it there).
const (
	fType = 1 << iota
	fSubtype
	fUUID
	fParentUUID
	fIsSidechain
	fIsMeta
	fIsCompactSummary
	fSessionID
	fPromptID
	fTimestamp
	fAgentID
	fCWD
	fMessage
	fToolUseResult
	fCompactMetadata
)

var entryKeys = []string{"type", "subtype", "uuid", "parentUuid", "isSidechain", "isMeta", "isCompactSummary", "sessionId", "promptId", "timestamp", "agentId", "cwd", "message", "toolUseResult", "compactMetadata"}

var (
	messageKeys = []string{"id", "role", "model", "content", "usage"}
	blockKeys   = []string{"type", "text", "thinking", "id", "name", "input", "tool_use_id", "content", "is_error"}
	usageKeys   = []string{"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"}
	compactKeys = []string{"trigger", "preTokens"}
)

// foldsTo reports whether key matches one of names case-insensitively
// (encoding/json's rule, bytes.EqualFold): a key that matched none exactly
// but one this way goes to encoding/json.
func foldsTo(key []byte, names []string) bool {
	// The names are ASCII: an ASCII key can match one only at its length
	// (a longer key may hold a multi-byte rune that folds to ASCII, such as
	// the Kelvin sign to k).
	ascii := true
	for _, c := range key {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	for _, n := range names {
		if (len(n) == len(key) || !ascii) && bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}

func (p *fastParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte (0 at the end).
func (p *fastParser) peek() byte {
	p.space()
	if p.i >= len(p.b) {
		return 0
	}
	return p.b[p.i]
}

// object walks an object's members, calling member with each key (the
// value is next); member returns false to give up.
func (p *fastParser) object(member func(key []byte) bool) bool {
	if p.peek() != '{' {
		return false
	}
	p.i++
	p.depth++
	if p.depth > maxFastDepth {
		return false
	}
	if p.peek() == '}' {
		p.i++
		p.depth--
		return true
	}
	for {
		if p.peek() != '"' {
			return false
		}
		start := p.i + 1
		end, esc, ok := p.stringEnd()
		if !ok || esc {
			return false
		}
		key := p.b[start:end]
		if p.peek() != ':' {
			return false
		}
		p.i++
		if !member(key) {
			return false
		}
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			p.depth--
			return true
		default:
			return false
		}
	}
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// stringEnd scans the string opening at b[i], checking its escapes and
// refusing control characters, and leaves i after its closing quote. It
// returns the index of that quote and whether the string holds an escape.
func (p *fastParser) stringEnd() (end int, esc bool, ok bool) {
	b := p.b
	j := p.i + 1
	for {
		for j+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[j:])
			q := x ^ (lsb * '"')
			s := x ^ (lsb * '\\')
			t := ((q - lsb) &^ q) | ((s - lsb) &^ s) | ((x - lsb*0x20) &^ x)
			if t&msb == 0 {
				j += 8
				continue
			}
			// The first flagged byte is exact: borrows only run upwards.
			j += bits.TrailingZeros64(t&msb) / 8
			break
		}
		if j >= len(b) {
			return 0, false, false
		}
		switch c := b[j]; {
		case c == '"':
			p.i = j + 1
			return j, esc, true
		case c == '\\':
			esc = true
			if j+1 >= len(b) {
				return 0, false, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) {
					return 0, false, false
				}
				for _, h := range b[j+2 : j+6] {
					if !isHex(h) {
						return 0, false, false
					}
				}
				j += 6
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		default:
			j++
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// str reads a string value; null leaves s empty (as encoding/json leaves a
// string field). Any other value gives up.
func (p *fastParser) str(s *string) bool {
	switch p.peek() {
	case '"':
	case 'n':
		return p.literal("null")
	default:
		return false
	}
	start := p.i
	end, esc, ok := p.stringEnd()
	if !ok {
		return false
	}
	raw := p.b[start+1 : end]
	if !esc && utf8.Valid(raw) {
		*s = string(raw)
		return true
	}
	*s = unquote(raw)
	return true
}

// unquote decodes the inside of a string whose syntax stringEnd checked, as
// encoding/json's unquoteBytes does: escapes decoded, a \u surrogate pair
// joined (a lone or broken one, and each byte of invalid UTF-8, becomes
// U+FFFD).
func unquote(s []byte) string {
	var out strings.Builder
	out.Grow(len(s))
	for r := 0; r < len(s); {
		// Copy the run up to the next escape in one write when it is
		// valid UTF-8 (IndexByte and utf8.Valid are fast on long runs);
		// else rune by rune, each bad byte becoming U+FFFD.
		end := len(s)
		if k := bytes.IndexByte(s[r:], '\\'); k >= 0 {
			end = r + k
		}
		if seg := s[r:end]; utf8.Valid(seg) {
			out.Write(seg)
		} else {
			for len(seg) > 0 {
				rr, size := utf8.DecodeRune(seg)
				if rr == utf8.RuneError && size == 1 {
					out.WriteRune(unicode.ReplacementChar)
				} else {
					out.Write(seg[:size])
				}
				seg = seg[size:]
			}
		}
		if r = end; r == len(s) {
			break
		}
		switch e := s[r+1]; e {
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			rr := hex4(s[r+2 : r+6])
			r += 6
			if utf16.IsSurrogate(rr) {
				if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' {
					if dec := utf16.DecodeRune(rr, hex4(s[r+2:r+6])); dec != unicode.ReplacementChar {
						r += 6
						out.WriteRune(dec)
						continue
					}
				}
				rr = unicode.ReplacementChar
			}
			out.WriteRune(rr)
			continue
		default: // " \\ /
			out.WriteByte(e)
		}
		r += 2
	}
	return out.String()
}

// hex4 is the value of four hex digits (checked by stringEnd).
func hex4(h []byte) rune {
	var v rune
	for _, c := range h {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		v = v<<4 | rune(c)
	}
	return v
}

// boolean reads true, false or null (leaving v false).
func (p *fastParser) boolean(v *bool) bool {
	switch p.peek() {
	case 't':
		*v = true
		return p.literal("true")
	case 'f':
		*v = false
		return p.literal("false")
	case 'n':
		return p.literal("null")
	}
	return false
}

func (p *fastParser) literal(lit string) bool {
	if !bytes.HasPrefix(p.b[p.i:], []byte(lit)) {
		return false
	}
	p.i += len(lit)
	return true
}

// integer reads a plain integer (lenientInt's value for it); fractions,
// exponents, strings and null give up.
func (p *fastParser) integer(n *int64) bool {
	p.space()
	start := p.i
	if !p.number() {
		return false
	}
	v, err := strconv.ParseInt(string(p.b[start:p.i]), 10, 64)
	if err != nil {
		return false
	}
	*n = v
	return true
}

// number checks a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *fastParser) number() bool {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	p.i = i
	return true
}

// skip checks and passes over any value.
func (p *fastParser) skip() bool {
	switch c := p.peek(); {
	case c == '"':
		_, _, ok := p.stringEnd()
		return ok
	case c == '{':
		return p.object(func([]byte) bool { return p.skip() })
	case c == '[':
		return p.array(p.skip)
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	}
	return false
}

// array walks an array's elements, calling elem at each.
func (p *fastParser) array(elem func() bool) bool {
	if p.peek() != '[' {
		return false
	}
	p.i++
	p.depth++
	if p.depth > maxFastDepth {
		return false
	}
	if p.peek() == ']' {
		p.i++
		p.depth--
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			p.depth--
			return true
		default:
			return false
		}
	}
}

// raw passes over a value and returns a copy of its bytes (nil when
// narrow), as json.RawMessage keeps it; null gives up.
func (p *fastParser) raw(v *json.RawMessage) bool {
	if p.peek() == 'n' {
		return false
	}
	start := p.i
	if !p.skip() {
		return false
	}
	switch {
	case p.narrow:
	case p.shared:
		*v = json.RawMessage(p.b[start:p.i:p.i])
	default:
		*v = append(json.RawMessage(nil), p.b[start:p.i]...)
	}
	return true
}

// once marks a field seen; false if it was already.
func once(seen *uint32, bit uint32) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

func (p *fastParser) entry(e *Entry) bool {
	var seen uint32
	var m *Message
	var cm *rawCompactFast
	ok := p.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			return once(&seen, fType) && p.str(&e.Type)
		case "subtype":
			return once(&seen, fSubtype) && p.str(&e.Subtype)
		case "uuid":
			return once(&seen, fUUID) && p.str(&e.UUID)
		case "parentUuid":
			return once(&seen, fParentUUID) && p.str(&e.ParentUUID)
		case "isSidechain":
			return once(&seen, fIsSidechain) && p.boolean(&e.IsSidechain)
		case "isMeta":
			return once(&seen, fIsMeta) && p.boolean(&e.IsMeta)
		case "isCompactSummary":
			return once(&seen, fIsCompactSummary) && p.boolean(&e.IsCompactSummary)
		case "sessionId":
			return once(&seen, fSessionID) && p.str(&e.SessionID)
		case "promptId":
			return once(&seen, fPromptID) && p.str(&e.PromptID)
		case "timestamp":
			return once(&seen, fTimestamp) && p.str(&e.Timestamp)
		case "agentId":
			return once(&seen, fAgentID) && p.str(&e.AgentID)
		case "cwd":
			return once(&seen, fCWD) && p.str(&e.CWD)
		case "message":
			if !once(&seen, fMessage) {
				return false
			}
			if p.peek() == 'n' {
				return p.literal("null")
			}
			m = &Message{}
			return p.message(m)
		case "toolUseResult":
			return once(&seen, fToolUseResult) && p.raw(&e.ToolUseResult)
		case "compactMetadata":
			if !once(&seen, fCompactMetadata) {
				return false
			}
			if p.peek() == 'n' {
				return p.literal("null")
			}
			cm = &rawCompactFast{}
			return p.compact(cm)
		}
		return !foldsTo(key, entryKeys) && p.skip()
	})
	if !ok {
		return false
	}
	if m != nil && (m.ID != "" || m.Role != "" || m.Model != "" || m.Usage != nil || m.Content.Text != "" || m.Content.Blocks != nil) {
		e.Message = m
	}
	if cm != nil && (cm.Trigger != "" || cm.hasPre) {
		e.CompactMetadata = &CompactMetadata{Trigger: cm.Trigger, PreTokens: cm.PreTokens}
	}
	return true
}

type rawCompactFast struct {
	CompactMetadata
	hasPre bool
}

func (p *fastParser) compact(cm *rawCompactFast) bool {
	var seen uint32
	return p.object(func(key []byte) bool {
		switch string(key) {
		case "trigger":
			return once(&seen, 1) && p.str(&cm.Trigger)
		case "preTokens":
			cm.hasPre = true
			return once(&seen, 2) && p.integer(&cm.PreTokens)
		}
		return !foldsTo(key, compactKeys) && p.skip()
	})
}

func (p *fastParser) message(m *Message) bool {
	var seen uint32
	return p.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			return once(&seen, 1) && p.str(&m.ID)
		case "role":
			return once(&seen, 2) && p.str(&m.Role)
		case "model":
			return once(&seen, 4) && p.str(&m.Model)
		case "content":
			return once(&seen, 8) && p.content(&m.Content)
		case "usage":
			if !once(&seen, 16) {
				return false
			}
			if p.peek() == 'n' {
				return p.literal("null")
			}
			return p.usage(&m.Usage)
		}
		return !foldsTo(key, messageKeys) && p.skip()
	})
}

func (p *fastParser) usage(out **Usage) bool {
	var seen uint32
	var u Usage
	hasInput := false
	ok := p.object(func(key []byte) bool {
		switch string(key) {
		case "input_tokens":
			hasInput = true
			return once(&seen, 1) && p.integer(&u.InputTokens)
		case "cache_creation_input_tokens":
			return once(&seen, 2) && p.integer(&u.CacheCreationInputTokens)
		case "cache_read_input_tokens":
			return once(&seen, 4) && p.integer(&u.CacheReadInputTokens)
		case "output_tokens":
			return once(&seen, 8) && p.integer(&u.OutputTokens)
		}
		return !foldsTo(key, usageKeys) && p.skip()
	})
	if ok && hasInput {
		*out = &u
	}
	return ok
}

// content reads a string or a list of blocks (Content.UnmarshalJSON); an
// element that is not an object, and any other value, give up.
func (p *fastParser) content(c *Content) bool {
	switch p.peek() {
	case '"':
		return p.str(&c.Text)
	case '[':
	default:
		return false
	}
	c.Blocks = []Block{}
	return p.array(func() bool {
		var b Block
		if !p.block(&b) {
			return false
		}
		if b.Type != "" {
			c.Blocks = append(c.Blocks, b)
		}
		return true
	})
}

func (p *fastParser) block(b *Block) bool {
	var seen uint32
	return p.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			return once(&seen, 1) && p.str(&b.Type)
		case "text":
			return once(&seen, 2) && p.str(&b.Text)
		case "thinking":
			return once(&seen, 4) && p.str(&b.Thinking)
		case "id":
			return once(&seen, 8) && p.str(&b.ID)
		case "name":
			return once(&seen, 16) && p.str(&b.Name)
		case "input":
			return once(&seen, 32) && p.raw(&b.Input)
		case "tool_use_id":
			return once(&seen, 64) && p.str(&b.ToolUseID)
		case "content":
			if !once(&seen, 128) {
				return false
			}
			if p.peek() == 'n' {
				return p.literal("null")
			}
			b.Content = &Content{}
			return p.content(b.Content)
		case "is_error":
			return once(&seen, 256) && p.boolean(&b.IsError)
		}
		return !foldsTo(key, blockKeys) && p.skip()
	})
}
