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

// BenchmarkSaveAll is an event that writes two documents (the window and
// the anchor, as UserPromptSubmit does), fsync on: their fsyncs overlap.
func BenchmarkSaveAll(b *testing.B) {
	_, w := benchWindow(b)
	st := &Store{Root: b.TempDir()}
	a := &Anchor{}
	if err := DecodeStrict([]byte(`{"schema_version":1,"session_id":"s","text":"fix the tax rounding","hash":"0123456789ab","intent_type":"bugfix","tokens":["tax","round"],"captured_at":"2026-11-21T10:00:00Z","source":"prompt","deltas":[],"delta_count":0,"pivots":0,"reorients":0}`), a); err != nil {
		b.Fatal(err)
	}
	docs := []Doc{
		{Path: filepath.Join(st.Root, "window.json"), Kind: KindWindow, V: w},
		{Path: filepath.Join(st.Root, "anchor.json"), Kind: KindAnchor, V: a},
	}
	for b.Loop() {
		if err := st.SaveAll(docs...); err != nil {
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
