package state

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// BenchmarkWindowCodec compares the codec with encoding/json by
// reflection on window.json at 10,000 tool calls (written by
// scripts/hookbench's synthetic session; the window is bounded, so this is
// its steady size). "via-json" is the path Store takes: json.Marshal and
// json.Unmarshal calling the codec's methods (plus their own syntax pass).
// These are warm figures: the reflection caches are built in the first
// iteration. A hook process pays the cold cost once per event.
func BenchmarkWindowCodec(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "bench", "window-10000.json"))
	if err != nil {
		b.Fatal(err)
	}
	var w Window
	if err := w.UnmarshalJSON(raw); err != nil {
		b.Fatal(err)
	}
	plain := plainOf(reflect.TypeFor[Window]())
	pw := reflect.New(plain)
	copyTo(pw.Elem(), reflect.ValueOf(w))
	b.Run("Marshal/reflect", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := json.Marshal(pw.Interface()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Marshal/codec", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := w.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Marshal/codec-via-json", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := json.Marshal(&w); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Unmarshal/reflect", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if err := json.Unmarshal(raw, reflect.New(plain).Interface()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Unmarshal/codec", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			var v Window
			if err := v.UnmarshalJSON(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Unmarshal/codec-via-json", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			var v Window
			if err := json.Unmarshal(raw, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
