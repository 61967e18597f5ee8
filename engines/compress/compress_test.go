package compress

import (
	"encoding/base64"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/internal/thousands"
)

func runes(s string) int { return utf8.RuneCountInString(s) }

// randBase64 returns n characters of base64 of random bytes.
func randBase64(r *rand.Rand, n int) string {
	raw := make([]byte, n)
	for i := range raw {
		raw[i] = byte(r.UintN(256))
	}
	return base64.StdEncoding.EncodeToString(raw)[:n]
}

func TestSeedTruncation(t *testing.T) {
	// Seed case: 250,000 characters → the cap and a marker. Worked by
	// hand: the marker reserved is the longest it can be, plus a line break.
	in := strings.Repeat("a", 250_000)
	reserved := "\n[djinn: cut 250,000 characters at the end (over the 200,000-character cap)]"
	keep := 200_000 - len(reserved)
	want := strings.Repeat("a", keep) + "\n[djinn: cut " + thousands.Group(250_000-keep) +
		" characters at the end (over the 200,000-character cap)]"
	out, rep := Compress(in, DefaultConfig())
	if out != want {
		t.Fatalf("output: got %d chars ending %q, want %d ending %q", len(out), out[len(out)-90:], len(want), want[len(want)-90:])
	}
	if runes(out) > 200_000 {
		t.Errorf("output has %d characters, over the cap", runes(out))
	}
	if !rep.Changed || len(rep.Cuts) != 1 || rep.Cuts[0] != (Cut{KindTruncate, 1, 250_000 - keep}) {
		t.Errorf("report: %+v", rep)
	}
	if rep.Before != 250_000 || rep.After != runes(out) {
		t.Errorf("report sizes: %+v", rep)
	}
}

func TestSeedHTMLWithBase64Image(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	img := randBase64(r, 240_000)
	script := "<script type=\"text/javascript\">" + strings.Repeat("var x = 1;\n", 500) + "</script>"
	style := "<STYLE>" + strings.Repeat("p { color: red }\n", 300) + "</style >"
	in := "<!DOCTYPE html>\n<html><head>" + style + "</head>\n<body>\n<p>Hello, wörld</p>\n" +
		`<img src="data:image/png;base64,` + img + `" alt="x">` + "\n" + script + "\n</body></html>\n"
	out, rep := Compress(in, DefaultConfig())
	want := "<!DOCTYPE html>\n<html><head>" +
		"[djinn: cut " + thousands.Group(runes(style)) + " characters of an HTML style block]" +
		"</head>\n<body>\n<p>Hello, wörld</p>\n" +
		`<img src="[djinn: cut ` + thousands.Group(len("data:image/png;base64,")+len(img)) + ` characters of base64 image/png data]" alt="x">` + "\n" +
		"[djinn: cut " + thousands.Group(runes(script)) + " characters of an HTML script block]" +
		"\n</body></html>\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	if len(rep.Cuts) != 3 || rep.Cuts[0].Kind != KindStyle || rep.Cuts[1].Kind != KindDataURI || rep.Cuts[2].Kind != KindScript {
		t.Errorf("report: %+v", rep)
	}
	// The same page under the cap is left alone: Djinn compresses only
	// oversized output (a Read of a page being edited must stay whole).
	small := strings.Replace(in, img, img[:1000], 1)
	if out, rep := Compress(small, DefaultConfig()); out != small || rep.Changed {
		t.Errorf("page under the cap changed: %v", rep)
	}
}

func TestSeedPageSnapshot(t *testing.T) {
	// A 30,000-character snapshot with no '<', '{' or line break, so the
	// safe boundary is the exact count; 'é' checks that counts are runes.
	unit := "- button \"Sé\" [ref=e1] "
	body := "page snapshot: " + strings.Repeat(unit, 30_000)
	in := string([]rune(body)[:30_000])
	cfg := DefaultConfig()
	out, rep := Compress(in, cfg)

	header := "[djinn: page snapshot of 30,000 characters shortened to its head and tail]"
	desired := 16_000
	budget := desired - (len(header) + 200)
	head := int(math.Floor(0.7 * float64(budget)))
	head = min(max(head, 500), 10_000)
	tail := min(budget-head, 3_000)
	rs := []rune(in)
	want := header + "\n" + string(rs[:head]) + "\n" +
		"[djinn: cut " + thousands.Group(30_000-head-tail) + " characters from the middle of the page snapshot]\n" +
		string(rs[30_000-tail:])
	if out != want {
		t.Fatalf("got %d chars, want %d (head %d, tail %d)", runes(out), runes(want), head, tail)
	}
	if rep.Cuts[0] != (Cut{KindSnapshot, 1, 30_000 - head - tail}) {
		t.Errorf("report: %+v", rep)
	}
	if runes(out) > desired {
		t.Errorf("snapshot output %d characters, over desired %d", runes(out), desired)
	}
}

func TestSnapshotDetection(t *testing.T) {
	filler := strings.Repeat("lorem ipsum ", 2_000) // 24,000 characters
	tests := []struct {
		name string
		in   string
		snap bool
	}{
		{"plain text over the threshold", filler, false},
		{"Page Snapshot heading", "### Page Snapshot\n" + filler, true},
		{"PAGE SNAPSHOT any case", filler + "PAGE SNAPSHOT", true},
		{"chinese", "页面快照\n" + filler, true},
		{"31 ref=", filler + strings.Repeat("[ref=e1]", 31), true},
		{"30 ref= is not enough", filler + strings.Repeat("[ref=e1]", 30), false},
		{"under the threshold", "page snapshot " + strings.Repeat("x", 19_000), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, rep := Compress(tc.in, DefaultConfig())
			got := rep.Changed
			if got != tc.snap {
				t.Fatalf("changed = %v, want %v (%v)", got, tc.snap, rep)
			}
			if tc.snap && !strings.HasPrefix(out, "[djinn: page snapshot of ") {
				t.Errorf("no header: %.80q", out)
			}
		})
	}
}

func TestCleaningRules(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	b64 := randBase64(r, 5_000)
	svg := "data:image/svg+xml;charset=utf-8;base64," + b64[:200]
	script := "<SCRIPT src=x>" + strings.Repeat("é", 200) + "</Script>"
	tests := []struct {
		name string
		in   string
		want string
		cuts []Cut
	}{
		{"bare base64 run", "x " + b64 + " y",
			"x [djinn: cut 5,000 characters of base64 data] y", []Cut{{KindBase64, 1, 5_000}}},
		{"base64 run of 999 is kept", "x " + b64[:999] + " y", "x " + b64[:999] + " y", nil},
		{"run of one letter is kept", "x " + strings.Repeat("A", 5_000) + " y", "x " + strings.Repeat("A", 5_000) + " y", nil},
		{"data URI with parameters", "url(" + svg + ")",
			"url([djinn: cut " + thousands.Group(len(svg)) + " characters of base64 image/svg+xml data])", []Cut{{KindDataURI, 1, len(svg)}}},
		{"upper-case data URI", "DATA:IMAGE/PNG;BASE64," + b64[:500],
			"[djinn: cut 522 characters of base64 image/png data]", []Cut{{KindDataURI, 1, 522}}},
		{"short data URI is kept", "src=data:image/gif;base64,R0lGOD==", "src=data:image/gif;base64,R0lGOD==", nil},
		{"data URI without base64 is kept", "data:text/plain," + b64[:200], "data:text/plain," + b64[:200], nil},
		{"data URI without a media type is kept", "data:;base64," + b64[:200], "data:;base64," + b64[:200], nil},
		{"script outside HTML is kept", "<script>" + strings.Repeat("x", 200) + "</script>",
			"<script>" + strings.Repeat("x", 200) + "</script>", nil},
		{"script in HTML", "<html>" + script,
			"<html>[djinn: cut " + thousands.Group(runes(script)) + " characters of an HTML script block]", []Cut{{KindScript, 1, runes(script)}}},
		{"two scripts", "<body>" + script + "mid" + script,
			"<body>[djinn: cut " + thousands.Group(runes(script)) + " characters of an HTML script block]mid" +
				"[djinn: cut " + thousands.Group(runes(script)) + " characters of an HTML script block]", []Cut{{KindScript, 2, 2 * runes(script)}}},
		{"unclosed script is kept", "<html><script>" + strings.Repeat("x", 200),
			"<html><script>" + strings.Repeat("x", 200), nil},
		{"scripts tag is not script", "<html><scripts>" + strings.Repeat("x", 200) + "</scripts>",
			"<html><scripts>" + strings.Repeat("x", 200) + "</scripts>", nil},
		{"short style block is kept", "<body><style>p{}</style>", "<body><style>p{}</style>", nil},
		{"base64 inside a script goes with it", "<html><script>var a='" + b64 + "'</script>",
			"<html>[djinn: cut 5,025 characters of an HTML script block]", []Cut{{KindScript, 1, 5_025}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rep Report
			out := clean(tc.in, DefaultConfig(), &rep)
			if out != tc.want {
				t.Fatalf("got %.300q\nwant %.300q", out, tc.want)
			}
			if len(rep.Cuts) != len(tc.cuts) {
				t.Fatalf("cuts %+v, want %+v", rep.Cuts, tc.cuts)
			}
			for i := range tc.cuts {
				if rep.Cuts[i] != tc.cuts[i] {
					t.Errorf("cut %d: %+v, want %+v", i, rep.Cuts[i], tc.cuts[i])
				}
			}
		})
	}
}

func TestSafeBoundary(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Cap = 1_000
	long := func(n int) string { return strings.Repeat("x", n) }
	// keep is where a cut would fall with no adjustment.
	keep := 1_000 - len("\n[djinn: cut 2,000 characters at the end (over the 1,000-character cap)]")
	tests := []struct {
		name string
		in   string
		kept string
	}{
		{"plain", long(2_000), long(keep)},
		{"open tag near the cut", long(keep-10) + "<a href=x" + long(2_000), long(keep - 10)},
		{"closed tag near the cut", long(keep-10) + "<a>" + long(2_000), long(keep-10) + "<a>" + long(7)},
		{"open tag too far back", long(keep-150) + "<a " + long(2_000), long(keep-150) + "<a " + long(147)},
		{"open brace near the cut", long(keep-20) + "{\"k\":" + long(2_000), long(keep - 20)},
		{"line break near the cut", long(keep-50) + "\n" + long(2_000), long(keep-50) + "\n"},
		{"line break before an open tag", long(keep-60) + "\n" + long(10) + "<b " + long(2_000), long(keep-60) + "\n"},
		{"multi-byte characters", strings.Repeat("漢", 2_000), strings.Repeat("漢", keep)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := Compress(tc.in, cfg)
			kept, marker, ok := strings.Cut(out, "[djinn: cut ")
			if !ok {
				t.Fatalf("no marker in %q", out)
			}
			kept = strings.TrimSuffix(kept, "\n")
			if strings.HasSuffix(tc.kept, "\n") {
				kept += "\n"
			}
			if kept != tc.kept {
				t.Errorf("kept %d characters ending %q, want %d ending %q", runes(kept), tail(kept), runes(tc.kept), tail(tc.kept))
			}
			wantCut := thousands.Group(runes(tc.in) - runes(tc.kept))
			if !strings.HasPrefix(marker, wantCut+" characters at the end") {
				t.Errorf("marker %q, want %s characters", marker, wantCut)
			}
			if runes(out) > cfg.Cap || !utf8.ValidString(out) {
				t.Errorf("output of %d characters (valid %v)", runes(out), utf8.ValidString(out))
			}
		})
	}
}

func tail(s string) string {
	r := []rune(s)
	return string(r[max(0, len(r)-12):])
}

func TestUnchanged(t *testing.T) {
	for _, in := range []string{"", "hello", strings.Repeat("é", 200_000), "\xff\xfe not utf-8"} {
		out, rep := Compress(in, DefaultConfig())
		if out != in || rep.Changed || len(rep.Cuts) != 0 {
			t.Errorf("%.20q changed: %v", in, rep)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	tests := []struct {
		key  string
		edit func(*Config)
	}{
		{"cap", func(c *Config) { c.Cap = 999 }},
		{"snapshot_threshold", func(c *Config) { c.SnapshotThreshold = 0; c.SnapshotDesired = 0 }},
		{"snapshot_desired", func(c *Config) { c.SnapshotDesired = 30_000 }},
		{"head_share", func(c *Config) { c.HeadShare = 1.5 }},
		{"head_share", func(c *Config) { c.HeadShare = math.NaN() }},
		{"head_min", func(c *Config) { c.HeadMin = -1 }},
		{"head_max", func(c *Config) { c.HeadMax = 100 }},
		{"tail_max", func(c *Config) { c.TailMax = -1 }},
		{"base64_min", func(c *Config) { c.Base64Min = 10 }},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.key+" is") {
				t.Fatalf("error %v does not name %s", err, tc.key)
			}
			// Compress copes with the bad value all the same.
			s := c.sanitized()
			if err := s.Validate(); err != nil {
				t.Errorf("sanitized config still invalid: %v", err)
			}
		})
	}
}

func TestReportString(t *testing.T) {
	_, rep := Compress(strings.Repeat("a", 250_000), DefaultConfig())
	if s := rep.String(); !strings.Contains(s, "250,000 → ") || !strings.Contains(s, ": truncated ") {
		t.Errorf("String() = %q", s)
	}
	if s := (Report{}).String(); s != "unchanged" {
		t.Errorf("String() = %q", s)
	}
}
