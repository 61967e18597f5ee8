package hmm

import (
	"math"
)

// This file holds the independent oracles: exhaustive enumeration of state
// paths (short sequences) and a log-space forward–backward (long ones).
// Neither shares code with the package: they work on plain probabilities or
// logarithms, with no rescaling, flooring or normalising step.

// oracleEmission is the initial B as the seed defines it: uniform 1/V over
// the window's vocabulary, or the caller's informed likelihoods as given.
func oracleEmission(symbols []int, informed map[int][NumStates]float64) map[int][NumStates]float64 {
	vocab := map[int]bool{}
	for _, s := range symbols {
		vocab[s] = true
	}
	b := map[int][NumStates]float64{}
	for s := range vocab {
		u := 1 / float64(len(vocab))
		e := [NumStates]float64{u, u, u}
		if informed != nil {
			if given, ok := informed[s]; ok {
				e = given
			}
		}
		b[s] = e
	}
	return b
}

// enumeratePosteriors computes γ_t(i) by summing the joint probability of
// every one of the 3^T state paths.
func enumeratePosteriors(m Model, obs []int, b map[int][NumStates]float64) [][NumStates]float64 {
	T := len(obs)
	gamma := make([][NumStates]float64, T)
	path := make([]int, T)
	total := 0.0
	n := 1
	for range T {
		n *= NumStates
	}
	for code := range n {
		c := code
		for t := range T {
			path[t] = c % NumStates
			c /= NumStates
		}
		p := m.Pi[path[0]] * b[obs[0]][path[0]]
		for t := 1; t < T; t++ {
			p *= m.A[path[t-1]][path[t]] * b[obs[t]][path[t]]
		}
		total += p
		for t := range T {
			gamma[t][path[t]] += p
		}
	}
	for t := range gamma {
		for i := range NumStates {
			gamma[t][i] /= total
		}
	}
	return gamma
}

// reestimate is the seed's M-step for B alone, add-ε smoothed over the
// observed vocabulary.
func reestimate(obs []int, gamma [][NumStates]float64, eps float64) map[int][NumStates]float64 {
	counts := map[int][NumStates]float64{}
	var mass [NumStates]float64
	for t, o := range obs {
		c := counts[o]
		for i := range NumStates {
			c[i] += gamma[t][i]
			mass[i] += gamma[t][i]
		}
		counts[o] = c
	}
	v := float64(len(counts))
	b := map[int][NumStates]float64{}
	for o, c := range counts {
		var e [NumStates]float64
		for i := range NumStates {
			e[i] = (c[i] + eps) / (mass[i] + v*eps)
		}
		b[o] = e
	}
	return b
}

// oracleRun is the whole seed procedure on top of a posterior oracle.
func oracleRun(m Model, obs []int, informed map[int][NumStates]float64, eps float64,
	post func(Model, []int, map[int][NumStates]float64) [][NumStates]float64,
) (gamma [][NumStates]float64, b map[int][NumStates]float64) {
	g1 := post(m, obs, oracleEmission(obs, informed))
	b = reestimate(obs, g1, eps)
	return post(m, obs, b), b
}

func logSumExp(xs ...float64) float64 {
	top := math.Inf(-1)
	for _, x := range xs {
		top = max(top, x)
	}
	if math.IsInf(top, -1) {
		return top
	}
	s := 0.0
	for _, x := range xs {
		s += math.Exp(x - top)
	}
	return top + math.Log(s)
}

// logPosteriors is forward–backward carried out in log space, where nothing
// underflows. Each log vector is shifted so that its largest entry is 0
// (a constant that cancels in γ); without the shift the magnitudes reach
// 10^4 after 10,000 steps and their rounding alone costs 1e-9.
func logPosteriors(m Model, obs []int, b map[int][NumStates]float64) [][NumStates]float64 {
	T := len(obs)
	la := make([][NumStates]float64, T)
	lb := make([][NumStates]float64, T)
	logb := func(t, i int) float64 { return math.Log(b[obs[t]][i]) }
	shift := func(v *[NumStates]float64) {
		top := max(v[0], v[1], v[2])
		for i := range v {
			v[i] -= top
		}
	}
	for i := range NumStates {
		la[0][i] = math.Log(m.Pi[i]) + logb(0, i)
	}
	shift(&la[0])
	for t := 1; t < T; t++ {
		for j := range NumStates {
			la[t][j] = logSumExp(
				la[t-1][0]+math.Log(m.A[0][j]),
				la[t-1][1]+math.Log(m.A[1][j]),
				la[t-1][2]+math.Log(m.A[2][j]),
			) + logb(t, j)
		}
		shift(&la[t])
	}
	for t := T - 2; t >= 0; t-- {
		for i := range NumStates {
			var terms [NumStates]float64
			for j := range NumStates {
				terms[j] = math.Log(m.A[i][j]) + logb(t+1, j) + lb[t+1][j]
			}
			lb[t][i] = logSumExp(terms[:]...)
		}
		shift(&lb[t])
	}
	gamma := make([][NumStates]float64, T)
	for t := range T {
		var l [NumStates]float64
		for i := range NumStates {
			l[i] = la[t][i] + lb[t][i]
		}
		z := logSumExp(l[:]...)
		for i := range NumStates {
			gamma[t][i] = math.Exp(l[i] - z)
		}
	}
	return gamma
}
