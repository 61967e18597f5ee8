package state

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// rawChecker validates JSON bytes against a schema in one pass over the
// bytes, without building the generic map[string]any tree the checker
// walks: on a window.json that tree costs more to build than the check
// itself, on every hook. It implements exactly the checker's subset and
// semantics, and a test holds the two (and jsonschema/v5) to the same
// verdicts on thousands of documents.
type rawChecker struct {
	root *cnode
}

// cnode is a compiled schema node.
type cnode struct {
	never     bool // the schema false
	ref       *cnode
	types     uint8 // bitmask of typ*; 0 = any
	enum      []any
	hasConst  bool
	constVal  any
	min, max  *float64
	exclMin   *float64
	minLen    int
	maxLen    int // -1: none
	pattern   *cpattern
	dateTime  bool
	minItems  int
	maxItems  int // -1: none
	items     *cnode
	maxProps  int // -1: none
	required  []string
	props     []cprop // sorted by name
	addl      *cnode  // nil with addlSet: anything goes
	addlFalse bool
}

// cprop is one property of an object node.
type cprop struct {
	name string
	node *cnode
}

// prop finds the node of the property named key.
func (n *cnode) prop(key []byte) (*cnode, bool) {
	ps := n.props
	lo, hi := 0, len(ps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ps[m].name < string(key) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(ps) && ps[lo].name == string(key) {
		return ps[lo].node, true
	}
	return nil, false
}

// cpattern is a schema's pattern, compiled at its first use: the
// generated checker trees (checkers_gen.go) are static data, built by no
// code in a hook process, and most hooks meet only one or two patterns.
// The two forms Djinn's schemas use for identifiers and hashes are matched
// by hand; TestPatternMatchers holds them to the regular expressions.
type cpattern struct {
	src   string
	once  sync.Once
	match func(string) bool
}

func (p *cpattern) MatchString(s string) bool {
	p.once.Do(func() { p.match = patternMatcher(p.src) })
	return p.match(s)
}

func (p *cpattern) String() string { return p.src }

// patternMatcher returns the matcher of the pattern src: by hand for
// ^[A-Za-z0-9_-]+$ and ^[0-9a-f]{N}$, else src's regular expression.
func patternMatcher(src string) func(string) bool {
	if src == "^[A-Za-z0-9_-]+$" {
		return func(s string) bool {
			for i := 0; i < len(s); i++ {
				c := s[i]
				if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
					return false
				}
			}
			return s != ""
		}
	}
	if rest, ok := strings.CutPrefix(src, "^[0-9a-f]{"); ok {
		if digits, ok := strings.CutSuffix(rest, "}$"); ok {
			if n, err := strconv.Atoi(digits); err == nil && n > 0 && strconv.Itoa(n) == digits {
				return func(s string) bool {
					if len(s) != n {
						return false
					}
					for i := 0; i < len(s); i++ {
						if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
							return false
						}
					}
					return true
				}
			}
		}
	}
	return regexp.MustCompile(src).MatchString
}

const (
	typNull uint8 = 1 << iota
	typBool
	typString
	typNumber
	typInteger
	typArray
	typObject
)

var typeBits = map[string]uint8{
	"null": typNull, "boolean": typBool, "string": typString, "number": typNumber,
	"integer": typInteger, "array": typArray, "object": typObject,
}

// newRawChecker compiles the checker's schema tree (already scanned for
// supported keywords) into typed nodes.
func newRawChecker(c *checker) (*rawChecker, error) {
	defs, _ := c.root["$defs"].(map[string]any)
	memo := map[string]*cnode{}
	var compile func(s any) (*cnode, error)
	compile = func(s any) (*cnode, error) {
		if b, ok := s.(bool); ok {
			return &cnode{never: !b, maxLen: -1, maxItems: -1, maxProps: -1}, nil
		}
		m, ok := s.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("schema node is %T", s)
		}
		n := &cnode{maxLen: -1, maxItems: -1, maxProps: -1}
		if r, ok := m["$ref"].(string); ok {
			name := strings.TrimPrefix(r, "#/$defs/")
			if ref, ok := memo[name]; ok {
				n.ref = ref
			} else {
				sub, ok := defs[name]
				if !ok {
					return nil, fmt.Errorf("unresolved $ref %s", r)
				}
				ref := &cnode{}
				memo[name] = ref
				compiled, err := compile(sub)
				if err != nil {
					return nil, err
				}
				*ref = *compiled
				n.ref = ref
			}
		}
		switch t := m["type"].(type) {
		case string:
			n.types = typeBits[t]
		case []any:
			for _, x := range t {
				s, _ := x.(string)
				n.types |= typeBits[s]
			}
		}
		if e, ok := m["enum"].([]any); ok {
			n.enum = e
		}
		if cv, ok := m["const"]; ok {
			n.hasConst, n.constVal = true, cv
		}
		if f, ok := num(m["minimum"]); ok {
			n.min = &f
		}
		if f, ok := num(m["maximum"]); ok {
			n.max = &f
		}
		if f, ok := num(m["exclusiveMinimum"]); ok {
			n.exclMin = &f
		}
		if f, ok := num(m["minLength"]); ok {
			n.minLen = int(f)
		}
		if f, ok := num(m["maxLength"]); ok {
			n.maxLen = int(f)
		}
		if p, ok := m["pattern"].(string); ok {
			n.pattern = &cpattern{src: c.re[p].String()}
		}
		if f, _ := m["format"].(string); f == "date-time" {
			n.dateTime = true
		}
		if f, ok := num(m["minItems"]); ok {
			n.minItems = int(f)
		}
		if f, ok := num(m["maxItems"]); ok {
			n.maxItems = int(f)
		}
		if f, ok := num(m["maxProperties"]); ok {
			n.maxProps = int(f)
		}
		if it, ok := m["items"]; ok {
			sub, err := compile(it)
			if err != nil {
				return nil, err
			}
			n.items = sub
		}
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				s, _ := r.(string)
				n.required = append(n.required, s)
			}
		}
		if props, ok := m["properties"].(map[string]any); ok {
			names := make([]string, 0, len(props))
			for k := range props {
				names = append(names, k)
			}
			sort.Strings(names)
			n.props = make([]cprop, 0, len(props))
			for _, k := range names {
				sub, err := compile(props[k])
				if err != nil {
					return nil, err
				}
				n.props = append(n.props, cprop{k, sub})
			}
		}
		if a, ok := m["additionalProperties"]; ok {
			if b, isBool := a.(bool); isBool {
				n.addlFalse = !b
			} else {
				sub, err := compile(a)
				if err != nil {
					return nil, err
				}
				n.addl = sub
			}
		}
		return n, nil
	}
	root, err := compile(c.root)
	if err != nil {
		return nil, err
	}
	return &rawChecker{root: root}, nil
}

// check validates raw JSON. Syntax is checked first with json.Valid (fast),
// so the scan below may assume well-formed input.
func (rc *rawChecker) check(raw []byte) []FieldError {
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		msg := "invalid JSON"
		if err != nil {
			msg += ": " + err.Error()
		}
		return []FieldError{{"", msg}}
	}
	return rc.walk(raw)
}

// walk is check's schema walk, for raw that is known to be JSON.
func (rc *rawChecker) walk(raw []byte) []FieldError {
	v := rawValidator{b: raw}
	v.value(rc.root)
	sort.SliceStable(v.errs, func(i, j int) bool { return v.errs[i].Pointer < v.errs[j].Pointer })
	return v.errs
}

type rawValidator struct {
	b    []byte
	i    int
	path []pathSeg
	errs []FieldError
}

// pathSeg is one step of the JSON pointer to the value being checked: a
// key (kept as bytes, turned into text only for an error report: most
// documents have none) or an array index.
type pathSeg struct {
	key   []byte
	idx   int
	isIdx bool
}

func (v *rawValidator) ptr() string {
	if len(v.path) == 0 {
		return ""
	}
	parts := make([]string, len(v.path))
	for i, s := range v.path {
		if s.isIdx {
			parts[i] = strconv.Itoa(s.idx)
		} else {
			parts[i] = pathKey(s.key)
		}
	}
	return "/" + strings.Join(parts, "/")
}

func (v *rawValidator) fail(format string, args ...any) {
	v.errs = append(v.errs, FieldError{v.ptr(), fmt.Sprintf(format, args...)})
}

func (v *rawValidator) ws() {
	for v.i < len(v.b) {
		switch v.b[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

// value validates the value at v.i against n and advances past it.
func (v *rawValidator) value(n *cnode) {
	v.ws()
	if n.ref != nil {
		start, errs := v.i, len(v.errs)
		v.value(n.ref)
		if n.types == 0 && n.enum == nil && !n.hasConst && len(n.props) == 0 && n.items == nil {
			_ = errs
			return // a bare $ref: done
		}
		v.i = start
	}
	if n.never {
		v.fail("not allowed")
		v.skip()
		return
	}
	switch c := v.b[v.i]; {
	case c == '{':
		if n.types != 0 && n.types&typObject == 0 {
			v.typeErr(n, "object")
			v.skip()
			return
		}
		v.object(n)
	case c == '[':
		if n.types != 0 && n.types&typArray == 0 {
			v.typeErr(n, "array")
			v.skip()
			return
		}
		v.array(n)
	case c == '"':
		sb := v.strBytes()
		if n.types != 0 && n.types&typString == 0 {
			v.typeErr(n, "string")
			return
		}
		if n.enum == nil && !n.hasConst && n.pattern == nil && !n.dateTime {
			// Only the length matters: no string is built.
			r := utf8.RuneCount(sb)
			if r < n.minLen {
				v.fail("length must be >= %v", n.minLen)
			}
			if n.maxLen >= 0 && r > n.maxLen {
				v.fail("length must be <= %v", n.maxLen)
			}
			return
		}
		s := string(sb)
		v.checkEnumConst(n, s)
		r := utf8.RuneCountInString(s)
		if r < n.minLen {
			v.fail("length must be >= %v", n.minLen)
		}
		if n.maxLen >= 0 && r > n.maxLen {
			v.fail("length must be <= %v", n.maxLen)
		}
		if n.pattern != nil && !n.pattern.MatchString(s) {
			v.fail("does not match pattern %q", n.pattern.String())
		}
		if n.dateTime {
			if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
				v.fail("is not a valid date-time")
			}
		}
	case c == 't' || c == 'f':
		b := c == 't'
		if b {
			v.i += 4
		} else {
			v.i += 5
		}
		if n.types != 0 && n.types&typBool == 0 {
			v.typeErr(n, "boolean")
			return
		}
		v.checkEnumConst(n, b)
	case c == 'n':
		v.i += 4
		if n.types != 0 && n.types&typNull == 0 {
			v.typeErr(n, "null")
			return
		}
		v.checkEnumConst(n, nil)
	default:
		lit := v.number()
		isInt := isIntegerLiteral(lit)
		if n.types != 0 && n.types&typNumber == 0 && !(isInt && n.types&typInteger != 0) {
			// jsonschema/v5's word for any number, integer or not.
			v.typeErr(n, "number")
			return
		}
		f, _ := strconv.ParseFloat(lit, 64)
		v.checkEnumConst(n, json.Number(lit))
		if n.min != nil && f < *n.min {
			v.fail("must be >= %v", *n.min)
		}
		if n.max != nil && f > *n.max {
			v.fail("must be <= %v", *n.max)
		}
		if n.exclMin != nil && f <= *n.exclMin {
			v.fail("must be > %v", *n.exclMin)
		}
	}
}

func (v *rawValidator) typeErr(n *cnode, got string) {
	var names []string
	for name, bit := range typeBits {
		if n.types&bit != 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	v.fail("expected %s, but got %s", strings.Join(names, " or "), got)
}

// isIntegerLiteral reports whether a JSON number is an integer value, as
// the checker decides it (1.0 and 1e2 are integers; 1.5 is not).
func isIntegerLiteral(lit string) bool {
	if !strings.ContainsAny(lit, ".eE") {
		return true
	}
	r, ok := new(big.Rat).SetString(lit)
	return ok && r.IsInt()
}

// checkEnumConst compares a scalar (string, bool, nil, json.Number) with
// enum and const, as the checker's jsonEqual does.
func (v *rawValidator) checkEnumConst(n *cnode, x any) {
	if n.enum != nil {
		found := false
		for _, e := range n.enum {
			if jsonEqual(e, x) {
				found = true
				break
			}
		}
		if !found {
			v.fail("value must be one of %s", compact(n.enum))
		}
	}
	if n.hasConst && !jsonEqual(n.constVal, x) {
		v.fail("value must be %s", compact(n.constVal))
	}
}

func (v *rawValidator) object(n *cnode) {
	if n.enum != nil || n.hasConst {
		// Only scalars are compared; a container never equals a scalar
		// literal, which is all the schemas use.
		v.checkEnumConst(n, map[string]any{})
	}
	v.i++           // {
	var seen uint64 // bit i: n.required[i] present
	count := 0
	for {
		v.ws()
		if v.b[v.i] == '}' {
			v.i++
			break
		}
		if v.b[v.i] == ',' {
			v.i++
			v.ws()
		}
		key := v.strBytes()
		v.ws()
		v.i++ // :
		count++
		for ri, r := range n.required {
			if r == string(key) {
				seen |= 1 << ri
			}
		}
		v.path = append(v.path, pathSeg{key: key})
		switch sub, ok := n.prop(key); {
		case ok:
			v.value(sub)
		case n.addlFalse:
			v.fail("unknown property")
			v.skip()
		case n.addl != nil:
			v.value(n.addl)
		default:
			v.skip()
		}
		v.path = v.path[:len(v.path)-1]
	}
	if n.maxProps >= 0 && count > n.maxProps {
		v.fail("must have <= %v properties", n.maxProps)
	}
	for ri, r := range n.required {
		if seen&(1<<ri) == 0 {
			v.fail("missing property %q", r)
		}
	}
}

func (v *rawValidator) array(n *cnode) {
	if n.enum != nil || n.hasConst {
		v.checkEnumConst(n, []any{})
	}
	v.i++ // [
	count := 0
	for {
		v.ws()
		if v.b[v.i] == ']' {
			v.i++
			break
		}
		if v.b[v.i] == ',' {
			v.i++
			v.ws()
		}
		if n.items != nil {
			v.path = append(v.path, pathSeg{idx: count, isIdx: true})
			v.value(n.items)
			v.path = v.path[:len(v.path)-1]
		} else {
			v.skip()
		}
		count++
	}
	if count < n.minItems {
		v.fail("must have >= %v items", n.minItems)
	}
	if n.maxItems >= 0 && count > n.maxItems {
		v.fail("must have <= %v items", n.maxItems)
	}
}

// strBytes reads a string token and returns its value: a slice of the
// input when it has no escapes (no copy), else the unescaped bytes.
func (v *rawValidator) strBytes() []byte {
	start := v.i
	v.i++ // "
	escaped := false
	for v.b[v.i] != '"' {
		if v.b[v.i] == '\\' {
			escaped = true
			v.i++
		}
		v.i++
	}
	v.i++
	if !escaped {
		return v.b[start+1 : v.i-1]
	}
	var s string
	_ = json.Unmarshal(v.b[start:v.i], &s)
	return []byte(s)
}

func (v *rawValidator) str() string { return string(v.strBytes()) }

// pathKey is a path segment for a key: escaping is needed only for "~"
// and "/".
func pathKey(key []byte) string {
	for _, c := range key {
		if c == '~' || c == '/' {
			return escapePointer(string(key))
		}
	}
	return string(key)
}

func (v *rawValidator) number() string {
	start := v.i
	for v.i < len(v.b) {
		switch c := v.b[v.i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			v.i++
			continue
		}
		break
	}
	return string(v.b[start:v.i])
}

// skip advances past one value.
func (v *rawValidator) skip() {
	v.ws()
	switch c := v.b[v.i]; c {
	case '"':
		v.str()
	case '{', '[':
		depth := 0
		for {
			switch v.b[v.i] {
			case '"':
				v.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			v.i++
			if depth == 0 {
				return
			}
		}
	case 't', 'n':
		v.i += 4
	case 'f':
		v.i += 5
	default:
		v.number()
	}
}
