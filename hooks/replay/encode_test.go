package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// marshalMapInput is mapInput as it was, decoding to any and re-encoding
// with json.Marshal: the oracle the one-pass encoder is held to.
func marshalMapInput(r *paths, raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || r.origCwd == "" {
		return raw
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return raw
	}
	v = r.mapValue(v)
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// checkAppendValue holds appendValue to json.Marshal on v.
func checkAppendValue(t *testing.T, v any) {
	t.Helper()
	want, werr := json.Marshal(v)
	got, ok := appendValue(nil, v)
	if ok != (werr == nil) {
		t.Fatalf("appendValue(%#v) ok %v, json.Marshal error %v", v, ok, werr)
	}
	if ok && !bytes.Equal(got, want) {
		t.Fatalf("appendValue(%#v)\n got %s\nwant %s", v, got, want)
	}
}

// TestMapInputMatchesMarshal holds mapInput to json.Marshal on every tool
// input and tool response of the corpus and the repository's transcripts,
// and appendValue to json.Marshal on every whole line.
func TestMapInputMatchesMarshal(t *testing.T) {
	n := 0
	for _, f := range oracleFiles(t) {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var line struct {
				Cwd           string          `json:"cwd"`
				ToolUseResult json.RawMessage `json:"toolUseResult"`
				Message       struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			var whole any
			if json.Unmarshal(sc.Bytes(), &whole) == nil {
				checkAppendValue(t, whole)
			}
			cwd := line.Cwd
			if cwd == "" {
				cwd = "/home/user/project"
			}
			p := &paths{fsRoot: "/tmp/replay-fs", projectDir: "/tmp/replay-fs/project", origCwd: cwd}
			raws := []json.RawMessage{line.ToolUseResult}
			var blocks []struct {
				Input json.RawMessage `json:"input"`
			}
			if json.Unmarshal(line.Message.Content, &blocks) == nil {
				for _, b := range blocks {
					raws = append(raws, b.Input)
				}
			}
			for _, raw := range raws {
				if len(raw) == 0 {
					continue
				}
				n++
				if got, want := p.mapInput(raw), marshalMapInput(p, raw); !bytes.Equal(got, want) {
					t.Fatalf("%s: mapInput(%.200s)\n got %.300s\nwant %.300s", f, raw, got, want)
				}
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		fh.Close()
	}
	t.Logf("%d tool inputs and responses", n)
}

// TestAppendValue holds appendValue to json.Marshal on the escapes, the
// number formats and random trees.
func TestAppendValue(t *testing.T) {
	cases := []struct {
		name string
		v    any
	}{
		{"null", nil},
		{"bools", []any{true, false}},
		{"escapes", "a\"b\\c\b\f\n\r\t\x00\x1f<>&\u2028\u2029\x7f é 🙂"},
		{"bad utf8", "a\xffb\xc3\xe2\x82"},
		{"numbers", []any{0.0, math.Copysign(0, -1), 1.0, -1.5, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, 1e-300, math.MaxFloat64, 5e-324}},
		{"nan", math.NaN()},
		{"inf", []any{math.Inf(1)}},
		{"empty", map[string]any{"a": []any{}, "b": map[string]any{}, "": nil}},
		{"keys", map[string]any{"b": 1.0, "a": 2.0, "B": 3.0, "\xff": 4.0, "<": 5.0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkAppendValue(t, c.v) })
	}
	t.Run("other type", func(t *testing.T) {
		// Unmarshal never gives an int: appendValue leaves it to json.Marshal.
		if _, ok := appendValue(nil, []any{1}); ok {
			t.Fatal("appendValue took an int")
		}
	})
	rng := rand.New(rand.NewPCG(7, 11))
	for range 5000 {
		checkAppendValue(t, randomValue(rng, 4))
	}
}

func randomValue(rng *rand.Rand, depth int) any {
	k := rng.IntN(7)
	if depth == 0 {
		k = rng.IntN(4)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return rng.IntN(2) == 0
	case 2:
		switch rng.IntN(3) {
		case 0:
			return float64(rng.IntN(2000) - 1000)
		case 1:
			return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(60)-30))
		}
		return math.Float64frombits(rng.Uint64())
	case 3:
		return randomString(rng)
	case 4, 5:
		m := map[string]any{}
		for range rng.IntN(5) {
			m[randomString(rng)] = randomValue(rng, depth-1)
		}
		return m
	}
	s := make([]any, rng.IntN(5))
	for i := range s {
		s[i] = randomValue(rng, depth-1)
	}
	return s
}

func randomString(rng *rand.Rand) string {
	const alphabet = "ab/<>&\"\\\n\t\x00\x1f\x7f\xff\xc3é\u2028\u2029🙂 "
	var b strings.Builder
	for range rng.IntN(12) {
		b.WriteByte(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// mapInputEdges are inputs at the edges of JSON and of the one pass.
var mapInputEdges = []string{
	`{"file_path":"/home/u/p/a.go","old_string":"x<y","n":1e21}`, `[1,2.5,-0,1e-7,"\u2028",null,true]`,
	`"\ud800"`, `"\ud83d\ude00\ud83dx\udc00"`, `{"a":{"a":1},"A":2}`, `{"a":1,"a":2,"b":3,"a":4}`, `{"b":1,"a":{"d":1,"c":2}}`,
	`[1,]`, `{"a":1,}`, `{"a" 1}`, `{"a":01}`, `+1`, `1.`, `.5`, `-`, `1e`, `1e+`, `1e400`, `-1e400`, `1e-400`, `"\'"`, "\"a\x01\"",
	"\"a\xffb\"", `"\x"`, `"\u12"`, `"\u12g4"`, `tru`, `truex`, `nul`, ` {} `, `{}x`, `[] []`, ``, ` `, `"unterminated`, `"\`,
	`"/home/u/p"`, `"/home/u/p/x y"`, `"see /home/u/p/a and /home/u/p/b"`, `"rel/path"`, `["/a","/b\n"]`,
	strings.Repeat("[", 1001) + strings.Repeat("]", 1001), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 1001) + "1" + strings.Repeat("}", 1001),
	// appendLiteral's edges: what it copies, what it rewrites, what it
	// leaves to the long way.
	`"a\/b\"c\\d\n\r\t\b\f"`, `"<a href=\"x\">&amp;</a>"`, "\"x\u2028y\u2029z\"", "\"\xe2\x80\xa8\"", `"\u003c\u00e9"`,
	"\"caf\xc3\xa9 \xef\xbf\xbd\"", "\"\xed\xa0\x80\"", "\"\xc3\"", `"/"`, `"\/home/u/p"`, `"x/home/u/p"`, `"/home/u/px"`,
	`"\n/home/u/p"`, `"12345678<12345678&12345678>"`, `"1234567\"`, `"12345678"`, `"1234567"`, "\"1234567\x7f\"", `{"k<":"v>"}`,
}

// TestMapInputLiterals holds mapInput to the round trip on strings built
// from the bytes appendLiteral treats apart, with working directories
// that a literal spells as they are and ones it must escape.
func TestMapInputLiterals(t *testing.T) {
	pieces := []string{"a", "/", " ", "<", ">", "&", "=", "?", `\"`, `\\`, `\/`, `\n`, `\t`, `\b`, `\f`, `\r`, `\u0041`, `\u2028`,
		"\u2028", "\u2029", "é", "\xff", "\x7f", "\x01", "12345678", "/home/u/p", "n/home", `p\"q`, "😀"}
	cwds := []string{"/home/u/p", "n/home", `p"q`, `p\q`, "/home/u/p\n", "&"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, cwd := range cwds {
		p := &paths{fsRoot: "/tmp/replay-fs", projectDir: "/tmp/replay-fs/project", origCwd: cwd}
		for range 3000 {
			var b strings.Builder
			b.WriteByte('"')
			for range rng.IntN(12) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			b.WriteByte('"')
			for _, raw := range []string{b.String(), "[" + b.String() + "]", `{"k":` + b.String() + "}"} {
				if got, want := p.mapInput(json.RawMessage(raw)), marshalMapInput(p, json.RawMessage(raw)); !bytes.Equal(got, want) {
					t.Fatalf("cwd %q: mapInput(%q)\n got %q\nwant %q", cwd, raw, got, want)
				}
			}
		}
	}
}

// TestMapInputEdges holds mapInput to the round trip on mapInputEdges.
func TestMapInputEdges(t *testing.T) {
	p := &paths{fsRoot: "/tmp/replay-fs", projectDir: "/tmp/replay-fs/project", origCwd: "/home/u/p"}
	for _, s := range mapInputEdges {
		t.Run(s[:min(len(s), 30)], func(t *testing.T) {
			raw := json.RawMessage(s)
			if got, want := p.mapInput(raw), marshalMapInput(p, raw); !bytes.Equal(got, want) {
				t.Fatalf("mapInput(%.100q)\n got %.200s\nwant %.200s", s, got, want)
			}
		})
	}
}

// FuzzAppendValue holds mapInput to the json.Marshal re-encoding on any
// input bytes.
func FuzzAppendValue(f *testing.F) {
	for _, s := range mapInputEdges {
		f.Add(s)
	}
	p := &paths{fsRoot: "/tmp/replay-fs", projectDir: "/tmp/replay-fs/project", origCwd: "/home/u/p"}
	f.Fuzz(func(t *testing.T, s string) {
		raw := json.RawMessage(s)
		if got, want := p.mapInput(raw), marshalMapInput(p, raw); !bytes.Equal(got, want) {
			t.Fatalf("mapInput(%q)\n got %s\nwant %s", s, got, want)
		}
	})
}

// FuzzMapInputCwd holds mapInput to the round trip on any input and any
// original working directory.
func FuzzMapInputCwd(f *testing.F) {
	for _, s := range mapInputEdges {
		f.Add("/home/u/p", s)
	}
	f.Add(`p"q`, `"p\"q"`)
	f.Add("n/home", `"\n/home"`)
	f.Fuzz(func(t *testing.T, cwd, s string) {
		if cwd == "" {
			return // mapInput maps nothing then: nothing to compare
		}
		p := &paths{fsRoot: "/tmp/replay-fs", projectDir: "/tmp/replay-fs/project", origCwd: cwd}
		raw := json.RawMessage(s)
		if got, want := p.mapInput(raw), marshalMapInput(p, raw); !bytes.Equal(got, want) {
			t.Fatalf("cwd %q: mapInput(%q)\n got %s\nwant %s", cwd, s, got, want)
		}
	})
}

// BenchmarkMapInputCorpus maps every corpus tool response, with the
// encoder and with json.Marshal.
func BenchmarkMapInputCorpus(b *testing.B) {
	var raws []json.RawMessage
	for _, f := range corpus(b) {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for l := range bytes.SplitSeq(data, []byte("\n")) {
			var line struct {
				ToolUseResult json.RawMessage `json:"toolUseResult"`
			}
			if json.Unmarshal(l, &line) == nil && len(line.ToolUseResult) > 0 {
				raws = append(raws, line.ToolUseResult)
			}
		}
	}
	p := &paths{fsRoot: "/tmp/replay-fs", projectDir: "/tmp/replay-fs/project", origCwd: "/home/u/p"}
	for _, c := range []struct {
		name string
		f    func(*paths, json.RawMessage) json.RawMessage
	}{{"encoder", (*paths).mapInput}, {"marshal", marshalMapInput}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, raw := range raws {
					c.f(p, raw)
				}
			}
		})
	}
}
