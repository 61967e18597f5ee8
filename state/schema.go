package state

import (
	"embed"
	"fmt"
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
	KindProfile    Kind = "profile"
)

// Kinds lists every schema, for validation and tests.
func Kinds() []Kind {
	return []Kind{KindConfig, KindPosteriors, KindLearning, KindAnchor, KindReservoir, KindWindow, KindTurn, KindAdvisory, KindProfile}
}

// SchemaID is the $id every embedded schema carries.
func SchemaID(k Kind) string { return "https://djinn.local/schemas/" + string(k) + ".schema.json" }

// The embedded schemas are the documented contract of every state file.
// Hooks check files with the Go types' Validate methods (validate.go);
// `djinn state validate` and the tests check them against these schemas
// with santhosh-tekuri/jsonschema/v5 (package state/schemacheck).
//
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
