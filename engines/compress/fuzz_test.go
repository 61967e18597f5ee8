package compress

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func fuzzConfig(capExtra, threshold uint16) Config {
	cfg := DefaultConfig()
	cfg.Cap = MinCap + int(capExtra%4000)
	cfg.SnapshotThreshold = 1 + int(threshold%5000)
	cfg.SnapshotDesired = min(cfg.SnapshotDesired, cfg.SnapshotThreshold)
	cfg.Base64Min = 100
	return cfg
}

func FuzzCompress(f *testing.F) {
	f.Add("hello", uint16(0), uint16(1000))
	f.Add(strings.Repeat("a", 3000), uint16(0), uint16(4000))
	f.Add("<html><script>"+strings.Repeat("x", 2000)+"</script>", uint16(0), uint16(4000))
	f.Add("page snapshot\n"+strings.Repeat("- a [ref=e1]\n", 300), uint16(2000), uint16(1000))
	f.Add("data:image/png;base64,"+strings.Repeat("QUJD", 400), uint16(100), uint16(3000))
	f.Add(strings.Repeat("漢{<", 900), uint16(0), uint16(4999))
	f.Add("\xff\xfe\xe2\x82"+strings.Repeat("\xe2\x82\xac", 1200), uint16(5), uint16(10))
	f.Fuzz(func(t *testing.T, in string, capExtra, threshold uint16) {
		cfg := fuzzConfig(capExtra, threshold)
		out, rep := Compress(in, cfg)
		n := utf8.RuneCountInString(out)
		if out != in && n > cfg.Cap {
			t.Fatalf("%d characters out, cap %d", n, cfg.Cap)
		}
		if out == in && rep.Changed {
			t.Fatal("unchanged output reported changed")
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatal("invalid UTF-8 out of valid UTF-8 in")
		}
		if again, rep2 := Compress(out, cfg); again != out {
			t.Fatalf("second pass changed the output: %v", rep2)
		}
		var crep Report
		checkClean(t, in, clean(in, cfg, &crep), crep, cfg)
	})
}

func FuzzCompressToolResponse(f *testing.F) {
	f.Add("Bash", []byte(`{"stdout":"hi","stderr":"","interrupted":false}`), uint16(0))
	f.Add("mcp__x__y", []byte(`[{"type":"text","text":"page snapshot [ref=e1]"},{"type":"image","data":"QUJD"}]`), uint16(0))
	f.Add("Frobnicate", []byte(`{"a":["x","y",{"b":"z"}],"n":1.5e300}`), uint16(0))
	f.Add("Read", []byte(`{"type":"text","file":{"content":"`+strings.Repeat("line\\n", 400)+`"}}`), uint16(0))
	f.Add("Bash", []byte(`"`+strings.Repeat("Zm9v", 600)+`"`), uint16(0))
	f.Fuzz(func(t *testing.T, tool string, js []byte, capExtra uint16) {
		var in any
		if err := json.Unmarshal(js, &in); err != nil {
			return
		}
		cfg := fuzzConfig(capExtra, 4000)
		before, err := json.Marshal(in)
		if err != nil {
			return
		}
		out, rep := CompressToolResponse(tool, in, cfg)
		after, _ := json.Marshal(in)
		if string(before) != string(after) {
			t.Fatal("input was modified")
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("output does not encode: %v", err)
		}
		assertSameShape(t, in, out)
		total, longest := 0, 0
		for _, p := range rep.Fields {
			n := utf8.RuneCountInString(lookup(out, p).(string))
			total += n
			longest = max(longest, n)
		}
		// Fields share the cap but none is cut below MinCap.
		if total > cfg.Cap && longest > MinCap {
			t.Fatalf("%d characters in %d changed fields, cap %d", total, len(rep.Fields), cfg.Cap)
		}
		if rep.Changed {
			if _, rep2 := CompressToolResponse(tool, out, cfg); rep2.Changed {
				t.Fatalf("second pass changed %v", rep2.Fields)
			}
		}
	})
}
