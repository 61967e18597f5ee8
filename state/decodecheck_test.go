package state

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// checkFirst is Load's order before decodeChecked: the whole check (syntax
// and schema), then the decode. It is the oracle for decodeChecked, which
// decodes first where the decoder is as strict as encoding/json.
func checkFirst(k Kind, raw []byte, v any) string {
	if errs := ValidateBytes(k, raw); len(errs) > 0 {
		return describe(errs)
	}
	if err := decodeDoc(raw, v); err != nil {
		return "decode: " + err.Error()
	}
	return ""
}

// decodeCheckedAgrees fails t unless decodeChecked and checkFirst name the
// same problem for raw and, when there is none, decode the same value.
func decodeCheckedAgrees(t *testing.T, k Kind, raw []byte) {
	t.Helper()
	fresh := func() any {
		switch k {
		case KindWindow:
			return &Window{}
		case KindAnchor:
			return &Anchor{}
		case KindTurn:
			return &Turn{}
		default:
			return &Advisory{}
		}
	}
	got, want := fresh(), fresh()
	st := &Store{}
	gp, wp := st.decodeChecked("doc", k, raw, got), checkFirst(k, raw, want)
	if gp != wp {
		t.Fatalf("%s %q:\ndecodeChecked: %q\ncheck first:   %q", k, raw, gp, wp)
	}
	if gp == "" && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %q: decoded values differ", k, raw)
	}
}

// codecDocs are the state documents the tests keep, by kind: each file of
// testdata/valid and testdata/codec and each line of the JSONL ones.
func codecDocs(t testing.TB) map[Kind][][]byte {
	docs := map[Kind][][]byte{}
	for _, k := range []Kind{KindWindow, KindAnchor, KindTurn, KindAdvisory} {
		if b, err := os.ReadFile(filepath.Join("testdata", "valid", string(k)+".json")); err == nil {
			docs[k] = append(docs[k], b)
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "codec", "*"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		switch base := filepath.Base(p); {
		case bytes.HasSuffix([]byte(base), []byte("window.json")):
			docs[KindWindow] = append(docs[KindWindow], b)
		case bytes.HasSuffix([]byte(base), []byte("turns.jsonl")):
			docs[KindTurn] = append(docs[KindTurn], splitLines(b)...)
		case bytes.HasSuffix([]byte(base), []byte("advisories.jsonl")):
			docs[KindAdvisory] = append(docs[KindAdvisory], splitLines(b)...)
		}
	}
	return docs
}

// TestDecodeCheckedMatchesCheckFirst holds Load's decode-first order to the
// check-first one on every kept document of the four kinds with a
// generated decoder and on 20,000 damaged copies of them: bytes dropped,
// changed, duplicated or cut off, values swapped for ones of another type,
// whitespace added. The problem named (schema violations, syntax errors,
// decode errors) and the decoded value must be the same.
func TestDecodeCheckedMatchesCheckFirst(t *testing.T) {
	docs := codecDocs(t)
	rng := rand.New(rand.NewPCG(3, 9))
	junk := [][]byte{[]byte(`"x"`), []byte(`1e999`), []byte(`-0`), []byte(`null`), []byte(`{}`), []byte(`[]`), []byte(`true`), []byte(`"\ud800"`), []byte("\xff"), []byte(`,`), []byte(`}`), []byte(` `), []byte(`"2026-13-01T00:00:00Z"`), []byte(`18446744073709551616`)}
	mutate := func(b []byte) []byte {
		b = bytes.Clone(b)
		if len(b) == 0 {
			return b
		}
		i := rng.IntN(len(b))
		switch rng.IntN(6) {
		case 0:
			return append(b[:i], b[i+1:]...)
		case 1:
			b[i] = byte(rng.IntN(256))
			return b
		case 2:
			return b[:i]
		case 3:
			j := i + rng.IntN(min(40, len(b)-i))
			return append(b[:j:j], append(bytes.Clone(b[i:j]), b[j:]...)...)
		case 4:
			// A value after a colon replaced by one of another type.
			c := bytes.IndexByte(b[i:], ':')
			if c < 0 {
				return b
			}
			c += i + 1
			end := c
			for end < len(b) && b[end] != ',' && b[end] != '}' {
				end++
			}
			return append(b[:c:c], append(bytes.Clone(junk[rng.IntN(len(junk))]), b[end:]...)...)
		default:
			return append(b[:i:i], append([]byte(" \n\t"), b[i:]...)...)
		}
	}
	n := 0
	for k, list := range docs {
		for _, d := range list {
			decodeCheckedAgrees(t, k, d)
			n++
		}
	}
	for range 20000 {
		kinds := []Kind{KindWindow, KindAnchor, KindTurn, KindAdvisory}
		k := kinds[rng.IntN(len(kinds))]
		list := docs[k]
		if len(list) == 0 {
			continue
		}
		d := list[rng.IntN(len(list))]
		for range 1 + rng.IntN(3) {
			d = mutate(d)
		}
		decodeCheckedAgrees(t, k, d)
		n++
	}
	if n < 20000 {
		t.Fatalf("only %d documents checked", n)
	}
}

// FuzzDecodeChecked: whatever the bytes, Load's decode-first order names
// the same problem as checking first, and decodes the same value.
func FuzzDecodeChecked(f *testing.F) {
	kinds := []Kind{KindWindow, KindAnchor, KindTurn, KindAdvisory}
	for k, list := range codecDocs(f) {
		for _, d := range list[:min(len(list), 3)] {
			f.Add(d, uint8(slicesIndex(kinds, k)))
		}
	}
	f.Add([]byte(`null`), uint8(0))
	f.Add([]byte(`{"schema_version":1,"session_id":"s","tool_calls":"x"}`), uint8(0))
	f.Fuzz(func(t *testing.T, raw []byte, kind uint8) {
		decodeCheckedAgrees(t, kinds[int(kind)%len(kinds)], raw)
	})
}

func slicesIndex(ks []Kind, k Kind) int {
	for i, x := range ks {
		if x == k {
			return i
		}
	}
	return 0
}

// TestReadLastTurnsMatchesReadLastLines: ReadLastTurns (decode first)
// delivers the turns that ReadLastLines (check first) delivers and the
// generated decoder then takes, on logs of kept turn lines mixed with
// damaged ones and a torn tail, at several line limits.
func TestReadLastTurnsMatchesReadLastLines(t *testing.T) {
	lines := codecDocs(t)[KindTurn]
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
				if tn.UnmarshalJSON(raw) == nil {
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
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("trial %d, maxLines %d: %d turns, want %d", trial, maxLines, len(got), len(want))
			}
			if gst.Torn != wst.Torn || gst.Truncated != wst.Truncated || gst.Lines != len(got) || gst.Lines+gst.Invalid != wst.Lines+wst.Invalid {
				t.Fatalf("trial %d, maxLines %d: stats %+v, check first %+v", trial, maxLines, gst, wst)
			}
		}
	}
}

// BenchmarkReadLastTurns reads the last 100 lines of a synthetic session's
// turns.jsonl as the compaction rank does, decode first (ReadLastTurns)
// and check first (ReadLastLines, then the decoder).
func BenchmarkReadLastTurns(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "codec", "hookbench-10000-turns.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	st := &Store{Root: b.TempDir()}
	p := filepath.Join(st.Root, "turns.jsonl")
	if err := os.WriteFile(p, bytes.Repeat(raw, 1+200/max(1, len(splitLines(raw)))), 0o600); err != nil {
		b.Fatal(err)
	}
	b.Run("decode-first", func(b *testing.B) {
		for b.Loop() {
			if ts, _, err := st.ReadLastTurns(p, 32<<10, 100); err != nil || len(ts) == 0 {
				b.Fatal(err, len(ts))
			}
		}
	})
	b.Run("check-first", func(b *testing.B) {
		for b.Loop() {
			var ts []Turn
			_, err := st.ReadLastLines(p, KindTurn, 32<<10, 100, func(raw []byte) error {
				var t Turn
				if t.UnmarshalJSON(raw) == nil {
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
