package state_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
	"github.com/djinn-cc/djinn/state/schemacheck"
)

// These tests hold the hook path's check of a state file (a strict decode
// into its Go type, then its Validate method: state.ValidateBytes) to the
// embedded JSON Schemas, with santhosh-tekuri/jsonschema/v5 as the oracle.

// TestSchemasCompile compiles every embedded schema under the draft
// 2020-12 meta-schema.
func TestSchemasCompile(t *testing.T) {
	for _, k := range state.Kinds() {
		if _, err := schemacheck.Compile(k); err != nil {
			t.Errorf("%s: %v", k, err)
		}
		b, _ := state.Schema(k)
		var doc struct {
			ID     string `json:"$id"`
			Schema string `json:"$schema"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.ID != state.SchemaID(k) || doc.Schema != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $id %q, $schema %q", k, doc.ID, doc.Schema)
		}
	}
}

// baseDocs are the valid documents the mutations start from, by kind: the
// documents testdata keeps, with a few lines of each log.
func baseDocs(t *testing.T) map[state.Kind][][]byte { return state.KeptDocs(t, 5) }

// TestValidExamples: every base document passes the schema and the hook
// path's check.
func TestValidExamples(t *testing.T) {
	for k, list := range baseDocs(t) {
		for i, raw := range list {
			if errs := schemacheck.Validate(k, raw); len(errs) > 0 {
				t.Errorf("%s #%d (schema): %v", k, i, errs)
			}
			if errs := settings.ValidateBytes(k, raw); len(errs) > 0 {
				t.Errorf("%s #%d (ValidateBytes): %v", k, i, errs)
			}
		}
	}
}

// TestValidateMatchesSchema is the oracle test of the hook path's check:
// on thousands of mutations of the base documents (a value replaced by one
// of another type or out of range, a member deleted or added, an array
// element replaced), state.ValidateBytes must accept exactly what the
// schema accepts, but for the differences by design of the table below,
// each recognised here by what it is, never by the two disagreeing. And
// whatever the check accepts is, as decoded and written back by
// encoding/json, valid under the schema: Djinn never holds a document its
// own contract refuses.
func TestValidateMatchesSchema(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const perKind = 1500
	dir := t.TempDir()
	bases := baseDocs(t)
	seen := map[string]int{}
	for _, k := range state.Kinds() {
		invalid := 0
		for range perKind {
			base := bases[k][rng.IntN(len(bases[k]))]
			doc, err := schemacheck.Decode(base)
			if err != nil {
				t.Fatal(err)
			}
			for range 1 + rng.IntN(3) {
				doc = mutate(rng, doc)
			}
			raw, _ := json.Marshal(doc)
			schemaErrs := schemacheck.ValidateDoc(k, doc)
			typedErrs := settings.ValidateBytes(k, raw)
			if len(schemaErrs) > 0 {
				invalid++
			}
			if len(typedErrs) == 0 {
				if errs := schemacheck.Validate(k, reencode(t, dir, k, raw)); len(errs) > 0 {
					t.Fatalf("%s: accepted %s, which re-encoded fails the schema: %v", k, raw, errs)
				}
			}
			if (len(schemaErrs) == 0) == (len(typedErrs) == 0) {
				continue
			}
			d := explain(t, k, doc, schemaErrs, typedErrs)
			if d == nil {
				t.Fatalf("%s: schema valid=%v, ValidateBytes valid=%v, for no difference by design, on\n%s\nschema: %v\nValidateBytes: %v",
					k, len(schemaErrs) == 0, len(typedErrs) == 0, raw, schemaErrs, typedErrs)
			}
			seen[d.name]++
		}
		// A mutation test that never produced an invalid document would
		// prove nothing.
		if invalid < perKind/4 {
			t.Errorf("%s: only %d of %d mutations were invalid", k, invalid, perKind)
		}
	}
	t.Logf("disagreements by design: %v", seen)
}

// A difference is where the hook path's check and the schema disagree by
// design. lenient differences are documents the check accepts and the
// schema refuses, strict ones the reverse.
type difference struct {
	name    string
	lenient bool
	why     string
}

var differences = []difference{
	{"null", true, "encoding/json leaves a Go value as it is for a JSON null, so a null member reads as absent (the zero value, which the check then holds to the schema's bounds); no schema allows null anywhere"},
	{"missing", true, "a required member whose Go zero value the schema allows (a count, a flag, a text, a time) cannot be told from one written as zero; Djinn writes every required member, and reads a missing one as zero"},
	{"empty-optional", true, "an optional member with omitempty that the schema holds to an enum or a pattern (a turn's topic, an advisory's id) reads \"\" as absent"},
	{"integer-spelling", false, "an integer written with a fraction or exponent (1.0, 1e2, -0 for an unsigned) is an integer to the schema but not to encoding/json's integer decode; Djinn writes plain digits"},
	{"beyond-go", false, "a number beyond its Go type (1e400, or an integer past int64) that the schema leaves unbounded does not decode"},
	{"tiers-order", false, "pressure.tiers must be increasing, which JSON Schema cannot say (the schema's description does); a tier is announced as the context crosses it going up"},
	{"logged-lines", false, "the lines a window keeps in logged decode as turns and advisories, unknown members and wrong types refused; the window schema takes any object there (each line is checked as a line of its log when it is appended)"},
}

// The check is also stricter on two things the mutations do not make: a
// member whose name differs from a field's only by case is taken for the
// field (encoding/json matches names without case), and a number within
// float64's rounding of a bound (1.0000000000000001 for a maximum of 1)
// is at the bound. TestValidateDifferences shows both.

func differenceNamed(name string) *difference {
	for i := range differences {
		if differences[i].name == name {
			return &differences[i]
		}
	}
	panic("no difference " + name)
}

// explain returns the difference by design behind a disagreement, or nil.
func explain(t *testing.T, k state.Kind, doc any, schemaErrs, typedErrs []state.FieldError) *difference {
	t.Helper()
	if len(typedErrs) == 0 {
		// Lenient: every schema violation must be a null, a missing
		// member, or an empty optional enum or pattern.
		name := ""
		for _, e := range schemaErrs {
			v, ok := lookup(doc, e.Pointer)
			switch {
			case ok && v == nil:
				name = "null"
			case strings.HasPrefix(e.Message, "missing properties"):
				name = "missing"
			case ok && v == "" && (strings.Contains(e.Message, "value must be one of") || strings.Contains(e.Message, "does not match pattern")):
				name = "empty-optional"
			default:
				return nil
			}
		}
		return differenceNamed(name)
	}
	// Strict: the repairs, applied one after another (a mutant may carry
	// two differences), must make the check accept and leave the schema
	// accepting; the difference is named by the repair that did it.
	fixed := copyDoc(doc)
	for _, r := range []struct {
		name   string
		repair func(any) any
	}{
		{"integer-spelling", canonicalIntegers},
		{"beyond-go", clampNumbers},
		{"tiers-order", func(d any) any {
			if m, ok := d.(map[string]any); ok && k == state.KindConfig {
				if p, ok := m["pressure"].(map[string]any); ok {
					if ts, ok := p["tiers"].([]any); ok {
						p["tiers"] = increasing(ts)
					}
				}
			}
			return d
		}},
		{"logged-lines", func(d any) any {
			if m, ok := d.(map[string]any); ok && k == state.KindWindow {
				delete(m, "logged")
			}
			return d
		}},
	} {
		fixed = r.repair(fixed)
		raw, _ := json.Marshal(fixed)
		if len(settings.ValidateBytes(k, raw)) == 0 && len(schemacheck.ValidateDoc(k, fixed)) == 0 {
			return differenceNamed(r.name)
		}
	}
	return nil
}

// reencode decodes raw into kind k's Go type and encodes it again, as
// Djinn would write it back (config.json: through dir/config.json).
func reencode(t *testing.T, dir string, k state.Kind, raw []byte) []byte {
	t.Helper()
	var v any
	switch k {
	case state.KindConfig:
		if err := os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o600); err != nil {
			t.Fatal(err)
		}
		s, _ := settings.Load(dir, nil, nil)
		v = &s
	default:
		v = state.NewDoc(k)
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", k, err)
	}
	return out
}

// lookup returns the value at a JSON pointer.
func lookup(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	cur := doc
	for _, p := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[p]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// walkNumbers replaces every number of doc by what fix returns for it.
func walkNumbers(doc any, fix func(json.Number) json.Number) any {
	switch x := doc.(type) {
	case map[string]any:
		for k, v := range x {
			x[k] = walkNumbers(v, fix)
		}
	case []any:
		for i, v := range x {
			x[i] = walkNumbers(v, fix)
		}
	case json.Number:
		return fix(x)
	}
	return doc
}

// canonicalIntegers writes every integral number in plain digits.
func canonicalIntegers(doc any) any {
	return walkNumbers(doc, func(n json.Number) json.Number {
		r, ok := new(big.Rat).SetString(string(n))
		if !ok || !r.IsInt() || !r.Num().IsInt64() {
			return n
		}
		return json.Number(strconv.FormatInt(r.Num().Int64(), 10))
	})
}

// clampNumbers brings every number beyond float64 or int64 within them,
// keeping its sign and whether it is integral.
func clampNumbers(doc any) any {
	return walkNumbers(doc, func(n json.Number) json.Number {
		r, ok := new(big.Rat).SetString(string(n))
		if !ok {
			return n
		}
		if r.IsInt() && !r.Num().IsInt64() {
			if r.Sign() < 0 {
				return "-9223372036854775808"
			}
			return "9223372036854775807"
		}
		if _, err := strconv.ParseFloat(string(n), 64); err != nil {
			if r.Sign() < 0 {
				return "-1e308"
			}
			return "1e308"
		}
		return n
	})
}

func copyDoc(v any) any {
	b, _ := json.Marshal(v)
	out, _ := schemacheck.Decode(b)
	return out
}

var mutantValues = []any{
	nil, true, false, "", "x", strings.Repeat("y", 5000), "2026-13-45T99:00:00Z", "2026-11-21T10:00:00Z",
	json.Number("0"), json.Number("-1"), json.Number("1.5"), json.Number("3"), json.Number("1e400"),
	json.Number("99999999999"), json.Number("0.5"), []any{}, []any{"a"}, []any{json.Number("0.2"), json.Number("0.9")},
	map[string]any{}, map[string]any{"k": "v"}, "feature", "soft", "read-loop", "all", "loops", "abcdef012345",
	"bad id/..", "0123456789abcdef", "quote\" back\\slash\nnewline", "<tag>&amp;", "é-ü", "2026-11-21T10:00:00.123456+02:00",
	json.Number("1.0"), json.Number("1e2"), json.Number("-0"), json.Number("123456789012345678901234567890"),
}

// pick returns a fresh copy of a random mutant value, so documents never
// share (and cycle through) the same map or slice.
func pick(rng *rand.Rand) any { return copyDoc(mutantValues[rng.IntN(len(mutantValues))]) }

// mutate changes one random place of a document: replace a value, delete a
// key, add a key, or replace an array element.
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
		x[last.(int)] = pick(rng)
	}
	return doc
}

// TestValidateDifferences shows each difference by design on one document,
// and a few places where the two agree that a typed decode could get
// wrong.
func TestValidateDifferences(t *testing.T) {
	const win = `"schema_version":1,"session_id":"s","created_at":"2026-11-21T10:00:00Z","updated_at":"2026-11-21T10:00:00Z","events":{}`
	for _, c := range []struct {
		name     string
		kind     state.Kind
		raw      string
		schemaOK bool
		checkOK  bool
		diff     string // the difference by design, when the two disagree
	}{
		{"valid", state.KindWindow, `{` + win + `,"tool_calls":1}`, true, true, ""},
		{"null member", state.KindWindow, `{` + win + `,"tool_calls":1,"prompt_id":null}`, false, true, "null"},
		{"missing count", state.KindWindow, `{` + win + `}`, false, true, "missing"},
		{"missing array", state.KindAnchor, `{"schema_version":1,"session_id":"s","text":"t","hash":"0123456789ab","intent_type":"docs","tokens":[],"captured_at":"2026-11-21T10:00:00Z","source":"prompt","delta_count":0,"pivots":0,"reorients":0}`, false, false, ""},
		{"empty optional enum", state.KindTurn, `{"schema_version":1,"seq":1,"time":"2026-11-21T10:00:00Z","tool":"Read","topic":""}`, false, true, "empty-optional"},
		{"empty optional id", state.KindAdvisory, `{"schema_version":1,"time":"2026-11-21T10:00:00Z","event":"Stop","kind":"stall","severity":"soft","text":"t","seq":1,"id":""}`, false, true, "empty-optional"},
		{"integer as 1.0", state.KindWindow, `{` + win + `,"tool_calls":1.0}`, true, false, "integer-spelling"},
		{"integer as 1e2", state.KindTurn, `{"schema_version":1,"seq":1e2,"time":"2026-11-21T10:00:00Z","tool":"Read"}`, true, false, "integer-spelling"},
		{"number beyond float64", state.KindAdvisory, `{"schema_version":1,"time":"2026-11-21T10:00:00Z","event":"Stop","kind":"stall","severity":"soft","text":"t","seq":1,"numbers":{"x":1e400}}`, true, false, "beyond-go"},
		{"logged line with an unknown member", state.KindWindow, `{` + win + `,"tool_calls":1,"logged":{"turns":[{"x":1}]}}`, true, false, "logged-lines"},
		{"member name in another case", state.KindWindow, `{` + win + `,"Tool_Calls":1}`, false, true, "(case)"},
		{"rounding at a bound", state.KindTurn, `{"schema_version":1,"seq":1,"time":"2026-11-21T10:00:00Z","tool":"Read","score":1.0000000000000001}`, false, true, "(rounding)"},
		{"unknown member", state.KindWindow, `{` + win + `,"tool_calls":1,"evil":true}`, false, false, ""},
		{"trailing data", state.KindWindow, `{` + win + `,"tool_calls":1} {}`, false, false, ""},
		{"schema_version 2", state.KindWindow, `{"schema_version":2,"session_id":"s","created_at":"2026-11-21T10:00:00Z","updated_at":"2026-11-21T10:00:00Z","events":{},"tool_calls":1}`, false, false, ""},
		{"bad date-time", state.KindTurn, `{"schema_version":1,"seq":1,"time":"2026-13-01T00:00:00Z","tool":"Read"}`, false, false, ""},
		{"cursor not an object", state.KindWindow, `{` + win + `,"tool_calls":1,"pressure":{"cursor":[1],"tokens":0,"limit":0,"announced":[]}}`, false, false, ""},
		{"null loop state", state.KindWindow, `{` + win + `,"tool_calls":1,"loops":{"main":null}}`, false, false, ""},
		{"text of 4000 runes of 2 bytes", state.KindAnchor, `{"schema_version":1,"session_id":"s","text":"` + strings.Repeat("é", 4000) + `","hash":"0123456789ab","intent_type":"docs","tokens":[],"captured_at":"2026-11-21T10:00:00Z","source":"prompt","deltas":[],"delta_count":0,"pivots":0,"reorients":0}`, true, true, ""},
		{"keep limit with its files", state.KindWindow, `{` + win + `,"tool_calls":1,"risk":{"limits":[{"class":"keep","target":"gpt-4o-mini","text":"use \"gpt-4o-mini\"","source":"prompt","files":["/p/a.yml"]}]}}`, true, true, ""},
		{"a request's limit", state.KindWindow, `{` + win + `,"tool_calls":1,"risk":{"limits":[{"class":"push","text":"commit the changes","source":"request"}]}}`, true, true, ""},
		{"a hook's guard", state.KindWindow, `{` + win + `,"tool_calls":1,"risk":{"limits":[{"class":"guard-access","target":"/p/.env","text":"call #3 (Write): BLOCKED: Access to .env files is prohibited","source":"hook"}]}}`, true, true, ""},
		{"a refused command", state.KindWindow, `{` + win + `,"tool_calls":3,"risk":{"refused":"rm -rf src/a","refused_prompt":2}}`, true, true, ""},
		{"a refused command too long", state.KindWindow, `{` + win + `,"tool_calls":3,"risk":{"refused":"` + strings.Repeat("r", 1025) + `"}}`, false, false, ""},
		{"a refused prompt below zero", state.KindWindow, `{` + win + `,"tool_calls":3,"risk":{"refused_prompt":-1}}`, false, false, ""},
		{"a rejected commit", state.KindWindow, `{` + win + `,"tool_calls":3,"risk":{"rejected_commit":2}}`, true, true, ""},
		{"a rejected commit below zero", state.KindWindow, `{` + win + `,"tool_calls":3,"risk":{"rejected_commit":-1}}`, false, false, ""},
		{"a limit from nowhere", state.KindWindow, `{` + win + `,"tool_calls":1,"risk":{"limits":[{"class":"push","text":"commit the changes","source":"guess"}]}}`, false, false, ""},
		{"keep limit with five files", state.KindWindow, `{` + win + `,"tool_calls":1,"risk":{"limits":[{"class":"keep","target":"v1.2","text":"t","source":"prompt","files":["a","b","c","d","e"]}]}}`, false, false, ""},
		{"keep limit with a long file name", state.KindWindow, `{` + win + `,"tool_calls":1,"risk":{"limits":[{"class":"keep","target":"v1.2","text":"t","source":"prompt","files":["` + strings.Repeat("f", 1025) + `"]}]}}`, false, false, ""},
		// Two loop-event members whose bounds the check once lacked (the
		// oracle met the first by chance, on a remembered failure).
		{"loop failure key too long", state.KindWindow, `{` + win + `,"tool_calls":1,"loops":{"main":{"events":[],"failures":[{"n":1,"tool":"Bash","failed":true,"fail":"` + strings.Repeat("y", 1025) + `"}],"n":1,"patterns":{},"writes":0}}}`, false, false, ""},
		{"loop event shown too long", state.KindWindow, `{` + win + `,"tool_calls":1,"loops":{"main":{"events":[{"n":1,"tool":"Bash","shown":"` + strings.Repeat("h", 65) + `"}],"n":1,"patterns":{},"writes":0}}}`, false, false, ""},
		{"config integer as 1.0", state.KindConfig, `{"loops":{"window":30.0}}`, true, false, "integer-spelling"},
		{"config null", state.KindConfig, `{"loops":{"window":null}}`, false, false, ""},
		{"config exclusive minimum", state.KindConfig, `{"loops":{"alpha":0}}`, false, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			schemaOK := len(schemacheck.Validate(c.kind, []byte(c.raw))) == 0
			checkOK := len(settings.ValidateBytes(c.kind, []byte(c.raw))) == 0
			if schemaOK != c.schemaOK || checkOK != c.checkOK {
				t.Fatalf("schema valid=%v (want %v), ValidateBytes valid=%v (want %v): %v / %v", schemaOK, c.schemaOK, checkOK, c.checkOK,
					schemacheck.Validate(c.kind, []byte(c.raw)), settings.ValidateBytes(c.kind, []byte(c.raw)))
			}
			if (schemaOK != checkOK) != (c.diff != "") {
				t.Fatalf("disagreement %v, difference %q", schemaOK != checkOK, c.diff)
			}
			if c.diff != "" && !strings.HasPrefix(c.diff, "(") && differenceNamed(c.diff).lenient != checkOK {
				t.Fatalf("difference %s is not lenient=%v", c.diff, checkOK)
			}
		})
	}
}

// FuzzLoad: whatever a state file holds, Load either decodes a document
// that, written back, passes its schema, or moves the file aside and
// starts fresh; it never panics, and never leaves an invalid file in place.
func FuzzLoad(f *testing.F) {
	for _, k := range state.Kinds() {
		if b, err := os.ReadFile(filepath.Join("testdata", "valid", string(k)+".json")); err == nil {
			f.Add(b, uint8(0))
		}
	}
	f.Add([]byte(`{"schema_version":1,`), uint8(1))
	f.Add([]byte(`{"schema_version":2}`), uint8(2))
	f.Add([]byte(`{"schema_version":1,"session_id":"s","created_at":"2026-11-21T10:00:00Z","updated_at":"2026-11-21T10:00:00Z","events":{},"tool_calls":1e999}`), uint8(3))
	f.Add([]byte("\xff\xfe"), uint8(4))
	// Repaired field by field: an anchor's count as a word, a window cut
	// short after a member of the wrong type.
	f.Add([]byte(`{"schema_version":1,"session_id":"s","text":"Fix it","hash":"5bff3399d9fa","intent_type":"bugfix","tokens":[],"captured_at":"2026-11-21T10:00:00Z","source":"prompt","deltas":[],"delta_count":"one","pivots":0,"reorients":0}`), uint8(1))
	f.Add([]byte(`{"schema_version":1,"session_id":"s","events":{},"tool_calls":"16","drift":{"threshold":7},"loops":{`), uint8(0))
	docKinds := []state.Kind{state.KindWindow, state.KindAnchor, state.KindReservoir, state.KindPosteriors, state.KindTurn, state.KindAdvisory, state.KindLearning}
	f.Fuzz(func(t *testing.T, raw []byte, kind uint8) {
		k := docKinds[int(kind)%len(docKinds)]
		st := &state.Store{Root: t.TempDir(), Now: func() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) }}
		p := filepath.Join(st.Root, string(k)+".json")
		if err := os.WriteFile(p, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		v := state.NewDoc(k)
		found, err := st.Load(p, k, v)
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if found {
			back, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if errs := schemacheck.Validate(k, back); len(errs) > 0 {
				t.Fatalf("Load accepted a %s that, written back, fails its schema: %v\n%s", k, errs, back)
			}
			return
		}
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("an invalid %s was left in place", k)
		}
	})
}

// FuzzReadLines: any JSONL content is read without error; every line
// delivered decodes to a turn that, written back, passes the schema, and
// the rest are counted as invalid or torn.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"seq":1,"time":"2026-11-21T10:00:00Z","tool":"Bash"}`+"\n"+`{"schema_version":1,"seq":2,"ti`), int64(0))
	f.Add([]byte("\n\n{}\n[]\n"), int64(3))
	f.Add([]byte(strings.Repeat(`{"schema_version":1,"seq":1,"time":"2026-11-21T10:00:00Z","tool":"Bash"}`+"\n", 20)), int64(100))
	f.Fuzz(func(t *testing.T, raw []byte, max int64) {
		st := &state.Store{Root: t.TempDir()}
		p := filepath.Join(st.Root, "turns.jsonl")
		if err := os.WriteFile(p, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		n := 0
		stats, err := st.ReadLines(p, state.KindTurn, max%4096, func(line []byte) error {
			var tn state.Turn
			if err := json.Unmarshal(line, &tn); err != nil {
				t.Fatalf("delivered a line that does not decode %q: %v", line, err)
			}
			back, _ := json.Marshal(tn)
			if errs := schemacheck.Validate(state.KindTurn, back); len(errs) > 0 {
				t.Fatalf("delivered a line that, written back, fails the schema %q: %v", line, errs)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if stats.Lines != n {
			t.Fatalf("stats say %d lines, %d delivered", stats.Lines, n)
		}
	})
}

// increasing returns the numbers of ts sorted by value, without repeats;
// anything else in ts is kept, after them.
func increasing(ts []any) []any {
	var nums []json.Number
	var rest []any
	for _, t := range ts {
		if n, ok := t.(json.Number); ok {
			nums = append(nums, n)
		} else {
			rest = append(rest, t)
		}
	}
	val := func(n json.Number) float64 { f, _ := n.Float64(); return f }
	slices.SortFunc(nums, func(a, b json.Number) int { return cmpFloat(val(a), val(b)) })
	nums = slices.CompactFunc(nums, func(a, b json.Number) bool { return val(a) == val(b) })
	out := make([]any, 0, len(ts))
	for _, n := range nums {
		out = append(out, n)
	}
	return append(out, rest...)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
