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
		{"an IDE note", []string{`{"type":"attachment","attachment":{"type":"queued_command","prompt":"<ide_opened_file>The user opened a.go</ide_opened_file>","commandMode":"prompt"}}`}, nil},
		{"a command", []string{`{"type":"attachment","attachment":{"type":"queued_command","prompt":"/context","commandMode":"prompt"}}`}, nil},
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
			got, _, err := QueuedPrompts(path, tc.from, tc.to, tc.budget, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("QueuedPrompts (-want +got):\n%s", diff)
			}
		})
	}
	if _, _, err := QueuedPrompts(t.TempDir(), 0, 10, 100, 0); err == nil {
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
		if s := strings.TrimSpace(strings.Join(parts, "\n")); s != "" && !strings.ContainsAny(s[:1], "<{/") {
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
// The sub-benchmarks: a message handed over as an attachment (2.1.105
// and later), one handed over by a remove whose text was queued before the
// last hook (earlier versions, the lookback read), and the common case,
// nothing typed.
func BenchmarkQueuedPrompts(b *testing.B) {
	old := strings.Repeat(`{"type":"user","version":"2.0.76","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}}`+"\n", 2000)
	result := `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"` + strings.Repeat("y", 20000) + `"}]}}` + "\n"
	next := `{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"u","name":"Bash","input":{"command":"ls"}}]}}` + "\n"
	for _, bc := range []struct {
		name          string
		before, added string
		want          int
	}{
		{"attachment", old, result + qHuman + "\n" + next, 1},
		{"remove", old + qEnq + "\n", result + qRemove + "\n" + next, 1},
		{"nothing typed", old, result + next, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "t.jsonl")
			data := bc.before + bc.added
			if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
				b.Fatal(err)
			}
			from, to := int64(len(bc.before)), int64(len(data))
			b.ReportAllocs()
			for b.Loop() {
				if got, _, err := QueuedPrompts(path, from, to, 256<<10, 64<<10); err != nil || len(got) != bc.want {
					b.Fatal(got, err)
				}
			}
		})
	}
}

// Queue lines as Claude Code 2.0 and 2.1 before 2.1.105 write them, and
// main lines naming a version.
const (
	qEnq      = `{"type":"queue-operation","operation":"enqueue","content":"io non uso manco piu rust"}`
	qEnqTask  = `{"type":"queue-operation","operation":"enqueue","content":"<task-notification>done</task-notification>"}`
	qEnqJSON  = `{"type":"queue-operation","operation":"enqueue","content":"{\"task_id\":\"b1\"}"}`
	qRemove   = `{"type":"queue-operation","operation":"remove"}`
	qRemoveC  = `{"type":"queue-operation","operation":"remove","content":"use codegraph explore"}`
	qDequeue  = `{"type":"queue-operation","operation":"dequeue"}`
	qPopAll   = `{"type":"queue-operation","operation":"popAll","content":"/context"}`
	qOld      = `{"type":"user","version":"2.0.76","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}`
	qNew      = `{"type":"user","version":"2.1.185","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}`
	qEnqOther = `{"type":"queue-operation","operation":"enqueue","content":"and then push it"}`
)

// TestQueuedWindow: before 2.1.105 a remove in the range hands over the
// oldest text queued, whether it was queued inside the range or before it;
// a dequeue (sent as a prompt, with its own hook) or a popAll hands over
// nothing; notifications are not the person's. From 2.1.105, or where an
// attachment line shows the CLI writes them, only attachments count.
func TestQueuedWindow(t *testing.T) {
	for _, tc := range []struct {
		name        string
		before, rng []string
		want        []string
	}{
		{"queued before, removed in the range", []string{qOld, qEnq}, []string{qOld, qRemove}, []string{"io non uso manco piu rust"}},
		{"queued and removed in the range", []string{qOld}, []string{qEnq, qOld, qRemove}, []string{"io non uso manco piu rust"}},
		{"removed before the range", []string{qOld, qEnq, qRemove}, []string{qOld}, nil},
		{"first in, first out", []string{qOld, qEnq, qEnqOther}, []string{qRemove}, []string{"io non uso manco piu rust"}},
		{"two removes", []string{qOld, qEnq, qEnqOther}, []string{qRemove, qRemove}, []string{"io non uso manco piu rust", "and then push it"}},
		{"dequeued: sent as a prompt", []string{qOld, qEnq}, []string{qDequeue, qEnqOther, qRemove}, []string{"and then push it"}},
		{"cleared", []string{qOld, qEnq}, []string{qPopAll, qRemove}, nil},
		{"a remove that carries its text", []string{qOld}, []string{qRemoveC}, []string{"use codegraph explore"}},
		{"queued before the window", []string{qOld}, []string{qRemove}, nil},
		{"a task notification", []string{qOld, qEnqTask}, []string{qRemove}, nil},
		{"a notification as JSON", []string{qOld, qEnqJSON}, []string{qRemove}, nil},
		{"2.1.105 and later: attachments only", []string{qNew, qEnq}, []string{qNew, qRemove}, nil},
		{"an attachment line: attachments only", []string{qOld, qEnq}, []string{qRemove, qBare}, []string{"pull the latest PR"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := strings.Join(tc.before, "\n") + "\n"
			buf := before + strings.Join(tc.rng, "\n") + "\n"
			got, recorded := queuedWindow([]byte(buf), int64(len(before)))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("queuedWindow (-want +got):\n%s", diff)
			}
			if wantRecorded := strings.Contains(buf, "queued_command") || strings.Contains(buf, "2.1.185"); recorded != wantRecorded {
				t.Errorf("recorded %v, want %v", recorded, wantRecorded)
			}
		})
	}
}

// TestQueuedPromptsLookback: the text queued before the range is found
// within lookback bytes of its start (cut at a line start), not beyond.
func TestQueuedPromptsLookback(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	pad := strings.Repeat(qOld+"\n", 20)
	before := qOld + "\n" + qEnq + "\n" + pad
	data := before + qRemove + "\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	from, to := int64(len(before)), int64(len(data))
	for _, tc := range []struct {
		name     string
		lookback int64
		want     []string
	}{
		{"far enough", int64(len(before)), []string{"io non uso manco piu rust"}},
		{"a cut inside the enqueue line", int64(len(pad) + 10), nil},
		{"none", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, recorded, err := QueuedPrompts(path, from, to, 1<<20, tc.lookback)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("QueuedPrompts (-want +got):\n%s", diff)
			}
			if recorded {
				t.Errorf("texts inferred from a 2.0.76 queue reported as recorded")
			}
		})
	}
}

// FuzzQueuedWindow: whatever the lines, every text handed over is one
// that a queue line or an attachment line of the window holds (read with
// generic maps), and nothing is handed over from an empty range.
func FuzzQueuedWindow(f *testing.F) {
	f.Add([]byte(qOld+"\n"+qEnq+"\n"+qRemove+"\n"), uint16(0))
	f.Add([]byte(qOld+"\n"+qEnq+"\n"+qEnqOther+"\n"+qRemove+"\n"+qRemove+"\n"), uint16(80))
	f.Add([]byte(qNew+"\n"+qEnq+"\n"+qRemove+"\n"+qBare+"\n"), uint16(40))
	f.Add([]byte(qRemoveC+"\n"+qPopAll+"\n"+qDequeue+"\n"), uint16(3))
	f.Fuzz(func(t *testing.T, buf []byte, at uint16) {
		got, _ := queuedWindow(buf, int64(at))
		if int(at) >= len(buf) && len(got) > 0 {
			t.Fatalf("handed over %q from an empty range", got)
		}
		held := map[string]bool{}
		for _, line := range bytes.Split(buf, []byte("\n")) {
			var m map[string]any
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			for k, v := range m {
				if s, ok := v.(string); ok && strings.EqualFold(k, "content") {
					held[strings.TrimSpace(s)] = true
				}
			}
		}
		att := queuedIn(buf) // the attachment texts, read on their own
		for _, s := range att {
			held[s] = true
		}
		for _, s := range got {
			if !held[s] {
				t.Fatalf("handed over %q, which no line of %q holds", s, buf)
			}
		}
	})
}
