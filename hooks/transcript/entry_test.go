package transcript

import (
	"errors"
	"reflect"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Entry
	}{
		{"assistant line (2.1.39)",
			`{"parentUuid":"p1","isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s1","version":"2.1.39","message":{"model":"claude-opus-4-6","id":"msg_1","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"x"},{"type":"text","text":"Hi"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],"stop_reason":null,"usage":{"input_tokens":1,"cache_creation_input_tokens":7330,"cache_read_input_tokens":98729,"output_tokens":42,"cache_creation":{"ephemeral_5m_input_tokens":0}}},"requestId":"r","type":"assistant","uuid":"u1","timestamp":"2026-02-12T20:30:28.504Z"}` + "\n",
			Entry{Type: "assistant", UUID: "u1", ParentUUID: "p1", SessionID: "s1", Timestamp: "2026-02-12T20:30:28.504Z", CWD: "/w",
				Message: &Message{ID: "msg_1", Role: "assistant", Model: "claude-opus-4-6",
					Content: Content{Blocks: []Block{
						{Type: "thinking", Thinking: "hm"},
						{Type: "text", Text: "Hi"},
						{Type: "tool_use", ID: "toolu_1", Name: "Bash", Input: []byte(`{"command":"ls"}`)},
					}},
					Usage: &Usage{1, 7330, 98729, 42}}}},
		{"tool result with string and block content",
			`{"type":"user","promptId":"pr","isMeta":true,"message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"out","is_error":true},{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"a"},{"type":"image","source":{}}]}]},"toolUseResult":{"stdout":"out"}}`,
			Entry{Type: "user", PromptID: "pr", IsMeta: true, ToolUseResult: []byte(`{"stdout":"out"}`),
				Message: &Message{Role: "user", Content: Content{Blocks: []Block{
					{Type: "tool_result", ToolUseID: "toolu_1", Content: &Content{Text: "out"}, IsError: true},
					{Type: "tool_result", ToolUseID: "t2", Content: &Content{Blocks: []Block{{Type: "text", Text: "a"}, {Type: "image"}}}},
				}}}}},
		{"compact boundary",
			`{"parentUuid":null,"logicalParentUuid":"x","type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":170251}}`,
			Entry{Type: "system", Subtype: "compact_boundary", CompactMetadata: &CompactMetadata{Trigger: "auto", PreTokens: 170251}}},
		{"compact summary",
			`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}`,
			Entry{Type: "user", IsCompactSummary: true, Message: &Message{Role: "user", Content: Content{Text: "This session is being continued"}}}},
		{"sidechain with agentId", `{"type":"assistant","isSidechain":true,"agentId":"a1b2"}`,
			Entry{Type: "assistant", IsSidechain: true, AgentID: "a1b2"}},
		{"unknown type and fields", `{"type":"atis-latch","zzz":[1,2,{"q":null}],"subtype":7}`, Entry{Type: "atis-latch"}},
		{"wrong types cost only their field",
			`{"type":"assistant","isSidechain":"yes","uuid":5,"message":{"id":["x"],"model":"m","content":5,"usage":{"input_tokens":"12","cache_read_input_tokens":1.5e3,"output_tokens":null}}}`,
			Entry{Type: "assistant", Message: &Message{Model: "m", Usage: &Usage{InputTokens: 12, CacheReadInputTokens: 1500}}}},
		{"message that is not an object", `{"type":"user","message":"hello","compactMetadata":[1]}`, Entry{Type: "user"}},
		{"content with odd elements", `{"type":"user","message":{"content":[1,"x",null,{"type":"text","text":"t","content":{}}]}}`,
			Entry{Type: "user", Message: &Message{Content: Content{Blocks: []Block{{Type: "text", Text: "t", Content: &Content{}}}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode([]byte(tc.line))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
				if got.Message != nil && tc.want.Message != nil {
					t.Errorf("message got %+v\nwant %+v", *got.Message, *tc.want.Message)
				}
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name      string
		line      string
		notObject bool
	}{
		{"empty", "", false},
		{"half-written", `{"type":"assistant","message":{"usage":{"input_tokens":9`, false},
		{"array", `[1,2]`, true},
		{"string", `"x"`, true},
		{"garbage", "\x00\xff{", false},
		{"two objects", `{"a":1}{"b":2}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.line))
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, ErrNotObject) != tc.notObject {
				t.Errorf("error %v, not-object %v", err, tc.notObject)
			}
		})
	}
}

func TestUsageContextAndText(t *testing.T) {
	if got := (Usage{1, 7330, 98729, 42}).Context(); got != 106060 {
		t.Errorf("Context = %d, want 106,060 (the reference's worked example)", got)
	}
	c := Content{Blocks: []Block{{Type: "text", Text: "a"}, {Type: "tool_use"}, {Type: "text", Text: "b"}}}
	if got := c.PlainText(); got != "a\n\nb" {
		t.Errorf("PlainText = %q", got)
	}
	e, _ := Decode([]byte(`{"timestamp":"2026-02-12T20:30:28.504Z"}`))
	if tm, ok := e.Time(); !ok || tm.Year() != 2026 {
		t.Errorf("Time = %v, %v", tm, ok)
	}
	if _, ok := (Entry{Timestamp: "yesterday"}).Time(); ok {
		t.Error("bad timestamp parsed")
	}
}

// TestUsageCountedOnce: a usage whose input_tokens already hold the cached
// part (a proxy's, with no cache_creation_input_tokens) counts the context
// once; the Messages API's, which always gives cache creation, adds the
// cache read to the input as before.
func TestUsageCountedOnce(t *testing.T) {
	for line, want := range map[string]int64{
		`{"type":"assistant","message":{"model":"claude-sonnet-4","usage":{"input_tokens":64185,"cache_read_input_tokens":63853,"output_tokens":255}}}`:                 64185,
		`{"type":"assistant","message":{"model":"claude-sonnet-4","usage":{"input_tokens":64185,"cache_read_input_tokens":63853,"cache_creation_input_tokens":null}}}`:  64185,
		`{"type":"assistant","message":{"model":"claude-sonnet-4-5","usage":{"input_tokens":3,"cache_read_input_tokens":63853,"cache_creation_input_tokens":0}}}`:       63856,
		`{"type":"assistant","message":{"model":"claude-sonnet-4-5","usage":{"input_tokens":70000,"cache_read_input_tokens":63853,"cache_creation_input_tokens":120}}}`: 133973,
		`{"type":"assistant","message":{"model":"claude-sonnet-4","usage":{"input_tokens":4631,"cache_read_input_tokens":7103}}}`:                                       11734,
	} {
		e, err := Decode([]byte(line))
		if err != nil || e.Message == nil || e.Message.Usage == nil {
			t.Fatalf("Decode(%s): %+v, %v", line, e, err)
		}
		if got := e.Message.Usage.Context(); got != want {
			t.Errorf("Context of %s = %d, want %d", line, got, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","model":"x","content":[{"type":"text","text":"t"}],"usage":{"input_tokens":1}}}`))
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}]}]},"toolUseResult":"s"}`))
	f.Add([]byte(`{"type":"system","subtype":"compact_boundary","compactMetadata":{"preTokens":1e400}}`))
	f.Add([]byte(`{"message":{"content":{"type":"text"}},"isSidechain":1}`))
	f.Add([]byte("\xef\xbb\xbf{}"))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := Decode(line)
		if err != nil {
			return
		}
		// A decoded message's content is a string or blocks, never both.
		if e.Message != nil && e.Message.Content.Blocks != nil && e.Message.Content.Text != "" {
			t.Fatal("content is both a string and blocks")
		}
	})
}
