package state

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// KeptDocs are the state documents testdata keeps, by kind: the example of
// every kind (testdata/valid) and the documents of real and synthetic
// sessions (testdata/docs), with at most maxLines lines of each log (0: all).
// The oracle tests (package state_test) start their mutations from them.
func KeptDocs(t testing.TB, maxLines int) map[Kind][][]byte {
	t.Helper()
	docs := map[Kind][][]byte{}
	for _, k := range Kinds() {
		b, err := os.ReadFile(filepath.Join("testdata", "valid", string(k)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		docs[k] = append(docs[k], b)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "docs", "*"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		switch base := filepath.Base(p); {
		case strings.HasSuffix(base, "window.json"):
			docs[KindWindow] = append(docs[KindWindow], b)
		case strings.HasSuffix(base, ".jsonl"):
			k := KindTurn
			if strings.HasSuffix(base, "advisories.jsonl") {
				k = KindAdvisory
			}
			lines := splitLines(b)
			if maxLines > 0 {
				lines = lines[:min(len(lines), maxLines)]
			}
			docs[k] = append(docs[k], lines...)
		}
	}
	return docs
}

// splitLines returns the non-empty lines of a JSONL file.
func splitLines(data []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// TestReadLastTurnsMatchesReadLastLines: ReadLastTurns delivers the turns
// that ReadLastLines delivers, decoded, on logs of kept turn lines mixed with
// damaged ones and a torn tail, at several line limits.
func TestReadLastTurnsMatchesReadLastLines(t *testing.T) {
	lines := KeptDocs(t, 0)[KindTurn]
	if len(lines) < 20 {
		t.Fatalf("only %d kept turn lines", len(lines))
	}
	rng := rand.New(rand.NewPCG(5, 1))
	st, _ := testStore(t)
	for trial := range 40 {
		var log []byte
		for range 30 + rng.IntN(60) {
			l := bytes.Clone(lines[rng.IntN(len(lines))])
			if rng.IntN(5) == 0 && len(l) > 2 {
				i := 1 + rng.IntN(len(l)-2)
				switch rng.IntN(3) {
				case 0:
					l[i] = byte(rng.IntN(256))
				case 1:
					l = append(l[:i:i], append([]byte(`"x",`), l[i:]...)...)
				default:
					l = bytes.Replace(l, []byte(`"seq":`), []byte(`"seq":-`), 1)
				}
			}
			log = append(append(log, bytes.ReplaceAll(l, []byte("\n"), nil)...), '\n')
		}
		if trial%2 == 0 {
			log = append(log, lines[0][:len(lines[0])/2]...)
		}
		p := filepath.Join(st.Root, "turns.jsonl")
		if err := os.WriteFile(p, log, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, maxLines := range []int{0, 10, 100} {
			var want []Turn
			wst, err := st.ReadLastLines(p, KindTurn, 0, maxLines, func(raw []byte) error {
				var tn Turn
				if json.Unmarshal(raw, &tn) == nil {
					want = append(want, tn)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			got, gst, err := st.ReadLastTurns(p, 0, maxLines)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("trial %d, maxLines %d: turns differ (-ReadLastLines +ReadLastTurns):\n%s", trial, maxLines, diff)
			}
			if gst.Torn != wst.Torn || gst.Truncated != wst.Truncated || gst.Lines != len(got) || gst.Lines+gst.Invalid != wst.Lines+wst.Invalid {
				t.Fatalf("trial %d, maxLines %d: stats %+v, check first %+v", trial, maxLines, gst, wst)
			}
		}
	}
}

// BenchmarkReadLastTurns reads the last 100 lines of a synthetic session's
// turns.jsonl as the compaction rank does: ReadLastTurns, and
// ReadLastLines then a decode of each line.
func BenchmarkReadLastTurns(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "docs", "hookbench-10000-turns.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	st := &Store{Root: b.TempDir()}
	p := filepath.Join(st.Root, "turns.jsonl")
	if err := os.WriteFile(p, bytes.Repeat(raw, 1+200/max(1, len(splitLines(raw)))), 0o600); err != nil {
		b.Fatal(err)
	}
	b.Run("ReadLastTurns", func(b *testing.B) {
		for b.Loop() {
			if ts, _, err := st.ReadLastTurns(p, 32<<10, 100); err != nil || len(ts) == 0 {
				b.Fatal(err, len(ts))
			}
		}
	})
	b.Run("ReadLastLines", func(b *testing.B) {
		for b.Loop() {
			var ts []Turn
			_, err := st.ReadLastLines(p, KindTurn, 32<<10, 100, func(raw []byte) error {
				var t Turn
				if json.Unmarshal(raw, &t) == nil {
					ts = append(ts, t)
				}
				return nil
			})
			if err != nil || len(ts) == 0 {
				b.Fatal(err, len(ts))
			}
		}
	})
}
