package hmm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

const oracleTolerance = 1e-9

func TestSeed(t *testing.T) {
	m := Seed()
	if err := m.Validate(); err != nil {
		t.Fatalf("seed model invalid: %v", err)
	}
	want := Model{
		Pi: [3]float64{0.8, 0.15, 0.05},
		A:  [3][3]float64{{.80, .15, .05}, {.30, .60, .10}, {.10, .20, .70}},
	}
	if m != want {
		t.Errorf("Seed() = %v, want %v", m, want)
	}
}

func TestStateString(t *testing.T) {
	tests := []struct {
		s    State
		want string
	}{
		{OnTask, "ON_TASK"},
		{SideQuest, "SIDEQUEST"},
		{Lost, "LOST"},
		{State(7), "State(7)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.s.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func labels(s string) []State {
	out := make([]State, len(s))
	for i, c := range s {
		switch c {
		case 'O':
			out[i] = OnTask
		case 'S':
			out[i] = SideQuest
		case 'L':
			out[i] = Lost
		default:
			panic("bad label " + string(c))
		}
	}
	return out
}

func TestTail(t *testing.T) {
	tests := []struct {
		labels string
		want   Drift
	}{
		{"", DriftRefocus},
		{"OOOOO", DriftRefocus},
		{"LLLOO", DriftLost},
		{"OLOLL", DriftLost},
		{"SSSOO", DriftSideQuest},
		{"SOSOS", DriftSideQuest},
		{"LLSSO", DriftRefocus},
		{"LLSSS", DriftSideQuest},
		{"SSLLL", DriftLost},
		{"LLL", DriftLost},   // shorter than the tail: counted as is
		{"LL", DriftRefocus}, // too few to reach the quorum
		// Only the last five count.
		{"LLLLLOOOOO", DriftRefocus},
		{"OOOOOOOLLL", DriftLost},
		{"SSSSSSOSOO", DriftRefocus},
	}
	for _, tt := range tests {
		t.Run(tt.labels, func(t *testing.T) {
			if got := Tail(labels(tt.labels)); got != tt.want {
				t.Errorf("Tail(%s) = %s, want %s", tt.labels, got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	bad := func(f func(*Model)) Model {
		m := Seed()
		f(&m)
		return m
	}
	tests := []struct {
		name string
		m    Model
		ok   bool
	}{
		{"seed", Seed(), true},
		{"deterministic", Model{Pi: [3]float64{1, 0, 0}, A: [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, true},
		{"pi sums above one", bad(func(m *Model) { m.Pi[0] = 0.9 }), false},
		{"negative pi", bad(func(m *Model) { m.Pi = [3]float64{1.1, -0.1, 0} }), false},
		{"NaN in A", bad(func(m *Model) { m.A[1][1] = math.NaN() }), false},
		{"row of A short", bad(func(m *Model) { m.A[2][2] = 0.5 }), false},
		{"zero model", Model{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.m.Validate()
			if (err == nil) != tt.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, errNotDistribution) {
				t.Errorf("error %v does not wrap errNotDistribution", err)
			}
			if _, ierr := Infer(tt.m, []string{"a"}, Options[string]{}); (ierr == nil) != tt.ok {
				t.Errorf("Infer error = %v, want ok=%v", ierr, tt.ok)
			}
		})
	}
}

func TestInferRejects(t *testing.T) {
	tests := []struct {
		name string
		opts Options[string]
	}{
		{"negative epsilon", Options[string]{Epsilon: -1e-6}},
		{"NaN epsilon", Options[string]{Epsilon: math.NaN()}},
		{"infinite epsilon", Options[string]{Epsilon: math.Inf(1)}},
		{"zero emission", Options[string]{Emission: map[string][3]float64{"a": {1, 0, 1}}}},
		{"negative emission", Options[string]{Emission: map[string][3]float64{"a": {1, -1, 1}}}},
		{"infinite emission", Options[string]{Emission: map[string][3]float64{"a": {math.Inf(1), 1, 1}}}},
		{"NaN emission", Options[string]{Emission: map[string][3]float64{"a": {math.NaN(), 1, 1}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Infer(Seed(), []string{"a", "b"}, tt.opts); err == nil {
				t.Error("Infer accepted invalid options")
			}
		})
	}
	// A bad entry for a symbol that is not in the window is never looked at.
	opts := Options[string]{Emission: map[string][3]float64{"absent": {0, 0, 0}}}
	if _, err := Infer(Seed(), []string{"a"}, opts); err != nil {
		t.Errorf("entry for an absent symbol rejected: %v", err)
	}
}

func TestInferEmpty(t *testing.T) {
	res, err := Infer(Seed(), []string(nil), Options[string]{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Gamma) != 0 || len(res.Labels) != 0 || len(res.Symbols) != 0 || len(res.B) != 0 {
		t.Errorf("empty input gave %+v", res)
	}
}

func TestInferDegenerate(t *testing.T) {
	// Mass cannot leave OnTask, and each "x" is 10^300 times likelier under
	// the other states: after a few steps the only possible path's
	// probability is below anything a float64 holds.
	m := Model{Pi: [3]float64{1, 0, 0}, A: [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}
	opts := Options[string]{Emission: map[string][3]float64{"x": {1e-300, 1, 1}}}
	_, err := Infer(m, strings.Split("x x x x x x", " "), opts)
	if !errors.Is(err, ErrDegenerate) {
		t.Errorf("err = %v, want ErrDegenerate", err)
	}
}

// TestInferAgainstEnumeration checks both passes and the re-estimated B
// against exhaustive enumeration of all 3^T state paths, on thousands of
// random models, sequences and emission tables.
func TestInferAgainstEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(2024, 3))
	cases := 3000
	if testing.Short() {
		cases = 300
	}
	for c := range cases {
		m := randomModel(r)
		if c%4 == 0 {
			m = Seed()
		}
		T := 1 + r.IntN(8)
		v := 1 + r.IntN(5)
		obs := make([]int, T)
		for t := range obs {
			obs[t] = r.IntN(v) * 7 // sparse ids: interning must not care
		}
		var informed map[int][NumStates]float64
		if r.IntN(2) == 0 {
			informed = map[int][NumStates]float64{}
			for k := range v {
				if r.IntN(4) == 0 {
					continue // unlisted: neutral
				}
				informed[k*7] = [NumStates]float64{
					0.01 + 10*r.Float64(), 0.01 + 10*r.Float64(), 0.01 + 10*r.Float64(),
				}
			}
		}
		eps := []float64{0, 1e-6, 1e-3, 0.5, 2}[r.IntN(5)]

		fixed := informed != nil && c%3 == 0

		res, err := Infer(m, obs, Options[int]{Epsilon: eps, Emission: informed, FixedEmission: fixed})
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		oracleEps := eps
		if oracleEps == 0 {
			oracleEps = 1e-6
		}
		// The oracle's value for an unlisted symbol is 1/V under every
		// state, the package's is 1: a per-symbol constant, which γ must not
		// see, so the comparison checks that invariance too.
		var gamma [][NumStates]float64
		var b map[int][NumStates]float64
		if fixed {
			gamma = enumeratePosteriors(m, obs, oracleEmission(obs, informed))
		} else {
			gamma, b = oracleRun(m, obs, informed, oracleEps, enumeratePosteriors)
		}
		compare(t, c, obs, res, gamma, b)
	}
}

// TestLongSequence runs 10,000 steps: nothing may underflow, overflow or turn
// NaN, rows must sum to 1, and the result must agree with a log-space
// forward–backward, which needs no scaling at all.
func TestLongSequence(t *testing.T) {
	const T = 10000
	tests := []struct {
		name     string
		vocab    int
		informed func(r *rand.Rand, k int) [NumStates]float64
	}{
		{"uniform start", 12, nil},
		{"informed", 12, func(r *rand.Rand, k int) [NumStates]float64 {
			return [NumStates]float64{0.1 + r.Float64(), 0.1 + r.Float64(), 0.1 + r.Float64()}
		}},
		{"extreme ratios", 4, func(r *rand.Rand, k int) [NumStates]float64 {
			e := [NumStates]float64{1, 1, 1}
			e[k%NumStates] = 1e-90
			return e
		}},
		{"one symbol", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(len(tt.name))))
			obs := make([]int, T)
			// Runs of symbols, so that the posteriors move.
			for t := 0; t < T; {
				k := r.IntN(tt.vocab)
				for n := 1 + r.IntN(20); n > 0 && t < T; n-- {
					obs[t] = k
					t++
				}
			}
			var informed map[int][NumStates]float64
			if tt.informed != nil {
				informed = map[int][NumStates]float64{}
				for k := range tt.vocab {
					informed[k] = tt.informed(r, k)
				}
			}
			res, err := Infer(Seed(), obs, Options[int]{Emission: informed})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, res)
			gamma, b := oracleRun(Seed(), obs, informed, DefaultEpsilon, logPosteriors)
			compare(t, 0, obs, res, gamma, b)
		})
	}
}

// TestUniformStartFollowsPriors pins down what the seed's own model does:
// with B starting uniform, the first pass sees no evidence, the
// re-estimated B stays close to uniform, and every label comes out OnTask
// whatever the window holds. The package doc states this; the test keeps it
// true.
func TestUniformStartFollowsPriors(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	for c := range 10000 {
		T := 1 + r.IntN(Window)
		v := 1 + r.IntN(10)
		obs := make([]int, T)
		for t := range obs {
			obs[t] = r.IntN(v)
		}
		res, err := Infer(Seed(), obs, Options[int]{})
		if err != nil {
			t.Fatal(err)
		}
		for t2, l := range res.Labels {
			if l != OnTask {
				t.Fatalf("case %d: label %d of %v is %v", c, t2, obs, l)
			}
		}
	}
}

// TestInformedScenarios checks that, with an informed emission table, the
// observations carry the meaning a caller gives them, and pins down where
// the seed's re-estimation loses it (see the package doc).
func TestInformedScenarios(t *testing.T) {
	emission := map[string][NumStates]float64{
		"edit|on_topic":  {1, 0.3, 0.1},
		"read|on_topic":  {1, 0.5, 0.2},
		"read|side":      {0.2, 1, 0.3},
		"read|off_topic": {0.1, 0.3, 1},
		"bash|off_topic": {0.1, 0.3, 1},
	}
	rep := func(s string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name string
		obs  []string
		// Expected tail verdicts with and without re-estimation.
		reestimated, fixed Drift
	}{
		{"all on topic", rep("edit|on_topic", 64), DriftRefocus, DriftRefocus},
		// A sustained run of evidence for Lost at the end outweighs the
		// prior either way.
		{"off-topic run at the end", cat(rep("edit|on_topic", 56), rep("read|off_topic", 4), rep("bash|off_topic", 4)), DriftLost, DriftLost},
		{"short off-topic run", cat(rep("edit|on_topic", 61), rep("read|off_topic", 3)), DriftLost, DriftLost},
		// One blip is not enough for three of the last five labels.
		{"one off-topic blip", cat(rep("edit|on_topic", 60), rep("bash|off_topic", 1), rep("edit|on_topic", 3)), DriftRefocus, DriftRefocus},
		{"came back from a detour", cat(rep("edit|on_topic", 40), rep("read|off_topic", 16), rep("edit|on_topic", 8)), DriftRefocus, DriftRefocus},
		// With one symbol in the window the re-estimated B is 1 under every
		// state (b = (N_i+ε)/(N_i+ε)), so the second pass sees only π and
		// A, whose marginals favour OnTask throughout.
		{"all off topic", rep("read|off_topic", 64), DriftRefocus, DriftLost},
		// The on-task steps never emit the unlisted symbol, so the refit
		// hands it to the other states.
		{"unlisted symbols after on-topic work", cat(rep("edit|on_topic", 30), rep("webfetch|unknown", 5)), DriftLost, DriftRefocus},
		// The refit gives Lost and SideQuest similar likelihoods for the
		// side symbol (both states hold their mass there), and Lost's
		// stickier self-transition (0.7 against 0.6) wins the run.
		{"side run at the end", cat(rep("read|on_topic", 56), rep("read|side", 8)), DriftLost, DriftSideQuest},
	}
	for _, tt := range tests {
		for _, fixed := range []bool{false, true} {
			want := tt.reestimated
			if fixed {
				want = tt.fixed
			}
			t.Run(fmt.Sprintf("%s/fixed=%v", tt.name, fixed), func(t *testing.T) {
				res, err := Infer(Seed(), tt.obs, Options[string]{Emission: emission, FixedEmission: fixed})
				if err != nil {
					t.Fatal(err)
				}
				checkInvariants(t, res)
				if fixed != (res.B == nil) {
					t.Errorf("FixedEmission=%v but B = %v", fixed, res.B)
				}
				if got := Tail(res.Labels); got != want {
					t.Errorf("Tail = %s, want %s (labels %v)", got, want, res.Labels)
				}
			})
		}
	}
}

func compare(t *testing.T, c int, obs []int, res Result[int], gamma [][NumStates]float64, b map[int][NumStates]float64) {
	t.Helper()
	if len(res.Gamma) != len(obs) || len(res.Labels) != len(obs) {
		t.Fatalf("case %d: %d posteriors, %d labels for %d observations", c, len(res.Gamma), len(res.Labels), len(obs))
	}
	for ti := range obs {
		for i := range NumStates {
			if d := math.Abs(res.Gamma[ti][i] - gamma[ti][i]); !(d <= oracleTolerance) {
				t.Fatalf("case %d obs %v: γ[%d][%d] = %v, oracle %v (|Δ| = %g)", c, short(obs), ti, i, res.Gamma[ti][i], gamma[ti][i], d)
			}
		}
		// The label is the oracle's argmax unless the top two are within
		// the tolerance of each other.
		g := gamma[ti]
		l := res.Labels[ti]
		for i := range NumStates {
			if g[i] > g[l]+oracleTolerance {
				t.Fatalf("case %d: label[%d] = %v but oracle γ = %v", c, ti, l, g)
			}
		}
	}
	if b == nil { // fixed emission: no re-estimated table
		if res.B != nil {
			t.Fatalf("case %d: B = %v under FixedEmission", c, res.B)
		}
		return
	}
	if len(res.Symbols) != len(b) {
		t.Fatalf("case %d: vocabulary %v, oracle has %d symbols", c, res.Symbols, len(b))
	}
	for k, sym := range res.Symbols {
		want, ok := b[sym]
		if !ok {
			t.Fatalf("case %d: symbol %v not observed", c, sym)
		}
		for i := range NumStates {
			if d := math.Abs(res.B[k][i] - want[i]); !(d <= oracleTolerance) {
				t.Fatalf("case %d: B[%v][%d] = %v, oracle %v", c, sym, i, res.B[k][i], want[i])
			}
		}
	}
}

// checkInvariants holds for every result: finite posteriors in [0, 1]
// whose rows sum to 1, labels that are their argmax, and an emission table
// whose columns are distributions over the vocabulary.
func checkInvariants[S comparable](t *testing.T, res Result[S]) {
	t.Helper()
	for ti, g := range res.Gamma {
		sum := 0.0
		for _, p := range g {
			if math.IsNaN(p) || p < 0 || p > 1 {
				t.Fatalf("γ[%d] = %v", ti, g)
			}
			sum += p
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("γ[%d] sums to %v", ti, sum)
		}
		if l := res.Labels[ti]; g[l] < max(g[0], g[1], g[2]) {
			t.Fatalf("label[%d] = %v is not the argmax of %v", ti, l, g)
		}
	}
	var col [NumStates]float64
	for k, e := range res.B {
		for i, p := range e {
			if math.IsNaN(p) || math.IsInf(p, 0) || p <= 0 || p > 1 {
				t.Fatalf("B[%d] = %v", k, e)
			}
			col[i] += p
		}
	}
	if len(res.B) > 0 {
		for i, s := range col {
			if math.Abs(s-1) > 1e-9 {
				t.Fatalf("B column %d sums to %v", i, s)
			}
		}
	}
}

func randomModel(r *rand.Rand) Model {
	row := func() [NumStates]float64 {
		for {
			var p [NumStates]float64
			s := 0.0
			for i := range p {
				if r.IntN(8) != 0 { // sometimes an exact zero
					p[i] = r.Float64()
				}
				s += p[i]
			}
			if s == 0 {
				continue
			}
			for i := range p {
				p[i] /= s
			}
			return p
		}
	}
	var m Model
	m.Pi = row()
	for i := range m.A {
		m.A[i] = row()
	}
	return m
}

func short(obs []int) any {
	if len(obs) > 16 {
		return fmt.Sprintf("(%d observations)", len(obs))
	}
	return obs
}
