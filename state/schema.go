package state

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Kind names a state document type and its embedded schema
// (schemas/<kind>.schema.json).
type Kind string

// The state documents. Line kinds (Turn, Advisory, Learning) describe one
// JSONL line each.
const (
	KindConfig     Kind = "config"
	KindPosteriors Kind = "posteriors"
	KindLearning   Kind = "learning"
	KindAnchor     Kind = "anchor"
	KindReservoir  Kind = "reservoir"
	KindWindow     Kind = "window"
	KindTurn       Kind = "turn"
	KindAdvisory   Kind = "advisory"
)

// Kinds lists every schema, for validation and tests.
var Kinds = []Kind{KindConfig, KindPosteriors, KindLearning, KindAnchor, KindReservoir, KindWindow, KindTurn, KindAdvisory}

// SchemaID is the $id every embedded schema carries.
func SchemaID(k Kind) string { return "https://djinn.local/schemas/" + string(k) + ".schema.json" }

//go:embed schemas/*.schema.json
var schemaFS embed.FS

// Schema returns the embedded JSON Schema text of a kind.
func Schema(k Kind) ([]byte, error) {
	b, err := schemaFS.ReadFile("schemas/" + string(k) + ".schema.json")
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", k, err)
	}
	return b, nil
}

// validators are compiled lazily, once per kind per process: a hook loads
// three or four kinds, never all.
var (
	validatorsMu sync.Mutex
	validators   = map[Kind]func(any) []FieldError{}
)

// Validate checks a document decoded with json.Decoder.UseNumber against
// the kind's schema and returns every violation (nil when valid).
func Validate(k Kind, doc any) []FieldError {
	validatorsMu.Lock()
	v, ok := validators[k]
	if !ok {
		b, err := Schema(k)
		if err == nil {
			v, err = compileValidator(k, b)
		}
		if err != nil {
			// An embedded schema that does not compile is a build defect;
			// tests catch it. Report it as a violation rather than panic.
			msg := err.Error()
			v = func(any) []FieldError { return []FieldError{{"", msg}} }
		}
		validators[k] = v
	}
	validatorsMu.Unlock()
	return v(doc)
}

// checkers are the in-house checkers, compiled lazily, once per kind per
// process. In the hook build they are also the validators (one compile per
// kind, not two).
var (
	checkersMu sync.Mutex
	checkers   = map[Kind]*checker{}
)

// checkerFor returns the compiled in-house checker of a kind.
func checkerFor(k Kind) (*checker, error) {
	checkersMu.Lock()
	defer checkersMu.Unlock()
	if c, ok := checkers[k]; ok {
		return c, nil
	}
	b, err := Schema(k)
	if err != nil {
		return nil, err
	}
	c, err := compileChecker(b)
	if err != nil {
		return nil, err
	}
	if c.raw, err = newRawChecker(c); err != nil {
		return nil, err
	}
	checkers[k] = c
	return c, nil
}

// rawCheckers are the one-pass checkers, built once per kind per process
// from the trees compiled ahead of time (checkers_gen.go): parsing and
// compiling the window's 14 KB schema took about a fifth of a millisecond
// of every cold hook process. TestGeneratedCheckers holds the generated
// trees to what the schemas compile to.
var (
	rawCheckersMu sync.Mutex
	rawCheckers   = map[Kind]*rawChecker{}
)

func rawCheckerFor(k Kind) (*rawChecker, error) {
	rawCheckersMu.Lock()
	defer rawCheckersMu.Unlock()
	if rc, ok := rawCheckers[k]; ok {
		return rc, nil
	}
	var rc *rawChecker
	if build := generatedChecker(k); build != nil {
		rc = &rawChecker{root: build()}
	} else {
		c, err := checkerFor(k)
		if err != nil {
			return nil, err
		}
		rc = c.raw
	}
	rawCheckers[k] = rc
	return rc, nil
}

// quickValidate checks raw JSON with the in-house checker, in one pass over
// the bytes.
func quickValidate(k Kind, raw []byte) []FieldError {
	rc, err := rawCheckerFor(k)
	if err != nil {
		return []FieldError{{"", err.Error()}}
	}
	return rc.check(bytes.TrimSpace(raw))
}

// validateDecoded is quickValidate for bytes already known to be JSON (a
// decoder as strict as encoding/json took them): the schema walk alone.
func validateDecoded(k Kind, raw []byte) []FieldError {
	rc, err := rawCheckerFor(k)
	if err != nil {
		return []FieldError{{"", err.Error()}}
	}
	return rc.walk(bytes.TrimSpace(raw))
}

// ValidateBytes validates raw JSON. A syntax error is reported as a
// violation of the whole document.
func ValidateBytes(k Kind, raw []byte) []FieldError {
	return validateBytes(k, raw)
}

func decodeAny(raw []byte) (any, error) {
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
