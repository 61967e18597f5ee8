package state

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// checker validates decoded JSON against the subset of JSON Schema draft
// 2020-12 that Djinn's embedded schemas use. It exists because the hook
// binary must start fast: santhosh-tekuri/jsonschema/v5 compiles five
// meta-schemas in its package init (about 3 ms of every process, measured),
// which alone would break the hook latency budget. The full library is the
// validator of the default build (`djinn state validate`, go install, tests),
// and a test checks that this checker and the library agree on every schema
// and on thousands of valid and mutated documents.
//
// Supported keywords: $schema $id $defs $ref (local "#/$defs/…") title
// description type properties required additionalProperties items enum const
// minimum maximum exclusiveMinimum minLength maxLength pattern minItems
// maxItems maxProperties format (date-time only). Any other keyword makes compilation fail, so a
// schema cannot silently use something this checker ignores.
type checker struct {
	root map[string]any
	re   map[string]*regexp.Regexp
	raw  *rawChecker
}

var supportedKeywords = map[string]bool{
	"$schema": true, "$id": true, "$defs": true, "$ref": true, "$comment": true,
	"title": true, "description": true, "type": true, "properties": true,
	"required": true, "additionalProperties": true, "items": true, "enum": true,
	"const": true, "minimum": true, "maximum": true, "exclusiveMinimum": true,
	"minLength": true, "maxLength": true, "pattern": true, "minItems": true,
	"maxItems": true, "maxProperties": true, "format": true,
}

// FieldError is one schema violation: the JSON pointer of the offending
// value (empty for the document itself) and what is wrong with it.
type FieldError struct {
	Pointer string
	Message string
}

func (e FieldError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	return p + ": " + e.Message
}

func compileChecker(schema []byte) (*checker, error) {
	tree, err := parseTree(schema)
	if err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	root, ok := tree.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("parse schema: not a JSON object")
	}
	c := &checker{root: root, re: map[string]*regexp.Regexp{}}
	if err := c.scan(root, ""); err != nil {
		return nil, err
	}
	return c, nil
}

// scan checks that a schema uses only supported keywords and precompiles
// its patterns.
func (c *checker) scan(s any, at string) error {
	m, ok := s.(map[string]any)
	if !ok {
		if _, isBool := s.(bool); isBool {
			return nil
		}
		return fmt.Errorf("schema at %q is not an object", at)
	}
	for k, v := range m {
		if !supportedKeywords[k] {
			return fmt.Errorf("schema at %q uses unsupported keyword %q", at, k)
		}
		switch k {
		case "properties", "$defs":
			props, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("schema at %q: %s is not an object", at, k)
			}
			for name, sub := range props {
				if err := c.scan(sub, at+"/"+k+"/"+name); err != nil {
					return err
				}
			}
		case "items", "additionalProperties":
			if err := c.scan(v, at+"/"+k); err != nil {
				return err
			}
		case "pattern":
			p, _ := v.(string)
			re, err := regexp.Compile(p)
			if err != nil {
				return fmt.Errorf("schema at %q: pattern: %w", at, err)
			}
			c.re[p] = re
		case "format":
			if f, _ := v.(string); f != "date-time" {
				return fmt.Errorf("schema at %q: unsupported format %q", at, f)
			}
		case "$ref":
			r, _ := v.(string)
			if !strings.HasPrefix(r, "#/$defs/") {
				return fmt.Errorf("schema at %q: only local #/$defs refs are supported, got %q", at, r)
			}
		}
	}
	return nil
}

// check validates a document decoded with json.Decoder.UseNumber and returns
// every violation, sorted by pointer.
func (c *checker) check(doc any) []FieldError {
	var errs []FieldError
	c.walk(c.root, doc, "", &errs)
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Pointer < errs[j].Pointer })
	return errs
}

func (c *checker) walk(s any, v any, ptr string, errs *[]FieldError) {
	if b, ok := s.(bool); ok {
		if !b {
			*errs = append(*errs, FieldError{ptr, "not allowed"})
		}
		return
	}
	m := s.(map[string]any)
	if r, ok := m["$ref"].(string); ok {
		name := strings.TrimPrefix(r, "#/$defs/")
		defs, _ := c.root["$defs"].(map[string]any)
		sub, ok := defs[name]
		if !ok {
			*errs = append(*errs, FieldError{ptr, "unresolved $ref " + r})
			return
		}
		c.walk(sub, v, ptr, errs)
	}
	if t, ok := m["type"]; ok && !typeMatches(t, v) {
		// Worded as jsonschema/v5 words it, so `djinn state validate`
		// says the same in either build.
		got := jsonType(v)
		if got == "integer" {
			got = "number"
		}
		*errs = append(*errs, FieldError{ptr, fmt.Sprintf("expected %s, but got %s", typeName(t), got)})
		return
	}
	if e, ok := m["enum"].([]any); ok {
		found := false
		for _, x := range e {
			if jsonEqual(x, v) {
				found = true
				break
			}
		}
		if !found {
			*errs = append(*errs, FieldError{ptr, fmt.Sprintf("value must be one of %s", compact(e))})
		}
	}
	if cv, ok := m["const"]; ok && !jsonEqual(cv, v) {
		*errs = append(*errs, FieldError{ptr, fmt.Sprintf("value must be %s", compact(cv))})
	}
	switch x := v.(type) {
	case json.Number:
		// Out-of-range numbers parse as ±Inf, which still compares
		// correctly with any finite limit.
		f, _ := strconv.ParseFloat(string(x), 64)
		if lim, ok := num(m["minimum"]); ok && f < lim {
			*errs = append(*errs, FieldError{ptr, fmt.Sprintf("must be >= %v", lim)})
		}
		if lim, ok := num(m["maximum"]); ok && f > lim {
			*errs = append(*errs, FieldError{ptr, fmt.Sprintf("must be <= %v", lim)})
		}
		if lim, ok := num(m["exclusiveMinimum"]); ok && f <= lim {
			*errs = append(*errs, FieldError{ptr, fmt.Sprintf("must be > %v", lim)})
		}
	case string:
		n := utf8.RuneCountInString(x)
		if lim, ok := num(m["minLength"]); ok && float64(n) < lim {
			*errs = append(*errs, FieldError{ptr, fmt.Sprintf("length must be >= %v", lim)})
		}
		if lim, ok := num(m["maxLength"]); ok && float64(n) > lim {
			*errs = append(*errs, FieldError{ptr, fmt.Sprintf("length must be <= %v", lim)})
		}
		if p, ok := m["pattern"].(string); ok && !c.re[p].MatchString(x) {
			*errs = append(*errs, FieldError{ptr, fmt.Sprintf("does not match pattern %q", p)})
		}
		if f, ok := m["format"].(string); ok && f == "date-time" {
			if _, err := time.Parse(time.RFC3339Nano, x); err != nil {
				*errs = append(*errs, FieldError{ptr, "is not a valid date-time"})
			}
		}
	case []any:
		if lim, ok := num(m["minItems"]); ok && float64(len(x)) < lim {
			*errs = append(*errs, FieldError{ptr, fmt.Sprintf("must have >= %v items", lim)})
		}
		if lim, ok := num(m["maxItems"]); ok && float64(len(x)) > lim {
			*errs = append(*errs, FieldError{ptr, fmt.Sprintf("must have <= %v items", lim)})
		}
		if it, ok := m["items"]; ok {
			for i, e := range x {
				c.walk(it, e, ptr+"/"+strconv.Itoa(i), errs)
			}
		}
	case map[string]any:
		if lim, ok := num(m["maxProperties"]); ok && float64(len(x)) > lim {
			*errs = append(*errs, FieldError{ptr, fmt.Sprintf("must have <= %v properties", lim)})
		}
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				name, _ := r.(string)
				if _, present := x[name]; !present {
					*errs = append(*errs, FieldError{ptr, fmt.Sprintf("missing property %q", name)})
				}
			}
		}
		props, _ := m["properties"].(map[string]any)
		addl, hasAddl := m["additionalProperties"]
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child := ptr + "/" + escapePointer(k)
			if ps, ok := props[k]; ok {
				c.walk(ps, x[k], child, errs)
			} else if hasAddl {
				if b, isBool := addl.(bool); isBool && !b {
					*errs = append(*errs, FieldError{child, "unknown property"})
				} else {
					c.walk(addl, x[k], child, errs)
				}
			}
		}
	}
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func num(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}

func typeMatches(t any, v any) bool {
	switch tt := t.(type) {
	case string:
		return oneTypeMatches(tt, v)
	case []any:
		for _, x := range tt {
			if s, _ := x.(string); oneTypeMatches(s, v) {
				return true
			}
		}
	}
	return false
}

func oneTypeMatches(t string, v any) bool {
	switch t {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		if _, err := n.Int64(); err == nil {
			return true
		}
		r, ok := new(big.Rat).SetString(string(n))
		return ok && r.IsInt()
	}
	return false
}

func typeName(t any) string {
	if s, ok := t.(string); ok {
		return s
	}
	return compact(t)
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if oneTypeMatches("integer", x) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// jsonEqual compares a schema literal (decoded with float64 numbers) with a
// document value (decoded with json.Number).
func jsonEqual(schemaVal, v any) bool {
	switch s := schemaVal.(type) {
	case float64:
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f == s
	case string:
		x, ok := v.(string)
		return ok && x == s
	case bool:
		x, ok := v.(bool)
		return ok && x == s
	case nil:
		return v == nil
	}
	return compact(schemaVal) == compact(v)
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
