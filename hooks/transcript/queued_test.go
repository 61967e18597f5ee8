package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	qHuman = `{"type":"attachment","isSidechain":false,"attachment":{"type":"queued_command","prompt":"no wait, keep the old port","commandMode":"prompt","origin":{"kind":"human"}}}`
	qBare  = `{"type":"attachment","attachment":{"type":"queued_command","prompt":"pull the latest PR","commandMode":"prompt"}}`
	qList  = `{"type":"attachment","attachment":{"type":"queued_command","prompt":[{"type":"text","text":"the name"},{"type":"image"},{"type":"text","text":"is not required"}],"commandMode":"prompt"}}`
	qTask  = `{"type":"attachment","attachment":{"type":"queued_command","prompt":"<task-notification>done</task-notification>","commandMode":"task-notification"}}`
	qOther = `{"type":"attachment","attachment":{"type":"queued_command","prompt":"from a peer","commandMode":"prompt","origin":{"kind":"coordinator"}}}`
	qSide  = `{"type":"attachment","isSidechain":true,"attachment":{"type":"queued_command","prompt":"a subagent's","commandMode":"prompt"}}`
	qOp    = `{"type":"queue-operation","operation":"enqueue","content":"typed, not yet handed over"}`
	qUser  = `{"type":"user","message":{"role":"user","content":"a prompt that says \"queued_command\""}}`
)

func TestQueuedIn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"typed by the person", []string{qHuman}, []string{"no wait, keep the old port"}},
		{"no origin (2.1.158)", []string{qBare}, []string{"pull the latest PR"}},
		{"text blocks", []string{qList}, []string{"the name\nis not required"}},
		{"oldest first", []string{qBare, qUser, qHuman}, []string{"pull the latest PR", "no wait, keep the old port"}},
		{"a task notification", []string{qTask}, nil},
		{"another origin", []string{qOther}, nil},
		{"a sidechain", []string{qSide}, nil},
		{"queue operations", []string{qOp}, nil},
		{"a prompt quoting the key", []string{qUser}, nil},
		{"malformed", []string{`{"type":"attachment","attachment":{"type":"queued_command","prompt":`}, nil},
		{"empty prompt", []string{`{"type":"attachment","attachment":{"type":"queued_command","prompt":"  ","commandMode":"prompt"}}`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := queuedIn([]byte(strings.Join(tc.lines, "\n") + "\n"))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("queuedIn (-want +got):\n%s", diff)
			}
		})
	}
}

// TestQueuedPromptsRange: only [from, to) is read, at most budget bytes of
// it (cut at a line start), and offsets beyond the file read nothing.
func TestQueuedPromptsRange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	data := qBare + "\n" + qHuman + "\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	first, all := int64(len(qBare)+1), int64(len(data))
	for _, tc := range []struct {
		name             string
		from, to, budget int64
		want             []string
	}{
		{"both", 0, all, 1 << 20, []string{"pull the latest PR", "no wait, keep the old port"}},
		{"since the first", first, all, 1 << 20, []string{"no wait, keep the old port"}},
		{"up to the second", 0, first, 1 << 20, []string{"pull the latest PR"}},
		{"the budget cuts the older", 0, all, all - first + 5, []string{"no wait, keep the old port"}},
		{"nothing new", all, all, 1 << 20, nil},
		{"beyond the file", first, all + 10, 1 << 20, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := QueuedPrompts(path, tc.from, tc.to, tc.budget)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("QueuedPrompts (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := QueuedPrompts(t.TempDir(), 0, 10, 100); err == nil {
		t.Fatal("a directory read without error")
	}
}

// queuedOracle is queuedIn read with generic maps; ok is false when a line
// spells a key it reads in other capitals, which encoding/json matches
// and a map does not.
func queuedOracle(buf []byte) (out []string, ok bool) {
	for _, line := range bytes.Split(buf, []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		a, _ := m["attachment"].(map[string]any)
		if oddCase(m, "type", "isSidechain", "attachment") || a != nil && oddCase(a, "type", "prompt", "commandMode", "origin") {
			return nil, false
		}
		if o, isMap := a["origin"].(map[string]any); isMap && oddCase(o, "kind") {
			return nil, false
		}
		if m["type"] != "attachment" || m["isSidechain"] == true || a == nil || a["type"] != "queued_command" || a["commandMode"] != "prompt" {
			continue
		}
		if o, ok := a["origin"].(map[string]any); ok && o["kind"] != "human" {
			continue
		}
		var parts []string
		switch p := a["prompt"].(type) {
		case string:
			parts = []string{p}
		case []any:
			for _, b := range p {
				if b, ok := b.(map[string]any); ok && b["type"] == "text" {
					s, _ := b["text"].(string)
					parts = append(parts, s)
				}
			}
		}
		if s := strings.TrimSpace(strings.Join(parts, "\n")); s != "" {
			out = append(out, s)
		}
	}
	return out, true
}

// oddCase reports whether m has a key that is one of keys in other
// capitals.
func oddCase(m map[string]any, keys ...string) bool {
	for k := range m {
		for _, want := range keys {
			if k != want && strings.EqualFold(k, want) {
				return true
			}
		}
	}
	return false
}

func FuzzQueuedIn(f *testing.F) {
	for _, l := range []string{qHuman, qBare, qList, qTask, qOther, qSide, qOp, qUser} {
		f.Add([]byte(l + "\n" + qBare + "\n"))
	}
	f.Fuzz(func(t *testing.T, buf []byte) {
		want, ok := queuedOracle(buf)
		got := queuedIn(buf)
		if !ok || len(got) == 0 && len(want) == 0 {
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("queuedIn disagrees with the map oracle on %q (-want +got):\n%s", buf, diff)
		}
	})
}

// BenchmarkQueuedPrompts: what a PostToolUse hook reads for queued
// messages, the lines since the last hook: here a 20 KB tool result, a
// queued message and the agent's next message.
func BenchmarkQueuedPrompts(b *testing.B) {
	path := filepath.Join(b.TempDir(), "t.jsonl")
	old := strings.Repeat(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}}`+"\n", 2000)
	result := `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"` + strings.Repeat("y", 20000) + `"}]}}` + "\n"
	next := `{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"u","name":"Bash","input":{"command":"ls"}}]}}` + "\n"
	data := old + result + qHuman + "\n" + next
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		b.Fatal(err)
	}
	from, to := int64(len(old)), int64(len(data))
	b.ReportAllocs()
	for b.Loop() {
		if got, err := QueuedPrompts(path, from, to, 256<<10); err != nil || len(got) != 1 {
			b.Fatal(got, err)
		}
	}
}
