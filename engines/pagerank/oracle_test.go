package pagerank

import "math"

// exactRanks solves the PageRank linear system directly, with the same
// dangling rule, by Gaussian elimination with partial pivoting:
//
//	(I − d·S) x = (1−d)/N · 1,  S[j][i] = 1/L(i) for each edge i→j,
//	                             S[j][i] = 1/N for every j if i is dangling.
//
// It shares nothing with the power iteration. out lists each node's
// distinct successors.
func exactRanks(out [][]int, d float64) []float64 {
	n := len(out)
	a := make([][]float64, n)
	for j := range a {
		a[j] = make([]float64, n+1)
		a[j][j] = 1
		a[j][n] = (1 - d) / float64(n)
	}
	for i, succ := range out {
		if len(succ) == 0 {
			for j := range n {
				a[j][i] -= d / float64(n)
			}
			continue
		}
		for _, j := range succ {
			a[j][i] -= d / float64(len(succ))
		}
	}
	for col := range n {
		p := col
		for r := col + 1; r < n; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		a[col], a[p] = a[p], a[col]
		for r := col + 1; r < n; r++ {
			f := a[r][col] / a[col][col]
			for c := col; c <= n; c++ {
				a[r][c] -= f * a[col][c]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := a[r][n]
		for c := r + 1; c < n; c++ {
			s -= a[r][c] * x[c]
		}
		x[r] = s / a[r][r]
	}
	return x
}

// utteranceEdges is the builder's rule read literally: for each utterance
// and each of its files, scan backwards for the nearest earlier utterance
// that lists the file.
func utteranceEdges(files [][]string) [][]int {
	out := make([][]int, len(files))
	for i, fs := range files {
		seen := map[int]bool{}
		for _, f := range fs {
			if f == "" {
				continue
			}
		scan:
			for j := i - 1; j >= 0; j-- {
				for _, g := range files[j] {
					if g == f {
						seen[j] = true
						break scan
					}
				}
			}
		}
		for j := range i {
			if seen[j] {
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}
