package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad: any config.json and DJINN_ environment give settings
// (the defaults where a value is bad) and messages, never a panic or a
// setting outside what the schema allows, from any source.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"loops":{"window":30},"drift":{"threshold":0.6}}`), "DJINN_LOOPS_BLOCK=true")
	f.Add([]byte(`{"schema_version":1,"loops":{"window":-1},"nope":true}`), "DJINN_PRESSURE_TIERS=0.5,0.3")
	f.Add([]byte(`not json`), "DJINN_STALL_K=abc")
	f.Add([]byte(`[]`), "DJINN_=")
	f.Fuzz(func(t *testing.T, config []byte, env string) {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "config.json"), config, 0o600); err != nil {
			t.Fatal(err)
		}
		s, _ := Load(root, func(string) string { return "" }, strings.Split(env, "\x00"))
		if err := s.Validate(); err != nil {
			t.Fatalf("config %q and environment %q gave settings out of bounds: %v", config, env, err)
		}
		// From the file alone, every setting is within the schema's bounds.
		s, _ = Load(root, func(string) string { return "" }, nil)
		if err := s.Validate(); err != nil {
			t.Fatalf("config %q gave settings out of bounds: %v", config, err)
		}
	})
}
