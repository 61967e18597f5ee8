package loops

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// canonicalFast writes the canonical text of trimmed in one pass over its
// bytes, without decoding it to an any first (that took most of
// InputHash's and ResultHash's time, once per tool call). ok is false for
// anything that is not one JSON value, or nests deeper than
// maxCanonDepth; canonicalDecoded then decides. TestCanonicalFastMatches
// and FuzzCanonicalFast hold it to canonicalDecoded.
func canonicalFast(trimmed []byte, drop []string, deep bool) (string, bool) {
	c := canonScanner{b: trimmed, drop: drop, deep: deep}
	out, ok := c.value(make([]byte, 0, len(trimmed)), true)
	if !ok {
		return "", false
	}
	c.space()
	if c.i != len(c.b) {
		return "", false
	}
	return string(out), true
}

// maxCanonDepth bounds the nesting canonicalFast follows (encoding/json
// refuses more than 10000 levels).
const maxCanonDepth = 1000

type canonScanner struct {
	b     []byte
	i     int
	drop  []string
	deep  bool
	depth int
}

func (c *canonScanner) space() {
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

func (c *canonScanner) value(dst []byte, top bool) ([]byte, bool) {
	c.space()
	if c.i >= len(c.b) {
		return dst, false
	}
	switch ch := c.b[c.i]; ch {
	case '{', '[':
		if c.depth++; c.depth > maxCanonDepth {
			return dst, false
		}
		var ok bool
		if ch == '{' {
			dst, ok = c.object(dst, top)
		} else {
			dst, ok = c.array(dst)
		}
		c.depth--
		return dst, ok
	case '"':
		s, ok := c.str()
		if !ok {
			return dst, false
		}
		return appendCanonString(dst, s), true
	case 't', 'f', 'n':
		for _, lit := range [...]string{"true", "false", "null"} {
			if lit[0] == ch && len(c.b)-c.i >= len(lit) && string(c.b[c.i:c.i+len(lit)]) == lit {
				c.i += len(lit)
				return append(dst, lit...), true
			}
		}
		return dst, false
	}
	start := c.i
	if !c.number() {
		return dst, false
	}
	return append(dst, canonicalNumber(string(c.b[start:c.i]))...), true
}

// number passes over a number as JSON spells it and reports whether there
// was one: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (c *canonScanner) number() bool {
	if c.i < len(c.b) && c.b[c.i] == '-' {
		c.i++
	}
	switch {
	case c.i < len(c.b) && c.b[c.i] == '0':
		c.i++
	case c.digits() == 0:
		return false
	}
	if c.i < len(c.b) && c.b[c.i] == '.' {
		c.i++
		if c.digits() == 0 {
			return false
		}
	}
	if c.i < len(c.b) && (c.b[c.i] == 'e' || c.b[c.i] == 'E') {
		c.i++
		if c.i < len(c.b) && (c.b[c.i] == '+' || c.b[c.i] == '-') {
			c.i++
		}
		if c.digits() == 0 {
			return false
		}
	}
	return true
}

func (c *canonScanner) digits() int {
	start := c.i
	for c.i < len(c.b) && '0' <= c.b[c.i] && c.b[c.i] <= '9' {
		c.i++
	}
	return c.i - start
}

// strPlain holds the bytes a string literal's scan passes over.
var strPlain = func() (t [256]bool) {
	for b := 0x20; b < 256; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// str reads a string literal and decodes it as encoding/json does
// (unquote); one without escapes that is valid UTF-8 is its bytes.
func (c *canonScanner) str() (string, bool) {
	c.i++ // "
	start, escaped := c.i, false
	for c.i < len(c.b) {
		for c.i < len(c.b) && strPlain[c.b[c.i]] {
			c.i++
		}
		if c.i >= len(c.b) {
			break
		}
		switch c.b[c.i] {
		case '"':
			inner := c.b[start:c.i]
			c.i++
			if !escaped && utf8.Valid(inner) {
				return string(inner), true
			}
			return unquote(inner)
		case '\\':
			escaped = true
			c.i += 2
		default:
			return "", false // a control byte: not JSON
		}
	}
	return "", false
}

func (c *canonScanner) array(dst []byte) ([]byte, bool) {
	c.i++ // [
	dst = append(dst, '[')
	c.space()
	if c.i < len(c.b) && c.b[c.i] == ']' {
		c.i++
		return append(dst, ']'), true
	}
	for {
		var ok bool
		if dst, ok = c.value(dst, false); !ok {
			return dst, false
		}
		c.space()
		if c.i >= len(c.b) {
			return dst, false
		}
		switch c.b[c.i] {
		case ',':
			c.i++
			dst = append(dst, ',')
		case ']':
			c.i++
			return append(dst, ']'), true
		default:
			return dst, false
		}
	}
}

// canonMember is one kept key and its value as written into dst: the key
// decoded, and the bytes from the key's quote to the value's end.
type canonMember struct {
	key        string
	start, end int
}

// object writes the kept members as they come; when their keys are not
// strictly increasing (the canonical form sorts them, and decoding kept
// only the last of equal ones) it rewrites them sorted.
func (c *canonScanner) object(dst []byte, top bool) ([]byte, bool) {
	c.i++ // {
	open := len(dst)
	dst = append(dst, '{')
	c.space()
	if c.i < len(c.b) && c.b[c.i] == '}' {
		c.i++
		return append(dst, '}'), true
	}
	var members []canonMember
	sorted := true
	for {
		c.space()
		if c.i >= len(c.b) || c.b[c.i] != '"' {
			return dst, false
		}
		key, ok := c.str()
		if !ok {
			return dst, false
		}
		c.space()
		if c.i >= len(c.b) || c.b[c.i] != ':' {
			return dst, false
		}
		c.i++
		if (top || c.deep) && slices.Contains(c.drop, key) {
			// Dropped: read the value, write nothing.
			mark := len(dst)
			if dst, ok = c.value(dst, false); !ok {
				return dst, false
			}
			dst = dst[:mark]
		} else {
			if n := len(members); n > 0 && members[n-1].key >= key {
				sorted = false
			}
			if len(members) > 0 {
				dst = append(dst, ',')
			}
			start := len(dst)
			dst = appendCanonString(dst, key)
			dst = append(dst, ':')
			if dst, ok = c.value(dst, false); !ok {
				return dst, false
			}
			members = append(members, canonMember{key, start, len(dst)})
		}
		c.space()
		if c.i >= len(c.b) {
			return dst, false
		}
		if c.b[c.i] == '}' {
			c.i++
			break
		}
		if c.b[c.i] != ',' {
			return dst, false
		}
		c.i++
	}
	if sorted {
		return append(dst, '}'), true
	}
	written := slices.Clone(dst[open:])
	for k := range members {
		members[k].start -= open
		members[k].end -= open
	}
	// Stable: of equal keys, the last is the one decoding kept.
	slices.SortStableFunc(members, func(a, b canonMember) int { return strings.Compare(a.key, b.key) })
	dst = append(dst[:open], '{')
	first := true
	for k, m := range members {
		if k+1 < len(members) && members[k+1].key == m.key {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, written[m.start:m.end]...)
	}
	return append(dst, '}'), true
}

// appendCanonString appends s as writeString writes it.
func appendCanonString(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		ch := s[i]
		if ch < utf8.RuneSelf {
			if ch >= 0x20 && ch != '"' && ch != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch ch {
			case '"', '\\':
				dst = append(dst, '\\', ch)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[ch>>4], hexDigits[ch&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// unquote decodes a string literal's inside as encoding/json does:
// escapes, \u surrogate pairs (a broken one is U+FFFD, and what follows
// it is read on its own), and each byte that does not start a UTF-8
// sequence as U+FFFD.
func unquote(s []byte) (string, bool) {
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	for r := 0; r < len(s); {
		ch := s[r]
		switch {
		case ch == '\\':
			if r+1 >= len(s) {
				return "", false
			}
			switch e := s[r+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
				r += 2
			case 'b':
				b = append(b, '\b')
				r += 2
			case 'f':
				b = append(b, '\f')
				r += 2
			case 'n':
				b = append(b, '\n')
				r += 2
			case 'r':
				b = append(b, '\r')
				r += 2
			case 't':
				b = append(b, '\t')
				r += 2
			case 'u':
				rr := getu4(s[r:])
				if rr < 0 {
					return "", false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						break
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
			default:
				return "", false
			}
		case ch == '"' || ch < ' ':
			return "", false
		case ch < utf8.RuneSelf:
			b = append(b, ch)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return string(b), true
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, ch := range s[2:6] {
		switch {
		case '0' <= ch && ch <= '9':
			ch -= '0'
		case 'a' <= ch && ch <= 'f':
			ch = ch - 'a' + 10
		case 'A' <= ch && ch <= 'F':
			ch = ch - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(ch)
	}
	return r
}

// topFields is what json.Unmarshal puts into a map[string]json.RawMessage
// for input (nil when it fails): TargetOf ran that for every call, twice
// per call in the hooks. A valid object is read in one pass, its values
// left in input; anything else goes to json.Unmarshal, which decides
// (TestTopFieldsMatches, FuzzTopFields).
func topFields(input []byte) map[string]json.RawMessage {
	if fields, ok := topFieldsFast(input); ok {
		return fields
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(input, &fields) != nil {
		return nil
	}
	return fields
}

func topFieldsFast(input []byte) (map[string]json.RawMessage, bool) {
	c := canonScanner{b: input}
	c.space()
	if c.i >= len(c.b) || c.b[c.i] != '{' {
		return nil, false
	}
	c.i++
	fields := map[string]json.RawMessage{}
	c.space()
	if c.i < len(c.b) && c.b[c.i] == '}' {
		c.i++
	} else {
		for {
			c.space()
			if c.i >= len(c.b) || c.b[c.i] != '"' {
				return nil, false
			}
			key, ok := c.str()
			if !ok {
				return nil, false
			}
			c.space()
			if c.i >= len(c.b) || c.b[c.i] != ':' {
				return nil, false
			}
			c.i++
			c.space()
			start := c.i
			if !c.skip() {
				return nil, false
			}
			fields[key] = input[start:c.i:c.i]
			c.space()
			if c.i >= len(c.b) {
				return nil, false
			}
			if c.b[c.i] == '}' {
				c.i++
				break
			}
			if c.b[c.i] != ',' {
				return nil, false
			}
			c.i++
		}
	}
	c.space()
	return fields, c.i == len(c.b)
}

// skip passes over one JSON value without decoding it, reporting whether
// it was one (as value would, without writing anything).
func (c *canonScanner) skip() bool {
	c.space()
	if c.i >= len(c.b) {
		return false
	}
	switch ch := c.b[c.i]; ch {
	case '{', '[':
		if c.depth++; c.depth > maxCanonDepth {
			return false
		}
		defer func() { c.depth-- }()
		end := byte(']')
		if ch == '{' {
			end = '}'
		}
		c.i++
		c.space()
		if c.i < len(c.b) && c.b[c.i] == end {
			c.i++
			return true
		}
		for {
			if ch == '{' {
				c.space()
				if c.i >= len(c.b) || c.b[c.i] != '"' || !c.skipString() {
					return false
				}
				c.space()
				if c.i >= len(c.b) || c.b[c.i] != ':' {
					return false
				}
				c.i++
			}
			if !c.skip() {
				return false
			}
			c.space()
			if c.i >= len(c.b) {
				return false
			}
			switch c.b[c.i] {
			case ',':
				c.i++
			case end:
				c.i++
				return true
			default:
				return false
			}
		}
	case '"':
		return c.skipString()
	case 't', 'f', 'n':
		for _, lit := range [...]string{"true", "false", "null"} {
			if lit[0] == ch && len(c.b)-c.i >= len(lit) && string(c.b[c.i:c.i+len(lit)]) == lit {
				c.i += len(lit)
				return true
			}
		}
		return false
	}
	return c.number()
}

// skipString passes over a string literal, checking its escapes.
func (c *canonScanner) skipString() bool {
	c.i++ // "
	for c.i < len(c.b) {
		for c.i < len(c.b) && strPlain[c.b[c.i]] {
			c.i++
		}
		if c.i >= len(c.b) {
			return false
		}
		switch c.b[c.i] {
		case '"':
			c.i++
			return true
		case '\\':
			if c.i+1 >= len(c.b) {
				return false
			}
			switch c.b[c.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				c.i += 2
			case 'u':
				if getu4(c.b[c.i:]) < 0 {
					return false
				}
				c.i += 6
			default:
				return false
			}
		default:
			return false // a control byte
		}
	}
	return false
}
