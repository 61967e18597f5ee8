package reservoir

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// turn is the kind of item the caller keeps: small, JSON-friendly.
type turn struct {
	Turn  int     `json:"turn"`
	Score float64 `json:"score"`
	Tool  string  `json:"tool"`
}

func TestAddFillsThenStaysAtK(t *testing.T) {
	tests := []struct {
		name     string
		k, items int
		wantLen  int
	}{
		{"original test: one item", 32, 1, 1},
		{"exactly k", 32, 32, 32},
		{"original test: 32 then 67 more", 32, 99, 32},
		{"k of 1", 1, 50, 1},
		{"default k for 0", 0, 40, DefaultK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 1))
			r := New[turn](tc.k)
			for i := range tc.items {
				slot := r.Add(turn{Turn: i}, rng)
				if i < r.K && slot != i {
					t.Fatalf("item %d went to slot %d while filling", i, slot)
				}
				if slot >= 0 && r.Items[slot].Turn != i {
					t.Fatalf("Add reported slot %d but it holds turn %d", slot, r.Items[slot].Turn)
				}
			}
			if len(r.Items) != tc.wantLen || r.NSeen != int64(tc.items) {
				t.Fatalf("len %d n_seen %d, want %d and %d", len(r.Items), r.NSeen, tc.wantLen, tc.items)
			}
			if err := r.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// chiSquareCritical is the upper 0.1 % point of χ² with df degrees of
// freedom, by the Wilson–Hilferty approximation (accurate to < 0.5 % here).
func chiSquareCritical(df float64) float64 {
	const z = 3.0902 // standard normal 0.999 quantile
	c := 2 / (9 * df)
	return df * math.Pow(1-c+z*math.Sqrt(c), 3)
}

// inclusionStat runs many seeded streams of n items through add and returns
// the chi-square statistic for "every item is kept with probability k/n".
//
// The counts are not independent multinomial cells: each run keeps exactly k
// of n items, a sample without replacement, so Var(O_i) = R·p(1−p) and
// Cov(O_i, O_j) = −R·p(1−p)/(n−1). Hence Σ (O_i−E)² / (R·p(1−p)) · (n−1)/n
// is asymptotically χ² with n−1 degrees of freedom (the plain Pearson sum
// would be too small by a factor 1−p and hide bias).
func inclusionStat(n, k, runs int, seed uint64, add func(r *Reservoir[int], item int, rng *rand.Rand)) float64 {
	rng := rand.New(rand.NewPCG(seed, 99))
	counts := make([]float64, n)
	for range runs {
		r := New[int](k)
		for i := range n {
			add(r, i, rng)
		}
		for _, it := range r.Items {
			counts[it]++
		}
	}
	p := float64(k) / float64(n)
	e := float64(runs) * p
	v := float64(runs) * p * (1 - p)
	var stat float64
	for _, o := range counts {
		stat += (o - e) * (o - e) / v
	}
	return stat * float64(n-1) / float64(n)
}

func TestInclusionProbabilityChiSquare(t *testing.T) {
	algorithmR := func(r *Reservoir[int], item int, rng *rand.Rand) { r.Add(item, rng) }
	tests := []struct {
		name      string
		n, k      int
		runs      int
		seed      uint64
		persisted bool
	}{
		{"k=32 n=100", 100, 32, 20000, 1, false},
		{"k=32 n=400", 400, 32, 20000, 2, false},
		{"k=1 n=50", 50, 1, 40000, 3, false},
		{"k=5 n=6", 6, 5, 40000, 4, false},
		{"k=32 n=100 through JSON every item", 100, 32, 500, 5, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			add := algorithmR
			if tc.persisted {
				// The caller stores the reservoir between hook processes:
				// a JSON round trip before every Add must not bias it.
				add = func(r *Reservoir[int], item int, rng *rand.Rand) {
					back := roundTrip(t, r)
					back.Add(item, rng)
					*r = back
				}
			}
			stat := inclusionStat(tc.n, tc.k, tc.runs, tc.seed, add)
			t.Logf("chi-square %.1f, df %d", stat, tc.n-1)
			if crit := chiSquareCritical(float64(tc.n - 1)); stat > crit {
				t.Errorf("chi-square %.1f > %.1f (df %d, p = 0.001): inclusion is not k/n", stat, crit, tc.n-1)
			}
		})
	}
}

// TestChiSquareDetectsBias shows the statistic has power: samplers that are
// subtly wrong must fail it with the same settings.
func TestChiSquareDetectsBias(t *testing.T) {
	tests := []struct {
		name string
		add  func(r *Reservoir[int], item int, rng *rand.Rand)
	}{
		{"off by one: j from n+1 values", func(r *Reservoir[int], item int, rng *rand.Rand) {
			r.NSeen++
			if len(r.Items) < r.K {
				r.Items = append(r.Items, item)
				return
			}
			if j := rng.Int64N(r.NSeen + 1); j < int64(r.K) {
				r.Items[j] = item
			}
		}},
		{"recency: j from n/2 values", func(r *Reservoir[int], item int, rng *rand.Rand) {
			r.NSeen++
			if len(r.Items) < r.K {
				r.Items = append(r.Items, item)
				return
			}
			if j := rng.Int64N(r.NSeen/2 + 1); j < int64(r.K) {
				r.Items[j] = item
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stat := inclusionStat(100, 32, 20000, 1, tc.add)
			t.Logf("chi-square %.1f, df 99", stat)
			if crit := chiSquareCritical(99); stat <= crit {
				t.Errorf("biased sampler passed: chi-square %.1f <= %.1f", stat, crit)
			}
		})
	}
}

func TestPersistedStreamContinues(t *testing.T) {
	// Stopping, saving and reloading mid-stream gives the same reservoir as
	// one uninterrupted run with the same RNG.
	straight := New[turn](DefaultK)
	rng1 := rand.New(rand.NewPCG(7, 7))
	for i := range 500 {
		straight.Add(turn{Turn: i, Score: float64(i) / 500, Tool: "Read"}, rng1)
	}

	rng2 := rand.New(rand.NewPCG(7, 7))
	r := New[turn](DefaultK)
	for i := range 500 {
		back := roundTrip(t, r)
		if err := back.Validate(); err != nil {
			t.Fatalf("after %d items: %v", i, err)
		}
		back.Add(turn{Turn: i, Score: float64(i) / 500, Tool: "Read"}, rng2)
		r = &back
	}
	if !reflect.DeepEqual(straight, r) {
		t.Errorf("persisted run differs:\n%+v\n%+v", straight, r)
	}
}

func TestJSONShape(t *testing.T) {
	r := New[float64](2)
	rng := rand.New(rand.NewPCG(1, 2))
	r.Add(0.5, rng)
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(raw), `{"k":2,"n_seen":1,"items":[0.5]}`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
}

func TestResetAndValidate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	r := New[int](4)
	for i := range 10 {
		r.Add(i, rng)
	}
	r.Reset()
	if r.NSeen != 0 || len(r.Items) != 0 {
		t.Fatalf("after Reset: %+v", r)
	}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}

	bad := []struct {
		name string
		r    Reservoir[int]
	}{
		{"zero k", Reservoir[int]{K: 0}},
		{"negative n_seen", Reservoir[int]{K: 2, NSeen: -1}},
		{"too many items", Reservoir[int]{K: 2, NSeen: 5, Items: []int{1, 2, 3}}},
		{"too few items", Reservoir[int]{K: 4, NSeen: 5, Items: []int{1, 2}}},
		{"items beyond n_seen", Reservoir[int]{K: 4, NSeen: 1, Items: []int{1, 2}}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.r.Validate(); !errors.Is(err, ErrInvalid) {
				t.Errorf("Validate = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestBootstrapSmallAndDegenerate(t *testing.T) {
	tests := []struct {
		name         string
		xs           []float64
		mean         float64
		insufficient bool
	}{
		{"original test: empty", nil, 0, true},
		{"original test: one value", []float64{0.7}, 0.7, true},
		{"four values", []float64{0.1, 0.2, 0.3, 0.4}, 0.25, true},
		{"five values is enough", []float64{0.5, 0.5, 0.5, 0.5, 0.5}, 0.5, false},
		{"constant 32", slices.Repeat([]float64{0.1}, 32), mean(slices.Repeat([]float64{0.1}, 32)), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ci := Bootstrap(tc.xs, 0, rand.New(rand.NewPCG(1, 2)))
			if ci.N != len(tc.xs) || ci.Insufficient != tc.insufficient || math.Abs(ci.Mean-tc.mean) > 1e-15 {
				t.Fatalf("Bootstrap = %+v, want N %d mean %v insufficient %v", ci, len(tc.xs), tc.mean, tc.insufficient)
			}
			// Constant data and too few values both collapse to the mean.
			if ci.Lo != ci.Mean || ci.Hi != ci.Mean {
				t.Errorf("Lo, Hi = %v, %v, want both %v", ci.Lo, ci.Hi, ci.Mean)
			}
		})
	}
}

func TestBootstrapMatchesNormalTheory(t *testing.T) {
	// For a large sample the bootstrap distribution of the mean is close to
	// normal with sd s/√n, so the interval is close to mean ± 1.96·s/√n.
	for seed := range uint64(5) {
		rng := rand.New(rand.NewPCG(seed, 11))
		xs := make([]float64, 400)
		for i := range xs {
			xs[i] = 0.6 + 0.15*rng.NormFloat64()
		}
		m := mean(xs)
		var ss float64
		for _, x := range xs {
			ss += (x - m) * (x - m)
		}
		half := 1.96 * math.Sqrt(ss/float64(len(xs)-1)) / math.Sqrt(float64(len(xs)))
		ci := Bootstrap(xs, DefaultResamples, rng)
		// 1,000 resamples pin a 2.5 % point to about ±5 % of the half-width.
		tol := 0.15 * half
		if math.Abs(ci.Lo-(m-half)) > tol || math.Abs(ci.Hi-(m+half)) > tol {
			t.Errorf("seed %d: CI [%.5f, %.5f], normal theory [%.5f, %.5f] ± %.5f", seed, ci.Lo, ci.Hi, m-half, m+half, tol)
		}
		if !(ci.Lo < ci.Mean && ci.Mean < ci.Hi) {
			t.Errorf("seed %d: mean %v outside [%v, %v]", seed, ci.Mean, ci.Lo, ci.Hi)
		}
	}
}

func TestBootstrapCoverage(t *testing.T) {
	// Repeated samples of 32 from a known distribution: the share of
	// intervals that contain the true mean is close to 95 %. The percentile
	// bootstrap runs a little short at this size (about 93 %).
	const trials, trueMean = 600, 0.55
	rng := rand.New(rand.NewPCG(21, 22))
	hits := 0
	xs := make([]float64, 32)
	for range trials {
		for i := range xs {
			xs[i] = trueMean + 0.1*rng.NormFloat64()
		}
		ci := Bootstrap(xs, DefaultResamples, rng)
		if ci.Lo <= trueMean && trueMean <= ci.Hi {
			hits++
		}
	}
	if cov := float64(hits) / trials; cov < 0.89 || cov > 0.98 {
		t.Errorf("coverage %.3f, want about 0.95", cov)
	}
}

func TestBootstrapProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for n := range 2000 {
		xs := make([]float64, MinBootstrapN+rng.IntN(40))
		for i := range xs {
			xs[i] = rng.Float64()
		}
		ci := Bootstrap(xs, 200, rng)
		lo, hi := slices.Min(xs), slices.Max(xs)
		if ci.Insufficient || !(lo <= ci.Lo && ci.Lo <= ci.Mean && ci.Mean <= ci.Hi && ci.Hi <= hi) {
			t.Fatalf("case %d: %+v not within [min %v, max %v] around the mean", n, ci, lo, hi)
		}
	}
}

func TestBootstrapReproducible(t *testing.T) {
	xs := []float64{0.2, 0.9, 0.4, 0.6, 0.8, 0.1, 0.3}
	a := Bootstrap(xs, 0, rand.New(rand.NewPCG(5, 5)))
	b := Bootstrap(xs, 0, rand.New(rand.NewPCG(5, 5)))
	c := Bootstrap(xs, 0, rand.New(rand.NewPCG(6, 6)))
	if a != b {
		t.Errorf("same seed, different CI: %+v vs %+v", a, b)
	}
	if a == c {
		t.Errorf("different seeds gave the identical CI %+v", a)
	}
}

// FuzzReservoir feeds reservoirs as they would arrive from a damaged or
// edited reservoir.json: Validate must catch every state that Add or
// Bootstrap cannot use, and a valid one must stay valid.
func FuzzReservoir(f *testing.F) {
	f.Add([]byte(`{"k":32,"n_seen":3,"items":[0.1,0.2,0.3]}`), uint64(1), uint8(40))
	f.Add([]byte(`{"k":2,"n_seen":9,"items":[0.5,0.7]}`), uint64(2), uint8(3))
	f.Add([]byte(`{"k":4,"n_seen":9,"items":[0.5]}`), uint64(3), uint8(3))
	f.Add([]byte(`{"k":1,"n_seen":9223372036854775806,"items":[1]}`), uint64(4), uint8(5))
	f.Add([]byte(`{}`), uint64(5), uint8(1))
	f.Fuzz(func(t *testing.T, raw []byte, seed uint64, adds uint8) {
		var r Reservoir[float64]
		if json.Unmarshal(raw, &r) != nil || r.Validate() != nil {
			return
		}
		rng := rand.New(rand.NewPCG(seed, seed))
		for i := range int(adds) {
			if r.NSeen == math.MaxInt64 {
				break
			}
			n := r.NSeen
			slot := r.Add(float64(i), rng)
			if slot >= r.K || slot < -1 || r.NSeen != n+1 {
				t.Fatalf("Add returned slot %d with k %d, n_seen %d -> %d", slot, r.K, n, r.NSeen)
			}
			if err := r.Validate(); err != nil {
				t.Fatalf("valid reservoir became invalid after Add: %v", err)
			}
		}
		ci := Bootstrap(r.Items, 50, rng)
		if ci.N != len(r.Items) || ci.Insufficient != (ci.N < MinBootstrapN) {
			t.Fatalf("Bootstrap = %+v for %d items", ci, len(r.Items))
		}
	})
}

func BenchmarkAdd(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	r := New[turn](DefaultK)
	i := 0
	for b.Loop() {
		r.Add(turn{Turn: i, Score: 0.5, Tool: "Edit"}, rng)
		i++
	}
}

func BenchmarkBootstrap32(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, DefaultK)
	for i := range xs {
		xs[i] = rng.Float64()
	}
	b.ReportAllocs()
	for b.Loop() {
		Bootstrap(xs, DefaultResamples, rng)
	}
}

// roundTrip is r stored as JSON and read back, as between hook processes.
func roundTrip[T any](t *testing.T, r *Reservoir[T]) Reservoir[T] {
	t.Helper()
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Reservoir[T]
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	return back
}
