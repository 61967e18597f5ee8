package loops

import (
	"bytes"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// shuffledJSON re-encodes a decoded JSON value with object keys in a random
// order and random whitespace: the same value, spelled differently.
func shuffledJSON(b *bytes.Buffer, v any, r *rand.Rand) {
	space := func() {
		if r.IntN(3) == 0 {
			b.WriteByte(" \n\t"[r.IntN(3)])
		}
	}
	space()
	switch x := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			space()
			b.WriteByte(':')
			shuffledJSON(b, x[k], r)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			shuffledJSON(b, e, r)
		}
		b.WriteByte(']')
	case json.Number:
		b.WriteString(string(x))
	default:
		vb, _ := json.Marshal(x)
		b.Write(vb)
	}
	space()
}

func FuzzCanonicalInput(f *testing.F) {
	for _, s := range []string{
		`{"command":"go test ./...","description":"Run tests","timeout":120000}`,
		`{"file_path":"/p/a.go","offset":100,"limit":50}`,
		`{"b":[1,2.50,{"y":null,"x":true}],"a":"\u00e9\n"}`,
		`{"a":1,"a":2}`,
		`[1e400, -0.0, 12345678901234567890]`,
		`{"a":`,
		`"just a string"`,
		``,
	} {
		f.Add([]byte(s), uint64(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		c := CanonicalInput(data)
		if c != CanonicalInput(data) {
			t.Fatal("not deterministic")
		}
		if h := InputHash(data); len(h) != 16 {
			t.Fatalf("hash %q", h)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil || strings.HasPrefix(c, "!") {
			return
		}
		if !json.Valid([]byte(c)) {
			t.Fatalf("canonical form %q of %q is not JSON", c, data)
		}
		if again := CanonicalInput([]byte(c)); again != c {
			t.Fatalf("not idempotent: %q then %q", c, again)
		}
		var b bytes.Buffer
		shuffledJSON(&b, v, rand.New(rand.NewPCG(seed, 7)))
		if other := CanonicalInput(b.Bytes()); other != c {
			t.Fatalf("key order or spacing changed the canonical form:\n%q -> %q\n%q -> %q", data, c, b.String(), other)
		}
	})
}

// renumber replaces every digit 1–9 by another digit 1–9 (zeros stay, so
// "0x" prefixes survive): only the numbers change.
func renumber(s string, shift byte) string {
	b := []byte(s)
	for i, c := range b {
		if c >= '1' && c <= '9' {
			b[i] = '1' + (c-'1'+shift)%9
		}
	}
	return string(b)
}

func FuzzErrorFingerprint(f *testing.F) {
	for _, s := range []string{
		"Exit code 1\n--- FAIL: TestParse (0.01s)\n    parse_test.go:12: got 3, want 4\nFAIL\tgithub.com/x/y\t0.015s",
		"Exit code 2\nRunning ExUnit with seed: 873002, max_cases: 32\n/tmp/build-81723/test/review_test.exs:41",
		"request 550e8400-e29b-41d4-a716-446655440000 at 2026-04-27T10:11:12.5+02:00 took 1m2.5s",
		`C:\Users\me\a.go: toolu_01AbC failed at 0xdeadbeef (commit a1b2c3d)`,
		"<tool_use_error>File does not exist.</tool_use_error>",
		"4µs 3 files 1 file ~/x/y ./a ../b /",
		"\xff\xfe invalid utf8 \xc3",
		"",
	} {
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, s string, shift uint8) {
		fp := ErrorFingerprint(s)
		if fp != ErrorFingerprint(s) {
			t.Fatal("not deterministic")
		}
		if len(fp) > MaxFingerprint {
			t.Fatalf("length %d > %d: %q", len(fp), MaxFingerprint, fp)
		}
		if !utf8.ValidString(fp) {
			t.Fatalf("invalid UTF-8: %q", fp)
		}
		if fp != strings.TrimSpace(fp) || strings.Contains(fp, "  ") || strings.ContainsAny(fp, "\n\t\r") {
			t.Fatalf("whitespace not collapsed: %q", fp)
		}
		// Which numbers are kept depends on where they stand, never on
		// their digits: renumbering the text renumbers the fingerprint's
		// kept numbers and nothing else (a clipped one's hash aside).
		other := renumber(s, 1+shift%8)
		ofp, want := ErrorFingerprint(other), renumber(fp, 1+shift%8)
		if clipped := len(strings.Join(strings.Fields(normaliseError(strings.ToValidUTF8(s, "\uFFFD"))), " ")) > MaxFingerprint; clipped {
			ofp, want = ofp[:len(ofp)-11], want[:len(want)-11]
		}
		if ofp != want {
			t.Fatalf("numbers changed the fingerprint's shape:\n%q -> %q\n%q -> %q", s, fp, other, ErrorFingerprint(other))
		}
	})
}

func FuzzTargetOf(f *testing.F) {
	for _, tc := range [][2]string{
		{"Read", `{"file_path":"/p/a.go","offset":"100","limit":1e3}`},
		{"Read", `{"file_path":"/p/a.pdf","pages":"1-5"}`},
		{"Bash", `{"command":"  go\ttest  ./... "}`},
		{"Grep", `{"pattern":"x","path":"/p/../q"}`},
		{"NotebookEdit", `{"notebook_path":"/n.ipynb"}`},
		{"mcp__s__t", `{"z":1,"a":[true]}`},
		{"Read", `{"offset":-5,"limit":NaN}`},
	} {
		f.Add(tc[0], []byte(tc[1]))
	}
	f.Fuzz(func(t *testing.T, tool string, input []byte) {
		target, rng := TargetOf(tool, input)
		if t2, r2 := TargetOf(tool, input); t2 != target || r2 != rng {
			t.Fatal("not deterministic")
		}
		if len(target) > MaxTarget {
			t.Fatalf("target of %d bytes", len(target))
		}
		if utf8.Valid(input) && !utf8.ValidString(target) {
			t.Fatalf("invalid UTF-8 target %q from valid input", target)
		}
		if e := NewEvent(tool, input); e.Target != target || e.Range != rng || len(e.Input) != 16 {
			t.Fatalf("NewEvent disagrees: %+v", e)
		}
	})
}

// FuzzRecord feeds arbitrary persisted states (window.json is outside
// input: it may be damaged or hand-edited) and events to Record.
func FuzzRecord(f *testing.F) {
	var s State
	for range 4 {
		s.Record(Event{Tool: "Read", Target: "/a", After: "h0"}, DefaultConfig())
	}
	good, _ := json.Marshal(&s)
	f.Add(good, []byte(`{"tool":"Read","target":"/a","after":"h0"}`))
	f.Add([]byte(`{"n":3,"events":[{"n":90,"tool":"Bash","target":"x","failed":true,"error":"e"}],"patterns":{"fail-loop":{"ema":7,"last":200}}}`), []byte(`{"tool":"Bash","target":"x","failed":true,"error":"e"}`))
	f.Add([]byte(`{"events":[]}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, stateJSON, eventJSON []byte) {
		var s State
		var e Event
		if json.Unmarshal(stateJSON, &s) != nil || json.Unmarshal(eventJSON, &e) != nil {
			return
		}
		if len(s.Events) > 4*MaxWindow {
			return // a state this big is refused by the schema before the engine sees it
		}
		cfg := DefaultConfig()
		before := s.Seq
		for range 3 {
			for _, fd := range s.Record(e, cfg) {
				if fd.Seq != s.Seq || (fd.Severity != Soft && fd.Severity != Hard) || fd.Count < 1 {
					t.Fatalf("bad finding %+v (state n=%d)", fd, s.Seq)
				}
			}
			if len(s.Events) > cfg.Window {
				t.Fatalf("window holds %d events", len(s.Events))
			}
			if s.Seq <= before || s.Events[len(s.Events)-1].Seq != s.Seq {
				t.Fatalf("numbering: state n=%d after %d, last event %d", s.Seq, before, s.Events[len(s.Events)-1].Seq)
			}
			for _, ps := range s.Patterns {
				if !(ps.EMA >= 0 && ps.EMA <= 1) {
					t.Fatalf("EMA %v out of [0, 1]", ps.EMA)
				}
			}
			before = s.Seq
		}
		if _, err := json.Marshal(&s); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzShellKey: any command gives a key without panicking, the same key
// twice, and one that does not grow without bound.
func FuzzShellKey(f *testing.F) {
	for _, s := range []string{
		"cat task.output | tail -10",
		"python -m pytest './tests/a.py' >/dev/null 2>&1",
		"cd /p && tail -n 20 log | head -5 | less",
		"if [ -f x ]; then tail -f x & fi; echo $((1+2)) <<EOF\nbody\nEOF",
		"echo 'unterminated",
		"tail -n",
		"",
		"cat > /etc/x.yml << 'EOF'\na: 1\nEOF",
		"ssh root@h 'cat > /etc/x.yml << \"EOF\"\na: 1\nEOF\n/etc/init.d/x restart'",
		"tee -a f <<-EOF\n\tx\nEOF",
	} {
		f.Add(s, "/p")
	}
	f.Fuzz(func(t *testing.T, cmd, dir string) {
		k1, v1 := ShellKey(cmd, dir)
		k2, v2 := ShellKey(cmd, dir)
		if k1 != k2 || v1 != v2 {
			t.Fatalf("ShellKey(%q) is not stable: %q %d, %q %d", cmd, k1, v1, k2, v2)
		}
		if v1 > ViewHead {
			t.Fatalf("view %d", v1)
		}
		in, err := json.Marshal(map[string]string{"command": cmd})
		if err != nil {
			return
		}
		e, _ := NewEventIn("Bash", in, cmd, "", dir)
		if (e.Wrote == "") != (e.After == "") || len(e.Wrote) > MaxTarget || e.Wrote != "" && !e.Edits {
			t.Fatalf("NewEventIn(%q): wrote %q, after %q, edits %v", cmd, e.Wrote, e.After, e.Edits)
		}
	})
}
