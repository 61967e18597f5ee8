//go:build !djinn_hook

package state

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// FullValidator reports whether schemas are checked by
// santhosh-tekuri/jsonschema/v5 (false in the hook build).
const FullValidator = true

// checkWrites: the default build checks every document before writing it,
// so Djinn never writes a file it would quarantine on the next load.
const checkWrites = true

// compileValidator compiles a schema with santhosh-tekuri/jsonschema/v5 for
// draft 2020-12, with formats asserted and no network or disk access for
// references. It also compiles the in-house checker, so that a schema using
// a keyword the hook build could not check fails here too.
func compileValidator(k Kind, schema []byte) (func(any) []FieldError, error) {
	if _, err := checkerFor(k); err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema %s is not embedded", u)
	}
	if err := c.AddResource(SchemaID(k), bytes.NewReader(schema)); err != nil {
		return nil, fmt.Errorf("add schema %s: %w", k, err)
	}
	s, err := c.Compile(SchemaID(k))
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", k, err)
	}
	return func(doc any) []FieldError {
		err := s.Validate(doc)
		if err == nil {
			return nil
		}
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return []FieldError{{"", err.Error()}}
		}
		return leafErrors(ve)
	}, nil
}

var quoted = regexp.MustCompile(`'([^']*)'`)

// leafErrors flattens the library's error tree to its leaves, which name the
// offending field.
func leafErrors(ve *jsonschema.ValidationError) []FieldError {
	var out []FieldError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			// Name the offending key itself, as the hook build's checker
			// does, rather than the object holding it.
			if strings.HasSuffix(e.KeywordLocation, "/additionalProperties") {
				for _, m := range quoted.FindAllStringSubmatch(e.Message, -1) {
					out = append(out, FieldError{Pointer: e.InstanceLocation + "/" + escapePointer(m[1]), Message: "unknown property"})
				}
				return
			}
			out = append(out, FieldError{Pointer: e.InstanceLocation, Message: strings.TrimSpace(e.Message)})
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

// validateBytes decodes raw JSON and checks it with jsonschema/v5.
func validateBytes(k Kind, raw []byte) []FieldError {
	doc, err := decodeAny(raw)
	if err != nil {
		return []FieldError{{"", "invalid JSON: " + err.Error()}}
	}
	return Validate(k, doc)
}
