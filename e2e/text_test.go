package e2e

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Bodies shaped like the requests the CLIs send after a PostToolUse hook
// printed additionalContext "E2E-MARKER" (reference §2.4, and the requests
// the self-test records).
const (
	// 2.1.197, live turn: a <system-reminder> text block next to the tool_result.
	body197 = `{"model":"claude-opus-4-8","system":[{"type":"text","text":"You are a Claude agent."}],"messages":[
		{"role":"user","content":[{"type":"text","text":"Please run echo"}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"echo E2E-NOT-HERE"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"hi","is_error":false},
			{"type":"text","text":"<system-reminder>\nPostToolUse:Bash hook additional context: E2E-MARKER\n</system-reminder>"}]}]}`
	// 2.1.330 (and 2.1.197 replaying a resumed session): a role:"system" message.
	body330 = `{"model":"claude-opus-5-5","system":"You are a Claude agent.","messages":[
		{"role":"user","content":"Please run echo"},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"hi"}]}]},
		{"role":"system","content":"PostToolUse:Bash hook additional context: E2E-MARKER"}]}`
)

func TestLocate(t *testing.T) {
	got := Locate([]byte(body330))
	want := []TextLocation{
		{-1, "system", "string", "You are a Claude agent."},
		{0, "user", "string", "Please run echo"},
		{2, "user", "tool_result", "hi"},
		{3, "system", "string", "PostToolUse:Bash hook additional context: E2E-MARKER"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Locate(body330) =\n%+v\nwant\n%+v", got, want)
	}
	if n := len(Locate([]byte(body197))); n != 4 {
		t.Errorf("Locate(body197) found %d texts, want 4", n)
	}
	for _, bad := range []string{"", "null", "[]", `{"messages":"x"}`, `{"messages":[{"content":42}]}`} {
		if got := Locate([]byte(bad)); len(got) != 0 {
			t.Errorf("Locate(%q) = %+v, want nothing", bad, got)
		}
	}
}

func TestContextPlacement(t *testing.T) {
	tests := []struct {
		name, body, substr string
		want               Placement
	}{
		{"2.1.197 system-reminder", body197, "E2E-MARKER", PlacementSystemReminder},
		{"2.1.330 system message", body330, "E2E-MARKER", PlacementSystemMessage},
		{"absent", body197, "E2E-MISSING", PlacementNone},
		{"tool input is not text", body197, "E2E-NOT-HERE", PlacementNone},
		{"plain user text", body197, "Please run", PlacementOther},
		{"system prompt", body330, "Claude agent", PlacementOther},
		{"tool_result", body330, "hi", PlacementOther},
		{"outside the reminder tags", `{"messages":[{"role":"user","content":"<system-reminder>a</system-reminder> E2E-MARKER"}]}`, "E2E-MARKER", PlacementOther},
		{"second reminder", `{"messages":[{"role":"user","content":"<system-reminder>a</system-reminder><system-reminder>E2E-MARKER</system-reminder>"}]}`, "E2E-MARKER", PlacementSystemReminder},
		{"unclosed reminder", `{"messages":[{"role":"user","content":"<system-reminder>E2E-MARKER"}]}`, "E2E-MARKER", PlacementSystemReminder},
		{"best of several", `{"system":"E2E-MARKER","messages":[{"role":"system","content":"E2E-MARKER"}]}`, "E2E-MARKER", PlacementSystemMessage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Body: []byte(tt.body)}
			if got := ContextPlacement(req, tt.substr); got != tt.want {
				t.Errorf("ContextPlacement = %v, want %v", got, tt.want)
			}
			if got := ContextInRequest(req, tt.substr); got != (tt.want != PlacementNone) {
				t.Errorf("ContextInRequest = %v", got)
			}
		})
	}
}

func TestFindText(t *testing.T) {
	reqs := []Request{{Body: []byte(`{"messages":[]}`)}, {Body: []byte(body197)}, {Body: []byte(body330)}}
	if got := FindText(reqs, "E2E-MARKER"); got != 1 {
		t.Errorf("FindText = %d, want 1", got)
	}
	if got := FindText(reqs, "nowhere"); got != -1 {
		t.Errorf("FindText = %d, want -1", got)
	}
	if !reqs[2].Contains("Please run echo") || len(reqs[2].Texts()) != 4 {
		t.Error("Request.Contains / Texts")
	}
}

// FuzzLocate checks on arbitrary bodies that Locate never panics and that a
// text planted in a well-formed body is found (the oracle is the planted
// string itself).
func FuzzLocate(f *testing.F) {
	f.Add([]byte(body197), "E2E-MARKER")
	f.Add([]byte(body330), "x")
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"tool_result","content":[{"type":"text","text":"a"}]}]}]}`), "<system-reminder>")
	f.Fuzz(func(t *testing.T, body []byte, planted string) {
		for _, l := range Locate(body) {
			if l.Message < -1 {
				t.Fatalf("bad location %+v", l)
			}
		}
		// encoding/json turns each invalid byte into U+FFFD; plant valid text
		// so that the oracle is the planted string itself.
		planted = strings.ToValidUTF8(planted, "\uFFFD")
		wrapped, err := json.Marshal(map[string]any{"messages": []any{
			map[string]any{"role": "user", "content": []any{map[string]string{"type": "text", "text": planted}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(Texts(wrapped), "\x00"), planted) {
			t.Fatalf("planted %q not found in %s", planted, wrapped)
		}
	})
}
