package state

// This file is the hand-written half of the reflection-free JSON codec of
// the documents every hook reads and writes (window.json, and the lines of
// turns.jsonl and advisories.jsonl); codec_gen.go, written by
// internal/codecgen from the type declarations, is the other half.
//
// Why: a hook is a fresh process, and in a fresh process encoding/json
// spends most of its time building its per-type caches by reflection
// (typeFields, newTypeEncoder) before it touches the first byte. The codec
// does the same work as straight-line code.
//
// The contract is encoding/json's own behaviour, mirrored detail by detail
// and checked against it in codec_test.go (the oracle there is encoding/json
// by reflection on method-less copies of the types):
//
//   - encoding: field order, omitempty, sorted map keys, nil slices and maps
//     as null, HTML-safe string escaping (<, >, & and U+2028/U+2029 as
//     \u escapes, invalid UTF-8 as \ufffd), ES6 float formatting, time.Time
//     through its RFC 3339 text, json.RawMessage compacted; NaN, ±Inf and
//     unencodable times are errors;
//   - decoding: the same syntax as encoding/json's scanner (depth limit
//     included), keys matched exactly and then case-insensitively, unknown
//     keys skipped, null leaving values alone and setting pointers, slices
//     and maps to nil, duplicate keys decoded again into the same field
//     (maps reused, slices decoded into their existing elements), strings
//     unescaped with invalid UTF-8 and lone surrogates as U+FFFD.
//
// Error messages differ from encoding/json's; whether there is an error
// does not. Unlike json.Unmarshal, a direct call of UnmarshalJSON may leave
// the value half-decoded when the input is bad (json.Unmarshal checks the
// syntax of the whole input before it calls UnmarshalJSON, so Load never
// sees that).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonEnc accumulates one document; the first error sticks.
type jsonEnc struct {
	b   []byte
	err error
}

func (e *jsonEnc) result() ([]byte, error) {
	if e.err != nil {
		return nil, e.err
	}
	return e.b, nil
}

func (e *jsonEnc) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// comma separates a field from the one before it, if any: inside an
// object, the last byte is '{' exactly when nothing was written yet (a
// value never ends in '{').
func (e *jsonEnc) comma() {
	if e.b[len(e.b)-1] != '{' {
		e.b = append(e.b, ',')
	}
}

func (e *jsonEnc) null() { e.b = append(e.b, "null"...) }

func (e *jsonEnc) bool(v bool) { e.b = strconv.AppendBool(e.b, v) }

func (e *jsonEnc) int(v int64) { e.b = strconv.AppendInt(e.b, v, 10) }

func (e *jsonEnc) uint(v uint64) { e.b = strconv.AppendUint(e.b, v, 10) }

func (e *jsonEnc) str(s string) { e.b = appendJSONString(e.b, s) }

// float formats f as encoding/json does: like ES6's Number to String,
// shortest representation, exponent form below 1e-6 and from 1e21, the
// exponent without leading zeros.
func (e *jsonEnc) float(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		e.fail(&json.UnsupportedValueError{Value: reflect.ValueOf(f), Str: strconv.FormatFloat(f, 'g', -1, 64)})
		e.b = append(e.b, '0')
		return
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(e.b)
	b := strconv.AppendFloat(e.b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n-start >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	e.b = b
}

// time writes t as its MarshalJSON would: RFC 3339 with nanoseconds, which
// never needs escaping.
func (e *jsonEnc) time(t time.Time) {
	e.b = append(e.b, '"')
	b, err := t.AppendText(e.b)
	if err != nil {
		_, err = t.MarshalJSON() // the error encoding/json would report
		e.fail(&json.MarshalerError{Type: reflect.TypeFor[time.Time](), Err: err})
		e.b = append(e.b, '"')
		return
	}
	e.b = append(b, '"')
}

// rawMessage writes m as encoding/json writes a Marshaler's output:
// validated, compacted, and HTML-escaped.
func (e *jsonEnc) rawMessage(m json.RawMessage) {
	if m == nil {
		e.null()
		return
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, m); err != nil {
		e.fail(&json.MarshalerError{Type: reflect.TypeFor[json.RawMessage](), Err: err})
		e.null()
		return
	}
	e.b = appendHTMLEscaped(e.b, buf.Bytes())
}

// sortedKeys returns m's keys in the order encoding/json writes them.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

const hexDigits = "0123456789abcdef"

// jsonSafe[b] says an ASCII byte goes into a string as it is (encoding/json's
// htmlSafeSet).
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for b := ' '; b < utf8.RuneSelf; b++ {
		t[b] = true
	}
	for _, b := range `"\<>&` {
		t[b] = false
	}
	return t
}()

// appendJSONString is encoding/json's appendString with escapeHTML set.
func appendJSONString(dst []byte, src string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(src); {
		if b := src[i]; b < utf8.RuneSelf {
			if jsonSafe[b] {
				i++
				continue
			}
			dst = append(dst, src[start:i]...)
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
				// Other control bytes, and <, > and & (HTML-safe output).
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(src[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR break JSONP.
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, src[start:]...)
	return append(dst, '"')
}

// appendHTMLEscaped is json.HTMLEscape on compact JSON: the bytes it
// replaces can only occur inside strings.
func appendHTMLEscaped(dst, src []byte) []byte {
	start := 0
	for i, c := range src {
		if c == '<' || c == '>' || c == '&' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
		}
		// U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
		if c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[src[i+2]&0xF])
			start = i + len("\u2029")
		}
	}
	return append(dst, src[start:]...)
}

// maxJSONDepth is encoding/json's nesting limit (its scanner's
// maxNestingDepth).
const maxJSONDepth = 10000

// jsonDec decodes one document. Every method starts at the first byte of
// what it reads (whitespace already skipped) and leaves d.pos just past
// it; after an error every method does nothing, so the generated loops end.
type jsonDec struct {
	data  []byte
	pos   int
	depth int
	// key is the last object key read, unescaped; it aliases data or kbuf.
	key  []byte
	kbuf []byte
	// vbuf is scratch space for unescaping string values.
	vbuf []byte
	err  error
}

// finish checks that nothing but whitespace follows the value.
func (d *jsonDec) finish() error {
	if d.err != nil {
		return d.err
	}
	d.ws()
	if d.pos < len(d.data) {
		d.badChar("after top-level value")
	}
	return d.err
}

func (d *jsonDec) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *jsonDec) badChar(context string) {
	if d.pos >= len(d.data) {
		d.fail(fmt.Errorf("json: unexpected end of JSON input"))
		return
	}
	d.fail(fmt.Errorf("json: invalid character %s %s (offset %d)", quoteChar(d.data[d.pos]), context, d.pos))
}

// quoteChar formats c as encoding/json's syntax errors do.
func quoteChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

// mismatch reports the value at d.pos as the wrong type for goType, or
// its syntax error.
func (d *jsonDec) mismatch(goType string) {
	if d.err != nil {
		return
	}
	if d.pos >= len(d.data) {
		d.badChar("")
		return
	}
	var what string
	switch c := d.data[d.pos]; {
	case c == '{':
		what = "object"
	case c == '[':
		what = "array"
	case c == '"':
		what = "string"
	case c == 't' || c == 'f':
		what = "bool"
	case c == 'n':
		what = "null"
	case c == '-' || '0' <= c && c <= '9':
		what = "number"
	default:
		d.badChar("looking for beginning of value")
		return
	}
	d.fail(fmt.Errorf("json: cannot unmarshal %s into Go value of type %s (offset %d)", what, goType, d.pos))
}

func (d *jsonDec) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\r', '\n':
			d.pos++
		default:
			return
		}
	}
}

// literal consumes the literal s (true, false or null).
func (d *jsonDec) literal(s string) {
	for i := 0; i < len(s); i++ {
		if d.pos >= len(d.data) || d.data[d.pos] != s[i] {
			d.badChar("in literal " + s + " (expecting '" + s[i:i+1] + "')")
			return
		}
		d.pos++
	}
}

// null consumes a null if one is next.
func (d *jsonDec) null() bool {
	if d.err == nil && d.pos < len(d.data) && d.data[d.pos] == 'n' {
		d.literal("null")
		return true
	}
	return false
}

// open consumes c ('{' or '['), or reports the value as the wrong type.
func (d *jsonDec) open(c byte, goType string) bool {
	if d.err != nil {
		return false
	}
	if d.pos < len(d.data) && d.data[d.pos] == c {
		d.pos++
		d.depth++
		if d.depth > maxJSONDepth {
			d.fail(fmt.Errorf("json: exceeded max depth (offset %d)", d.pos))
			return false
		}
		return true
	}
	d.mismatch(goType)
	return false
}

// object starts decoding an object into a struct: it reports whether a
// key was read. A null leaves the struct as it is.
func (d *jsonDec) object(goType string) bool {
	if d.null() {
		return false
	}
	return d.open('{', goType) && d.firstKey()
}

// firstKey reads the first key of an object just opened, or its end.
func (d *jsonDec) firstKey() bool {
	d.ws()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		d.depth--
		return false
	}
	return d.readKey()
}

// nextKey reads the next key after a value, or the object's end.
func (d *jsonDec) nextKey() bool {
	if d.err != nil {
		return false
	}
	d.ws()
	if d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.ws()
			return d.readKey()
		case '}':
			d.pos++
			d.depth--
			return false
		}
	}
	d.badChar("after object key:value pair")
	return false
}

// readKey reads a key and its colon into d.key.
func (d *jsonDec) readKey() bool {
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		d.badChar("looking for beginning of object key string")
		return false
	}
	k, ok := d.stringBytes(&d.kbuf)
	if !ok {
		return false
	}
	d.key = k
	d.ws()
	if d.pos >= len(d.data) || d.data[d.pos] != ':' {
		d.badChar("after object key")
		return false
	}
	d.pos++
	d.ws()
	return true
}

// firstElem reports whether an array just opened has an element.
func (d *jsonDec) firstElem() bool {
	d.ws()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		d.depth--
		return false
	}
	return true
}

// nextElem reports whether another element follows a value.
func (d *jsonDec) nextElem() bool {
	if d.err != nil {
		return false
	}
	d.ws()
	if d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.ws()
			return true
		case ']':
			d.pos++
			d.depth--
			return false
		}
	}
	d.badChar("after array element")
	return false
}

// scanString checks the syntax of the string literal at d.pos and moves
// past it. It returns the bytes between the quotes, and whether they are
// the string as they are (no escapes, valid UTF-8).
func (d *jsonDec) scanString(checkUTF8 bool) (s []byte, plain, ok bool) {
	data := d.data
	start := d.pos + 1
	escaped, ascii := false, true
	for i := start; ; {
		if i >= len(data) {
			d.pos = i
			d.badChar("")
			return nil, false, false
		}
		c := data[i]
		if c >= ' ' && c != '"' && c != '\\' {
			if c >= utf8.RuneSelf {
				ascii = false
			}
			i++
			continue
		}
		switch {
		case c == '"':
			d.pos = i + 1
			s = data[start:i]
			return s, !escaped && (ascii || checkUTF8 && utf8.Valid(s)), true
		case c == '\\':
			escaped = true
			i++
			if i >= len(data) {
				d.pos = i
				d.badChar("")
				return nil, false, false
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				i++
				for range 4 {
					if i >= len(data) || !isHex(data[i]) {
						d.pos = i
						d.badChar(`in \u hexadecimal character escape`)
						return nil, false, false
					}
					i++
				}
			default:
				d.pos = i
				d.badChar("in string escape code")
				return nil, false, false
			}
		default: // a control character
			d.pos = i
			d.badChar("in string literal")
			return nil, false, false
		}
	}
}

// stringBytes reads a string literal and returns its unescaped bytes: a
// slice of the input when nothing needs unescaping, else *buf refilled.
func (d *jsonDec) stringBytes(buf *[]byte) ([]byte, bool) {
	s, plain, ok := d.scanString(true)
	if !ok || plain {
		return s, ok
	}
	*buf = unquoteInto((*buf)[:0], s)
	return *buf, true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unquoteInto appends the unescaped contents of a string literal whose
// syntax was checked (quotes removed) to b: encoding/json's unquoteBytes.
func unquoteInto(b, s []byte) []byte {
	for r := 0; r < len(s); {
		switch c := s[r]; {
		case c == '\\':
			r++
			switch s[r] {
			case '"', '\\', '/':
				b = append(b, s[r])
				r++
			case 'b':
				b = append(b, '\b')
				r++
			case 'f':
				b = append(b, '\f')
				r++
			case 'n':
				b = append(b, '\n')
				r++
			case 'r':
				b = append(b, '\r')
				r++
			case 't':
				b = append(b, '\t')
				r++
			case 'u':
				rr := getu4(s[r-1:])
				r += 5
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						// A valid pair; consume.
						r += 6
						b = utf8.AppendRune(b, dec)
						break
					}
					// A lone surrogate becomes U+FFFD.
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			// Coerce to well-formed UTF-8.
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return b
}

// getu4 decodes \uXXXX from the beginning of s, or returns -1.
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

// foldKey appends the case-folded form of k to b, as encoding/json folds
// keys to match them to fields case-insensitively: ASCII upper case, other
// runes to the smallest rune of their simple-fold orbit (so the Kelvin
// sign folds to K and the long s to S).
func foldKey(b, k []byte) []byte {
	for i := 0; i < len(k); {
		if c := k[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(k[i:])
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		b = utf8.AppendRune(b, r)
		i += n
	}
	return b
}

// number reads a number literal with the grammar of encoding/json's
// scanner: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *jsonDec) number() ([]byte, bool) {
	data, i := d.data, d.pos
	start := i
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && '1' <= data[i] && data[i] <= '9':
		i = skipDigits(data, i+1)
	default:
		d.pos = i
		d.badChar("in numeric literal")
		return nil, false
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			d.pos = i
			d.badChar("after decimal point in numeric literal")
			return nil, false
		}
		i = skipDigits(data, i+1)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			d.pos = i
			d.badChar("in exponent of numeric literal")
			return nil, false
		}
		i = skipDigits(data, i+1)
	}
	d.pos = i
	return data[start:i], true
}

func skipDigits(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}

// numberFor reads a number for a field of type goType: false for null
// (the field stays as it is) and on errors.
func (d *jsonDec) numberFor(goType string) ([]byte, bool) {
	if d.null() || d.err != nil {
		return nil, false
	}
	if d.pos < len(d.data) {
		if c := d.data[d.pos]; c == '-' || '0' <= c && c <= '9' {
			return d.number()
		}
	}
	d.mismatch(goType)
	return nil, false
}

func (d *jsonDec) badNumber(num []byte, goType string) {
	d.fail(fmt.Errorf("json: cannot unmarshal number %s into Go value of type %s (offset %d)", num, goType, d.pos-len(num)))
}

// parseInt is strconv.ParseInt(num, 10, 64) on a number literal, without
// the string conversion for the common short integers.
func parseInt(num []byte) (int64, bool) {
	s := num
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 18 {
		n, err := strconv.ParseInt(string(num), 10, 64)
		return n, err == nil
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false // a fraction or an exponent
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func (d *jsonDec) int(p *int) {
	num, ok := d.numberFor("int")
	if !ok {
		return
	}
	n, ok := parseInt(num)
	if !ok || int64(int(n)) != n {
		d.badNumber(num, "int")
		return
	}
	*p = int(n)
}

func (d *jsonDec) int64(p *int64) {
	num, ok := d.numberFor("int64")
	if !ok {
		return
	}
	n, ok := parseInt(num)
	if !ok {
		d.badNumber(num, "int64")
		return
	}
	*p = n
}

func (d *jsonDec) uint64(p *uint64) {
	num, ok := d.numberFor("uint64")
	if !ok {
		return
	}
	n, err := strconv.ParseUint(string(num), 10, 64)
	if err != nil {
		d.badNumber(num, "uint64")
		return
	}
	*p = n
}

func (d *jsonDec) float64(p *float64) {
	num, ok := d.numberFor("float64")
	if !ok {
		return
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		d.badNumber(num, "float64")
		return
	}
	*p = f
}

func (d *jsonDec) bool(p *bool) {
	if d.null() || d.err != nil {
		return
	}
	if d.pos < len(d.data) {
		switch d.data[d.pos] {
		case 't':
			if d.literal("true"); d.err == nil {
				*p = true
			}
			return
		case 'f':
			if d.literal("false"); d.err == nil {
				*p = false
			}
			return
		}
	}
	d.mismatch("bool")
}

func (d *jsonDec) str(p *string) {
	if d.null() || d.err != nil {
		return
	}
	if d.pos < len(d.data) && d.data[d.pos] == '"' {
		if s, ok := d.stringBytes(&d.vbuf); ok {
			*p = string(s)
		}
		return
	}
	d.mismatch("string")
}

// time hands the value to time.Time's UnmarshalJSON, as encoding/json
// does (a null included, which it ignores).
func (d *jsonDec) time(p *time.Time) {
	span := d.skip()
	if d.err != nil {
		return
	}
	if err := p.UnmarshalJSON(span); err != nil {
		d.fail(err)
	}
}

// rawMessage keeps the value's bytes as they are, as RawMessage's
// UnmarshalJSON does (a null included).
func (d *jsonDec) rawMessage(p *json.RawMessage) {
	span := d.skip()
	if d.err != nil {
		return
	}
	*p = append((*p)[0:0], span...)
}

// skip consumes one value of any type, checking its syntax as
// encoding/json's scanner does, and returns its bytes. It keeps its own
// stack so that deep input cannot grow the goroutine's.
func (d *jsonDec) skip() []byte {
	if d.err != nil {
		return nil
	}
	start := d.pos
	var stackArr [32]byte
	stack := stackArr[:0]
	for {
		// A value starts at d.pos.
		if d.pos >= len(d.data) {
			d.badChar("")
			return nil
		}
		switch c := d.data[d.pos]; {
		case c == '{' || c == '[':
			d.pos++
			d.depth++
			if d.depth > maxJSONDepth {
				d.fail(fmt.Errorf("json: exceeded max depth (offset %d)", d.pos))
				return nil
			}
			d.ws()
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			if d.pos < len(d.data) && d.data[d.pos] == closer {
				d.pos++
				d.depth--
				break // an empty container: a whole value
			}
			stack = append(stack, c)
			if c == '{' && !d.readKey() {
				return nil
			}
			continue // its first value
		case c == '"':
			d.scanString(false)
		case c == '-' || '0' <= c && c <= '9':
			d.number()
		case c == 't':
			d.literal("true")
		case c == 'f':
			d.literal("false")
		case c == 'n':
			d.literal("null")
		default:
			d.badChar("looking for beginning of value")
			return nil
		}
		// A value ended: close what it ends, or go on to the next value.
		for {
			if d.err != nil {
				return nil
			}
			if len(stack) == 0 {
				return d.data[start:d.pos]
			}
			d.ws()
			top := stack[len(stack)-1]
			if d.pos < len(d.data) {
				c := d.data[d.pos]
				if c == ',' {
					d.pos++
					d.ws()
					if top == '{' && !d.readKey() {
						return nil
					}
					break
				}
				if top == '{' && c == '}' || top == '[' && c == ']' {
					d.pos++
					d.depth--
					stack = stack[:len(stack)-1]
					continue
				}
			}
			if top == '{' {
				d.badChar("after object key:value pair")
			} else {
				d.badChar("after array element")
			}
			return nil
		}
	}
}
