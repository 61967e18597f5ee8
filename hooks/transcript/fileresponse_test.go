package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// checkFileResponse holds DecodeFileResponse to json.Unmarshal (its
// error ignored, as replay ignores it). It reports whether the one-pass
// path took raw.
func checkFileResponse(t *testing.T, raw []byte) (fast bool) {
	t.Helper()
	var want FileResponse
	_ = json.Unmarshal(raw, &want)
	if got := DecodeFileResponse(raw); !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeFileResponse: %+v; encoding/json: %+v\nraw %.300q", got, want, raw)
	}
	p := fastParser{b: raw}
	var r FileResponse
	if p.fileResponse(&r) {
		p.space()
		fast = p.i == len(raw)
	}
	if fast && (json.Unmarshal(raw, new(FileResponse)) != nil || !reflect.DeepEqual(r, want)) {
		t.Fatalf("one-pass path: %+v; encoding/json: %+v\nraw %.300q", r, want, raw)
	}
	return fast
}

// TestDecodeFileResponse decodes every toolUseResult of the corpus and of
// testdata/transcripts, and mutations of them, both ways; most objects
// must take the one-pass path.
func TestDecodeFileResponse(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.jsonl"))
	more, _ := filepath.Glob("../../testdata/transcripts/*.jsonl")
	files = append(files, more...)
	if len(files) == 0 {
		t.Skip("no transcripts")
	}
	n, objects, fast := 0, 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			e, err := decodeReflect(bytes.TrimSpace(line))
			if err != nil || len(e.ToolUseResult) == 0 {
				continue
			}
			raw := e.ToolUseResult
			n++
			if raw[0] == '{' {
				objects++
			}
			if checkFileResponse(t, raw) {
				fast++
			}
			var v any
			if json.Unmarshal(raw, &v) == nil {
				re, _ := json.Marshal(v)
				checkFileResponse(t, re)
			}
			checkFileResponse(t, raw[:len(raw)-1])
			for _, rep := range [][2]string{
				{`"originalFile":`, `"OriginalFile":`}, {`"originalFile":`, `"originalFile":7,"x":`}, {`"file":{`, `"file":{"Content":1,`},
				{`"startLine":`, `"startLine":1.5,"x":`}, {`"numLines":`, `"numLines":"2","x":`}, {`"totalLines":`, `"totalLines":null,"x":`},
				{`"numLines":`, `"numLines":99999999999999999999,"x":`}, {`"file":{`, `"file":{"startLine":-0,`}, {`"content":"`, `"content":"\u00e9\ud800`},
				{`":`, `" : `}, {`"content":"`, "\"content\":\"\x01"}, {`"file":`, `"file":null,"y":`}, {`"file":{`, `"file":{"startline":3,`},
			} {
				checkFileResponse(t, bytes.Replace(raw, []byte(rep[0]), []byte(rep[1]), 1))
			}
		}
	}
	t.Logf("%d tool responses (%d objects), %d by the one-pass path", n, objects, fast)
	if objects == 0 || fast*10 < objects*9 {
		t.Errorf("the one-pass path took %d of %d objects, want 90%%", fast, objects)
	}
}

func TestDecodeFileResponseCases(t *testing.T) {
	for _, c := range []struct {
		name, raw string
		fast      bool
	}{
		{"edit", `{"filePath":"/a","oldString":"x","newString":"y","originalFile":"x\ny","structuredPatch":[{"lines":["-x","+y"]}],"userModified":false}`, true},
		{"read", `{"type":"text","file":{"filePath":"/a","content":"1\n2","numLines":2,"startLine":1,"totalLines":2}}`, true},
		{"nulls", `{"originalFile":null,"file":{"content":null,"startLine":null}}`, true},
		{"null file", `{"file":null}`, true},
		{"negative", `{"file":{"startLine":-3}}`, true},
		{"empty", `{}`, true},
		{"folded key", `{"ORIGINALFILE":"x"}`, false},
		{"kelvin", "{\"file\":{\"\u212aontent\":\"x\"}}", true}, // folds to no key: skipped
		{"long s", "{\"file\":{\"\u017ftartLine\":3}}", false},  // folds to startLine
		{"doubled", `{"file":{"numLines":1,"numLines":2}}`, false},
		{"fraction", `{"file":{"numLines":1.0}}`, false},
		{"exponent", `{"file":{"numLines":1e2}}`, false},
		{"too large", `{"file":{"numLines":9223372036854775808}}`, false},
		{"wrong type then right", `{"file":{"numLines":"1","startLine":4}}`, false},
		{"string file", `{"file":"x","originalFile":"y"}`, false},
		{"invalid", `{"originalFile":"a"`, false},
		{"trailing", `{"originalFile":"a"}}`, false},
		{"array", `[1]`, false},
		{"string", `"x"`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := checkFileResponse(t, []byte(c.raw)); got != c.fast {
				t.Errorf("one-pass path took it: %v, want %v", got, c.fast)
			}
		})
	}
}

func FuzzDecodeFileResponse(f *testing.F) {
	f.Add([]byte(`{"type":"text","originalFile":"a\nb","file":{"filePath":"/a","content":"d\u003c","numLines":2,"startLine":1,"totalLines":9},"structuredPatch":[1,{"x":null}]}`))
	f.Add([]byte(`{"originalFile":null,"File":{"Content":"y","NUMLINES":3}}`))
	f.Add([]byte(`{"file":{"startLine":1.5,"numLines":"2","totalLines":-1}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkFileResponse(t, raw)
	})
}
