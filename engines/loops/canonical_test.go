package loops

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// canonEdges are inputs at the edges of JSON: duplicate and volatile keys,
// escapes, number spellings, invalid text, deep nesting.
var canonEdges = []string{
	`{"command":"go test ./...","description":"Run tests","timeout":120000}`,
	`{"file_path":"/p/a.go","offset":100,"limit":50}`,
	`{"b":[1,2.50,{"y":null,"x":true}],"a":"\u00e9\n"}`,
	`{"a":1,"a":2}`, `{"a":1,"b":2,"a":3}`, `{"b":{"d":1,"c":2,"d":3},"a":0}`,
	`{"description":"x","description":"y","z":1}`, `{"z":{"description":"kept","timeout":1},"durationMs":3}`,
	`[1e400, -0.0, 12345678901234567890, 1E2, 1e-7, 0.1e1]`,
	`"\ud800"`, `"\ud83d\ude00\ud83dx\udc00\u00e9\/\b\f"`, `"a\u0001\u007f<>&\u2028"`, "\"a\xffb\xc3\"",
	`{"a":`, `"just a string"`, ``, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{"a":01}`, `+1`, `1.`, `.5`, `-`, `1e`, `1e+`,
	`"\'"`, "\"a\x01\"", `"\x"`, `"\u12"`, `"\u12g4"`, `tru`, `truex`, `nul`, `{}x`, `[] []`, `"unterminated`, `"\`,
	`{"file_path" : "/p/a" , "offset": 5 ,"limit":"7","pages":null}`, ` { } `, `{"a":1,"a":[ 2 ]}`,
	strings.Repeat("[", 1001) + strings.Repeat("]", 1001), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 1001) + "1" + strings.Repeat("}", 1001),
}

// randomJSON writes a random JSON value with random spacing, duplicate
// and volatile keys, escapes and number spellings.
func randomJSON(b *strings.Builder, r *rand.Rand, depth int) {
	if r.IntN(4) == 0 {
		b.WriteString([]string{" ", "\n", "\t", "\r"}[r.IntN(4)])
	}
	k := r.IntN(7)
	if depth == 0 {
		k = r.IntN(4)
	}
	keys := []string{`"a"`, `"b"`, `"description"`, `"durationMs"`, `"\u0061"`, `"é"`, `"A"`, `""`}
	switch k {
	case 0:
		b.WriteString([]string{"null", "true", "false"}[r.IntN(3)])
	case 1:
		b.WriteString([]string{"0", "-0", "1", "1.0", "1e2", "1E+2", "-12.5e-3", "12345678901234567890", "0.1", "1e400", "5e-324"}[r.IntN(11)])
	case 2, 3:
		b.WriteString([]string{`"x"`, `"\n\t\"\\"`, `"\u00e9\ud83d\ude00"`, `"\ud800x"`, `"<&>"`, `"\/p\/a"`, "\"\xff\"", `""`, `"\u0000\u001f"`}[r.IntN(9)])
	case 4, 5:
		b.WriteByte('{')
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(keys[r.IntN(len(keys))])
			b.WriteByte(':')
			randomJSON(b, r, depth-1)
		}
		b.WriteByte('}')
	default:
		b.WriteByte('[')
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteByte(',')
			}
			randomJSON(b, r, depth-1)
		}
		b.WriteByte(']')
	}
}

// canonDigest adds raw's canonical texts (as an input and as a result) and
// its top-level fields to h.
func canonDigest(h hash.Hash, raw []byte) {
	fmt.Fprintf(h, "%q\n%q\n%q\n", raw, CanonicalInput(raw), canonical(raw, volatileResultFields, true))
	fields := topFields(raw)
	keys := slices.Sorted(maps.Keys(fields))
	fmt.Fprintf(h, "%v", fields == nil)
	for _, k := range keys {
		fmt.Fprintf(h, " %q=%q", k, fields[k])
	}
	h.Write([]byte{'\n'})
}

// canonicalGolden is canonDigest over the edges, seeded random JSON and
// the repository's transcripts' tool inputs and responses, as the canonical
// form was defined when it was pinned: fingerprints stored in sessions'
// state depend on it, so a change must be deliberate.
const canonicalGolden = "7cc60ae0edc6d8c02dfec6a60edc07600ff849b844b1100264a1469403bb81ec"

// TestCanonicalGolden pins the canonical form (see canonicalGolden).
func TestCanonicalGolden(t *testing.T) {
	h := sha256.New()
	for _, s := range canonEdges {
		canonDigest(h, []byte(s))
	}
	r := rand.New(rand.NewPCG(3, 5))
	for range 3000 {
		var b strings.Builder
		randomJSON(&b, r, 4)
		canonDigest(h, []byte(b.String()))
	}
	files, _ := filepath.Glob("../../testdata/transcripts/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no transcripts in testdata")
	}
	slices.Sort(files)
	n := 0
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var line struct {
				ToolUseResult json.RawMessage `json:"toolUseResult"`
				Message       struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			raws := []json.RawMessage{line.ToolUseResult}
			var blocks []struct {
				Input json.RawMessage `json:"input"`
			}
			if json.Unmarshal(line.Message.Content, &blocks) == nil {
				for _, b := range blocks {
					raws = append(raws, b.Input)
				}
			}
			for _, raw := range raws {
				if len(raw) > 0 {
					n++
					canonDigest(h, raw)
				}
			}
		}
		fh.Close()
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != canonicalGolden {
		t.Errorf("canonical form digest over %d edges, 3000 random values and %d transcript values = %s, want %s", len(canonEdges), n, got, canonicalGolden)
	}
}
