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
