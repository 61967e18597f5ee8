package stall

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/engines/internal/brute"
)

// oracleFire is the specification of the two rules on a single line of
// prose, computed by brute force with no shared code: it recounts the entropy
// window at every rune, tracks the run length of every period from 1 to
// MaxPeriod at every rune, and returns the rune index at which the first rule
// fires, the rule, and the run's start (-1 if nothing fires).
//
// At rune x, for a period p, the run is the longest suffix of text[..x] with
// period p (text[z] = text[z−p] for every z in it past its first p runes);
// its length is E. The entropy rules fire, for the smallest p ≤
// ConfirmMaxPeriod with E ≥ ConfirmMinRunes whose last p runes hold a letter,
// when an entropy trigger (H < MinEntropy, or dH < −DropThreshold, after the
// warm-up) fell inside the run; the repetition rule fires for the smallest p
// with E ≥ max(MinRepeats·p, MinRunes). Entropy is checked first.
func oracleFire(rs []rune, cfg Config) (at int, rule string, start int) {
	runs := make([]int, cfg.MaxPeriod+1) // consecutive z with rs[z] = rs[z−p]
	hist := make([]float64, len(rs))
	lastAbs, lastCliff := -1, -1
	index := map[rune]int{} // a dense index for the runes of rs, so counting is cheap
	for _, r := range rs {
		if _, ok := index[r]; !ok {
			index[r] = len(index)
		}
	}
	ids := make([]int, len(rs))
	for i, r := range rs {
		ids[i] = index[r]
	}
	counts := make([]int, len(index))
	for x := range rs {
		lo := max(0, x+1-cfg.Window)
		h := brute.Entropy(ids[lo:x+1], counts)
		hist[x] = h
		if x+1-lo >= cfg.WarmUp {
			if h < cfg.MinEntropy {
				lastAbs = x
			}
			if x >= cfg.K && h-hist[x-cfg.K] < -cfg.DropThreshold {
				lastCliff = x
			}
		}
		for p := 1; p <= cfg.MaxPeriod; p++ {
			if x-p >= 0 && rs[x] == rs[x-p] {
				runs[p]++
			} else {
				runs[p] = 0
			}
		}
		for p := 1; p <= cfg.ConfirmMaxPeriod; p++ {
			if runs[p] == 0 {
				continue
			}
			e := runs[p] + p
			start := x - e + 1
			letter := false
			for _, r := range rs[x-p+1 : x+1] {
				letter = letter || unicode.IsLetter(r)
			}
			if e < cfg.ConfirmMinRunes || !letter {
				continue
			}
			switch {
			case lastAbs >= start:
				return x, RuleEntropyAbsolute, start
			case lastCliff >= start:
				return x, RuleEntropyCliff, start
			}
		}
		for p := 1; p <= cfg.MaxPeriod; p++ {
			if e := runs[p] + p; runs[p] > 0 && e >= max(cfg.MinRepeats*p, cfg.MinRunes) {
				return x, RuleRepetition, x - e + 1
			}
		}
	}
	return -1, "", -1
}

// randomConfig draws a valid configuration small enough for the oracle.
func randomConfig(rng *rand.Rand) Config {
	c := DefaultConfig()
	c.MaxBytes = 0
	c.Window = 8 + rng.IntN(80)
	c.K = 1 + rng.IntN(10)
	c.WarmUp = 1 + rng.IntN(c.Window)
	c.MinEntropy = 0.5 + 2*rng.Float64()
	c.DropThreshold = 0.1 + 0.6*rng.Float64()
	c.MaxPeriod = 4 + rng.IntN(60)
	c.ConfirmMaxPeriod = 1 + rng.IntN(min(8, c.MaxPeriod))
	c.ConfirmMinRunes = minConfirm(c.ConfirmMaxPeriod) + rng.IntN(30)
	c.MinRepeats = 2 + rng.IntN(4)
	c.MinRunes = 2*chunk + rng.IntN(100)
	return c
}

// randomLine builds one line of letter-and-space prose with planted runs:
// exact chants of random period and length around the thresholds, chants
// with one rune changed, and runs of one rune.
func randomLine(rng *rand.Rand, maxPeriod int) []rune {
	// Half the lines keep their runs short, so that many stay quiet and the
	// ones that fire do so late.
	long := 250
	if rng.IntN(2) == 0 {
		long = 70
	}
	alpha := []rune("etaoinshrdlucmfwypvbgkjqxz   éß漢")
	word := func(n int) []rune {
		out := make([]rune, n)
		for i := range out {
			out[i] = alpha[rng.IntN(len(alpha))]
		}
		return out
	}
	line := []rune{'T'}
	for len(line) < 600+rng.IntN(1500) {
		switch rng.IntN(6) {
		case 0, 1:
			line = append(line, word(10+rng.IntN(80))...)
		case 2, 3: // an exact chant
			unit := word(1 + rng.IntN(maxPeriod+4))
			n := rng.IntN(long)
			for range n {
				line = append(line, unit[len(line)%len(unit)])
			}
		case 4: // a chant with a mutation in the middle
			unit := word(1 + rng.IntN(maxPeriod))
			n := 20 + rng.IntN(long)
			for i := range n {
				r := unit[i%len(unit)]
				if i == n/2 {
					r = 'Q'
				}
				line = append(line, r)
			}
		case 5: // a run of one rune
			r := alpha[rng.IntN(len(alpha))]
			for range rng.IntN(90) {
				line = append(line, r)
			}
		}
	}
	return line
}

// TestDetectMatchesOracle checks Detect against the brute-force
// specification on thousands of random lines and configurations: the same
// rune fires, by the same rule, for a run that starts at the same place.
func TestDetectMatchesOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	fired := map[string]int{}
	for i := range 2000 {
		cfg := randomConfig(rng)
		rs := randomLine(rng, cfg.MaxPeriod)
		text := string(rs)
		at, rule, start := oracleFire(rs, cfg)
		got, err := Detect(text, cfg)
		if err != nil {
			t.Fatal(err)
		}
		fired[rule]++
		if at < 0 {
			if got.Stalled {
				t.Fatalf("case %d (%+v): Detect fired (%+v), oracle did not", i, cfg, got)
			}
			continue
		}
		wantFired := len(string(rs[:at+1]))
		wantStart := len(string(rs[:start]))
		if !got.Stalled || got.FiredAt != wantFired || got.Rule != rule {
			t.Fatalf("case %d (%+v): Detect %+v, oracle fires at byte %d by %s (run from %d) in %q",
				i, cfg, got, wantFired, rule, wantStart, string(rs[max(0, start-20):at+1]))
		}
		if got.Start > wantStart {
			t.Fatalf("case %d: Start %d after the oracle's run start %d", i, got.Start, wantStart)
		}
		checkResult(t, text, got)
	}
	t.Logf("oracle verdicts: %v", fired)
	for _, r := range []string{"", RuleRepetition, RuleEntropyCliff, RuleEntropyAbsolute} {
		if fired[r] == 0 {
			t.Errorf("no case exercised %q", r)
		}
	}
}

// checkResult verifies a verdict's invariants on its own text: offsets in
// order, and text[Start:End] made of Repeats copies of one Period-rune unit.
func checkResult(t *testing.T, text string, r Result) {
	t.Helper()
	if !r.Stalled {
		return
	}
	if !(0 <= r.Start && r.Start < r.FiredAt && r.FiredAt <= r.End && r.End <= len(text)) {
		t.Fatalf("offsets out of order: %+v (len %d)", r, len(text))
	}
	if r.Period < 1 || r.Repeats < 1 {
		t.Fatalf("period %d, repeats %d", r.Period, r.Repeats)
	}
	run := text[r.Start:r.End]
	unit := cutRunes(run, r.Period)
	if !strings.HasPrefix(strings.Repeat(unit, r.Repeats+1), run) || len(unit)*r.Repeats > len(run) {
		t.Fatalf("text[Start:End] = %q is not %d repeats of %q", run, r.Repeats, unit)
	}
	if utf8.RuneCountInString(r.Unit) > MaxUnitRunes || (r.Period <= MaxUnitRunes && r.Unit != unit) {
		t.Fatalf("Unit %q, want %q", r.Unit, unit)
	}
}
