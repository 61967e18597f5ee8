package posterior

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func mustUpdate(t testing.TB, p Posterior, score, length float64) Posterior {
	t.Helper()
	q, err := p.Update(score, length)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestUpdateTable(t *testing.T) {
	tests := []struct {
		name            string
		scores, lengths []float64
		mu, variance    float64
		meanLen         float64
		tol             float64
	}{
		{"original test: first observation seeds", []float64{0.8}, []float64{40}, 0.8, 0, 40, 0},
		{"two sessions by hand", []float64{0.8, 0.6}, []float64{40, 20},
			0.74,              // 0.7·0.8 + 0.3·0.6
			0.3 * 0.14 * 0.14, // 0.7·0 + 0.3·(0.6 − 0.74)²
			34,                // 0.7·40 + 0.3·20
			1e-15},
		{"constant stream has no variance", []float64{0.9, 0.9, 0.9, 0.9}, []float64{30, 30, 30, 30}, 0.9, 0, 30, 1e-15},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Posterior
			for i := range tc.scores {
				p = mustUpdate(t, p, tc.scores[i], tc.lengths[i])
			}
			if p.N != len(tc.scores) || p.Alpha != DefaultAlpha {
				t.Errorf("n %d alpha %v, want %d and %v", p.N, p.Alpha, len(tc.scores), DefaultAlpha)
			}
			if math.Abs(p.Mu-tc.mu) > tc.tol || math.Abs(p.Var-tc.variance) > tc.tol || math.Abs(p.MeanLen-tc.meanLen) > tc.tol {
				t.Errorf("got mu %v var %v mean_len %v, want %v %v %v", p.Mu, p.Var, p.MeanLen, tc.mu, tc.variance, tc.meanLen)
			}
		})
	}

	t.Run("original test: 20 equal sessions", func(t *testing.T) {
		var p Posterior
		for range 20 {
			p = mustUpdate(t, p, 0.9, 30)
		}
		if math.Abs(p.Mu-0.9) > 0.005 || p.Sigma() >= 0.05 || p.N != 20 {
			t.Errorf("got %+v", p)
		}
	})
}

// closedForm expands the recurrences into explicit weighted sums, computed
// with math.Pow and no recursion:
//
//	μ_t  = (1−α)^(t−1)·y_1 + Σ_{s=2..t} α(1−α)^(t−s)·y_s
//	σ²_t = Σ_{s=2..t} α(1−α)^(t−s)·(y_s − μ_s)²
//
// (t and s 1-based; session 1 seeds μ and contributes no variance).
func closedForm(alpha float64, ys []float64) (mu, variance float64) {
	muAt := func(t int) float64 {
		m := math.Pow(1-alpha, float64(t-1)) * ys[0]
		for s := 2; s <= t; s++ {
			m += alpha * math.Pow(1-alpha, float64(t-s)) * ys[s-1]
		}
		return m
	}
	t := len(ys)
	for s := 2; s <= t; s++ {
		d := ys[s-1] - muAt(s)
		variance += alpha * math.Pow(1-alpha, float64(t-s)) * d * d
	}
	return muAt(t), variance
}

func TestUpdateMatchesClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 3000 {
		alpha := DefaultAlpha
		if n%3 != 0 {
			alpha = 0.01 + 0.98*rng.Float64()
		}
		p, err := New(alpha)
		if err != nil {
			t.Fatal(err)
		}
		ys := make([]float64, 1+rng.IntN(40))
		lens := make([]float64, len(ys))
		for i := range ys {
			ys[i] = rng.Float64()
			lens[i] = float64(1 + rng.IntN(300))
			p = mustUpdate(t, p, ys[i], lens[i])
		}
		mu, variance := closedForm(alpha, ys)
		meanLen, _ := closedForm(alpha, lens)
		if math.Abs(p.Mu-mu) > 1e-12 || math.Abs(p.Var-variance) > 1e-12 || math.Abs(p.MeanLen-meanLen) > 1e-9 {
			t.Fatalf("case %d (alpha %v, %d sessions): got mu %v var %v len %v, closed form %v %v %v",
				n, alpha, len(ys), p.Mu, p.Var, p.MeanLen, mu, variance, meanLen)
		}
		if p.N != len(ys) {
			t.Fatalf("case %d: n = %d, want %d", n, p.N, len(ys))
		}
	}
}

// stationaryRun feeds a long stationary N(m, s²) stream of session scores
// and measures, after a burn-in, how often the next score falls below the
// threshold computed before it, and the long-run mean of the threshold.
func stationaryRun(alpha float64, seed uint64, p10 func(Posterior) float64) (below, meanP10, meanVar float64) {
	const m, s, sessions, burnIn = 0.6, 0.1, 200000, 50
	rng := rand.New(rand.NewPCG(seed, 3))
	p := Posterior{Alpha: alpha}
	var nBelow, count int
	var sumP10, sumVar float64
	for i := range sessions {
		y := m + s*rng.NormFloat64()
		if i >= burnIn {
			th := p10(p)
			if y < th {
				nBelow++
			}
			sumP10 += th
			sumVar += p.Var
			count++
		}
		p, _ = p.Update(y, 100)
	}
	return float64(nBelow) / float64(count), sumP10 / float64(count), sumVar / float64(count)
}

func TestP10OnStationaryStream(t *testing.T) {
	const m, s = 0.6, 0.1
	trueP10 := m - Z10*s
	tests := []struct {
		alpha            float64
		belowLo, belowHi float64
	}{
		// The EWMA's own noise (effective sample size (2−α)/α) pushes the
		// realised rate above 10 %, less so for smaller α.
		{DefaultAlpha, 0.10, 0.14},
		{0.1, 0.095, 0.12},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("alpha=%v", tc.alpha), func(t *testing.T) {
			below, meanP10, meanVar := stationaryRun(tc.alpha, 9, Posterior.P10)
			t.Logf("alpha %v: %.4f below p10; mean p10 %.4f, true 10th percentile %.4f", tc.alpha, below, meanP10, trueP10)
			if below < tc.belowLo || below > tc.belowHi {
				t.Errorf("share below p10 = %.4f, want in [%v, %v]", below, tc.belowLo, tc.belowHi)
			}
			if math.Abs(meanP10-trueP10) > 0.1*s {
				t.Errorf("mean p10 %.4f, true 10th percentile %.4f: off by more than 0.1 sd", meanP10, trueP10)
			}
			// Independent check of the recurrence's stationary behaviour:
			// y − μ_prev has variance s²·2/(2−α), and the seed's term is
			// (1−α)² times that, so E[σ²] = 2(1−α)²/(2−α)·s².
			a := tc.alpha
			wantVar := 2 * (1 - a) * (1 - a) / (2 - a) * s * s
			if math.Abs(meanVar-wantVar) > 0.03*wantVar {
				t.Errorf("mean var %.6f, stationary theory %.6f", meanVar, wantVar)
			}
		})
	}

	// The seed's own formula, μ − 1.2816·σ, is the defect the package doc
	// describes: about one session in five falls below its "p10".
	t.Run("seed formula is not a 10th percentile", func(t *testing.T) {
		seedP10 := func(p Posterior) float64 { return p.Mu - Z10*p.Sigma() }
		below, meanP10, _ := stationaryRun(DefaultAlpha, 9, seedP10)
		t.Logf("seed formula: %.4f below; mean %.4f vs %.4f", below, meanP10, trueP10)
		if below < 0.17 || math.Abs(meanP10-trueP10) < 0.25*s {
			t.Errorf("seed formula looks calibrated (%.4f below, mean %.4f): the package doc is wrong", below, meanP10)
		}
	})
}

func TestThreshold(t *testing.T) {
	build := func(scores ...float64) Posterior {
		var p Posterior
		for _, y := range scores {
			p = mustUpdate(t, p, y, 10)
		}
		return p
	}
	three := build(0.9, 0.7, 0.8)
	tests := []struct {
		name   string
		p      Posterior
		want   float64
		source Source
	}{
		{"empty", Posterior{}, DefaultFallback, SourceFallback},
		{"two sessions", build(0.9, 0.8), DefaultFallback, SourceFallback},
		{"three sessions", three, three.Mu - Z10*math.Sqrt(three.Var)/(1-DefaultAlpha), SourcePosterior},
		{"corrupt posterior", Posterior{N: 5, Mu: math.NaN()}, DefaultFallback, SourceFallback},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, src := Threshold(tc.p, DefaultMinSessions, DefaultFallback)
			if got != tc.want || src != tc.source {
				t.Errorf("Threshold = %v (%s), want %v (%s)", got, src, tc.want, tc.source)
			}
		})
	}
}

func TestExclusion(t *testing.T) {
	tests := []struct {
		name           string
		ex             Exclusion
		pivots, deltas int
		counts         bool
	}{
		{"clean session", DefaultExclusion(), 0, 0, true},
		{"three deltas allowed", DefaultExclusion(), 0, 3, true},
		{"four deltas excluded", DefaultExclusion(), 0, 4, false},
		{"one pivot excluded", DefaultExclusion(), 1, 0, false},
		{"looser setting", Exclusion{MaxPivots: 1, MaxDeltas: 10}, 1, 10, true},
		{"stricter setting", Exclusion{MaxPivots: 0, MaxDeltas: 0}, 0, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.ex.Counts(tc.pivots, tc.deltas); got != tc.counts {
				t.Errorf("Counts(%d, %d) = %v, want %v", tc.pivots, tc.deltas, got, tc.counts)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	good := Posterior{Alpha: 0.3, Mu: 0.8, Var: 0.01, N: 4, MeanLen: 20}
	tests := []struct {
		name          string
		p             Posterior
		score, length float64
	}{
		{"NaN score", good, math.NaN(), 10},
		{"infinite length", good, 0.5, math.Inf(1)},
		{"overflowing score", good, 1e200, 10},
		{"alpha 1", Posterior{Alpha: 1}, 0.5, 10},
		{"negative alpha", Posterior{Alpha: -0.1}, 0.5, 10},
		{"negative var", Posterior{Mu: 0.5, Var: -1, N: 2}, 0.5, 10},
		{"negative n", Posterior{N: -1}, 0.5, 10},
		{"empty but not zero", Posterior{Mu: 0.5}, 0.5, 10},
		{"infinite mean length", Posterior{Mu: 0.5, N: 1, MeanLen: math.Inf(-1)}, 0.5, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.p.Update(tc.score, tc.length)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Update error = %v, want ErrInvalid", err)
			}
			if got != tc.p && !(math.IsNaN(got.Mu) && math.IsNaN(tc.p.Mu)) {
				t.Errorf("refused Update changed the posterior: %+v -> %+v", tc.p, got)
			}
		})
	}
	for _, a := range []float64{0, 1, -0.5, math.NaN()} {
		if _, err := New(a); !errors.Is(err, ErrInvalid) {
			t.Errorf("New(%v) error = %v, want ErrInvalid", a, err)
		}
	}
}

func TestJSON(t *testing.T) {
	p, err := New(0.3)
	if err != nil {
		t.Fatal(err)
	}
	p = mustUpdate(t, p, 0.5, 12)
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(raw), `{"alpha":0.3,"mu":0.5,"var":0,"n":1,"mean_len":12}`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
	var back Posterior
	if err := json.Unmarshal(raw, &back); err != nil || back != p {
		t.Errorf("round trip = %+v, %v", back, err)
	}
}

// FuzzUpdate feeds posteriors as they would arrive from a damaged or edited
// posteriors.json: whatever goes in, Update either refuses it or returns a
// valid posterior whose mean moved toward the new score.
func FuzzUpdate(f *testing.F) {
	f.Add([]byte(`{"alpha":0.3,"mu":0.8,"var":0.01,"n":4,"mean_len":20}`), 0.5, 10.0)
	f.Add([]byte(`{}`), 0.9, 30.0)
	f.Add([]byte(`{"alpha":0.999,"mu":-1e300,"var":1e300,"n":1,"mean_len":0}`), 1e300, -1.0)
	f.Add([]byte(`{"alpha":0,"mu":0,"var":0,"n":0,"mean_len":0}`), 0.0, 0.0)
	f.Fuzz(func(t *testing.T, raw []byte, score, length float64) {
		var p Posterior
		if json.Unmarshal(raw, &p) != nil {
			return
		}
		q, err := p.Update(score, length)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if err := q.Validate(); err != nil {
			t.Fatalf("Update(%+v, %v, %v) = %+v, invalid: %v", p, score, length, q, err)
		}
		if q.N != p.N+1 {
			t.Fatalf("n went from %d to %d", p.N, q.N)
		}
		lo, hi := min(p.Mu, score), max(p.Mu, score)
		if p.N == 0 {
			lo, hi = score, score
		}
		// Allow for rounding at extreme magnitudes.
		slack := 1e-12 * max(1, math.Abs(lo), math.Abs(hi))
		if q.Mu < lo-slack || q.Mu > hi+slack {
			t.Fatalf("mu %v outside [%v, %v]", q.Mu, lo, hi)
		}
		if th, _ := Threshold(q, 0, DefaultFallback); math.IsNaN(th) {
			t.Fatalf("NaN threshold from %+v", q)
		}
	})
}

func BenchmarkUpdate(b *testing.B) {
	p := Posterior{Alpha: DefaultAlpha, Mu: 0.8, Var: 0.01, N: 5, MeanLen: 40}
	y := 0.0
	for b.Loop() {
		q, err := p.Update(0.5+y, 42)
		if err != nil {
			b.Fatal(err)
		}
		p = q
		y = 0.25 - y
	}
}
