package state

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// benchWindow is a window.json of a session of 1,000 tool calls written by
// scripts/hookbench's synthetic session (loops ring buffer full, drift
// state, pressure cursor, recent advisories).
func benchWindow(b *testing.B) ([]byte, *Window) {
	raw, err := os.ReadFile(filepath.Join("testdata", "bench", "window-1000.json"))
	if err != nil {
		b.Skip(err)
	}
	var w Window
	if err := json.Unmarshal(raw, &w); err != nil {
		b.Fatal(err)
	}
	return raw, &w
}

// BenchmarkSaveWindow is the write half of every hook: validate, encode,
// write a temporary file, fsync, rename.
func BenchmarkSaveWindow(b *testing.B) {
	_, w := benchWindow(b)
	st := &Store{Root: b.TempDir()}
	p := filepath.Join(st.Root, "window.json")
	for b.Loop() {
		if err := st.Save(p, KindWindow, w); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadWindow is the read half: read, decode strictly, validate.
// A fresh Store each time, as in a hook process.
func BenchmarkLoadWindow(b *testing.B) {
	raw, _ := benchWindow(b)
	dir := b.TempDir()
	p := filepath.Join(dir, "window.json")
	if err := os.WriteFile(p, raw, 0o600); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		st := &Store{Root: dir}
		var w Window
		if found, err := st.Load(p, KindWindow, &w); !found || err != nil {
			b.Fatal(found, err)
		}
	}
}

// BenchmarkWindowParts splits the round trip into its parts: the
// encodings, the strict decode and Validate.
func BenchmarkWindowParts(b *testing.B) {
	raw, w := benchWindow(b)
	b.Run("Marshal", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(w)
		}
	})
	b.Run("MarshalIndent", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.MarshalIndent(w, "", " ")
		}
	})
	b.Run("DecodeStrict", func(b *testing.B) {
		for b.Loop() {
			var x Window
			if err := DecodeStrict(raw, &x); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Validate", func(b *testing.B) {
		for b.Loop() {
			if err := w.Validate(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
