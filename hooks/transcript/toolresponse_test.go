package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// checkToolResponse holds DecodeToolResponse to json.Unmarshal: the same
// ok, and the same fields, with or without an error (replay reads what a
// value of the wrong type leaves in the others). It reports whether the
// one-pass path took raw.
func checkToolResponse(t *testing.T, raw []byte) (fast bool) {
	t.Helper()
	var want ToolResponse
	wantOK := json.Unmarshal(raw, &want) == nil
	got, ok := DecodeToolResponse(raw)
	if ok != wantOK || !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeToolResponse: %+v, %v; encoding/json: %+v, %v\nraw %.300q", got, ok, want, wantOK, raw)
	}
	p := fastParser{b: raw}
	var r ToolResponse
	if p.toolResponse(&r) {
		p.space()
		fast = p.i == len(raw)
	}
	if fast && (!wantOK || !reflect.DeepEqual(r, want)) {
		t.Fatalf("one-pass path: %+v; encoding/json: %+v, %v\nraw %.300q", r, want, wantOK, raw)
	}
	return fast
}

// TestDecodeToolResponse decodes every object toolUseResult of the corpus
// and of testdata/transcripts, and mutations of them, both ways; most must
// take the one-pass path.
func TestDecodeToolResponse(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.jsonl"))
	more, _ := filepath.Glob("../../testdata/transcripts/*.jsonl")
	files = append(files, more...)
	if len(files) == 0 {
		t.Skip("no transcripts")
	}
	n, fast := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			e, err := decodeReflect(bytes.TrimSpace(line))
			if err != nil || len(e.ToolUseResult) == 0 || e.ToolUseResult[0] != '{' {
				continue
			}
			raw := e.ToolUseResult
			n++
			if checkToolResponse(t, raw) {
				fast++
			}
			// The same after a trip through encoding/json (as replay maps
			// it: keys sorted, <>& escaped).
			var v any
			if json.Unmarshal(raw, &v) == nil {
				re, _ := json.Marshal(v)
				checkToolResponse(t, re)
			}
			checkToolResponse(t, raw[:len(raw)-1])
			for _, rep := range [][2]string{
				{`"stdout":`, `"Stdout":`}, {`"originalFile":`, `"originalFile":7,"x":`}, {`"type":`, `"type":"a","type":`},
				{`"file":{`, `"file":{"Content":1,`}, {`"filenames":[`, `"filenames":[null,`}, {`"content":`, `"content":null,"y":`},
				{`"newString":"`, `"newString":"\u00e9\ud800`}, {`":`, `" : `}, {`"stderr":"`, "\"stderr\":\"\x01"},
				{`"startLine":`, `"startLine":1.5,"x":`}, {`"numLines":`, `"numLines":"2","x":`}, {`"totalLines":`, `"totalLines":null,"x":`},
				{`"numLines":`, `"numLines":99999999999999999999,"x":`}, {`"file":{`, `"file":{"startLine":-0,`}, {`"file":{`, `"file":{"startline":3,`},
				{`"file":`, `"file":null,"y":`}, {`"originalFile":`, `"OriginalFile":`},
			} {
				checkToolResponse(t, bytes.Replace(raw, []byte(rep[0]), []byte(rep[1]), 1))
			}
		}
	}
	t.Logf("%d tool responses, %d by the one-pass path", n, fast)
	if n == 0 || fast*10 < n*9 {
		t.Errorf("the one-pass path took %d of %d responses, want 90%%", fast, n)
	}
}

func TestDecodeToolResponseCases(t *testing.T) {
	for _, c := range []struct {
		name, raw string
		fast      bool
	}{
		{"edit", `{"filePath":"/a","oldString":"x","newString":"y","originalFile":"x\ny","structuredPatch":[{"lines":["-x","+y"]}],"userModified":false}`, true},
		{"create", `{"type":"create","filePath":"/a","content":"z","originalFile":null}`, true},
		{"read", `{"type":"text","file":{"filePath":"/a","content":"1\n2","numLines":2,"startLine":1,"totalLines":2}}`, true},
		{"null lines", `{"originalFile":null,"file":{"content":null,"startLine":null}}`, true},
		{"negative", `{"file":{"startLine":-3}}`, true},
		{"kelvin", "{\"file\":{\"\u212aontent\":\"x\"}}", true}, // folds to no key: skipped
		{"long s", "{\"file\":{\"\u017ftartLine\":3}}", false},  // folds to startLine
		{"doubled lines", `{"file":{"numLines":1,"numLines":2}}`, false},
		{"fraction", `{"file":{"numLines":1.0}}`, false},
		{"exponent", `{"file":{"numLines":1e2}}`, false},
		{"too large", `{"file":{"numLines":9223372036854775808}}`, false},
		{"wrong type then right", `{"file":{"numLines":"1","startLine":4}}`, false},
		{"grep", `{"mode":"files_with_matches","filenames":["a","b"],"numFiles":2,"content":"x"}`, true},
		{"empty filenames", `{"filenames":[]}`, true},
		{"null fields", `{"type":null,"file":null,"filenames":null,"stdout":null}`, true},
		{"folded key", `{"STDOUT":"x"}`, false},
		{"doubled", `{"stdout":"a","stdout":"b"}`, false},
		{"wrong type", `{"stdout":1}`, false},
		{"file string", `{"file":"x"}`, false},
		{"null content", `{"content":null}`, false},
		{"invalid", `{"stdout":"a"`, false},
		{"trailing", `{"stdout":"a"}}`, false},
		{"array", `[1]`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := checkToolResponse(t, []byte(c.raw)); got != c.fast {
				t.Errorf("one-pass path took it: %v, want %v", got, c.fast)
			}
		})
	}
}

func FuzzDecodeToolResponse(f *testing.F) {
	f.Add([]byte(`{"type":"update","originalFile":"a\nb","newString":"c","file":{"content":"d"},"filenames":["e"],"content":[1,{"x":null}],"stdout":"\u003c","stderr":"","result":"r"}`))
	f.Add([]byte(`{"originalFile":null,"Type":"x","file":{"Content":"y"}}`))
	f.Add([]byte(`{"filenames":[1],"content":null}`))
	f.Add([]byte(`{"file":{"startLine":1.5,"numLines":"2","totalLines":-1}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkToolResponse(t, raw)
	})
}
