package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func jsonl(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

type obj = map[string]any

func textBlock(s string) obj { return obj{"type": "text", "text": s} }

func toolUse(id, name string) obj {
	return obj{"type": "tool_use", "id": id, "name": name, "input": obj{"command": "ls"}}
}

// asst is a main-chain assistant line whose usage adds up to ctx.
func asst(id string, ctx int64, blocks ...obj) obj {
	return obj{"type": "assistant", "isSidechain": false, "uuid": "u-" + id,
		"message": obj{"id": id, "model": "claude-test", "role": "assistant", "content": blocks,
			"usage": obj{"input_tokens": 1, "cache_creation_input_tokens": 10, "cache_read_input_tokens": ctx - 11, "output_tokens": 5}}}
}

func user(text string) obj {
	return obj{"type": "user", "isSidechain": false, "message": obj{"role": "user", "content": text}}
}

func result(id, content string, isErr bool) obj {
	return obj{"type": "user", "isSidechain": false, "message": obj{"role": "user", "content": []obj{
		{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isErr}}},
		"toolUseResult": obj{"stdout": content}}
}

func boundary(pre int64) obj {
	return obj{"type": "system", "subtype": "compact_boundary", "parentUuid": nil, "isSidechain": false,
		"compactMetadata": obj{"trigger": "auto", "preTokens": pre}}
}

func build(t testing.TB, lines ...obj) []byte {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(jsonl(t, l))
	}
	return []byte(b.String())
}

func measure(t testing.TB, data []byte, prev *Cursor, opt Options) Scan {
	t.Helper()
	s, err := MeasureAt(bytes.NewReader(data), int64(len(data)), prev, opt)
	if err != nil {
		t.Fatalf("MeasureAt: %v", err)
	}
	return s
}

func TestMeterReading(t *testing.T) {
	side := asst("m-side", 999_999, textBlock("subagent"))
	side["isSidechain"] = true
	side["agentId"] = "a1"
	synth := asst("m-synth", 0, textBlock("No response requested."))
	synth["message"].(obj)["model"] = "<synthetic>"
	progress := obj{"type": "progress", "data": obj{"type": "agent_progress", "message": asst("m-nested", 777_777)}}
	a1 := asst("m1", 50_000, textBlock("first"))
	a2text := asst("m2", 80_000, textBlock("second"))
	a2tool := asst("m2", 80_000, toolUse("toolu_1", "Bash"))
	a2tool["message"].(obj)["usage"].(obj)["output_tokens"] = 99 // duplicates differ only in output

	tests := []struct {
		name string
		data []byte
		want Reading
	}{
		{"empty file", nil, Reading{Source: SourceNone}},
		{"no assistant", build(t, user("hi"), user("there")), Reading{Source: SourceNone}},
		{"latest usage", build(t, user("go"), a1, result("toolu_0", "x", false), a2text),
			Reading{Tokens: 80_000, Found: true, Model: "claude-test", MessageID: "m2", Source: SourceTail}},
		{"sidechain lines ignored", build(t, a1, side, side),
			Reading{Tokens: 50_000, Found: true, Model: "claude-test", MessageID: "m1", Source: SourceTail}},
		{"synthetic lines ignored", build(t, a1, synth),
			Reading{Tokens: 50_000, Found: true, Model: "claude-test", MessageID: "m1", Source: SourceTail}},
		{"nested progress messages ignored", build(t, a1, progress),
			Reading{Tokens: 50_000, Found: true, Model: "claude-test", MessageID: "m1", Source: SourceTail}},
		{"duplicates of one message id", build(t, a1, a2text, a2tool),
			Reading{Tokens: 80_000, Found: true, Model: "claude-test", MessageID: "m2", Source: SourceTail}},
		{"compact boundary after the last usage", build(t, a1, a2text, boundary(170_251), user("summary")),
			Reading{Stale: true, PreTokens: 170_251, Source: SourceTail}},
		{"compaction summary without a boundary (CLI 1.0)", build(t, a1, a2text, func() obj { u := user("This session is being continued…"); u["isCompactSummary"] = true; return u }(), user("<session-start-hook>")),
			Reading{Stale: true, Source: SourceTail}},
		{"sidechain summary ignored", build(t, a1, func() obj { u := user("summary"); u["isCompactSummary"] = true; u["isSidechain"] = true; return u }()),
			Reading{Tokens: 50_000, Found: true, Model: "claude-test", MessageID: "m1", Source: SourceTail}},
		{"usage after the boundary", build(t, a1, boundary(170_251), user("summary"), asst("m3", 20_000)),
			Reading{Tokens: 20_000, Found: true, Model: "claude-test", MessageID: "m3", Source: SourceTail}},
		{"sidechain boundary ignored", build(t, a1, func() obj { b := boundary(5); b["isSidechain"] = true; return b }()),
			Reading{Tokens: 50_000, Found: true, Model: "claude-test", MessageID: "m1", Source: SourceTail}},
		{"half-written last line ignored", append(build(t, a1), `{"type":"assistant","message":{"id":"m9","usage":{"input_tokens":9`...),
			Reading{Tokens: 50_000, Found: true, Model: "claude-test", MessageID: "m1", Source: SourceTail}},
		{"complete last line without newline used", bytes.TrimSuffix(build(t, a1, a2text), []byte("\n")),
			Reading{Tokens: 80_000, Found: true, Model: "claude-test", MessageID: "m2", Source: SourceTail}},
		{"bad lines skipped", append(append(build(t, a1), "not json\n\x00\xff\n[1,2]\n"...), build(t, user("x"))...),
			Reading{Tokens: 50_000, Found: true, Model: "claude-test", MessageID: "m1", Source: SourceTail}},
		{"blank lines and CRLF", []byte("\n\n" + strings.TrimSuffix(jsonl(t, a1), "\n") + "\r\n\n\n"),
			Reading{Tokens: 50_000, Found: true, Model: "claude-test", MessageID: "m1", Source: SourceTail}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := measure(t, tc.data, nil, DefaultOptions())
			if s.Reading != tc.want {
				t.Errorf("reading %+v\nwant    %+v", s.Reading, tc.want)
			}
			if s.Cursor.Size != int64(len(tc.data)) || s.Cursor.Reading != s.Reading {
				t.Errorf("cursor %+v", s.Cursor)
			}
			if b := s.Cursor.Boundary; b < 0 || b > int64(len(tc.data)) || (b > 0 && tc.data[b-1] != '\n') {
				t.Errorf("cursor boundary %d is not after a newline", b)
			}
		})
	}
}

func TestMeterHugeLastLine(t *testing.T) {
	opt := DefaultOptions()
	opt.Budget = 64 << 10
	opt.Chunk = 4 << 10
	head := build(t, user("go"), asst("m0", 10_000, textBlock("earlier")))
	a := build(t, asst("m1", 90_000, textBlock("running it"), toolUse("toolu_1", "Bash")))
	huge := build(t, result("toolu_1", strings.Repeat("output line\n", 60_000), false)) // ~720 KB, over the budget
	data := append(append(append([]byte{}, head...), a...), huge...)
	beforeA := int64(len(head))
	afterA := beforeA + int64(len(a))
	want := Reading{Tokens: 90_000, Found: true, Model: "claude-test", MessageID: "m1"}

	t.Run("no cursor: unknown", func(t *testing.T) {
		s := measure(t, data, nil, opt)
		if s.Reading != (Reading{Source: SourceNone}) {
			t.Errorf("reading %+v", s.Reading)
		}
		if s.BytesRead > opt.Budget {
			t.Errorf("read %d bytes, budget %d", s.BytesRead, opt.Budget)
		}
	})
	t.Run("cursor before the assistant line: forward", func(t *testing.T) {
		prev := &Cursor{Size: beforeA, Boundary: beforeA, Reading: Reading{Tokens: 10_000, Found: true, Source: SourceTail}}
		s := measure(t, data, prev, opt)
		w := want
		w.Source = SourceForward
		if s.Reading != w {
			t.Errorf("reading %+v, want %+v", s.Reading, w)
		}
		if s.LastText != "running it" {
			t.Errorf("last text %q", s.LastText)
		}
		if s.Cursor.Boundary != int64(len(data)) {
			t.Errorf("cursor boundary %d, want the end %d", s.Cursor.Boundary, len(data))
		}
		if s.BytesRead > 2*opt.Budget+1 {
			t.Errorf("read %d bytes", s.BytesRead)
		}
		// The next hook, with that cursor and nothing new: carried.
		s2 := measure(t, data, &s.Cursor, opt)
		w.Source = SourceCarried
		if s2.Reading != w {
			t.Errorf("second reading %+v, want %+v", s2.Reading, w)
		}
	})
	t.Run("stale through the forward window", func(t *testing.T) {
		d := append(append(append(append([]byte{}, head...), a...), build(t, boundary(123_456))...), huge...)
		prev := &Cursor{Size: beforeA, Boundary: beforeA}
		s := measure(t, d, prev, opt)
		if s.Reading != (Reading{Stale: true, PreTokens: 123_456, Source: SourceForward}) {
			t.Errorf("reading %+v", s.Reading)
		}
	})
	t.Run("half-written huge line", func(t *testing.T) {
		d := data[:len(data)-100]
		prev := &Cursor{Size: afterA, Boundary: afterA, Reading: want}
		s := measure(t, d, prev, opt)
		w := want
		w.Source = SourceCarried
		if s.Reading != w {
			t.Errorf("reading %+v, want %+v", s.Reading, w)
		}
	})
	t.Run("half-written huge line, cursor before the assistant", func(t *testing.T) {
		d := data[:len(data)-100]
		prev := &Cursor{Size: beforeA, Boundary: beforeA}
		s := measure(t, d, prev, opt)
		w := want
		w.Source = SourceForward
		if s.Reading != w || s.Cursor.Boundary != afterA {
			t.Errorf("reading %+v, boundary %d; want %+v, %d", s.Reading, s.Cursor.Boundary, w, afterA)
		}
	})
	t.Run("cursor beyond the end is ignored", func(t *testing.T) {
		prev := &Cursor{Size: int64(len(data)) + 1, Boundary: 10, Reading: want}
		if s := measure(t, data, prev, opt); s.Reading.Source != SourceNone {
			t.Errorf("reading %+v", s.Reading)
		}
	})
	t.Run("cursor boundary not after a newline is ignored", func(t *testing.T) {
		prev := &Cursor{Size: afterA, Boundary: beforeA + 1, Reading: want}
		if s := measure(t, data, prev, opt); s.Reading.Source != SourceNone {
			t.Errorf("reading %+v", s.Reading)
		}
	})
}

func TestMeterTextAndToolResults(t *testing.T) {
	data := build(t,
		user("start"),
		asst("m1", 100, textBlock("alpha")),
		asst("m1", 100, toolUse("t1", "Read")),
		result("t1", "file body", false),
		asst("m2", 200, textBlock("beta"), toolUse("t2", "Bash"), toolUse("t3", "Grep")),
		obj{"type": "user", "message": obj{"role": "user", "content": []obj{
			{"type": "tool_result", "tool_use_id": "t2", "content": "ünï", "is_error": true},
			{"type": "tool_result", "tool_use_id": "t3", "content": []obj{textBlock("ab"), {"type": "image"}, textBlock("cd")}},
		}}},
		asst("m3", 300, textBlock("gamma")),
		asst("m3", 300, textBlock("delta")),
	)
	opt := DefaultOptions()
	s := measure(t, data, nil, opt)
	if s.LastText != "gamma\n\ndelta" {
		t.Errorf("LastText %q", s.LastText)
	}
	if s.RecentText != "alpha\n\nbeta\n\ngamma\n\ndelta" {
		t.Errorf("RecentText %q", s.RecentText)
	}
	want := []ToolResult{
		{ToolUseID: "t3", Name: "Grep", Chars: 4},
		{ToolUseID: "t2", Name: "Bash", Chars: 3, IsError: true},
		{ToolUseID: "t1", Name: "Read", Chars: 9},
	}
	if fmt.Sprint(s.ToolResults) != fmt.Sprint(want) {
		t.Errorf("ToolResults %+v\nwant %+v", s.ToolResults, want)
	}

	opt.TextRunes = 7
	opt.ToolResults = 1
	s = measure(t, data, nil, opt)
	if s.RecentText != "\n\ndelta" || s.LastText != "\n\ndelta" {
		t.Errorf("limited texts %q, %q", s.RecentText, s.LastText)
	}
	if len(s.ToolResults) != 1 || s.ToolResults[0].Name != "Grep" {
		t.Errorf("limited results %+v", s.ToolResults)
	}

	// Asking for nothing more stops at the latest usage.
	opt.TextRunes, opt.ToolResults = 0, 0
	s = measure(t, data, nil, opt)
	if s.LastText != "" || s.RecentText != "" || s.ToolResults != nil || !s.Reading.Found {
		t.Errorf("scan %+v", s)
	}
}

func TestMeasureFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, build(t, asst("m1", 42_000)), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Measure(path, nil, DefaultOptions())
	if err != nil || s.Reading.Tokens != 42_000 {
		t.Fatalf("Measure: %+v, %v", s.Reading, err)
	}
	// Missing: an error, and the cursor's reading carried.
	s2, err := Measure(filepath.Join(dir, "gone.jsonl"), &s.Cursor, DefaultOptions())
	if !errors.Is(err, fs.ErrNotExist) || s2.Reading.Source != SourceCarried || s2.Reading.Tokens != 42_000 {
		t.Errorf("missing file: %+v, %v", s2.Reading, err)
	}
}

// TestMeterLongLine: with a cursor, a line of LongLine bytes or more is
// given up on by both windows, so the bytes read do not grow with it; the
// price, an assistant line hidden between two such lines, is pinned here.
func TestMeterLongLine(t *testing.T) {
	opt := DefaultOptions()
	head := build(t, user("go"), asst("m0", 10_000, textBlock("earlier")))
	a := build(t, asst("m1", 90_000, textBlock("dumping it"), toolUse("toolu_1", "Bash")))
	before := Reading{Tokens: 10_000, Found: true, Model: "claude-test", MessageID: "m0", Source: SourceTail}
	want := Reading{Tokens: 90_000, Found: true, Model: "claude-test", MessageID: "m1", Source: SourceForward}
	cur := &Cursor{Size: int64(len(head)), Boundary: int64(len(head)), Reading: before}
	var read []int64
	for _, n := range []int{100 << 10, 2 << 20, 8 << 20} {
		huge := build(t, result("toolu_1", strings.Repeat("x", n), false))
		data := slices.Concat(head, a, huge)
		s := measure(t, data, cur, opt)
		if s.Reading != want || s.Cursor.Boundary != int64(len(data)) {
			t.Fatalf("%d-byte result: reading %+v, boundary %d; want %+v, %d", n, s.Reading, s.Cursor.Boundary, want, len(data))
		}
		// The tail's chunk, then the forward window up to LongLine bytes
		// into the result.
		if s.BytesRead > opt.Chunk+opt.LongLine+opt.Chunk+1 {
			t.Errorf("%d-byte result: read %d bytes", n, s.BytesRead)
		}
		read = append(read, s.BytesRead)
		// Without a cursor the whole budget is tried, as before.
		if s := measure(t, data, nil, opt); n > int(opt.Budget) && s.BytesRead != opt.Budget {
			t.Errorf("%d-byte result, no cursor: read %d bytes", n, s.BytesRead)
		}
	}
	if read[1] != read[2] {
		t.Errorf("bytes read grow with the line: %v", read)
	}

	// Two long lines since the cursor with the assistant line between
	// them: the reading stays the cursor's, one response late.
	long := build(t, result("toolu_0", strings.Repeat("y", 100<<10), false))
	huge := build(t, result("toolu_1", strings.Repeat("x", 2<<20), false))
	s := measure(t, slices.Concat(head, long, a, huge), cur, opt)
	if w := before; s.Reading != (Reading{Tokens: w.Tokens, Found: true, Model: w.Model, MessageID: w.MessageID, Source: SourceCarried}) {
		t.Errorf("hidden assistant line: reading %+v", s.Reading)
	}
}

// TestLastNewline holds lastNewline to bytes.LastIndexByte on seeded random
// buffers of every length around its block size.
func TestLastNewline(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	for n := range 1100 {
		for _, density := range []int{0, 2, 50, 1000} {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte('a' + rng.IntN(26))
				if density > 0 && rng.IntN(density) == 0 {
					b[i] = '\n'
				}
			}
			if got, want := lastNewline(b), bytes.LastIndexByte(b, '\n'); got != want {
				t.Fatalf("n=%d density=%d: lastNewline %d, want %d", n, density, got, want)
			}
		}
	}
}

// TestMeterLatest: Scan.Latest is the newest main-chain assistant message,
// with usage or without, carried through the cursor while nothing newer is
// written, and "" once a compaction is newer than any.
func TestMeterLatest(t *testing.T) {
	noUsage := func(id string) obj {
		return obj{"type": "assistant", "isSidechain": false, "message": obj{"id": id, "model": "claude-test", "role": "assistant",
			"content": []obj{toolUse("t-"+id, "Bash")}}}
	}
	side := asst("side", 5_000, toolUse("t-side", "Bash"))
	side["isSidechain"] = true
	steps := []struct {
		name string
		add  []obj
		want string
	}{
		{"one message with usage", []obj{asst("m1", 10_000, toolUse("t1", "Bash"))}, "m1"},
		{"its tool's result: still m1", []obj{result("t1", "ok", false)}, "m1"},
		{"a message without usage is the newest", []obj{noUsage("m2")}, "m2"},
		{"a subagent's message does not count", []obj{side}, "m2"},
		{"results after it: carried", []obj{result("t-m2", "ok", false), user("go on")}, "m2"},
		{"a new message with usage", []obj{asst("m3", 12_000, toolUse("t3", "Bash"))}, "m3"},
		{"a compaction: not known", []obj{boundary(12_000)}, ""},
	}
	for _, opt := range []Options{DefaultOptions(), HookOptions()} {
		var data []byte
		var cur *Cursor
		for _, st := range steps {
			data = append(data, build(t, st.add...)...)
			s := measure(t, data, cur, opt)
			if s.Latest != st.want {
				t.Fatalf("%s (text runes %d): Latest %q, want %q", st.name, opt.TextRunes, s.Latest, st.want)
			}
			if fresh := measure(t, data, nil, opt); fresh.Latest != st.want {
				t.Fatalf("%s without a cursor: Latest %q, want %q", st.name, fresh.Latest, st.want)
			}
			cur = &s.Cursor
		}
	}
}
