package entropy

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/engines/internal/brute"
)

// tolerance is the seed's own claim (§5.A): the O(1) window matches a
// brute-force recomputation within 1e-9 at every step.
const tolerance = 1e-9

// bruteEntropy is the oracle: it counts the runes of win from scratch and
// sums −p·log₂ p directly, sharing neither the S identity nor any table with
// Window.
func bruteEntropy(win []rune) float64 {
	if len(win) == 0 {
		return 0
	}
	counts := map[rune]int{}
	for _, r := range win {
		counts[r]++
	}
	n := float64(len(win))
	h := 0.0
	for _, c := range counts {
		p := float64(c) / n
		h -= p * math.Log2(p)
	}
	return h
}

// checkStream pushes every rune of in through a window and compares H and dH
// with the brute-force entropy of the last size runes at every step.
func checkStream(t *testing.T, in []rune, size, lag int) {
	t.Helper()
	w, err := New(size, lag)
	if err != nil {
		t.Fatal(err)
	}
	hs := make([]float64, len(in)) // brute-force H at every step
	for i, r := range in {
		got := w.Push(r)
		lo := max(0, i+1-size)
		want := bruteEntropy(in[lo : i+1])
		hs[i] = want
		if d := math.Abs(got.H - want); d >= tolerance {
			t.Fatalf("step %d (size %d): H = %.15f, brute force %.15f, |Δ| = %g", i, size, got.H, want, d)
		}
		if got.Len != i+1-lo {
			t.Fatalf("step %d: Len = %d, want %d", i, got.Len, i+1-lo)
		}
		if got.HasDH != (i >= lag) {
			t.Fatalf("step %d (lag %d): HasDH = %v", i, lag, got.HasDH)
		}
		if got.HasDH {
			wantDH := want - hs[i-lag]
			if d := math.Abs(got.DH - wantDH); d >= 2*tolerance {
				t.Fatalf("step %d: dH = %.15f, brute force %.15f", i, got.DH, wantDH)
			}
		}
	}
}

func randomRunes(rng *rand.Rand, n int, alphabet []rune) []rune {
	out := make([]rune, n)
	for i := range out {
		out[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return out
}

// alphabets exercise the ASCII array, the hash table, and both at once.
var alphabets = map[string][]rune{
	"binary":   []rune("ab"),
	"dna":      []rune("ACGT"),
	"ascii":    []rune(" etaoinshrdlucmfwypvbgkjqxz.,\n0123456789ETAOIN"),
	"greek":    []rune("αβγδεζηθικλμνξοπρστυφχψω"),
	"mixed":    []rune("aé漢字🙂b\x00\x7f\u0080\uffffz"),
	"wide":     wideAlphabet(300),
	"negative": {-1, -2, 5, 0x10FFFF, 0x110000, utf8.RuneError},
}

func wideAlphabet(n int) []rune {
	out := make([]rune, n)
	for i := range out {
		out[i] = rune(0x4E00 + 7*i)
	}
	return out
}

func TestWindowMatchesBruteForceRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, alpha := range alphabets {
		for _, size := range []int{1, 2, 3, 7, 16, 64, 100} {
			for _, lag := range []int{1, 8, 13} {
				t.Run(name, func(t *testing.T) {
					checkStream(t, randomRunes(rng, 3000, alpha), size, lag)
				})
			}
		}
	}
}

// TestWindowMatchesBruteForceRuns feeds runs of one rune, which drive counts
// to N and back to 0 and make the entropy cliff the stall detector looks for.
func TestWindowMatchesBruteForceRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var in []rune
	alpha := alphabets["mixed"]
	for len(in) < 20000 {
		r := alpha[rng.IntN(len(alpha))]
		n := 1 + rng.IntN(150)
		for range n {
			in = append(in, r)
		}
	}
	for _, size := range []int{1, 2, 64, 128} {
		checkStream(t, in, size, 8)
	}
}

// naturalText returns real prose not written here: the Go distribution's
// Markdown files, if present, else a short multilingual sample.
func naturalText(t *testing.T) []rune {
	t.Helper()
	var text []rune
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		root := strings.TrimSpace(string(out))
		for _, p := range []string{"README.md", "CONTRIBUTING.md", "src/runtime/HACKING.md", "doc/godebug.md"} {
			b, err := os.ReadFile(filepath.Join(root, p))
			if err == nil {
				text = append(text, []rune(string(b))...)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join("testdata", "multilingual.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return append(text, []rune(string(b))...)
}

func TestWindowMatchesBruteForceNatural(t *testing.T) {
	text := naturalText(t)
	for _, size := range []int{16, 64, 256} {
		checkStream(t, text, size, 8)
	}
}

// TestNoDriftLongStream runs 10 million runes through one window and checks
// every step against the brute force. The counting here is an independent
// recount of the window each step, over a small alphabet so that it stays
// fast; the fixed-point S cannot drift, and this shows it.
func TestNoDriftLongStream(t *testing.T) {
	n := 10_000_000
	if testing.Short() {
		n = 1_000_000
	}
	const size, lag = DefaultSize, DefaultLag
	alpha := []rune("abcdefghij漢字🙂 \n.é")
	rng := rand.New(rand.NewPCG(5, 6))
	w, err := New(size, lag)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]uint8, n)
	// Bursts of low entropy keep counts moving through the whole table range.
	for i := 0; i < n; {
		if rng.IntN(4) == 0 {
			c := uint8(rng.IntN(len(alpha)))
			for k := rng.IntN(80); k > 0 && i < n; k-- {
				idx[i] = c
				i++
			}
			continue
		}
		idx[i] = uint8(rng.IntN(len(alpha)))
		i++
	}
	var hs [lag + 1]float64
	var counts [32]int
	maxDelta := 0.0
	for i := range n {
		got := w.Push(alpha[idx[i]])
		lo := max(0, i+1-size)
		want := brute.Entropy(idx[lo:i+1], counts[:])
		d := math.Abs(got.H - want)
		maxDelta = max(maxDelta, d)
		if d >= tolerance {
			t.Fatalf("step %d: H = %.15f, brute force %.15f", i, got.H, want)
		}
		if got.HasDH {
			if d := math.Abs(got.DH - (want - hs[(i-lag)%(lag+1)])); d >= 2*tolerance {
				t.Fatalf("step %d: dH off by %g", i, d)
			}
		}
		hs[i%(lag+1)] = want
	}
	t.Logf("%d runes, max |H − brute force| = %.3g", n, maxDelta)
}

// TestHashTableCollisions fills one probe chain with runes that share a home
// slot and then removes them in every order, which exercises backward-shift
// deletion wrapping around the end of the table.
func TestHashTableCollisions(t *testing.T) {
	w, err := New(64, 8)
	if err != nil {
		t.Fatal(err)
	}
	bySlot := map[uint32][]rune{}
	for r := rune(128); len(bySlot[w.mask]) < 12 || len(bySlot[0]) < 12; r++ {
		h := w.hash(r)
		bySlot[h] = append(bySlot[h], r)
	}
	// Runes homed at the last slot and at slot 0 contend across the wrap.
	var alpha []rune
	alpha = append(alpha, bySlot[w.mask][:12]...)
	alpha = append(alpha, bySlot[0][:12]...)
	alpha = append(alpha, bySlot[1][:6]...)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, size := range []int{5, 29, 64} {
		checkStream(t, randomRunes(rng, 5000, alpha), size, 8)
	}
}

func TestReset(t *testing.T) {
	w, err := New(16, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range "héllo wörld, the quick brown fox" {
		w.Push(r)
	}
	w.Reset()
	if w.Len() != 0 || w.Entropy() != 0 {
		t.Fatalf("after Reset: Len %d, H %g", w.Len(), w.Entropy())
	}
	in := []rune("abcabcabd漢")
	for i, r := range in {
		s := w.Push(r)
		want := bruteEntropy(in[:i+1])
		if math.Abs(s.H-want) >= tolerance || s.HasDH != (i >= 4) {
			t.Fatalf("step %d after Reset: %+v, want H %g", i, s, want)
		}
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name      string
		size, lag int
	}{
		{"zero size", 0, 8},
		{"negative size", -1, 8},
		{"huge size", MaxSize + 1, 8},
		{"zero lag", 64, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(tc.size, tc.lag); !errors.Is(err, ErrConfig) {
				t.Fatalf("New(%d, %d) error = %v, want ErrConfig", tc.size, tc.lag, err)
			}
		})
	}
}

// TestKnownValues pins closed forms: a window of k distinct runes equally
// often has H = log₂ k, and a single repeated rune has H = 0.
func TestKnownValues(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want float64
	}{
		{"one rune", "aaaaaaaaaaaaaaaa", 0},
		{"period two", "fofofofofofofofo", 1},
		{"four symbols", "ACGTACGTACGTACGT", 2},
		{"sixteen distinct", "0123456789abcdef", 4},
		{"multibyte", "漢字漢字漢字漢字", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := New(16, 8)
			if err != nil {
				t.Fatal(err)
			}
			var s Sample
			for _, r := range tc.in {
				s = w.Push(r)
			}
			if math.Abs(s.H-tc.want) >= tolerance {
				t.Fatalf("H(%q) = %g, want %g", tc.in, s.H, tc.want)
			}
		})
	}
}

// TestPushDoesNotAllocate shows that memory stays bounded over an endless
// stream: in steady state an update allocates nothing.
func TestPushDoesNotAllocate(t *testing.T) {
	w, err := New(DefaultSize, DefaultLag)
	if err != nil {
		t.Fatal(err)
	}
	in := []rune("The stall begins fofofofo; 漢字 and 🙂 keep the table busy. ")
	i := 0
	step := func() {
		w.Push(in[i%len(in)])
		i++
	}
	for range 1000 {
		step()
	}
	if a := testing.AllocsPerRun(100000, step); a != 0 {
		t.Fatalf("Push allocates %v times per rune in steady state", a)
	}
}

func TestDefaultWarmUp(t *testing.T) {
	for _, tc := range []struct{ size, want int }{{64, 16}, {16, 16}, {8, 8}, {1, 1}} {
		if got := DefaultWarmUp(tc.size); got != tc.want {
			t.Errorf("DefaultWarmUp(%d) = %d, want %d", tc.size, got, tc.want)
		}
	}
}

// FuzzWindow checks arbitrary input, decoded as runes, against the brute force.
func FuzzWindow(f *testing.F) {
	f.Add("fofofofofofofofofofofofo the stall begins", uint8(64), uint8(8))
	f.Add("漢字🙂\xff\xfe aé", uint8(3), uint8(1))
	f.Add("", uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, s string, size, lag uint8) {
		checkStream(t, []rune(s), int(size)%200+1, int(lag)%20+1)
	})
}

// BenchmarkEntropyUpdate measures one Push: ns/op is nanoseconds per rune.
func BenchmarkEntropyUpdate(b *testing.B) {
	w, err := New(DefaultSize, DefaultLag)
	if err != nil {
		b.Fatal(err)
	}
	// Mostly ASCII prose with some multi-byte runes, like assistant text.
	in := []rune("Djinn measures how far the agent's work has drifted from the goal; " +
		"it catches loops — re-reading, reverting — and café, naïve, 漢字 and 🙂 too.\n")
	i := 0
	for b.Loop() {
		w.Push(in[i])
		i++
		if i == len(in) {
			i = 0
		}
	}
}
