package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestToolUseIDIdempotent: a PostToolUse or PostToolUseFailure delivered
// again with the same tool_use_id changes nothing and says nothing, so the
// same call three times is one call (no tool-loop, no fail-loop); three
// different calls alike are three, and do loop.
func TestToolUseIDIdempotent(t *testing.T) {
	for _, tc := range []struct {
		name, event, kind string
	}{
		{"success", PostToolUse, "tool-loop"},
		{"failure", PostToolUseFailure, "fail-loop"},
	} {
		call := func(s *sim, id string) Response {
			p := &Payload{HookEventName: tc.event, ToolName: "Bash", ToolUseID: id,
				ToolInput: json.RawMessage(`{"command":"kubectl get pods"}`)}
			if tc.event == PostToolUse {
				p.ToolResponse = json.RawMessage(`{"stdout":"NAME READY\nweb 0/1","stderr":""}`)
			} else {
				p.Error = "Exit code 1\nerror: the server could not find the requested resource"
			}
			return s.run(p)
		}
		t.Run(tc.name+"/same id", func(t *testing.T) {
			s := newSim(t)
			call(s, "toolu_same")
			dir, _ := s.env.Store.SessionDir(s.id)
			before, err := os.ReadFile(filepath.Join(dir, "window.json"))
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if r := call(s, "toolu_same"); !r.Empty() {
					t.Fatalf("a repeat said something: %+v", r)
				}
			}
			after, _ := os.ReadFile(filepath.Join(dir, "window.json"))
			if string(after) != string(before) {
				t.Errorf("a repeat changed window.json:\n%s\n---\n%s", before, after)
			}
			w := s.window()
			if w.ToolCalls != 1 || w.Events[tc.event] != 1 {
				t.Errorf("tool_calls %d, events %v: want the call counted once", w.ToolCalls, w.Events)
			}
			if n := s.count(tc.kind); n != 0 {
				t.Errorf("%d %s advisories for one call", n, tc.kind)
			}
		})
		t.Run(tc.name+"/distinct ids", func(t *testing.T) {
			s := newSim(t)
			for i := range 3 {
				call(s, fmt.Sprintf("toolu_%d", i))
			}
			if w := s.window(); w.ToolCalls != 3 || w.Events[tc.event] != 3 {
				t.Errorf("tool_calls %d, events %v: want 3", w.ToolCalls, w.Events)
			}
			if n := s.count(tc.kind); n != 1 {
				t.Errorf("%d %s advisories for three calls alike, want 1 (said: %q)", n, tc.kind, s.said)
			}
		})
	}
}

// TestToolUseIDsBounded: window.json keeps only the latest tool_use_ids.
func TestToolUseIDsBounded(t *testing.T) {
	s := newSim(t)
	for i := range maxToolUseIDs + 8 {
		s.tool("Read", jsonStr(map[string]any{"file_path": fmt.Sprintf("/p/f%d.go", i)}), map[string]any{"type": "text"})
	}
	w := s.window()
	if len(w.ToolUseIDs) != maxToolUseIDs || w.ToolUseIDs[len(w.ToolUseIDs)-1] != fmt.Sprintf("toolu_%d", s.calls) {
		t.Fatalf("tool_use_ids %v", w.ToolUseIDs)
	}
	if w.ToolCalls != maxToolUseIDs+8 {
		t.Fatalf("tool_calls %d", w.ToolCalls)
	}
}
