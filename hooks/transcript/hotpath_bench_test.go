package transcript

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkMeasureHotPath measures what a hook pays on the corpus: Measure
// with the options of the hooks' hot path (2,000 runes of text, no tool
// results) at every line boundary of the two long real transcripts, each
// time with the cursor the previous boundary left, as consecutive hooks do.
func BenchmarkMeasureHotPath(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "spotter-*.jsonl"))
	var datas [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if len(data) > 1<<20 {
			datas = append(datas, data)
		}
	}
	if len(datas) == 0 {
		b.Skip("no long transcript in the corpus")
	}
	for _, last := range []bool{false, true} {
		b.Run(fmt.Sprintf("last-text-only=%v", last), func(b *testing.B) {
			opt := DefaultOptions()
			opt.TextRunes, opt.ToolResults, opt.LastTextOnly = 2000, 0, last
			benchHotPath(b, datas, opt)
		})
	}
}

func benchHotPath(b *testing.B, datas [][]byte, opt Options) {
	calls := 0
	for b.Loop() {
		for _, data := range datas {
			var prev *Cursor
			for end := bytes.IndexByte(data, '\n'); end >= 0; {
				s, _ := MeasureAt(bytes.NewReader(data), int64(end+1), prev, opt)
				prev = &s.Cursor
				calls++
				next := bytes.IndexByte(data[end+1:], '\n')
				if next < 0 {
					break
				}
				end += next + 1
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls), "ns/measure")
}
