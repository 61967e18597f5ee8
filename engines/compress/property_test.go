package compress

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The oracle below checks clean with regular expressions and string
// searches, independently of the scanner: every marker must stand for a
// stretch of the input that its rule allows cutting, with the count it
// claims, and nothing the rules cut may be left in the output.

var (
	reMarker  = regexp.MustCompile(`\[djinn: cut ([0-9,]+) characters of (?:base64 data|base64 ([^ \]]+) data|an HTML (script|style) block)\]`)
	reDataURI = regexp.MustCompile(`(?i)data:[!#$&^_.+\-/;=a-z0-9]{0,256},[A-Za-z0-9+/=]+`)
	reRun     = regexp.MustCompile(`[A-Za-z0-9+/=_-]+`)
)

func atoiGrouped(t *testing.T, s string) int {
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	if err != nil {
		t.Fatalf("marker count %q: %v", s, err)
	}
	return n
}

// dataURIOK reports whether u (a whole reDataURI match) is a data URI the
// rules cut: base64, with a media type, and longer than its marker.
func dataURIOK(u string) (mime string, ok bool) {
	header, _, _ := strings.Cut(u[len("data:"):], ",")
	if !strings.HasSuffix(strings.ToLower(header), ";base64") {
		return "", false
	}
	mime, _, _ = strings.Cut(header, ";")
	if !strings.Contains(mime, "/") {
		return "", false
	}
	mime = strings.ToLower(mime)
	return mime, len(markerDataURI(len(u), mime)) < len(u)
}

func runOK(s string, min int) bool {
	return len(s) >= min && strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") &&
		strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") && strings.ContainsAny(s, "0123456789")
}

// blockAt returns the end of the complete block of kind k starting at s[i],
// found by lower-casing the whole rest of s.
func blockAt(s string, i int, k string) int {
	low := asciiLower(s[i:])
	if !strings.HasPrefix(low, "<"+k) || len(low) <= len(k)+1 || !strings.ContainsAny(low[len(k)+1:len(k)+2], " \t\n\r\f>/") {
		return -1
	}
	c := strings.Index(low[len(k)+1:], "</"+k)
	if c < 0 {
		return -1
	}
	c += len(k) + 1
	gt := strings.IndexByte(low[c:], '>')
	if gt < 0 {
		return -1
	}
	return i + c + gt + 1
}

func checkClean(t *testing.T, in, out string, rep Report, cfg Config) {
	t.Helper()
	low := asciiLower(in)
	html := strings.Contains(low, "<html") || strings.Contains(low, "<body") || strings.Contains(low, "<!doctype")
	// Soundness: walk the markers, matching the text between them.
	pos := 0 // in in
	last := 0
	sums := map[Kind]int{}
	for _, m := range reMarker.FindAllStringSubmatchIndex(out, -1) {
		lit := out[last:m[0]]
		if !strings.HasPrefix(in[pos:], lit) {
			t.Fatalf("text before marker %q is not the input's %.60q", out[m[0]:m[1]], in[pos:])
		}
		pos += len(lit)
		n := atoiGrouped(t, out[m[2]:m[3]])
		var gap string
		switch {
		case m[6] >= 0: // block
			k := out[m[6]:m[7]]
			end := pos
			for range n {
				_, size := utf8.DecodeRuneInString(in[end:])
				end += size
			}
			gap = in[pos:end]
			if !html || blockAt(in, pos, k) != end || len(markerBlock(n, Kind(k))) >= n {
				t.Fatalf("cut %.80q is not a complete %s block worth cutting", gap, k)
			}
			sums[Kind(k)] += n
		case m[4] >= 0: // data URI
			gap = in[pos:min(pos+n, len(in))]
			if loc := reDataURI.FindStringIndex(gap); loc == nil || loc[0] != 0 || loc[1] != len(gap) {
				t.Fatalf("cut %.80q is not a data URI", gap)
			}
			if mime, ok := dataURIOK(gap); !ok || mime != out[m[4]:m[5]] {
				t.Fatalf("cut %.80q: not worth cutting or wrong type %q", gap, out[m[4]:m[5]])
			}
			if end := pos + n; end < len(in) && strings.ContainsRune("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", rune(in[end])) {
				t.Fatalf("data URI cut short before %q", in[end])
			}
			sums[KindDataURI] += n
		default: // bare run
			gap = in[pos:min(pos+n, len(in))]
			if !reRun.MatchString(gap) || reRun.FindString(gap) != gap || !runOK(gap, cfg.Base64Min) {
				t.Fatalf("cut %.80q is not a base64 run", gap)
			}
			if end := pos + n; end < len(in) && b64[in[end]] && !hasPrefixFold(in, end, "data:") &&
				!(html && in[end] == '<') {
				t.Fatalf("run cut short before %q", in[end])
			}
			sums[KindBase64] += n
		}
		pos += len(gap)
		last = m[1]
	}
	if in[pos:] != out[last:] {
		t.Fatalf("text after the last marker differs: %.60q vs %.60q", in[pos:], out[last:])
	}
	for _, c := range rep.Cuts {
		if sums[c.Kind] != c.Chars {
			t.Errorf("report says %s cut %d, markers say %d", c.Kind, c.Chars, sums[c.Kind])
		}
	}
	// Completeness: nothing the rules cut is left.
	for _, u := range reDataURI.FindAllString(out, -1) {
		if _, ok := dataURIOK(u); ok {
			t.Fatalf("data URI left in output: %.80q", u)
		}
	}
	for _, r := range reRun.FindAllString(out, -1) {
		if runOK(r, cfg.Base64Min) {
			t.Fatalf("base64 run left in output: %.80q", r)
		}
	}
	if html {
		// Blocks are atomic: a kept (short) block is skipped whole.
	scan:
		for i := 0; i < len(out); i++ {
			if out[i] != '<' {
				continue
			}
			for _, k := range []string{"script", "style"} {
				if end := blockAt(out, i, k); end > 0 {
					if chars := utf8.RuneCountInString(out[i:end]); len(markerBlock(chars, Kind(k))) < chars {
						t.Fatalf("%s block left in output: %.80q", k, out[i:end])
					}
					i = end - 1
					continue scan
				}
			}
		}
	}
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// genText builds text from pieces the rules care about.
func genText(r *rand.Rand, pieces int) string {
	atoms := []string{
		" ", "\n", "word", "é", "漢字", "<", ">", "{", "}", "ref=", "<html>", "<BODY>",
		"<script>", "</script>", "<Script type=x>", "</SCRIPT >", "<style>", "</style>", "<scripts>",
		"data:image/png;base64,", "DATA:text/plain;charset=utf-8;base64,", "data:;base64,", "data:",
		";base64,", "=", "==", "+", "/", "-", "_",
	}
	var b strings.Builder
	for range pieces {
		switch r.IntN(4) {
		case 0:
			b.WriteString(randBase64(r, r.IntN(300)))
		case 1:
			b.WriteString(strings.Repeat(string(rune('a'+r.IntN(3))), r.IntN(200)))
		default:
			b.WriteString(atoms[r.IntN(len(atoms))])
		}
	}
	return b.String()
}

func TestCleanAgainstOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	cfg := DefaultConfig()
	cfg.Base64Min = 100
	for i := range 3000 {
		in := genText(r, 1+r.IntN(60))
		var rep Report
		out := clean(in, cfg, &rep)
		checkClean(t, in, out, rep, cfg)
		if t.Failed() {
			t.Fatalf("case %d: input %q", i, in)
		}
	}
}

func TestCompressProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 2000 {
		cfg := DefaultConfig()
		cfg.Cap = MinCap + r.IntN(8000)
		cfg.SnapshotThreshold = 1000 + r.IntN(6000)
		cfg.SnapshotDesired = min(cfg.SnapshotThreshold, 1000+r.IntN(5000))
		cfg.HeadMin = r.IntN(1000)
		cfg.HeadMax = cfg.HeadMin + r.IntN(5000)
		cfg.TailMax = r.IntN(3000)
		cfg.HeadShare = 0.1 + 0.9*r.Float64()
		cfg.Base64Min = 100 + r.IntN(500)
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		in := genText(r, 1+r.IntN(200))
		if r.IntN(3) == 0 {
			in = "page snapshot\n" + in
		}
		out, rep := Compress(in, cfg)
		n := utf8.RuneCountInString(in)
		switch {
		case out == in:
			if rep.Changed {
				t.Fatalf("case %d: unchanged output reported changed", i)
			}
		case utf8.RuneCountInString(out) > cfg.Cap:
			t.Fatalf("case %d: %d characters out, cap %d", i, utf8.RuneCountInString(out), cfg.Cap)
		case n <= cfg.Cap && n <= cfg.SnapshotThreshold:
			t.Fatalf("case %d: text under both limits changed", i)
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("case %d: invalid UTF-8 out", i)
		}
		if rep.After != utf8.RuneCountInString(out) || rep.Before != n {
			t.Fatalf("case %d: report sizes %d→%d, want %d→%d", i, rep.Before, rep.After, n, utf8.RuneCountInString(out))
		}
		if again, rep2 := Compress(out, cfg); again != out || rep2.Changed {
			t.Fatalf("case %d: second pass changed the output: %v", i, rep2)
		}
		// A truncated output starts with the cleaned text.
		if k, marker, ok := strings.Cut(out, "[djinn: cut "); ok && strings.Contains(marker, "characters at the end") &&
			!strings.HasPrefix(out, "[djinn: page snapshot") {
			var crep Report
			cleaned := clean(in, cfg, &crep)
			if k != "" && !strings.HasPrefix(cleaned, strings.TrimSuffix(k, "\n")) {
				t.Fatalf("case %d: truncated output is not a prefix of the cleaned text", i)
			}
		}
	}
}
