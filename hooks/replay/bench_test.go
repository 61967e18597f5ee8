package replay

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/djinn-cc/djinn/settings"
)

func corpus(tb testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.jsonl"))
	if len(files) == 0 {
		tb.Skipf("no corpus at %s", corpusDir)
	}
	return files
}

// BenchmarkReplayCorpus replays every corpus transcript once per
// iteration and reports events per second, the figure `djinn replay`
// prints.
func BenchmarkReplayCorpus(b *testing.B) { benchReplay(b, corpus(b)) }

// BenchmarkReplayTestdata replays the repository's own transcripts
// (testdata/transcripts), where one 3 MB transcript is most of the work.
func BenchmarkReplayTestdata(b *testing.B) {
	files, _ := filepath.Glob("../../testdata/transcripts/*.jsonl")
	if len(files) == 0 {
		b.Skip("no testdata transcripts")
	}
	benchReplay(b, files)
}

// benchReplay replays files one after the other per iteration and reports
// events per second.
func benchReplay(b *testing.B, files []string) {
	set := settings.Default()
	events := 0
	for b.Loop() {
		for _, f := range files {
			rep, err := Run(context.Background(), f, Options{Settings: set})
			if err != nil {
				b.Fatal(err)
			}
			events += rep.EventCount
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
