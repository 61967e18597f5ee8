// Package schemacheck checks state documents against their embedded JSON
// Schemas (draft 2020-12, formats asserted) with
// santhosh-tekuri/jsonschema/v5. The schemas are the documented contract of
// the state files; `djinn state validate` and the tests check files with
// this package. Hooks do not: they check with the Go types' Validate
// methods (package state), and this package, whose dependency compiles
// five meta-schemas in its package initialisation (about 3 ms), stays out of
// the hook binary.
package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/djinn-cc/djinn/state"
)

var (
	mu       sync.Mutex
	compiled = map[state.Kind]*jsonschema.Schema{}
)

// Compile returns the compiled embedded schema of a kind, compiled once
// per process, with no network or disk access for references.
func Compile(k state.Kind) (*jsonschema.Schema, error) {
	mu.Lock()
	defer mu.Unlock()
	if s, ok := compiled[k]; ok {
		return s, nil
	}
	b, err := state.Schema(k)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema %s is not embedded", u)
	}
	if err := c.AddResource(state.SchemaID(k), bytes.NewReader(b)); err != nil {
		return nil, fmt.Errorf("add schema %s: %w", k, err)
	}
	s, err := c.Compile(state.SchemaID(k))
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", k, err)
	}
	compiled[k] = s
	return s, nil
}

// Validate checks raw JSON against kind k's schema and returns every
// violation (nil when valid). Invalid JSON is a violation of the whole
// document.
func Validate(k state.Kind, raw []byte) []state.FieldError {
	doc, err := Decode(raw)
	if err != nil {
		return []state.FieldError{{Message: "invalid JSON: " + err.Error()}}
	}
	return ValidateDoc(k, doc)
}

// ValidateDoc checks a document decoded by Decode.
func ValidateDoc(k state.Kind, doc any) []state.FieldError {
	s, err := Compile(k)
	if err != nil {
		return []state.FieldError{{Message: err.Error()}}
	}
	err = s.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []state.FieldError{{Message: err.Error()}}
	}
	return leafErrors(ve)
}

// Decode decodes one JSON value with numbers kept as json.Number, as the
// validator wants them; anything after the value is an error.
func Decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return doc, nil
}

var quoted = regexp.MustCompile(`'([^']*)'`)

// leafErrors flattens the library's error tree to its leaves, which name
// the offending field.
func leafErrors(ve *jsonschema.ValidationError) []state.FieldError {
	var out []state.FieldError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			// Name the offending key itself rather than the object
			// holding it.
			if strings.HasSuffix(e.KeywordLocation, "/additionalProperties") {
				for _, m := range quoted.FindAllStringSubmatch(e.Message, -1) {
					out = append(out, state.FieldError{Pointer: e.InstanceLocation + "/" + escapePointer(m[1]), Message: "unknown property"})
				}
				return
			}
			out = append(out, state.FieldError{Pointer: e.InstanceLocation, Message: strings.TrimSpace(e.Message)})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return out
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
