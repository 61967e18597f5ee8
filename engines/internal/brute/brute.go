// Package brute holds the brute-force references the engines' tests
// check their incremental computations against.
package brute

import "math"

// Entropy is the Shannon entropy, in bits, of the symbol frequencies of
// window, counted from scratch into counts (one slot per symbol, indexed by
// the symbol; cleared first) and summed in symbol order.
func Entropy[T ~int | ~uint8](window []T, counts []int) float64 {
	clear(counts)
	for _, c := range window {
		counts[c]++
	}
	l := float64(len(window))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / l
			h -= p * math.Log2(p)
		}
	}
	return h
}
