package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzLoad: whatever a state file holds, Load either decodes a document
// that passes its schema or moves the file aside and starts fresh; it
// never panics, and the file left in place (if any) is valid.
func FuzzLoad(f *testing.F) {
	for _, k := range Kinds {
		if b, err := os.ReadFile(filepath.Join("testdata", "valid", string(k)+".json")); err == nil {
			f.Add(b, uint8(0))
		}
	}
	f.Add([]byte(`{"schema_version":1,`), uint8(1))
	f.Add([]byte(`{"schema_version":2}`), uint8(2))
	f.Add([]byte(`{"schema_version":1,"session_id":"s","created_at":"2026-11-21T10:00:00Z","updated_at":"2026-11-21T10:00:00Z","events":{},"tool_calls":1e999}`), uint8(3))
	f.Add([]byte("\xff\xfe"), uint8(4))
	f.Fuzz(func(t *testing.T, raw []byte, kind uint8) {
		k := Kinds[int(kind)%len(Kinds)]
		st := &Store{Root: t.TempDir(), Now: func() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) }}
		p := filepath.Join(st.Root, string(k)+".json")
		if err := os.WriteFile(p, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		var v any
		switch k {
		case KindWindow:
			v = &Window{}
		case KindAnchor:
			v = &Anchor{}
		case KindPosteriors:
			v = &Posteriors{}
		default:
			v = &map[string]any{}
		}
		found, err := st.Load(p, k, v)
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if found {
			if errs := ValidateBytes(k, raw); len(errs) > 0 {
				t.Fatalf("Load accepted an invalid %s: %v", k, errs)
			}
			return
		}
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("an invalid %s was left in place", k)
		}
	})
}

// FuzzReadLines: any JSONL content is read without error; every line
// delivered is valid, the rest are counted as invalid or torn.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"seq":1,"time":"2026-11-21T10:00:00Z","tool":"Bash"}`+"\n"+`{"schema_version":1,"seq":2,"ti`), int64(0))
	f.Add([]byte("\n\n{}\n[]\n"), int64(3))
	f.Add([]byte(strings.Repeat(`{"schema_version":1,"seq":1,"time":"2026-11-21T10:00:00Z","tool":"Bash"}`+"\n", 20)), int64(100))
	f.Fuzz(func(t *testing.T, raw []byte, max int64) {
		st := &Store{Root: t.TempDir()}
		p := filepath.Join(st.Root, "turns.jsonl")
		if err := os.WriteFile(p, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		n := 0
		stats, err := st.ReadLines(p, KindTurn, max%4096, func(line []byte) error {
			if errs := ValidateBytes(KindTurn, line); len(errs) > 0 {
				t.Fatalf("delivered an invalid line %q: %v", line, errs)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if stats.Lines != n {
			t.Fatalf("stats say %d lines, %d delivered", stats.Lines, n)
		}
	})
}

// FuzzLoadSettings: any config.json and DJINN_ environment give settings
// (the defaults where a value is bad) and messages, never a panic or a
// setting outside what the schema allows from the file.
func FuzzLoadSettings(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"loops":{"window":30},"drift":{"threshold":0.6}}`), "DJINN_LOOPS_BLOCK=true")
	f.Add([]byte(`{"schema_version":1,"loops":{"window":-1},"nope":true}`), "DJINN_PRESSURE_TIERS=0.5,0.3")
	f.Add([]byte(`not json`), "DJINN_STALL_K=abc")
	f.Add([]byte(`[]`), "DJINN_=")
	f.Fuzz(func(t *testing.T, config []byte, env string) {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "config.json"), config, 0o600); err != nil {
			t.Fatal(err)
		}
		s, _ := LoadSettings(root, func(string) string { return "" }, strings.Split(env, "\x00"))
		if s.LockWaitMS < 0 || s.Loops.Window < 0 {
			t.Fatalf("negative setting: %+v", s)
		}
	})
}
