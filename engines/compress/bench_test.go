package compress

import (
	"math/rand/v2"
	"strings"
	"testing"
)

const benchSize = 50 << 20

func benchText(unit string) string {
	return strings.Repeat(unit, benchSize/len(unit)+1)[:benchSize]
}

func benchCompress(b *testing.B, in string) {
	cfg := DefaultConfig()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		out, _ := Compress(in, cfg)
		if len(out) == 0 {
			b.Fatal("empty output")
		}
	}
}

// Plain log output: cleaning finds nothing, the end is cut.
func BenchmarkCompressPlain50MB(b *testing.B) {
	benchCompress(b, benchText("2026-01-01 12:00:00 INFO request handled in 3 ms, status=200, path=/api/v1/items\n"))
}

// An HTML page full of inline images, scripts and styles.
func BenchmarkCompressHTML50MB(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	unit := "<div><p>Some text, ünïcode.</p><img src=\"data:image/png;base64," + randBase64(r, 20_000) + "\">" +
		"<script>var x = {a: 1};</script><style>.a{color:red}</style>\n" + randBase64(r, 3_000) + "\n</div>\n"
	benchCompress(b, "<!DOCTYPE html><html><body>"+benchText(unit))
}

// A browser page snapshot.
func BenchmarkCompressSnapshot50MB(b *testing.B) {
	benchCompress(b, "### Page snapshot\n"+benchText("- link \"Read more\" [ref=e1234]:\n  - /url: /articles/42\n"))
}

// Output under the cap: counted and returned.
func BenchmarkCompressUnderCap150KB(b *testing.B) {
	benchCompress(b, benchText("ordinary output line\n")[:150_000])
}

func BenchmarkCompressToolResponseBash50MB(b *testing.B) {
	resp := map[string]any{"stdout": benchText("line of output\n"), "stderr": "warning: x\n", "interrupted": false}
	b.SetBytes(benchSize)
	for b.Loop() {
		_, rep := CompressToolResponse("Bash", resp, DefaultConfig())
		if !rep.Changed {
			b.Fatal("unchanged")
		}
	}
}
