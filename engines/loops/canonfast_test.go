package loops

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// canonEdges are inputs at the edges of JSON and of the one pass.
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
	strings.Repeat("[", 1001) + strings.Repeat("]", 1001), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 1001) + "1" + strings.Repeat("}", 1001),
}

// checkCanonical holds canonical to canonicalDecoded on raw, for inputs
// (top-level volatile keys dropped) and results (dropped at every depth).
func checkCanonical(t *testing.T, raw []byte) {
	t.Helper()
	for _, c := range []struct {
		drop []string
		deep bool
	}{{volatileInputFields, false}, {volatileResultFields, true}} {
		trimmed := []byte(strings.TrimSpace(string(raw)))
		if got, want := canonical(raw, c.drop, c.deep), canonicalDecoded(trimmed, c.drop, c.deep); got != want {
			t.Fatalf("canonical(%.200q, deep %v)\n got %.300q\nwant %.300q", raw, c.deep, got, want)
		}
	}
}

// TestCanonicalFastMatches holds the one-pass canonical form to the
// decoded one on edge cases, seeded random JSON spelled in random ways,
// and every tool input and response of the repository's transcripts (and
// the team corpus beside it, when present); topFields too on the latter.
func TestCanonicalFastMatches(t *testing.T) {
	for _, s := range canonEdges {
		t.Run(s[:min(len(s), 30)], func(t *testing.T) { checkCanonical(t, []byte(s)) })
	}
	t.Run("random", func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 5))
		for range 3000 {
			var b strings.Builder
			randomJSON(&b, r, 4)
			checkCanonical(t, []byte(b.String()))
		}
	})
	t.Run("transcripts", func(t *testing.T) {
		var files []string
		for _, d := range []string{"../../testdata/transcripts", "../../../shared/corpus/transcripts"} {
			m, _ := filepath.Glob(filepath.Join(d, "*.jsonl"))
			files = append(files, m...)
		}
		if len(files) == 0 {
			t.Skip("no transcripts")
		}
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
						checkCanonical(t, raw)
						checkTopFields(t, raw)
					}
				}
			}
			fh.Close()
		}
		t.Logf("%d tool inputs and responses", n)
	})
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

// FuzzCanonicalFast holds the one-pass canonical form to the decoded one
// on any bytes.
func FuzzCanonicalFast(f *testing.F) {
	for _, s := range canonEdges {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkCanonical(t, data) })
}

// BenchmarkCanonical canonicalises an Edit input and a Bash response, in
// one pass and the decoded way.
func BenchmarkCanonical(b *testing.B) {
	edit := []byte(`{"file_path":"/home/user/project/internal/server/handler.go","old_string":"return nil, err","new_string":"return nil, fmt.Errorf(\"handle: %w\", err)","replace_all":false}`)
	bash := []byte(`{"stdout":"` + strings.Repeat(`ok  \tgithub.com/x/y/pkg\t0.012s\n`, 40) + `","stderr":"","interrupted":false,"isImage":false,"durationMs":1234}`)
	for _, c := range []struct {
		name string
		f    func([]byte, []string, bool) string
	}{{"fast", canonical}, {"decoded", canonicalDecoded}} {
		b.Run(c.name+"/input", func(b *testing.B) {
			for b.Loop() {
				c.f(edit, volatileInputFields, false)
			}
		})
		b.Run(c.name+"/result", func(b *testing.B) {
			for b.Loop() {
				c.f(bash, volatileResultFields, true)
			}
		})
	}
}

// checkTopFields holds topFields to json.Unmarshal into a map.
func checkTopFields(t *testing.T, input []byte) {
	t.Helper()
	var want map[string]json.RawMessage
	if json.Unmarshal(input, &want) != nil {
		want = nil
	}
	got := topFields(input)
	if (got == nil) != (want == nil) || len(got) != len(want) {
		t.Fatalf("topFields(%.200q) = %q, want %q", input, got, want)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || string(g) != string(v) {
			t.Fatalf("topFields(%.200q)[%q] = %q, want %q", input, k, g, v)
		}
	}
}

// TestTopFieldsMatches holds topFields to json.Unmarshal on the edges,
// seeded random JSON and the transcripts' tool inputs.
func TestTopFieldsMatches(t *testing.T) {
	for _, s := range append(canonEdges, `{"file_path" : "/p/a" , "offset": 5 ,"limit":"7","pages":null}`, ` { } `, `{"a":1,"a":[ 2 ]}`,
		`{"a":"\'"}`, `{"a":"\x"}`, `{"a":"\u12g4"}`, "{\"a\":\"x\x01\"}", "{\"a\":\"\xff\"}", `{"a":[1,]}`, `{"a":{"b" 1}}`, `{"a":{"b":1,}}`,
		`{"a":tru}`, `{"a":-}`, `{"a":1.}`, `{"a":"\u00e9\/\b"}`, `{"a":[[]],"b":{}}`, `{"a":{"b":[1,{"c":null}]}}`) {
		t.Run(s[:min(len(s), 30)], func(t *testing.T) { checkTopFields(t, []byte(s)) })
	}
	r := rand.New(rand.NewPCG(9, 1))
	for range 3000 {
		var b strings.Builder
		randomJSON(&b, r, 4)
		checkTopFields(t, []byte(b.String()))
	}
}

// FuzzTopFields holds topFields to json.Unmarshal on any bytes.
func FuzzTopFields(f *testing.F) {
	for _, s := range canonEdges {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkTopFields(t, data) })
}
