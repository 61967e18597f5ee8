package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// corpusDir holds real Claude Code transcripts (shared, read-only, not part
// of the repository); the tests skip when it is absent.
const corpusDir = "../../../shared/corpus/transcripts"

func corpusFiles(t *testing.T) []string {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.jsonl"))
	if len(files) == 0 {
		t.Skipf("no corpus at %s", corpusDir)
	}
	return files
}

// onCorpus runs test on each corpus file, in a subtest named for it.
func onCorpus(t *testing.T, test func(t *testing.T, path string, data []byte)) {
	for _, path := range corpusFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			test(t, path, data)
		})
	}
}

// oracle is a brute-force forward scan over every line, decoding each with
// encoding/json into maps, independently of Decode and of the windows.
type oracle struct {
	reading  Reading
	text     []string            // every assistant text part, in file order
	msgParts map[string][]string // message key → its text parts
	lastKey  string              // key of the latest text-eligible line
	results  []ToolResult        // every tool result, in file order
	names    map[string]string   // tool_use id → name, latest first seen
	line     int
}

func newOracle() *oracle {
	return &oracle{msgParts: map[string][]string{}, names: map[string]string{}}
}

func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// parts is the text of a content value: a non-empty string, or the text of
// its text blocks.
func parts(content any) []string {
	switch c := content.(type) {
	case string:
		if c == "" {
			return nil
		}
		return []string{c}
	case []any:
		var ps []string
		for _, b := range c {
			if bm, ok := b.(map[string]any); ok && bm["type"] == "text" {
				ps = append(ps, str(bm["text"]))
			}
		}
		return ps
	}
	return nil
}

// relevant reports whether the line changes the reading.
func (o *oracle) add(line []byte) (relevant bool) {
	o.line++
	var m map[string]any
	if json.Unmarshal(line, &m) != nil {
		return false
	}
	side := m["isSidechain"] == true
	msg, _ := m["message"].(map[string]any)
	switch {
	case side:
	case m["type"] == "system" && m["subtype"] == "compact_boundary":
		cm, _ := m["compactMetadata"].(map[string]any)
		o.reading = Reading{Stale: true, PreTokens: num(cm["preTokens"])}
		return true
	case m["type"] == "user" && m["isCompactSummary"] == true:
		o.reading = Reading{Stale: true}
		return true
	case m["type"] == "assistant" && msg != nil && msg["model"] != "<synthetic>":
		id := str(msg["id"])
		ps := parts(msg["content"])
		o.text = append(o.text, ps...)
		key := id
		if key == "" {
			key = fmt.Sprintf("#%d", o.line)
		}
		o.lastKey = key
		o.msgParts[key] = append(o.msgParts[key], ps...)
		if c, ok := msg["content"].([]any); ok {
			for _, b := range c {
				if bm, ok := b.(map[string]any); ok && bm["type"] == "tool_use" {
					o.names[str(bm["id"])] = str(bm["name"])
				}
			}
		}
		if u, ok := msg["usage"].(map[string]any); ok {
			o.reading = Reading{Found: true, Tokens: num(u["input_tokens"]) + num(u["cache_creation_input_tokens"]) + num(u["cache_read_input_tokens"]),
				Model: str(msg["model"]), MessageID: id}
			return true
		}
	case m["type"] == "user" && msg != nil:
		c, _ := msg["content"].([]any)
		for _, b := range c {
			bm, ok := b.(map[string]any)
			if !ok || bm["type"] != "tool_result" {
				continue
			}
			chars := 0
			for _, p := range parts(bm["content"]) {
				chars += utf8.RuneCountInString(p)
			}
			id := str(bm["tool_use_id"])
			o.results = append(o.results, ToolResult{ToolUseID: id, Name: o.names[id], Chars: chars, IsError: bm["is_error"] == true})
		}
	}
	return false
}

func (o *oracle) texts(n int) (last, recent string) {
	return lastRunes(strings.Join(o.msgParts[o.lastKey], "\n\n"), n), lastRunes(strings.Join(o.text, "\n\n"), n)
}

func (o *oracle) latestResults(k int) []ToolResult {
	r := slices.Clone(o.results[max(0, len(o.results)-k):])
	slices.Reverse(r)
	return r
}

func sameReading(a, b Reading) bool {
	a.Source, b.Source = "", ""
	return a == b
}

// lineEnds are the offsets just after each newline.
func lineEnds(data []byte) []int {
	var ends []int
	for i, c := range data {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	return ends
}

// TestMeterAgainstOracleOnCorpus cuts each real transcript at line
// boundaries (every one for the small files, about 150 evenly spread for the
// large ones) and, at each cut, compares the meter with the full forward
// scan of that prefix; then again with half of the next line appended, as a
// transcript being written looks.
//
// With the default options the text and results of the large files often
// reach beyond the 1 MiB window (assistant text is sparse there), so the
// check is repeated asking for less, where they are compared exactly.
func TestMeterAgainstOracleOnCorpus(t *testing.T) {
	small := DefaultOptions()
	small.TextRunes, small.ToolResults = 300, 3
	for name, opt := range map[string]Options{"default": DefaultOptions(), "small": small} {
		t.Run(name, func(t *testing.T) { oracleOnCorpus(t, opt) })
	}
}

func oracleOnCorpus(t *testing.T, opt Options) {
	onCorpus(t, func(t *testing.T, path string, data []byte) {
		ends := lineEnds(data)
		step := max(1, len(ends)/150)
		o := newOracle()
		prev := 0
		checked, partial, exhausted := 0, 0, 0
		for i, end := range ends {
			o.add(data[prev:end])
			prev = end
			if i%step != 0 && i != len(ends)-1 {
				continue
			}
			cuts := [][]byte{data[:end]}
			if i+1 < len(ends) {
				next := data[end:ends[i+1]]
				cuts = append(cuts, data[:end+len(next)/2])
			}
			for j, cut := range cuts {
				s := measure(t, cut, nil, opt)
				checked++
				if j == 1 {
					partial++
				}
				if !sameReading(s.Reading, o.reading) {
					t.Fatalf("cut at line %d (%d bytes, partial %v): reading %+v, oracle %+v", i+1, len(cut), j == 1, s.Reading, o.reading)
				}
				last, recent := o.texts(opt.TextRunes)
				want := o.latestResults(opt.ToolResults)
				if int64(len(cut)) > opt.Budget && s.BytesRead >= opt.Budget {
					// The window ran out before the text and the
					// results were complete: what the meter has must
					// be the newest part of the oracle's.
					exhausted++
					if !strings.HasSuffix(last, s.LastText) || !strings.HasSuffix(recent, s.RecentText) {
						t.Fatalf("cut at line %d: texts %q, %q are not suffixes of the oracle's", i+1, s.LastText, s.RecentText)
					}
					if len(s.ToolResults) > len(want) {
						t.Fatalf("cut at line %d: %d results, oracle %d", i+1, len(s.ToolResults), len(want))
					}
					for k, r := range s.ToolResults {
						w := want[k]
						if r.Name == "" {
							w.Name = ""
						}
						if r != w {
							t.Fatalf("cut at line %d: result %d %+v, oracle %+v", i+1, k, r, w)
						}
					}
					continue
				}
				if s.LastText != last {
					t.Fatalf("cut at line %d: LastText %q\noracle %q", i+1, s.LastText, last)
				}
				if s.RecentText != recent {
					t.Fatalf("cut at line %d: RecentText %q\noracle %q", i+1, s.RecentText, recent)
				}
				if !slices.Equal(s.ToolResults, want) && !(len(want) == 0 && s.ToolResults == nil) {
					t.Fatalf("cut at line %d: ToolResults %+v\noracle %+v", i+1, s.ToolResults, want)
				}
			}
		}
		t.Logf("%d lines, %d cuts checked (%d half-written), %d with text and results beyond the window", len(ends), checked, partial, exhausted)
	})
}

// TestMeterCursorChainOnCorpus replays each transcript line by line with a
// small window (16 KiB) and the cursor carried from one call to the next, as
// hooks would. A line too long for the window cannot be read, so the
// expected reading is the oracle's, except that a relevant line (one that
// changes the reading) longer than the window leaves the previous reading in
// place.
//
// With the hooks' options the window is 1 MiB but lines of LongLine bytes
// and over are given up on, so the limit is LongLine; "hook, known" also
// passes the previous reading's message as KnownMessage, as a hook whose
// drift signal has taken that message's text does.
func TestMeterCursorChainOnCorpus(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opt   Options
		known bool
	}{
		{"16KiB", Options{Budget: 16 << 10, Chunk: 2 << 10}, false},
		{"hook", HookOptions(), false},
		{"hook, known", HookOptions(), true},
	} {
		t.Run(tc.name, func(t *testing.T) { cursorChain(t, tc.opt, tc.known) })
	}
}

func cursorChain(t *testing.T, opt Options, known bool) {
	limit := opt.sanitized().LongLine
	onCorpus(t, func(t *testing.T, path string, data []byte) {
		o := newOracle()
		var cur *Cursor
		expected := Reading{}
		prev, missed, maxRead := 0, 0, int64(0)
		for i, end := range lineEnds(data) {
			line := data[prev:end]
			if o.add(line) {
				// The window must hold the line and the newline
				// before it.
				if int64(len(line)) < limit || prev == 0 {
					expected = o.reading
				} else {
					missed++
				}
			}
			prev = end
			if known && cur != nil {
				opt.KnownMessage = cur.Reading.MessageID
			}
			s := measure(t, data[:end], cur, opt)
			if !sameReading(s.Reading, expected) {
				t.Fatalf("line %d: reading %+v, expected %+v (oracle %+v)", i+1, s.Reading, expected, o.reading)
			}
			maxRead = max(maxRead, s.BytesRead)
			cur = &s.Cursor
			if c, err := json.Marshal(cur); err != nil || len(c) > 300 {
				t.Fatalf("cursor %s (%v)", c, err)
			}
		}
		if maxRead > 2*opt.Budget+1 {
			t.Errorf("read up to %d bytes in one call", maxRead)
		}
		t.Logf("relevant lines over the window: %d; most bytes read in one call: %d", missed, maxRead)
	})
}

// TestMeterForwardWindowOnCorpus makes the last line of each prefix huge (a
// 2 MiB tool result appended after the cut), with the cursor left at the
// previous cut, as when a hook fires right after a big tool output: the
// reading must still be the oracle's.
func TestMeterForwardWindowOnCorpus(t *testing.T) {
	opt := Options{Budget: 64 << 10, Chunk: 8 << 10}
	hugeLine := []byte(jsonl(t, result("toolu_huge", strings.Repeat("x", 2<<20), false)))
	onCorpus(t, func(t *testing.T, path string, data []byte) {
		ends := lineEnds(data)
		o := newOracle()
		prev, last := 0, 0
		lastReading := Reading{Source: SourceNone}
		checked := 0
		for i, end := range ends {
			o.add(data[prev:end])
			prev = end
			if i%7 != 6 {
				continue
			}
			// Only when everything since the previous cut fits the
			// forward window.
			if int64(end-last) < opt.Budget {
				file := append(bytes.Clone(data[:end]), hugeLine...)
				cur := &Cursor{Size: int64(last), Boundary: int64(last), Reading: lastReading}
				s := measure(t, file, cur, opt)
				if !sameReading(s.Reading, o.reading) {
					t.Fatalf("line %d: reading %+v, oracle %+v", i+1, s.Reading, o.reading)
				}
				checked++
			}
			last, lastReading = end, o.reading
		}
		t.Logf("%d cuts checked", checked)
	})
}
