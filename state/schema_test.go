//go:build !djinn_hook

package state

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemasCompile compiles every embedded schema with
// santhosh-tekuri/jsonschema/v5 under the draft 2020-12 meta-schema, and
// with the hook build's checker.
func TestSchemasCompile(t *testing.T) {
	for _, k := range Kinds {
		b, err := Schema(k)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := compileValidator(k, b); err != nil {
			t.Errorf("%s: %v", k, err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if doc["$id"] != SchemaID(k) {
			t.Errorf("%s: $id = %v, want %s", k, doc["$id"], SchemaID(k))
		}
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema = %v", k, doc["$schema"])
		}
	}
}

func loadValid(t *testing.T, k Kind) any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "valid", string(k)+".json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := decodeAny(raw)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestValidExamples checks that the example of every kind is valid under
// both validators.
func TestValidExamples(t *testing.T) {
	for _, k := range Kinds {
		doc := loadValid(t, k)
		if errs := Validate(k, doc); len(errs) > 0 {
			t.Errorf("%s (jsonschema/v5): %v", k, errs)
		}
		b, _ := Schema(k)
		c, err := compileChecker(b)
		if err != nil {
			t.Fatal(err)
		}
		if errs := c.check(doc); len(errs) > 0 {
			t.Errorf("%s (checker): %v", k, errs)
		}
	}
}

// TestCheckerAgreesWithJSONSchema is the oracle test for the hook build's
// checker: on thousands of mutations of valid documents, it must accept
// exactly what santhosh-tekuri/jsonschema/v5 accepts.
func TestCheckerAgreesWithJSONSchema(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const perKind = 1500
	for _, k := range Kinds {
		b, _ := Schema(k)
		c, err := compileChecker(b)
		if err != nil {
			t.Fatal(err)
		}
		base := loadValid(t, k)
		invalid := 0
		for i := 0; i < perKind; i++ {
			doc := deepCopy(base)
			for m := 0; m < 1+rng.IntN(3); m++ {
				doc = mutate(rng, doc)
			}
			want := len(Validate(k, doc)) == 0
			got := len(c.check(doc)) == 0
			if !want {
				invalid++
			}
			if got != want {
				js, _ := json.Marshal(doc)
				t.Fatalf("%s: checker valid=%v, jsonschema valid=%v for %s\nchecker: %v\njsonschema: %v", k, got, want, js, c.check(doc), Validate(k, doc))
			}
			// The one-pass checker of raw bytes agrees too, on compact and
			// indented text.
			js, _ := json.Marshal(doc)
			ind, _ := json.MarshalIndent(doc, "", "  ")
			rc, _ := newRawChecker(c)
			for _, text := range [][]byte{js, ind} {
				if rawOK := len(rc.check(text)) == 0; rawOK != want {
					t.Fatalf("%s: raw checker valid=%v, jsonschema valid=%v for %s\nraw: %v\njsonschema: %v", k, rawOK, want, text, rc.check(text), Validate(k, doc))
				}
			}
		}
		// A mutation test that never produced an invalid document would
		// prove nothing.
		if invalid < perKind/4 {
			t.Errorf("%s: only %d of %d mutations were invalid", k, invalid, perKind)
		}
	}
}

func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	out, _ := decodeAny(b)
	return out
}

var mutantValues = []any{
	nil, true, false, "", "x", strings.Repeat("y", 5000), "2026-13-45T99:00:00Z", "2026-11-21T10:00:00Z",
	json.Number("0"), json.Number("-1"), json.Number("1.5"), json.Number("3"), json.Number("1e400"),
	json.Number("99999999999"), json.Number("0.5"), []any{}, []any{"a"}, []any{json.Number("0.2"), json.Number("0.9")},
	map[string]any{}, map[string]any{"k": "v"}, "feature", "soft", "read-loop", "all", "loops", "abcdef012345",
	"bad id/..", "0123456789abcdef", "quote\" back\\slash\nnewline", "<tag>&amp;", "é-ü", "2026-11-21T10:00:00.123456+02:00",
	json.Number("1.0"), json.Number("1e2"), json.Number("-0"),
}

// pick returns a fresh copy of a random mutant value, so documents never
// share (and cycle through) the same map or slice.
func pick(rng *rand.Rand) any { return deepCopy(mutantValues[rng.IntN(len(mutantValues))]) }

// mutate changes one random place of a document: replace a value, delete a
// key, add a key, or drop/duplicate an array element.
func mutate(rng *rand.Rand, doc any) any {
	var paths [][]any
	var walk func(v any, path []any)
	walk = func(v any, path []any) {
		paths = append(paths, append([]any(nil), path...))
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(c, append(path, k))
			}
		case []any:
			for i, c := range x {
				walk(c, append(path, i))
			}
		}
	}
	walk(doc, nil)
	p := paths[rng.IntN(len(paths))]
	if len(p) == 0 {
		if m, ok := doc.(map[string]any); ok && rng.IntN(2) == 0 {
			m[fmt.Sprintf("extra%d", rng.IntN(3))] = pick(rng)
			return doc
		}
		return pick(rng)
	}
	parent := doc
	for _, step := range p[:len(p)-1] {
		switch x := parent.(type) {
		case map[string]any:
			parent = x[step.(string)]
		case []any:
			parent = x[step.(int)]
		}
	}
	last := p[len(p)-1]
	switch x := parent.(type) {
	case map[string]any:
		key := last.(string)
		switch rng.IntN(4) {
		case 0:
			delete(x, key)
		case 1:
			x[key+"_x"] = pick(rng)
		default:
			x[key] = pick(rng)
		}
	case []any:
		i := last.(int)
		x[i] = pick(rng)
	}
	return doc
}

// FuzzRawChecker: on any input, the one-pass checker of raw bytes and the
// checker of the decoded tree give the same verdict (and never panic).
func FuzzRawChecker(f *testing.F) {
	for _, k := range Kinds {
		raw, _ := os.ReadFile(filepath.Join("testdata", "valid", string(k)+".json"))
		f.Add(string(k), raw)
	}
	f.Add("window", []byte(`{"schema_version":1,"events":{"a":-1}}`))
	f.Fuzz(func(t *testing.T, kind string, raw []byte) {
		k := Kind(kind)
		b, err := Schema(k)
		if err != nil {
			return
		}
		c, err := compileChecker(b)
		if err != nil {
			t.Fatal(err)
		}
		rc, err := newRawChecker(c)
		if err != nil {
			t.Fatal(err)
		}
		rawOK := len(rc.check(raw)) == 0
		doc, err := decodeAny(raw)
		treeOK := err == nil && len(c.check(doc)) == 0
		if rawOK != treeOK && !hasDuplicateKeys(raw) {
			t.Fatalf("raw checker %v, tree checker %v on %q", rawOK, treeOK, raw)
		}
	})
}

// hasDuplicateKeys reports whether an object repeats a key (the decoded
// tree keeps only the last value; the raw checker checks every one).
func hasDuplicateKeys(raw []byte) bool {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	var walk func() bool
	walk = func() bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return false
				}
				key, _ := k.(string)
				if seen[key] {
					return true
				}
				seen[key] = true
				if walk() {
					return true
				}
			}
			_, _ = dec.Token()
		case json.Delim('['):
			for dec.More() {
				if walk() {
					return true
				}
			}
			_, _ = dec.Token()
		}
		return false
	}
	return walk()
}
