package state

import (
	"os"
	"path/filepath"
	"testing"
)

// codecSeeds adds the documents (and each of their lines) matching the
// patterns to a fuzz target's seeds, with the extra arguments args.
func codecSeeds(f *testing.F, args []any, patterns ...string) {
	add := func(data []byte) { f.Add(append([]any{data}, args...)...) }
	for _, pat := range patterns {
		files, _ := filepath.Glob(pat)
		for _, p := range files {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			if lines := splitLines(data); len(lines) > 1 {
				for _, l := range lines {
					add(l)
				}
			}
			add(data)
		}
	}
}

// FuzzWindowCodec: whatever the bytes, Window's UnmarshalJSON never
// panics and fails exactly when encoding/json (by reflection) fails;
// otherwise both give the same value. Decoding the same bytes again into
// that value (duplicate keys' merging, slices decoded into their old
// elements) agrees too, and the value re-encodes as reflection encodes it.
func FuzzWindowCodec(f *testing.F) {
	codecSeeds(f, nil, "testdata/valid/window.json", "testdata/codec/*window.json")
	for _, s := range []string{
		`{"recent":[{"seq":1,"kind":"a"},{"seq":2}],"recent":[{"seq":3}],"recent":[{},{}]}`,
		`{"SESSION_ID":"a","ſession_id":"b","recent":[{"\u212aind":"k"}]}`,
		`{"loops":{"main":{"patterns":{"p":{"ema":1}}}},"loops":{"main":{"n":18446744073709551615}}}`,
		`{"pressure":{"cursor":null,"announced":[true,null]},"drift":{"reservoir":null}}`,
		`{"session_id":"\ud83d\ude00\ud800\u00e9\/","tool_calls":-0,"drift":{"threshold":1e-400}}`,
		`{"x":[[[[{"a":[1,2,{"b":null}]}]]]],"events":{"a":1,"a":null}}`,
		`{"tool_calls":1e2}`, `{"created_at":null,"updated_at":"2026-11-21T10:00:00.5+05:30"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !checkDecode(t, data, &Window{}) {
			return
		}
		var w Window
		if err := w.UnmarshalJSON(data); err != nil {
			t.Fatal(err)
		}
		checkDecode(t, data, &w)
		checkEncode(t, &w)
	})
}

// FuzzLineCodec is FuzzWindowCodec for the JSONL lines every hook
// appends: a turn, or an advisory.
func FuzzLineCodec(f *testing.F) {
	codecSeeds(f, []any{false}, "testdata/valid/turn.json", "testdata/codec/*turns.jsonl")
	codecSeeds(f, []any{true}, "testdata/valid/advisory.json", "testdata/codec/*advisories.jsonl")
	f.Add([]byte(`{"score":null,"files":["a","a"],"score":-0,"output_chars":1e0}`), false)
	f.Add([]byte(`{"numbers":{"x":1e21,"y":-0,"x":null},"numbers":{"z":1}}`), true)
	f.Fuzz(func(t *testing.T, data []byte, advisory bool) {
		if !advisory {
			if checkDecode(t, data, &Turn{}) {
				var v Turn
				_ = v.UnmarshalJSON(data)
				checkDecode(t, data, &v)
				checkEncode(t, &v)
			}
			return
		}
		if checkDecode(t, data, &Advisory{}) {
			var v Advisory
			_ = v.UnmarshalJSON(data)
			checkDecode(t, data, &v)
			checkEncode(t, &v)
		}
	})
}
