package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRatioCI: the bootstrap interval of the p99 ratio is exact where the
// ratio is (floor and hook in a fixed proportion, sample by sample), and
// on independent draws of a known distribution it covers the true ratio
// about as often as a 95% interval should (percentile bootstraps of a
// high quantile are known to cover a little less; 80% of 100 trials is
// the bar).
func TestRatioCI(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	floor := make([]float64, 400)
	for i := range floor {
		floor[i] = 2 + rng.ExpFloat64()
	}
	for _, k := range []float64{1, 2.5} {
		hook := make([]float64, len(floor))
		for i := range hook {
			hook[i] = k * floor[i]
		}
		lo, hi := ratioCI(hook, floor, 0.99, 500, rng)
		if math.Abs(lo-k) > 1e-9 || math.Abs(hi-k) > 1e-9 {
			t.Errorf("hook = %v x floor: interval %.4f to %.4f, want exactly %v", k, lo, hi, k)
		}
	}
	if lo, hi := ratioCI(nil, nil, 0.99, 100, rng); lo != 0 || hi != 0 {
		t.Errorf("no samples: %v to %v", lo, hi)
	}

	// Log-normal samples (a right-skewed latency), the hook's scaled by
	// 2.5 but drawn independently: the true p99 ratio is 2.5.
	draw := func(scale float64) []float64 {
		xs := make([]float64, 400)
		for i := range xs {
			xs[i] = scale * math.Exp(0.5*rng.NormFloat64())
		}
		return xs
	}
	covered, trials := 0, 100
	for range trials {
		lo, hi := ratioCI(draw(2.5), draw(1), 0.99, 300, rng)
		if lo <= 2.5 && 2.5 <= hi {
			covered++
		}
		if lo > hi {
			t.Fatalf("interval %v to %v is reversed", lo, hi)
		}
	}
	t.Logf("covered %d of %d", covered, trials)
	if covered < 80 {
		t.Errorf("the interval covered the true ratio in %d of %d trials, want at least 80", covered, trials)
	}
}
