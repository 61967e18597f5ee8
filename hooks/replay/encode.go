package replay

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// appendValue appends v, a value json.Unmarshal decoded into an any (nil,
// bool, float64, string, []any, map[string]any), exactly as json.Marshal
// writes it: object keys sorted, <, > and & escaped, each byte that is not
// UTF-8 as \ufffd, U+2028 and U+2029 escaped, numbers as encoding/json
// formats a float64. mapInput re-encoded every tool input and response
// with json.Marshal, whose reflection was a third of its time;
// TestAppendValueMatchesMarshal and FuzzAppendValue hold this to it.
// ok is false for a value json.Marshal would refuse (a NaN or an infinity,
// which Unmarshal never gives) or a type it does not know; the caller then
// uses json.Marshal.
func appendValue(dst []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case bool:
		return strconv.AppendBool(dst, x), true
	case float64:
		return appendFloat(dst, x)
	case string:
		return appendString(dst, x), true
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendValue(dst, e); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, strings.Compare)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, k)
			dst = append(dst, ':')
			var ok bool
			if dst, ok = appendValue(dst, x[k]); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	}
	return dst, false
}

// appendFloat formats f as encoding/json's float64 encoder does (ES6
// number to string: %f, or %e outside [1e-6, 1e21) without a padded
// exponent).
func appendFloat(dst []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

const hexDigits = "0123456789abcdef"

// htmlSafe holds the ASCII bytes encoding/json writes as they are (with
// HTML escaping); strPlain the bytes a string literal's scan passes over.
var htmlSafe, strPlain [256]bool

func init() {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		htmlSafe[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	for b := 0x20; b < 256; b++ {
		strPlain[b] = b != '"' && b != '\\'
	}
}

// appendString quotes s as encoding/json does with HTML escaping on.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if htmlSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// rawMapper is mapInput's one pass: it writes each value as appendValue
// would write what json.Unmarshal decodes, strings through mapString.
// value's ok is false for anything that is not JSON, a number float64
// cannot hold (which json.Unmarshal refuses) or nesting deeper than
// maxMapDepth, and mapInput then takes the long way, which decides. An ok
// value is thus always valid JSON.
type rawMapper struct {
	b     []byte
	i     int
	r     *paths
	depth int
}

// maxMapDepth bounds the nesting mapRaw follows; deeper input takes the
// long way (encoding/json refuses more than 10000 levels).
const maxMapDepth = 1000

func (m *rawMapper) space() {
	for m.i < len(m.b) {
		switch m.b[m.i] {
		case ' ', '\t', '\n', '\r':
			m.i++
		default:
			return
		}
	}
}

func (m *rawMapper) value(dst []byte) ([]byte, bool) {
	m.space()
	if m.i >= len(m.b) {
		return dst, false
	}
	switch c := m.b[m.i]; c {
	case '{', '[':
		if m.depth++; m.depth > maxMapDepth {
			return dst, false
		}
		defer func() { m.depth-- }()
		if c == '{' {
			return m.object(dst)
		}
		return m.array(dst)
	case '"':
		s, ok := m.str()
		if !ok {
			return dst, false
		}
		return appendString(dst, m.r.mapString(s)), true
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if lit[0] == c && len(m.b)-m.i >= len(lit) && string(m.b[m.i:m.i+len(lit)]) == lit {
				m.i += len(lit)
				return append(dst, lit...), true
			}
		}
		return dst, false
	}
	start := m.i
	if !m.number() {
		return dst, false
	}
	f, err := strconv.ParseFloat(string(m.b[start:m.i]), 64)
	if err != nil {
		return dst, false
	}
	return appendFloat(dst, f)
}

// number passes over a number as JSON spells it and reports whether there
// was one: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (m *rawMapper) number() bool {
	if m.i < len(m.b) && m.b[m.i] == '-' {
		m.i++
	}
	switch {
	case m.i < len(m.b) && m.b[m.i] == '0':
		m.i++
	case m.digits() == 0:
		return false
	}
	if m.i < len(m.b) && m.b[m.i] == '.' {
		m.i++
		if m.digits() == 0 {
			return false
		}
	}
	if m.i < len(m.b) && (m.b[m.i] == 'e' || m.b[m.i] == 'E') {
		m.i++
		if m.i < len(m.b) && (m.b[m.i] == '+' || m.b[m.i] == '-') {
			m.i++
		}
		if m.digits() == 0 {
			return false
		}
	}
	return true
}

func (m *rawMapper) digits() int {
	start := m.i
	for m.i < len(m.b) && '0' <= m.b[m.i] && m.b[m.i] <= '9' {
		m.i++
	}
	return m.i - start
}

// str reads a string literal and decodes it as json.Unmarshal does
// (unquote). One without escapes that is valid UTF-8 is its bytes.
func (m *rawMapper) str() (string, bool) {
	m.i++ // "
	start, escaped := m.i, false
	for m.i < len(m.b) {
		for m.i < len(m.b) && strPlain[m.b[m.i]] {
			m.i++
		}
		if m.i >= len(m.b) {
			break
		}
		switch m.b[m.i] {
		case '"':
			inner := m.b[start:m.i]
			m.i++
			if !escaped && utf8.Valid(inner) {
				return string(inner), true
			}
			return unquote(inner)
		case '\\':
			escaped = true
			m.i += 2
		default:
			return "", false // a control byte: not JSON
		}
	}
	return "", false
}

// unquote decodes a string literal's inside as encoding/json does:
// escapes, \u surrogate pairs (a broken one is U+FFFD, and what follows
// it is read on its own), and each byte that does not start a UTF-8
// sequence as U+FFFD.
func unquote(s []byte) (string, bool) {
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
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
		case c == '"' || c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			b = append(b, c)
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
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

func (m *rawMapper) array(dst []byte) ([]byte, bool) {
	m.i++ // [
	dst = append(dst, '[')
	m.space()
	if m.i < len(m.b) && m.b[m.i] == ']' {
		m.i++
		return append(dst, ']'), true
	}
	for {
		var ok bool
		if dst, ok = m.value(dst); !ok {
			return dst, false
		}
		m.space()
		if m.i >= len(m.b) {
			return dst, false
		}
		switch m.b[m.i] {
		case ',':
			m.i++
			dst = append(dst, ',')
		case ']':
			m.i++
			return append(dst, ']'), true
		default:
			return dst, false
		}
	}
}

// member is one key and value of an object as written into dst: the key
// decoded, and the bytes from the key's quote to the value's end.
type member struct {
	key        string
	start, end int
}

// object writes the members as they come; when their keys are not
// strictly increasing (json.Marshal sorts a map's keys, and the map kept
// only the last of equal ones) it rewrites them sorted.
func (m *rawMapper) object(dst []byte) ([]byte, bool) {
	m.i++ // {
	open := len(dst)
	dst = append(dst, '{')
	m.space()
	if m.i < len(m.b) && m.b[m.i] == '}' {
		m.i++
		return append(dst, '}'), true
	}
	var members []member
	sorted := true
	for {
		m.space()
		if m.i >= len(m.b) || m.b[m.i] != '"' {
			return dst, false
		}
		key, ok := m.str()
		if !ok {
			return dst, false
		}
		if n := len(members); n > 0 && members[n-1].key >= key {
			sorted = false
		}
		if len(members) > 0 {
			dst = append(dst, ',')
		}
		start := len(dst)
		dst = appendString(dst, key)
		dst = append(dst, ':')
		m.space()
		if m.i >= len(m.b) || m.b[m.i] != ':' {
			return dst, false
		}
		m.i++
		if dst, ok = m.value(dst); !ok {
			return dst, false
		}
		members = append(members, member{key, start, len(dst)})
		m.space()
		if m.i >= len(m.b) {
			return dst, false
		}
		if m.b[m.i] == '}' {
			m.i++
			break
		}
		if m.b[m.i] != ',' {
			return dst, false
		}
		m.i++
	}
	if sorted {
		return append(dst, '}'), true
	}
	written := bytes.Clone(dst[open:])
	for k := range members {
		members[k].start -= open
		members[k].end -= open
	}
	// Stable: of equal keys, the last is the one the map kept.
	slices.SortStableFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	dst = append(dst[:open], '{')
	first := true
	for k, mb := range members {
		if k+1 < len(members) && members[k+1].key == mb.key {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, written[mb.start:mb.end]...)
	}
	return append(dst, '}'), true
}
