package state

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// parseTree decodes JSON into the tree json.Unmarshal builds for an `any`
// (map[string]any, []any, string, float64, bool, nil), without
// encoding/json's machinery. Every hook process compiles the window's schema
// checker, and json.Unmarshal of the 14 KB schema cost about 200 µs of each
// cold process; this costs a fraction of that. It is used for the embedded
// schemas only, and FuzzParseTree holds it to json.Unmarshal's verdict and
// value on any input.
func parseTree(b []byte) (any, error) {
	p := treeParser{b: b}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, p.fail()
	}
	return v, nil
}

// maxTreeDepth matches encoding/json's nesting limit.
const maxTreeDepth = 10000

var errTree = errors.New("invalid JSON")

type treeParser struct {
	b []byte
	i int
}

func (p *treeParser) fail() error { return errTree }

func (p *treeParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *treeParser) value(depth int) (any, error) {
	if p.i >= len(p.b) {
		return nil, p.fail()
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		return p.str()
	case c == 't':
		return true, p.lit("true")
	case c == 'f':
		return false, p.lit("false")
	case c == 'n':
		return nil, p.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, p.fail()
}

func (p *treeParser) lit(word string) error {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		return p.fail()
	}
	p.i += len(word)
	return nil
}

func (p *treeParser) object(depth int) (any, error) {
	if depth > maxTreeDepth {
		return nil, p.fail()
	}
	p.i++ // {
	m := map[string]any{}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return m, nil
	}
	for {
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, p.fail()
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, p.fail()
		}
		p.i++
		p.ws()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v
		p.ws()
		if p.i >= len(p.b) {
			return nil, p.fail()
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return m, nil
		default:
			return nil, p.fail()
		}
	}
}

func (p *treeParser) array(depth int) (any, error) {
	if depth > maxTreeDepth {
		return nil, p.fail()
	}
	p.i++ // [
	a := []any{}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return a, nil
	}
	for {
		p.ws()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.ws()
		if p.i >= len(p.b) {
			return nil, p.fail()
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return a, nil
		default:
			return nil, p.fail()
		}
	}
}

// str reads a string. Plain ASCII without escapes is sliced directly;
// anything else (escapes, other UTF-8, invalid bytes) is left to
// json.Unmarshal on the one token, so the rules for escapes and invalid
// UTF-8 are encoding/json's own.
func (p *treeParser) str() (string, error) {
	start := p.i
	p.i++ // opening quote
	plain := true
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			if plain {
				return string(p.b[start+1 : p.i-1]), nil
			}
			var s string
			if err := json.Unmarshal(p.b[start:p.i], &s); err != nil {
				return "", p.fail()
			}
			return s, nil
		case c == '\\':
			plain = false
			p.i += 2 // the escaped byte cannot end the string
		case c < 0x20:
			return "", p.fail()
		case c >= utf8.RuneSelf:
			plain = false
			p.i++
		default:
			p.i++
		}
	}
	return "", p.fail()
}

// number reads a JSON number (RFC 8259 grammar) as a float64, as
// json.Unmarshal does into an `any`.
func (p *treeParser) number() (any, error) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i >= len(p.b) {
		return nil, p.fail()
	}
	if p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, p.fail()
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.fail()
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.fail()
		}
	}
	f, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
	if err != nil {
		// Out of range: encoding/json refuses it too.
		return nil, p.fail()
	}
	return f, nil
}
