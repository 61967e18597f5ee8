package transcript

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTranscript writes rounds of a plausible session (prompt, assistant
// text and tool call, tool result, progress line) until the file reaches
// size bytes, then the tail lines.
func writeTranscript(b *testing.B, size int64, tail ...obj) (string, Cursor) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "t.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	var n int64
	out := strings.Repeat("some tool output, a line of it\n", 40)
	for i := 0; n < size; i++ {
		id := fmt.Sprintf("m%d", i)
		for _, l := range []obj{
			user("please carry on with the task"),
			asst(id, int64(20_000+i), textBlock("Working on it: reading the file and running the tests.")),
			asst(id, int64(20_000+i), toolUse(fmt.Sprintf("toolu_%d", i), "Bash")),
			result(fmt.Sprintf("toolu_%d", i), out, false),
			{"type": "progress", "data": obj{"type": "hook_progress", "hookEvent": "PostToolUse"}},
		} {
			s := jsonl(b, l)
			w.WriteString(s)
			n += int64(len(s))
		}
	}
	cur := Cursor{Size: n, Boundary: n}
	for _, l := range tail {
		w.WriteString(jsonl(b, l))
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path, cur
}

func benchMeasure(b *testing.B, path string, prev *Cursor) {
	for name, opt := range map[string]Options{
		"meter":      {Budget: 1 << 20, Chunk: 64 << 10}, // usage only
		"hook":       HookOptions(),                      // what a hook runs
		"with-texts": DefaultOptions(),
	} {
		b.Run(name, func(b *testing.B) {
			var s Scan
			for b.Loop() {
				var err error
				s, err = Measure(path, prev, opt)
				if err != nil || !s.Reading.Found {
					b.Fatalf("reading %+v, %v", s.Reading, err)
				}
			}
			b.ReportMetric(float64(s.BytesRead), "bytes-read/op")
		})
	}
}

func BenchmarkMeasure10KB(b *testing.B) {
	path, _ := writeTranscript(b, 10<<10)
	benchMeasure(b, path, nil)
}

func BenchmarkMeasure50MB(b *testing.B) {
	path, _ := writeTranscript(b, 50<<20)
	benchMeasure(b, path, nil)
}

// The last line alone is 20 MB: a tool result written just after the
// assistant line that asked for it, with the cursor the previous hook left
// just before that assistant line.
func BenchmarkMeasureLastLine20MB(b *testing.B) {
	path, cur := writeTranscript(b, 10<<10,
		asst("m-last", 150_000, textBlock("Dumping the table."), toolUse("toolu_big", "Bash")),
		result("toolu_big", strings.Repeat("x", 20<<20), false))
	benchMeasure(b, path, &cur)
}
