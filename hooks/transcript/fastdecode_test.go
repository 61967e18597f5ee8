package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// checkFast holds the fast decoder, the narrow one and Decode to
// decodeReflect (encoding/json) on one line: equal entries, and an error
// exactly when encoding/json fails. It reports whether the fast path took
// the line.
func checkFast(t *testing.T, line []byte) (fast bool) {
	t.Helper()
	trimmed := bytes.TrimSpace(line)
	want, wantErr := decodeReflect(trimmed)
	if e, ok := decodeFast(trimmed, false); ok {
		fast = true
		if wantErr != nil {
			t.Fatalf("fast path took a line encoding/json refuses (%v):\n%.300q", wantErr, line)
		}
		if !reflect.DeepEqual(e, want) {
			t.Fatalf("fast path:\n got %+v\nwant %+v\nline %.300q", e, want, line)
		}
	}
	got, err := Decode(line)
	if (err != nil) != (wantErr != nil) || (err == nil && !reflect.DeepEqual(got, want)) {
		t.Fatalf("Decode: %+v, %v; encoding/json: %+v, %v\nline %.300q", got, err, want, wantErr, line)
	}
	// DecodeShared gives what Decode gives, and appending to its raw
	// values (slices of the line) leaves the line as it was.
	orig := bytes.Clone(line)
	shared, err := DecodeShared(line)
	if (err != nil) != (wantErr != nil) || (err == nil && !reflect.DeepEqual(shared, want)) {
		t.Fatalf("DecodeShared: %+v, %v; encoding/json: %+v, %v\nline %.300q", shared, err, want, wantErr, line)
	}
	raws := []json.RawMessage{shared.ToolUseResult}
	if shared.Message != nil {
		for _, b := range shared.Message.Content.Blocks {
			raws = append(raws, b.Input)
		}
	}
	for _, r := range raws {
		_ = append(r, 'x')
	}
	if !bytes.Equal(line, orig) {
		t.Fatalf("appending to DecodeShared's raw values changed the line %.300q", orig)
	}
	narrow, err := decodeNarrow(line)
	want.ToolUseResult = nil
	if want.Message != nil {
		m := *want.Message
		m.Content.Blocks = append([]Block(nil), m.Content.Blocks...)
		if want.Message.Content.Blocks != nil && m.Content.Blocks == nil {
			m.Content.Blocks = []Block{}
		}
		for i := range m.Content.Blocks {
			m.Content.Blocks[i].Input = nil
		}
		want.Message = &m
	}
	if (err != nil) != (wantErr != nil) || (err == nil && !reflect.DeepEqual(narrow, want)) {
		t.Fatalf("decodeNarrow: %+v, %v; encoding/json: %+v, %v\nline %.300q", narrow, err, want, wantErr, line)
	}
	return fast
}

// TestFastDecodeMatchesReflect decodes every line of the corpus and of
// testdata/transcripts both ways. Most lines must take the fast path (else
// it is no faster), and each line's mutations (a byte cut, a key's case
// changed, a field doubled) must agree too.
func TestFastDecodeMatchesReflect(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.jsonl"))
	more, _ := filepath.Glob("../../testdata/transcripts/*.jsonl")
	files = append(files, more...)
	if len(files) == 0 {
		t.Skip("no transcripts")
	}
	lines, fast := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(data, []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			lines++
			if checkFast(t, line) {
				fast++
			}
			if i%8 != 0 {
				continue
			}
			// Mutations: cut short, a key in another case, a key given
			// twice, a type escaped.
			checkFast(t, line[:len(line)/2])
			checkFast(t, line[:len(line)-1])
			for _, rep := range [][2]string{
				{`"message":`, `"Message":`}, {`"usage":`, `"usagE":`}, {`"type":`, `"TYPE":`},
				{`"input_tokens":`, `"input_tokens":1,"input_tokens":`}, {`"content":`, `"content":null,"content":`},
				{`"type":"`, `"type":"\u0041`}, {`"id":"`, `"id":"\ud800`}, {`"cwd":"`, "\"cwd\":\"\xff"},
				{`"isSidechain":false`, `"isSidechain":0`}, {`"message":{`, `"message":{"role":7,`},
				{`"input_tokens":`, `"input_tokens":1.5,"x":`}, {`:`, `: `}, {`,`, "\t,\r\n"},
			} {
				checkFast(t, bytes.Replace(line, []byte(rep[0]), []byte(rep[1]), 1))
			}
		}
	}
	t.Logf("%d lines, %d by the fast path", lines, fast)
	if fast*10 < lines*9 {
		t.Errorf("the fast path took %d of %d lines, want 90%%", fast, lines)
	}
}

// TestFastDecodeCases are the shapes the fast path must refuse or decode
// exactly as encoding/json does.
func TestFastDecodeCases(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 300) + "1" + strings.Repeat("}", 300)
	cases := []struct {
		name, line string
		fast       bool // the fast path must take it
	}{
		{"assistant", `{"type":"assistant","message":{"id":"m","model":"x","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":1,"cache_read_input_tokens":5}}}`, true},
		{"tool result", `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}],"is_error":true}]},"toolUseResult":{"stdout":"x"}}`, true},
		{"nulls", `{"type":"user","parentUuid":null,"isMeta":null,"message":{"content":"hi","usage":null},"compactMetadata":null}`, true},
		{"empty content list", `{"type":"user","message":{"content":[]}}`, true},
		{"block without type", `{"type":"user","message":{"content":[{"text":"x"}]}}`, true},
		{"empty message", `{"type":"user","message":{}}`, true},
		{"usage without input", `{"type":"assistant","message":{"usage":{"output_tokens":3}}}`, true},
		{"compact", `{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":9}}`, true},
		{"escapes", `{"type":"assistant","message":{"content":[{"type":"text","text":"a\nb\u00e9\"\\\/"}]}}`, true},
		{"space", " \t{ \"type\" : \"x\" , \"a\" : [ 1 , -2.5e+3 , true , false , null , { } , [ ] ] }\r\n", true},
		{"unknown keys", `{"version":"1","gitBranch":"main","userType":"external","n":-0.0}`, true},
		{"empty", `{}`, true},

		{"folded key", `{"Type":"assistant"}`, false},
		{"long s key", "{\"\u017fessionId\":\"x\"}", false},
		{"kelvin key", "{\"message\":{\"content\":[{\"type\":\"tool_use\",\"\u212aind\":1,\"name\":\"\u212a\"}]}}", true},
		{"escaped key", `{"typ\u0065":"assistant"}`, false},
		{"doubled", `{"type":"a","type":"b"}`, false},
		{"doubled message", `{"message":{"id":"a"},"message":{"model":"b"}}`, false},
		{"wrong type", `{"type":1,"uuid":"u"}`, false},
		{"bool as number", `{"isSidechain":1}`, false},
		{"float tokens", `{"message":{"usage":{"input_tokens":1.9}}}`, false},
		{"string tokens", `{"message":{"usage":{"input_tokens":"12"}}}`, false},
		{"huge tokens", `{"message":{"usage":{"input_tokens":99999999999999999999}}}`, false},
		{"null input", `{"message":{"content":[{"type":"tool_use","input":null}]}}`, false},
		{"null result", `{"toolUseResult":null}`, false},
		{"content object", `{"message":{"content":{"type":"text"}}}`, false},
		{"null block", `{"message":{"content":[null,{"type":"text"}]}}`, false},
		{"message string", `{"message":"hi"}`, false},
		{"deep", `{"x":` + deep + `}`, false},
		{"bad escape", `{"type":"a\x"}`, false},
		{"short unicode", `{"type":"\u12"}`, false},
		{"control", "{\"type\":\"a\tb\"}", false},
		{"invalid utf-8", "{\"type\":\"a\xffb\"}", true},
		{"lone surrogate", `{"type":"\ud800"}`, true},
		{"surrogate pair", `{"type":"\ud83d\ude00\ud83d\u0041\udc00x"}`, true},
		{"escaped text", `{"message":{"content":[{"type":"text","text":"\u003cb\u003e \"q\" \\ \/ \b\f\n\r\t \u00E9"}]}}`, true},
		{"trailing", `{"type":"a"} x`, false},
		{"two objects", `{}{}`, false},
		{"unclosed", `{"type":"a"`, false},
		{"bad number", `{"n":01}`, false},
		{"bad number 2", `{"n":1.}`, false},
		{"bad number 3", `{"n":-}`, false},
		{"bad literal", `{"n":nul}`, false},
		{"trailing comma", `{"a":1,}`, false},
		{"not an object", `[1]`, false},
		{"empty line", ``, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := checkFast(t, []byte(c.line)); got != c.fast {
				t.Errorf("fast path took it: %v, want %v", got, c.fast)
			}
		})
	}
}

func FuzzFastDecode(f *testing.F) {
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","model":"x","content":[{"type":"text","text":"t"},{"type":"tool_use","id":"u","name":"Write","input":{"content":"a\nb"}}],"usage":{"input_tokens":1,"output_tokens":2}}}`))
	f.Add([]byte(`{"type":"user","parentUuid":null,"message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}],"is_error":false}]},"toolUseResult":{"a":[1,2.5,true,null]}}`))
	f.Add([]byte(`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":12}}`))
	f.Add([]byte(`{"Type":"x","type":"y","message":{"content":"s\u00e9"}}`))
	f.Add([]byte("{\"cwd\":\"\xff\",\"isSidechain\":true}"))
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFast(t, line)
	})
}

// FuzzUnquote holds unquote to encoding/json on any string stringEnd
// accepts (escapes, surrogates, invalid UTF-8).
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`a\nb`, `\ud83d\ude00`, `\ud83d\u0041`, `\ud800`, `\udc00\ud800`, "\xff\xfe", `\u00e9\/\"\\\b\f\r\t`, "é\xe2\x82", `\uD83D\uDE00x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		q := append(append([]byte{'"'}, s...), '"')
		p := fastParser{b: q}
		end, _, ok := p.stringEnd()
		var want string
		jerr := json.Unmarshal(q, &want)
		if !ok || end != len(q)-1 {
			if jerr == nil && ok {
				t.Fatalf("stringEnd stopped at %d of %q", end, q)
			}
			return
		}
		if jerr != nil {
			t.Fatalf("stringEnd took %q, encoding/json: %v", q, jerr)
		}
		if got := unquote(s); got != want {
			t.Fatalf("unquote(%q) = %q, encoding/json %q", s, got, want)
		}
	})
}

// BenchmarkDecodeCorpus decodes every line of the corpus: Decode (the one
// pass), decodeNarrow (the meter's) and decodeReflect (encoding/json).
func BenchmarkDecodeCorpus(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.jsonl"))
	if len(files) == 0 {
		b.Skip("no corpus")
	}
	var lines [][]byte
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			if l = bytes.TrimSpace(l); len(l) > 0 {
				lines = append(lines, l)
				size += len(l)
			}
		}
	}
	for _, c := range []struct {
		name string
		dec  func([]byte) (Entry, error)
	}{{"decode", Decode}, {"narrow", decodeNarrow}, {"reflect", decodeReflect}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, l := range lines {
					_, _ = c.dec(l)
				}
			}
		})
	}
}
