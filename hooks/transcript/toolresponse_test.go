package transcript

import (
	"testing"
)

func TestDecodeToolResponse(t *testing.T) {
	edit, ok := DecodeToolResponse([]byte(`{"filePath":"/a","oldString":"x","newString":"y","originalFile":"x\ny","structuredPatch":[{"lines":["-x","+y"]}],"userModified":false}`))
	if !ok || edit.OriginalFile == nil || *edit.OriginalFile != "x\ny" || edit.NewString != "y" {
		t.Errorf("edit: %+v, %v", edit, ok)
	}
	create, ok := DecodeToolResponse([]byte(`{"type":"create","filePath":"/a","content":"z","originalFile":null}`))
	if !ok || create.OriginalFile != nil || create.Type != "create" || string(create.Content) != `"z"` {
		t.Errorf("create: %+v, %v", create, ok)
	}
	read, ok := DecodeToolResponse([]byte(`{"type":"text","file":{"filePath":"/a","content":"1\n2","numLines":2,"startLine":1,"totalLines":2}}`))
	if !ok || read.File.Content != "1\n2" || read.File.StartLine != 1 || read.File.NumLines != 2 || read.File.TotalLines != 2 {
		t.Errorf("read: %+v, %v", read, ok)
	}
	grep, ok := DecodeToolResponse([]byte(`{"mode":"files_with_matches","filenames":["a","b"],"numFiles":2}`))
	if !ok || len(grep.Filenames) != 2 {
		t.Errorf("grep: %+v, %v", grep, ok)
	}
	// A value of the wrong type fails, and the other fields still count.
	wrong, ok := DecodeToolResponse([]byte(`{"stdout":1,"stderr":"e"}`))
	if ok || wrong.Stderr != "e" {
		t.Errorf("wrong type: %+v, %v", wrong, ok)
	}
	if _, ok := DecodeToolResponse([]byte(`{"stdout":"a"`)); ok {
		t.Error("invalid JSON decoded")
	}
}

// FuzzDecodeToolResponse: any bytes decode or fail, never panic.
func FuzzDecodeToolResponse(f *testing.F) {
	f.Add([]byte(`{"type":"update","originalFile":"a\nb","newString":"c","file":{"content":"d"},"filenames":["e"],"content":[1,{"x":null}],"stdout":"\u003c","stderr":"","result":"r"}`))
	f.Add([]byte(`{"originalFile":null,"Type":"x","file":{"Content":"y"}}`))
	f.Add([]byte(`{"filenames":[1],"content":null}`))
	f.Add([]byte(`{"file":{"startLine":1.5,"numLines":"2","totalLines":-1}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		DecodeToolResponse(raw)
	})
}
