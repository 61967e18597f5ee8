// Package hmm infers whether a coding agent is on task, on a side quest or
// lost, from a short window of opaque observations, with a three-state hidden
// Markov model: engine D2 of seed 003.
//
// Algorithm: the forward–backward pass and the re-estimation formula of
// Baum–Welch, which the seed cites as Baum and Welch (1970), "An inequality
// and associated maximization technique in statistical estimation for
// probabilistic functions of Markov processes", Inequalities III:1–8 (in
// print: L. E. Baum, 1972; the formulas also appear in Baum, Petrie, Soules
// and Weiss, Ann. Math. Statist. 41(1):164–171, 1970). Per-step
// normalisation follows Rabiner (1989, §V.A), so that long sequences neither
// underflow nor overflow. The procedure is the seed's, not full EM:
//
//  1. one forward–backward pass with the initial emission table;
//  2. one re-estimation of the emission table B only, add-ε smoothed over
//     the vocabulary V of symbols seen in the window:
//     b_i(k) = (Σ_t γ_t(i)·[o_t = k] + ε) / (Σ_t γ_t(i) + |V|·ε);
//     π and A stay fixed (domain priors);
//  3. a second forward–backward pass with the re-estimated B;
//  4. label_t = argmax_i γ_t(i) (ties go to the lower state: OnTask first);
//  5. the tail rule ([Tail]): among the last 5 labels, ≥ 3 Lost gives
//     [DriftLost], else ≥ 3 SideQuest gives [DriftSideQuest], else
//     [DriftRefocus].
//
// The seed's model ([Seed]) is π = (0.8, 0.15, 0.05) and
// A = [[.80 .15 .05] [.30 .60 .10] [.10 .20 .70]], with B starting uniform
// over the observed vocabulary. Observations are opaque comparable symbols
// (the caller passes strings such as "edit|on_topic", or small ints); they
// are interned per call.
//
// Three ways to run it:
//
//   - Seed: B starts uniform (Options.Emission nil), then re-estimation. A
//     uniform B makes every observation equally likely under every state,
//     so the first pass's γ is just the Markov chain's prior marginals
//     under π and A, and the re-estimated B is those marginals averaged per
//     symbol, close to uniform. Labels are driven by π and A, not by the
//     observations: with the seed's numbers every step comes out OnTask in
//     every window tried (a test checks 10,000 random ones). This is the
//     seed's model, implemented faithfully; it cannot say Lost.
//   - Informed start, then re-estimation (Options.Emission). The caller
//     gives, per symbol, the likelihood of that symbol under each state
//     (say "read|off_topic" ten times likelier under Lost than under
//     OnTask). Only ratios across states matter to the posteriors, so the
//     values need not sum to one over any vocabulary; symbols the map does
//     not list are neutral (1, 1, 1). The first pass carries the meaning;
//     the re-estimation then refits B to this window alone, normalised per
//     state over the window's vocabulary, which loses some of it: a window
//     of one symbol gets B = 1 under every state and falls back to the
//     priors (64 off-topic observations come out all OnTask); a symbol the
//     on-task steps never emit is absorbed by the other states (five
//     unlisted, "neutral" symbols after on-topic work come out Lost); and
//     Lost's stickier self-transition takes over runs the initial table
//     called SideQuest. Tests pin each of these.
//   - Informed, fixed (Options.FixedEmission): one pass with the caller's
//     table, no re-estimation: ordinary HMM smoothing with fixed
//     parameters. When the observations mean something on their own, this
//     is the mode that keeps that meaning; it is not the seed's procedure.
//
// The seed fed this model topic tags computed from the D1 alignment score,
// which made D2 circular with D1; observations must come from something
// else (tool kinds, files inside or outside the goal's scope, failures).
//
// Numerical safety: each symbol's emission vector is rescaled so that its
// largest entry is 1 and floored at 1e-100 of it (γ is invariant under a
// per-symbol rescaling; the floor only touches likelihood ratios beyond
// 10^100, which no caller needs), and α and β are normalised at every step.
// What still cannot be represented (see [ErrDegenerate]) is an error, never
// a NaN.
package hmm

import (
	"errors"
	"fmt"
	"math"
)

// State is a hidden state of the model.
type State uint8

// The three hidden states, in the order of π, A and the emission vectors.
const (
	OnTask State = iota
	SideQuest
	Lost
)

// NumStates is the number of hidden states.
const NumStates = 3

// String returns the state's name as the seed spells it.
func (s State) String() string {
	switch s {
	case OnTask:
		return "ON_TASK"
	case SideQuest:
		return "SIDEQUEST"
	case Lost:
		return "LOST"
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Window is the observation window the design runs the model over (the
// seed's 64 observations). The package itself takes any length.
const Window = 64

// DefaultEpsilon is the add-ε smoothing of the B re-estimation.
const DefaultEpsilon = 1e-6

// emissionFloor bounds likelihood ratios across states, so that a normaliser
// can never underflow to zero (see the package doc).
const emissionFloor = 1e-100

// ErrDegenerate reports a model and sequence whose posterior cannot be
// represented: every path's probability underflows even with per-step
// normalisation. It needs zeros in a caller's π or A (so that mass cannot
// move between states) together with extreme emission ratios; the seed's
// model, whose A has no zeros, never produces it.
var ErrDegenerate = errors.New("hmm: sequence is numerically impossible under the model")

// Model holds the fixed parameters: the initial distribution and the
// transition matrix (A[i][j] = P(s_{t+1} = j | s_t = i)).
type Model struct {
	Pi [NumStates]float64
	A  [NumStates][NumStates]float64
}

// Seed returns the seed's model: π = (0.8, 0.15, 0.05) and a transition
// matrix whose strong Lost self-transition says that an agent truly off
// task rarely recovers within a few turns.
func Seed() Model {
	return Model{
		Pi: [NumStates]float64{0.8, 0.15, 0.05},
		A: [NumStates][NumStates]float64{
			{0.80, 0.15, 0.05},
			{0.30, 0.60, 0.10},
			{0.10, 0.20, 0.70},
		},
	}
}

// stochasticTolerance is how far from 1 a probability row may sum.
const stochasticTolerance = 1e-9

// Validate reports whether π and every row of A are probability vectors.
func (m Model) Validate() error {
	if err := checkDistribution(m.Pi[:]); err != nil {
		return fmt.Errorf("hmm: initial distribution: %w", err)
	}
	for i := range m.A {
		if err := checkDistribution(m.A[i][:]); err != nil {
			return fmt.Errorf("hmm: transition row %d: %w", i, err)
		}
	}
	return nil
}

var errNotDistribution = errors.New("not a probability vector")

func checkDistribution(p []float64) error {
	sum := 0.0
	for _, v := range p {
		if !(v >= 0 && v <= 1) { // also catches NaN
			return fmt.Errorf("entry %v: %w", v, errNotDistribution)
		}
		sum += v
	}
	if math.Abs(sum-1) > stochasticTolerance {
		return fmt.Errorf("sums to %v: %w", sum, errNotDistribution)
	}
	return nil
}

// Options tunes one inference. The zero value is the seed's procedure.
type Options[S comparable] struct {
	// Epsilon is the add-ε smoothing of the B re-estimation; 0 means
	// DefaultEpsilon. It must be positive: with ε = 0 a state that never
	// holds mass would divide zero by zero.
	Epsilon float64
	// Emission, when non-nil, is the informed initial emission table:
	// Emission[sym][i] is proportional to P(sym | state i). Entries must be
	// positive and finite. Symbols it does not list are neutral (1, 1, 1).
	// Nil means the seed's uniform start.
	Emission map[S][NumStates]float64
	// FixedEmission skips the re-estimation: the labels come from one
	// forward–backward pass with the initial table, and Result.B is nil.
	// Not the seed's procedure; see the package doc for when it is the
	// right one.
	FixedEmission bool
}

// Result is the outcome of [Infer].
type Result[S comparable] struct {
	// Gamma[t][i] = P(s_t = i | observations), from the second pass. Each
	// row sums to 1.
	Gamma [][NumStates]float64
	// Labels[t] = argmax_i Gamma[t][i].
	Labels []State
	// Symbols is the window's vocabulary in order of first appearance, and
	// B[k][i] the re-estimated P(Symbols[k] | state i); for every state i,
	// Σ_k B[k][i] = 1. B is nil under Options.FixedEmission.
	Symbols []S
	B       [][NumStates]float64
}

// Infer runs the seed's procedure (pass, re-estimate B, pass, argmax) over
// obs, or a single pass under Options.FixedEmission. An empty sequence gives
// an empty result.
func Infer[S comparable](m Model, obs []S, opts Options[S]) (Result[S], error) {
	if err := m.Validate(); err != nil {
		return Result[S]{}, err
	}
	eps := opts.Epsilon
	if eps == 0 {
		eps = DefaultEpsilon
	}
	if !(eps > 0) || math.IsInf(eps, 1) {
		return Result[S]{}, fmt.Errorf("hmm: epsilon %v must be positive and finite", eps)
	}

	// Intern the symbols; ids are dense, in order of first appearance.
	ids := make([]int, len(obs))
	index := make(map[S]int)
	var symbols []S
	for t, o := range obs {
		k, ok := index[o]
		if !ok {
			k = len(symbols)
			index[o] = k
			symbols = append(symbols, o)
		}
		ids[t] = k
	}
	v := len(symbols)

	// One allocation for every table: the hot path runs once per hook.
	T := len(obs)
	tables := make([][NumStates]float64, 3*T+2*v)
	emission := tables[3*T+v:]
	for k, sym := range symbols {
		e := [NumStates]float64{1, 1, 1}
		if opts.Emission != nil {
			if given, ok := opts.Emission[sym]; ok {
				for i, x := range given {
					if !(x > 0) || math.IsInf(x, 1) {
						return Result[S]{}, fmt.Errorf("hmm: emission of %v under %v is %v, want positive and finite", sym, State(i), x)
					}
				}
				e = given
			}
		}
		emission[k] = e
	}

	res := Result[S]{
		Gamma:   tables[:T:T],
		Labels:  make([]State, T),
		Symbols: symbols,
	}
	if T == 0 {
		return res, nil
	}
	alpha, beta := tables[T:2*T], tables[2*T:3*T]

	// Pass 1 with the initial B.
	if err := posteriors(&m, ids, conditioned(emission), alpha, beta, res.Gamma); err != nil {
		return Result[S]{}, err
	}
	if opts.FixedEmission {
		label(&res)
		return res, nil
	}

	// Re-estimate B only, add-ε smoothed over the window's vocabulary.
	res.B = tables[3*T : 3*T+v : 3*T+v]
	var mass [NumStates]float64
	for t, k := range ids {
		for i := range NumStates {
			res.B[k][i] += res.Gamma[t][i]
			mass[i] += res.Gamma[t][i]
		}
	}
	for k := range res.B {
		for i := range NumStates {
			res.B[k][i] = (res.B[k][i] + eps) / (mass[i] + float64(v)*eps)
		}
	}

	// Pass 2 with the re-estimated B, then per-step argmax.
	copy(emission, res.B)
	if err := posteriors(&m, ids, conditioned(emission), alpha, beta, res.Gamma); err != nil {
		return Result[S]{}, err
	}
	label(&res)
	return res, nil
}

func label[S comparable](res *Result[S]) {
	for t, g := range res.Gamma {
		res.Labels[t] = argmax(g)
	}
}

// conditioned rescales each symbol's emission vector so its largest entry
// is 1 and floors the others at emissionFloor, in place. γ does not change:
// a per-symbol factor multiplies every path through that step equally.
func conditioned(e [][NumStates]float64) [][NumStates]float64 {
	for k := range e {
		top := max(e[k][0], e[k][1], e[k][2])
		for i := range NumStates {
			e[k][i] = max(e[k][i]/top, emissionFloor)
		}
	}
	return e
}

// posteriors is one scaled forward–backward pass: gamma[t][i] =
// P(s_t = i | o_1..o_T). alpha and beta are scratch of length len(ids).
// Each α_t is normalised to sum 1 (the Rabiner scaling); each β_t is
// normalised by its own sum rather than by α's scale factor, which keeps it
// bounded too. Both are per-step constants, which cancel in γ.
func posteriors(m *Model, ids []int, b [][NumStates]float64, alpha, beta, gamma [][NumStates]float64) error {
	T := len(ids)
	var a [NumStates]float64
	for i := range NumStates {
		a[i] = m.Pi[i] * b[ids[0]][i]
	}
	if err := normalise(&a); err != nil {
		return err
	}
	alpha[0] = a
	for t := 1; t < T; t++ {
		prev := &alpha[t-1]
		e := &b[ids[t]]
		for j := range NumStates {
			a[j] = (prev[0]*m.A[0][j] + prev[1]*m.A[1][j] + prev[2]*m.A[2][j]) * e[j]
		}
		if err := normalise(&a); err != nil {
			return err
		}
		alpha[t] = a
	}

	beta[T-1] = [NumStates]float64{1, 1, 1}
	for t := T - 2; t >= 0; t-- {
		next := &beta[t+1]
		e := &b[ids[t+1]]
		var w [NumStates]float64
		for j := range NumStates {
			w[j] = e[j] * next[j]
		}
		var bt [NumStates]float64
		for i := range NumStates {
			bt[i] = m.A[i][0]*w[0] + m.A[i][1]*w[1] + m.A[i][2]*w[2]
		}
		if err := normalise(&bt); err != nil {
			return err
		}
		beta[t] = bt
	}

	for t := range T {
		var g [NumStates]float64
		for i := range NumStates {
			g[i] = alpha[t][i] * beta[t][i]
		}
		if err := normalise(&g); err != nil {
			return err
		}
		gamma[t] = g
	}
	return nil
}

func normalise(p *[NumStates]float64) error {
	s := p[0] + p[1] + p[2]
	if !(s > 0) || math.IsInf(s, 1) {
		return ErrDegenerate
	}
	inv := 1 / s
	p[0] *= inv
	p[1] *= inv
	p[2] *= inv
	return nil
}

func argmax(g [NumStates]float64) State {
	best := OnTask
	for i := State(1); i < NumStates; i++ {
		if g[i] > g[best] {
			best = i
		}
	}
	return best
}

// Drift is the tail rule's verdict on the kind of drift.
type Drift string

// The tail rule's verdicts.
const (
	DriftLost      Drift = "lost"
	DriftSideQuest Drift = "side_quest"
	DriftRefocus   Drift = "refocus"
)

// TailLength and TailQuorum define the tail rule: among the last TailLength
// labels, TailQuorum of one kind decide.
const (
	TailLength = 5
	TailQuorum = 3
)

// Tail applies the seed's tail rule to the last TailLength labels (all of
// them if there are fewer): ≥ 3 Lost → DriftLost; else ≥ 3 SideQuest →
// DriftSideQuest; else DriftRefocus. With at most five labels both quorums
// cannot hold at once, so the order of the checks does not matter.
func Tail(labels []State) Drift {
	if len(labels) > TailLength {
		labels = labels[len(labels)-TailLength:]
	}
	var lost, side int
	for _, l := range labels {
		switch l {
		case Lost:
			lost++
		case SideQuest:
			side++
		}
	}
	switch {
	case lost >= TailQuorum:
		return DriftLost
	case side >= TailQuorum:
		return DriftSideQuest
	}
	return DriftRefocus
}
