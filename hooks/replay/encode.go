package replay

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
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
// reorderBufs hold the members of an object rawMapper puts in key order
// while it does (the decoder goroutine and the hooks' map inputs alike).
var reorderBufs = sync.Pool{New: func() any { return new([]byte) }}

type rawMapper struct {
	b     []byte
	i     int
	r     *paths
	depth int

	// cwd is r.origCwd, and cwdPlain says whether it is plainInLiteral
	// (appendLiteral takes nothing otherwise).
	cwd      []byte
	cwdPlain bool
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
		if out, ok := m.appendLiteral(dst); ok {
			return out, true
		}
		inner, escaped, ok := m.strSpan()
		if !ok {
			return dst, false
		}
		s, ok := decodeString(inner, escaped)
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
// (unquote).
func (m *rawMapper) str() (string, bool) {
	inner, escaped, ok := m.strSpan()
	if !ok {
		return "", false
	}
	return decodeString(inner, escaped)
}

// strSpan passes over a string literal, leaving m.i after its closing
// quote, and returns its inside and whether that holds a backslash; ok is
// false for an unclosed literal or one with a control byte. Escapes are
// not checked here (decodeString and verbatim do).
func (m *rawMapper) strSpan() (inner []byte, escaped, ok bool) {
	m.i++ // "
	start := m.i
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
			return inner, escaped, true
		case '\\':
			escaped = true
			m.i += 2
		default:
			return nil, false, false // a control byte: not JSON
		}
	}
	return nil, false, false
}

// decodeString decodes a string literal's inside as json.Unmarshal does:
// one without escapes that is valid UTF-8 is its bytes.
func decodeString(inner []byte, escaped bool) (string, bool) {
	if !escaped && utf8.Valid(inner) {
		return string(inner), true
	}
	return unquote(inner)
}

// appendLiteral reads the string literal at m.i and appends what the
// round trip (decode, mapString, appendString) writes for it, straight
// from the literal, when mapString leaves the string as it is: it does
// not start with a slash, spelt / or \/ (mapString moves an absolute
// path), and does not hold the original working directory (which
// mapString replaces; when that directory has no byte a literal must
// escape, its every occurrence in a decoded string is one in the
// literal, so looking for it there is enough, and otherwise nothing is
// taken this way). Runs of plain bytes and the escapes appendString
// writes back alike (\", \\, \n, \r, \t, \b, \f) are copied; <, > and &
// become \u003c, \u003e and \u0026, \/ a slash, U+2028 and U+2029 their
// escapes. ok is false, with dst and m.i as they were, for what it
// leaves to the long way: a \u escape, a byte that is not UTF-8, a
// control byte, an unclosed literal.
//
// Most of a tool call's bytes are file contents and command output,
// which take this way: decoding and re-encoding them was most of
// mapInput's time. Plain bytes are passed over eight at a time.
// TestMapInputMatchesMarshal, TestMapInputLiterals, FuzzAppendValue and
// FuzzMapInputCwd hold it to the round trip.
func (m *rawMapper) appendLiteral(dst []byte) ([]byte, bool) {
	b := m.b
	first := m.i + 1 // the literal's inside starts here
	if !m.cwdPlain || bytes.HasPrefix(b[first:], []byte("/")) || bytes.HasPrefix(b[first:], []byte(`\/`)) {
		return dst, false
	}
	n := len(dst)
	dst = append(dst, '"')
	start := first // plain bytes from start on are not copied yet
	for i := first; ; {
		for i+8 <= len(b) {
			if t := specialBytes(binary.LittleEndian.Uint64(b[i:])); t != 0 {
				// The first flagged byte is exact: borrows only run
				// upwards.
				i += bits.TrailingZeros64(t) / 8
				break
			}
			i += 8
		}
		if i >= len(b) {
			return dst[:n], false
		}
		c := b[i]
		switch {
		case htmlSafe[c]:
			i++
		case c == '"':
			if bytes.Contains(b[first:i], m.cwd) {
				return dst[:n], false
			}
			dst = append(dst, b[start:i]...)
			m.i = i + 1
			return append(dst, '"'), true
		case c == '\\':
			if i+1 >= len(b) {
				return dst[:n], false
			}
			switch b[i+1] {
			case '"', '\\', 'n', 'r', 't', 'b', 'f':
				i += 2
			case '/':
				dst = append(dst, b[start:i]...)
				dst = append(dst, '/')
				i += 2
				start = i
			default:
				return dst[:n], false
			}
		case c == '<', c == '>', c == '&':
			dst = append(dst, b[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			i++
			start = i
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(b[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				return dst[:n], false
			case r == '\u2028' || r == '\u2029':
				dst = append(dst, b[start:i]...)
				dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
				start = i + size
			}
			i += size
		default:
			return dst[:n], false
		}
	}
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// specialBytes flags, in the high bit of its byte, each byte of the eight
// in x (little-endian) that appendLiteral cannot pass over: a quote, a
// backslash, <, >, &, a control byte, a byte that is not ASCII. A byte
// after a flagged one may be flagged wrongly; the first is exact.
func specialBytes(x uint64) uint64 {
	q := x ^ (lsb * '"')
	s := x ^ (lsb * '\\')
	a := x ^ (lsb * '&')
	// < (0x3c) and > (0x3e), and nothing else, are 0x3e once bit 1 is set.
	g := (x | (lsb * 2)) ^ (lsb * '>')
	t := ((q - lsb) &^ q) | ((s - lsb) &^ s) | ((a - lsb) &^ a) | ((g - lsb) &^ g) | ((x - lsb*0x20) &^ x) | x
	return t & msb
}

// plainInLiteral reports whether s has no byte a JSON string literal
// spells with an escape (a quote, a backslash, a control byte), so that
// s occurs in a decoded string only where it occurs in the literal.
func plainInLiteral(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
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
	// The members as written, in a pooled buffer: a file tool's
	// response, whose keys are out of order, carries a whole file.
	bp := reorderBufs.Get().(*[]byte)
	written := append((*bp)[:0], dst[open:]...)
	defer func() {
		*bp = written[:0]
		reorderBufs.Put(bp)
	}()
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
