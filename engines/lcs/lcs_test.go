package lcs

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// dpLength is the oracle: the textbook O(mn) dynamic programme, sharing no
// code with Hunt–Szymanski.
func dpLength[T comparable](a, b []T) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkMatch verifies that (aIdx, bIdx) is a common subsequence of a and b.
func checkMatch[T comparable](a, b []T, aIdx, bIdx []int) error {
	if len(aIdx) != len(bIdx) {
		return fmt.Errorf("index lists differ in length: %d vs %d", len(aIdx), len(bIdx))
	}
	for t := range aIdx {
		i, j := aIdx[t], bIdx[t]
		if i < 0 || i >= len(a) || j < 0 || j >= len(b) {
			return fmt.Errorf("pair %d (%d,%d) out of range", t, i, j)
		}
		if t > 0 && (i <= aIdx[t-1] || j <= bIdx[t-1]) {
			return fmt.Errorf("pair %d (%d,%d) not increasing after (%d,%d)", t, i, j, aIdx[t-1], bIdx[t-1])
		}
		if a[i] != b[j] {
			return fmt.Errorf("pair %d: a[%d]=%v != b[%d]=%v", t, i, a[i], j, b[j])
		}
	}
	return nil
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"original test", "The Quick Brown Fox", []string{"quick", "brown", "fox"}},
		{"empty", "", nil},
		{"only punctuation", " -- !!! ... ", nil},
		{"all 14 stopwords", "A an THE and or of to in on for with is Are be", nil},
		{"stopword inside word kept", "theory android island", []string{"theory", "android", "island"}},
		{"underscore and digits", "snake_case foo-bar v2 x86_64 3.14", []string{"snake_case", "foo", "bar", "v2", "x86_64", "3", "14"}},
		{"accents", "Naïve CAFÉ déjà-vu", []string{"naïve", "café", "déjà", "vu"}},
		{"combining mark kept in word", "cafe\u0301 ok", []string{"cafe\u0301", "ok"}},
		{"cjk is one word", "日本語のテキスト です", []string{"日本語のテキスト", "です"}},
		{"other numbers", "x² ½ Ⅻ", []string{"x²", "½", "ⅻ"}},
		{"greek and cyrillic", "ΑΒΓ Привет", []string{"αβγ", "привет"}},
		{"emoji separates", "fix🔥bug", []string{"fix", "bug"}},
		{"invalid utf8 separates", "ab\xffcd", []string{"ab", "cd"}},
		{"markdown and code", "Run `go test ./...` in **engines/lcs**", []string{"run", "go", "test", "engines", "lcs"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Normalize(tc.in)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// normalizeOracle tokenizes with the regexp engine and a separate stopword
// set: an implementation independent of Normalize's hand-written scanner.
var wordRE = regexp.MustCompile(`[\p{L}\p{N}\p{M}_]+`)

func normalizeOracle(text string) []string {
	stop := map[string]bool{}
	for _, w := range strings.Fields("a an the and or of to in on for with is are be") {
		stop[w] = true
	}
	var out []string
	for _, w := range wordRE.FindAllString(strings.ToLower(text), -1) {
		if !stop[w] {
			out = append(out, w)
		}
	}
	return out
}

func TestNormalizeMatchesRegexp(t *testing.T) {
	palette := []rune("aZ_09 -.,\n\t\u0301éÉßİΣ日本²½\u200b🔥\uFFFDtheTHEAnIs")
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 5000 {
		var sb strings.Builder
		for range rng.IntN(40) {
			sb.WriteRune(palette[rng.IntN(len(palette))])
		}
		if n%7 == 0 {
			sb.WriteString("\xff\xfe") // invalid UTF-8
		}
		in := sb.String()
		if got, want := Normalize(in), normalizeOracle(in); !slices.Equal(got, want) {
			t.Fatalf("Normalize(%q) = %q, oracle %q", in, got, want)
		}
	}
}

func TestLength(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{"both empty", "", "", 0},
		{"one empty", "x y z", "", 0},
		{"identical", "x y z", "x y z", 3},
		{"disjoint", "x y z", "p q r", 0},
		{"reversed", "a b c d", "d c b a", 1},
		// difflib's Ratcliff/Obershelp gives 1 matched token here (2/7);
		// the true LCS is [t0 t2].
		{"difflib counterexample", "t2 t0 t2", "t0 t0 t1 t2", 2},
		{"interleaved", "a b c b d a b", "b d c a b a", 4},
		{"all equal", "x x x x x", "x x x", 3},
		{"prefix and suffix", "p q x y z r s", "p q z y x r s", 5},
		{"subsequence", "b d", "a b c d e", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := strings.Fields(tc.a), strings.Fields(tc.b)
			if got := Length(a, b); got != tc.want {
				t.Errorf("Length = %d, want %d", got, tc.want)
			}
			if got := Length(b, a); got != tc.want {
				t.Errorf("Length swapped = %d, want %d", got, tc.want)
			}
			aIdx, bIdx := Match(a, b)
			if len(aIdx) != tc.want {
				t.Errorf("Match length = %d, want %d", len(aIdx), tc.want)
			}
			if err := checkMatch(a, b, aIdx, bIdx); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestScores(t *testing.T) {
	tests := []struct {
		name           string
		anchor, cur    string
		ratio, cov     float64
		covered        []int
		lengthExpected int
	}{
		{"both empty", "", "", 1, 1, []int{}, 0},
		{"empty anchor", "", "x y", 0, 1, []int{}, 0},
		{"empty current", "x y", "", 0, 0, []int{}, 0},
		{"identical", "add dark mode toggle", "add dark mode toggle", 1, 1, []int{0, 1, 2, 3}, 4},
		{"original test: unrelated", "add dark mode toggle", "refactor database migration schema", 0, 0, []int{}, 0},
		{"difflib counterexample", "t2 t0 t2", "t0 t0 t1 t2", 4.0 / 7, 2.0 / 3, []int{1, 2}, 2},
		// Coverage ignores the length of the current text; Ratio does not.
		{"anchor inside long payload", "fix login bug", "open file read login handler fix null bug write test run", 4.0 / 14, 2.0 / 3, []int{1, 2}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, c := strings.Fields(tc.anchor), strings.Fields(tc.cur)
			if got := Ratio(a, c); got != tc.ratio {
				t.Errorf("Ratio = %v, want %v", got, tc.ratio)
			}
			if got := Coverage(a, c); got != tc.cov {
				t.Errorf("Coverage = %v, want %v", got, tc.cov)
			}
			al := Align(a, c)
			if al.Length != tc.lengthExpected || al.Ratio != tc.ratio || al.Coverage != tc.cov {
				t.Errorf("Align = %+v, want length %d ratio %v coverage %v", al, tc.lengthExpected, tc.ratio, tc.cov)
			}
			// Several LCSs may exist; only the count and validity are fixed.
			if len(al.Covered) != len(tc.covered) {
				t.Errorf("Covered = %v, want %d indices like %v", al.Covered, len(tc.covered), tc.covered)
			}
		})
	}
}

// randomPair draws one test case; kind selects a family of inputs, several
// of them adversarial for Hunt–Szymanski (many repeated tokens).
func randomPair(rng *rand.Rand, kind int) (a, b []int) {
	draw := func(n, sigma int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = rng.IntN(sigma)
		}
		return s
	}
	switch kind {
	case 0: // uniform, alphabet from 1 to 50
		sigma := 1 + rng.IntN(50)
		return draw(rng.IntN(60), sigma), draw(rng.IntN(60), sigma)
	case 1: // binary and ternary: r close to mn
		sigma := 1 + rng.IntN(3)
		return draw(rng.IntN(80), sigma), draw(rng.IntN(80), sigma)
	case 2: // all one token, different lengths
		return make([]int, rng.IntN(70)), make([]int, rng.IntN(70))
	case 3: // b is a mutation of a: deletions, insertions, substitutions
		sigma := 2 + rng.IntN(20)
		a = draw(rng.IntN(80), sigma)
		for _, x := range a {
			switch rng.IntN(6) {
			case 0: // delete
			case 1:
				b = append(b, rng.IntN(sigma), x)
			case 2:
				b = append(b, rng.IntN(sigma))
			default:
				b = append(b, x)
			}
		}
		return a, b
	case 4: // periodic sequences with different periods
		p, q := 1+rng.IntN(5), 1+rng.IntN(5)
		a, b = make([]int, rng.IntN(80)), make([]int, rng.IntN(80))
		for i := range a {
			a[i] = i % p
		}
		for i := range b {
			b[i] = (i + rng.IntN(2)) % q
		}
		return a, b
	default: // Zipf-like, as in prose: a few tokens repeat a lot
		z := rand.NewZipf(rng, 1.2, 1, 200)
		a, b = make([]int, rng.IntN(80)), make([]int, rng.IntN(80))
		for i := range a {
			a[i] = int(z.Uint64())
		}
		for i := range b {
			b[i] = int(z.Uint64())
		}
		return a, b
	}
}

func TestLengthMatchesDP(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const cases = 12000
	for n := range cases {
		kind := n % 6
		a, b := randomPair(rng, kind)
		want := dpLength(a, b)
		if got := Length(a, b); got != want {
			t.Fatalf("case %d kind %d: Length(%v, %v) = %d, DP %d", n, kind, a, b, got, want)
		}
		aIdx, bIdx := Match(a, b)
		if len(aIdx) != want {
			t.Fatalf("case %d kind %d: Match(%v, %v) has %d pairs, DP %d", n, kind, a, b, len(aIdx), want)
		}
		if err := checkMatch(a, b, aIdx, bIdx); err != nil {
			t.Fatalf("case %d kind %d: Match(%v, %v): %v", n, kind, a, b, err)
		}
		wantRatio := 1.0
		if len(a)+len(b) > 0 {
			wantRatio = 2 * float64(want) / float64(len(a)+len(b))
		}
		if got := Ratio(a, b); got != wantRatio {
			t.Fatalf("case %d: Ratio = %v, want %v", n, got, wantRatio)
		}
	}
}

func readProse(tb testing.TB, name string) []string {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	toks := Normalize(string(raw))
	if len(toks) < 2000 {
		tb.Fatalf("%s: %d tokens, want at least 2000", name, len(toks))
	}
	return toks
}

func TestNaturalTextMatchesDP(t *testing.T) {
	a, b := readProse(t, "prose-a.txt"), readProse(t, "prose-b.txt")
	check := func(t *testing.T, x, y []string) {
		t.Helper()
		want := dpLength(x, y)
		if got := Length(x, y); got != want {
			t.Fatalf("Length = %d, DP %d", got, want)
		}
		aIdx, bIdx := Match(x, y)
		if len(aIdx) != want {
			t.Fatalf("Match has %d pairs, DP %d", len(aIdx), want)
		}
		if err := checkMatch(x, y, aIdx, bIdx); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("full 2000x2000", func(t *testing.T) { check(t, a[:2000], b[:2000]) })
	rng := rand.New(rand.NewPCG(5, 6))
	t.Run("windows", func(t *testing.T) {
		for range 200 {
			n, m := 1+rng.IntN(200), 1+rng.IntN(200)
			i, j := rng.IntN(len(a)-n), rng.IntN(len(b)-m)
			check(t, a[i:i+n], b[j:j+m])
		}
	})
	t.Run("anchor vs text", func(t *testing.T) {
		// A short goal against a long utterance: the shape D1 sees most.
		for range 200 {
			n, m := 5+rng.IntN(30), 50+rng.IntN(500)
			i, j := rng.IntN(len(a)-n), rng.IntN(len(b)-m)
			check(t, a[i:i+n], b[j:j+m])
		}
	})
}

func FuzzLCS(f *testing.F) {
	f.Add("The Quick Brown Fox", "quick fox brown the")
	f.Add("t2 t0 t2", "t0 t0 t1 t2")
	f.Add("add dark mode toggle", "refactor database migration schema")
	f.Add("", "")
	f.Add("cafe\u0301 İstanbul ΣΑΣ", "x x x x x x x")
	f.Add("ab\xffcd", "日本語のテキスト")
	f.Fuzz(func(t *testing.T, x, y string) {
		a, b := Normalize(x), Normalize(y)
		if want := normalizeOracle(x); !slices.Equal(a, want) {
			t.Fatalf("Normalize(%q) = %q, oracle %q", x, a, want)
		}
		for _, w := range a {
			if w == "" || isStopword(w) {
				t.Fatalf("Normalize(%q) produced token %q", x, w)
			}
		}
		// Keep the O(mn) oracle cheap.
		a, b = a[:min(len(a), 300)], b[:min(len(b), 300)]
		want := dpLength(a, b)
		if got := Length(a, b); got != want {
			t.Fatalf("Length(%q, %q) = %d, DP %d", a, b, got, want)
		}
		aIdx, bIdx := Match(a, b)
		if len(aIdx) != want {
			t.Fatalf("Match(%q, %q) has %d pairs, DP %d", a, b, len(aIdx), want)
		}
		if err := checkMatch(a, b, aIdx, bIdx); err != nil {
			t.Fatal(err)
		}
		al := Align(a, b)
		if al.Ratio < 0 || al.Ratio > 1 || al.Coverage < 0 || al.Coverage > 1 {
			t.Fatalf("Align(%q, %q) = %+v out of [0,1]", a, b, al)
		}
	})
}

func BenchmarkLCSNatural2000(b *testing.B) {
	x, y := readProse(b, "prose-a.txt")[:2000], readProse(b, "prose-b.txt")[:2000]
	b.ReportAllocs()
	for b.Loop() {
		Length(x, y)
	}
}

func BenchmarkMatchNatural2000(b *testing.B) {
	x, y := readProse(b, "prose-a.txt")[:2000], readProse(b, "prose-b.txt")[:2000]
	b.ReportAllocs()
	for b.Loop() {
		Match(x, y)
	}
}

// BenchmarkDPNatural2000 is the O(mn) oracle on the same input, for scale.
func BenchmarkDPNatural2000(b *testing.B) {
	x, y := readProse(b, "prose-a.txt")[:2000], readProse(b, "prose-b.txt")[:2000]
	for b.Loop() {
		dpLength(x, y)
	}
}

// BenchmarkAnchorVsUtterance is the hot-path shape: a 30-token goal against
// a 300-token tool call.
func BenchmarkAnchorVsUtterance(b *testing.B) {
	x, y := readProse(b, "prose-a.txt")[100:130], readProse(b, "prose-b.txt")[500:800]
	b.ReportAllocs()
	for b.Loop() {
		Align(x, y)
	}
}

func BenchmarkNormalize(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "prose-a.txt"))
	if err != nil {
		b.Fatal(err)
	}
	text := string(raw)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Normalize(text)
	}
}

// adversarial is Hunt–Szymanski's worst case: two tokens, so r ≈ mn/2.
func adversarial(n int) (x, y []string) {
	rng := rand.New(rand.NewPCG(7, 8))
	x, y = make([]string, n), make([]string, n)
	for i := range n {
		x[i] = []string{"x", "y"}[rng.IntN(2)]
		y[i] = []string{"x", "y"}[rng.IntN(2)]
	}
	return x, y
}

// BenchmarkLCSAdversarial2000 is for information: r ≈ 2,000,000 pairs.
func BenchmarkLCSAdversarial2000(b *testing.B) {
	x, y := adversarial(2000)
	b.ReportAllocs()
	for b.Loop() {
		Length(x, y)
	}
}

func BenchmarkMatchAdversarial2000(b *testing.B) {
	x, y := adversarial(2000)
	b.ReportAllocs()
	for b.Loop() {
		Match(x, y)
	}
}
