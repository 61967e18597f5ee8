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

// BenchmarkSaveWindow is the write half of every hook: encode, check
// against the schema, write a temporary file, fsync, rename.
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

// BenchmarkLoadWindow is the read half: read, check against the schema,
// decode. A fresh Store each time, as in a hook process (a Store skips the
// check of bytes it wrote itself).
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

// BenchmarkValidateWindow is the schema check alone (in-house checker in
// the hook build, jsonschema/v5 otherwise).
func BenchmarkValidateWindow(b *testing.B) {
	raw, _ := benchWindow(b)
	b.Run("quick", func(b *testing.B) {
		for b.Loop() {
			if errs := quickValidate(KindWindow, raw); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("ValidateBytes", func(b *testing.B) {
		for b.Loop() {
			if errs := ValidateBytes(KindWindow, raw); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
}

// BenchmarkWindowParts splits the round trip into its parts.
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
	b.Run("Unmarshal", func(b *testing.B) {
		for b.Loop() {
			var x Window
			_ = json.Unmarshal(raw, &x)
		}
	})
	b.Run("decodeAny", func(b *testing.B) {
		for b.Loop() {
			_, _ = decodeAny(raw)
		}
	})
	doc, _ := decodeAny(raw)
	c, _ := compileChecker(must(Schema(KindWindow)))
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			_ = c.check(doc)
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
