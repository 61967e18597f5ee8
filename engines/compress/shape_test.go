package compress

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func decode(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func encode(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCompressToolResponse(t *testing.T) {
	big := strings.Repeat("line of output\n", 20_000) // 300,000 characters
	snap := "### Page snapshot\n" + strings.Repeat("- link \"x\" [ref=e1]\n", 1_500)
	bigJSON, _ := json.Marshal(big)
	snapJSON, _ := json.Marshal(snap)
	B, S := string(bigJSON), string(snapJSON)
	tests := []struct {
		name   string
		tool   string
		resp   string
		fields []string // paths expected to change
	}{
		{"Bash stdout, short stderr kept", "Bash",
			`{"stdout":` + B + `,"stderr":"boom","interrupted":false,"isImage":false}`, []string{"$.stdout"}},
		{"Bash both long", "Bash", `{"stdout":` + B + `,"stderr":` + B + `}`, []string{"$.stdout", "$.stderr"}},
		{"Bash image", "Bash", `{"stdout":` + B + `,"isImage":true}`, nil},
		{"Read text", "Read", `{"type":"text","file":{"filePath":"/a","content":` + B + `,"numLines":1}}`, []string{"$.file.content"}},
		{"Read image", "Read", `{"type":"image","file":{"base64":` + B + `,"type":"image/png"}}`, nil},
		{"Grep", "Grep", `{"mode":"content","content":` + B + `,"numLines":3}`, []string{"$.content"}},
		{"WebFetch", "WebFetch", `{"code":200,"result":` + B + `,"url":"u"}`, []string{"$.result"}},
		{"TaskOutput", "TaskOutput", `{"task":{"output":` + B + `,"exitCode":0}}`, []string{"$.task.output"}},
		{"Task blocks", "Task", `{"status":"completed","content":[{"type":"text","text":` + B + `}],"prompt":"p"}`, []string{"$.content[0].text"}},
		{"MCP block list with image", "mcp__pw__browser_snapshot",
			`[{"type":"text","text":` + S + `},{"type":"image","data":` + B + `,"mimeType":"image/png"}]`, []string{"$[0].text"}},
		{"MCP content object", "mcp__x__y", `{"content":[{"type":"text","text":` + B + `}],"isError":false}`, []string{"$.content[0].text"}},
		{"string response", "Bash", B, []string{"$"}},
		{"Edit untouched", "Edit", `{"filePath":"/a","originalFile":` + B + `}`, nil},
		{"Write untouched", "Write", `{"filePath":"/a","content":` + B + `}`, nil},
		{"unknown tool: every string", "Frobnicate", `{"a":"short","b":[` + B + `,1,true,null],"c":{"d":` + B + `}}`, []string{"$.b[0]", "$.c.d"}},
		{"unknown tool: image block skipped", "Frobnicate", `{"blocks":[{"type":"image","data":` + B + `}]}`, nil},
		{"known tool, odd shape", "Grep", `{"matches":[` + B + `]}`, []string{"$.matches[0]"}},
		{"small output unchanged", "Bash", `{"stdout":"hi","stderr":""}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := decode(t, tc.resp)
			before := encode(t, in)
			out, rep := CompressToolResponse(tc.tool, in, DefaultConfig())
			if encode(t, in) != before {
				t.Fatal("input was modified")
			}
			if !slices.Equal(rep.Fields, tc.fields) {
				t.Fatalf("changed fields %v, want %v (%v)", rep.Fields, tc.fields, rep)
			}
			if rep.Changed != (len(tc.fields) > 0) {
				t.Fatalf("Changed = %v", rep.Changed)
			}
			if !rep.Changed {
				if !reflect.DeepEqual(out, in) {
					t.Fatal("unchanged response differs")
				}
				return
			}
			assertSameShape(t, in, out)
			total := 0
			for _, p := range tc.fields {
				s := lookup(out, p).(string)
				if !strings.Contains(s, "[djinn: ") {
					t.Errorf("%s has no marker", p)
				}
				total += runes(s)
			}
			if total > DefaultConfig().Cap {
				t.Errorf("changed fields hold %d characters, over the cap", total)
			}
			if tc.name == "Bash stdout, short stderr kept" && lookup(out, "$.stderr") != "boom" {
				t.Error("stderr changed")
			}
		})
	}
}

// lookup follows a path of the form $.a[0].b.
func lookup(v any, path string) any {
	p := strings.TrimPrefix(path, "$")
	for p != "" {
		switch p[0] {
		case '.':
			p = p[1:]
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			v = v.(map[string]any)[p[:end]]
			p = p[end:]
		case '[':
			end := strings.IndexByte(p, ']')
			i := 0
			for _, c := range p[1:end] {
				i = i*10 + int(c-'0')
			}
			v = v.([]any)[i]
			p = p[end+1:]
		}
	}
	return v
}

// assertSameShape checks that b has a's keys, list lengths and non-string
// values.
func assertSameShape(t testing.TB, a, b any) {
	t.Helper()
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(bm) != len(a) {
			t.Fatalf("map became %T of %d", b, len(bm))
		}
		for k, v := range a {
			assertSameShape(t, v, bm[k])
		}
	case []any:
		bs, ok := b.([]any)
		if !ok || len(bs) != len(a) {
			t.Fatalf("list of %d became %T", len(a), b)
		}
		for i := range a {
			assertSameShape(t, a[i], bs[i])
		}
	case string:
		if _, ok := b.(string); !ok {
			t.Fatalf("string became %T", b)
		}
	default:
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%v became %v", a, b)
		}
	}
}

func TestWaterLevelAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for i := range 5000 {
		sizes := make([]int, 1+r.IntN(6))
		for j := range sizes {
			sizes[j] = r.IntN(300)
		}
		total := r.IntN(800)
		got := waterLevel(sizes, total)
		fill := func(l int) int {
			s := 0
			for _, n := range sizes {
				s += min(n, l)
			}
			return s
		}
		if fill(got) > total {
			t.Fatalf("case %d: level %d overfills %v into %d", i, got, sizes, total)
		}
		// The largest level that fits, found by trying them all (levels
		// beyond the largest size all fill the same).
		want := 0
		for l := 0; l <= total; l++ {
			if fill(l) <= total {
				want = l
			}
		}
		if fill(got) != fill(want) || (got < total && got != want) {
			t.Fatalf("case %d: level %d, want %d for %v into %d", i, got, want, sizes, total)
		}
	}
}
