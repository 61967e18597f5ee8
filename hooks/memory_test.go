package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// decodeWhole is what decodeResponse must equal: a json.Decoder with
// UseNumber over the whole text.
func decodeWhole(raw []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	err := dec.Decode(&v)
	return v, err
}

var responseSeeds = []string{
	`[{"type":"text","text":"hello"},{"type":"image","data":"AAAA"}]`,
	`{"content":[{"type":"text","text":"a\u00e9\ud83d\ude00 \"q\""}],"isError":false,"n":1.50,"big":123456789012345678901234567890,"e":1e3,"z":-0}`,
	`{"a":1,"a":2,"b":null,"c":[],"d":{},"e":[null,true,false,"x"]}`,
	`"just a string\n"`,
	` {"k": [ 1 , 2 ] } `,
	`{"bad":"\xff\xfe","\xff":1}`,
	`[[[[[[["deep"]]]]]]]`,
	`42`,
	`null`,
}

// FuzzDecodeResponse: splitting a response into members, at every size,
// decodes it exactly as one json.Decoder with UseNumber does.
func FuzzDecodeResponse(f *testing.F) {
	for _, s := range responseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		want, werr := decodeWhole(raw)
		for _, least := range []int{0, 8, splitMin} {
			got, err := decodeResponse(raw, splitDepth, least)
			if (err != nil) != (werr != nil) || !reflect.DeepEqual(got, want) {
				t.Fatalf("least %d: got %#v, %v; want %#v, %v", least, got, err, want, werr)
			}
		}
	})
}

// TestDecodePayloadLarge: a payload read in many chunks, with its raw
// fields as slices of the read buffer, decodes as json.Unmarshal does.
func TestDecodePayloadLarge(t *testing.T) {
	for _, n := range []int{0, 10, 64 << 10, 3<<20 + 7} {
		text := strings.Repeat("x", n)
		in := fmt.Sprintf(`  {"session_id":"s","hook_event_name":"PostToolUse","tool_name":"mcp__a__b","tool_input":{"q":1},"TOOL_RESPONSE":[{"type":"text","text":%q}],"tool_response":[{"type":"text","text":%q}]}`+"\n", "old", text)
		var want Payload
		if err := json.Unmarshal([]byte(strings.TrimSpace(in)), &want); err != nil {
			t.Fatal(err)
		}
		got, err := DecodePayload(strings.NewReader(in), PostToolUse)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("%d bytes: DecodePayload differs from json.Unmarshal", n)
		}
	}
	for _, in := range []string{`{"tool_response":null,"tool_input":null}`, `{}`} {
		var want Payload
		_ = json.Unmarshal([]byte(in), &want)
		want.HookEventName = PostToolUse
		got, err := DecodePayload(strings.NewReader(in), PostToolUse)
		if err != nil || !reflect.DeepEqual(*got, want) {
			t.Fatalf("%s: got %+v, %v; want %+v", in, got, err, want)
		}
	}
}

// TestLargeResponseAllocations: decoding a PostToolUse payload with a
// large MCP response and running its handlers allocates at most about
// three times the payload in all (the read, and the response's text once
// decoded for the compressor), not a copy per detector.
func TestLargeResponseAllocations(t *testing.T) {
	s := newSim(t)
	const size = 16 << 20
	text := strings.Repeat("0123456789abcdef", size/16)
	in, err := json.Marshal(map[string]any{
		"session_id": s.id, "hook_event_name": PostToolUse, "transcript_path": s.tpath, "cwd": s.project,
		"tool_name": "mcp__browser__snapshot", "tool_input": map[string]any{}, "tool_use_id": "toolu_big",
		"tool_response": []any{map[string]any{"type": "text", "text": text}},
	})
	if err != nil {
		t.Fatal(err)
	}
	text = ""
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := DecodePayload(bytes.NewReader(in), PostToolUse)
	if err != nil {
		t.Fatal(err)
	}
	r := s.run(p)
	runtime.ReadMemStats(&after)
	if len(r.UpdatedMCPToolOutput) == 0 || len(r.UpdatedMCPToolOutput) > 1<<20 {
		t.Fatalf("the response was not compressed: %d bytes of updatedMCPToolOutput", len(r.UpdatedMCPToolOutput))
	}
	saved, err := os.ReadFile(filepath.Join(s.env.Store.Root, "sessions", s.id, "outputs", "toolu_big.json"))
	if err != nil || !bytes.Equal(saved, p.ToolResponse) {
		t.Fatalf("the full response was not saved (%v)", err)
	}
	if got, most := after.TotalAlloc-before.TotalAlloc, uint64(3*len(in)+4<<20); got > most {
		t.Errorf("allocated %d MB for a %d MB payload, want at most %d MB", got>>20, len(in)>>20, most>>20)
	}
}
