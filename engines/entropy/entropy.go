// Package entropy is the sliding-window Shannon entropy of seed 000 ("Entropy-Aware
// Context Rollback", §3.1–3.2): the entropy H of the last N runes of a stream,
// updated in O(1) per rune, and its derivative over the last K updates.
//
// Reference: C. E. Shannon, "A Mathematical Theory of Communication", Bell
// System Technical Journal 27(3):379–423, 1948. For a window of L runes in
// which rune c occurs f(c) times,
//
//	H = −Σ (f/L)·log₂(f/L) = log₂ L − S/L,   S = Σ f·log₂ f,
//
// so only S has to be maintained: when a rune leaves or enters the window, one
// count changes by one and S changes by the difference of two terms f·log₂ f.
// The derivative is dH = H_t − H_{t−K}, as the seed defines it (a difference
// over K updates, not a rate).
//
// Implementation choices, and why:
//
//   - The window holds runes, not bytes: a multi-byte character is one symbol,
//     as the seed's "characters" intends.
//   - S is kept in fixed point (an int64 in units of 2⁻⁴⁰) as a sum of
//     precomputed table values f·log₂ f for f ≤ N. Adding and subtracting
//     integers is exact, so S never drifts however long the stream: after any
//     number of updates it equals the table sum over the current counts
//     exactly, and its distance from the real S is at most N·2⁻⁴¹ (3·10⁻¹¹
//     for N = 64). A float64 running sum, as the seed writes it, accumulates
//     rounding error with every update.
//   - Counts live in a direct array for ASCII and a small open-addressing
//     table (linear probing, backward-shift deletion, so no tombstones pile
//     up) for other runes. Everything is allocated by New; Push allocates
//     nothing, and memory is O(N + K) however long the stream.
//
// The stall rules themselves (H < 1.5, dH < −0.3, warm-up min(N, 16)) and
// the confirmation they need on real text belong to package stall; this
// package only measures.
package entropy

import (
	"errors"
	"fmt"
	"math"
)

// Seed defaults (seed 000 §3.1–3.2 and §7).
const (
	DefaultSize = 64 // N, runes in the window
	DefaultLag  = 8  // K, updates between the two entropies of dH
)

// MaxSize bounds the window so that the fixed-point S (≤ N·log₂N·2⁴⁰) fits an int64.
const MaxSize = 1 << 16

// fracBits is the fixed-point scale of S: one unit is 2⁻⁴⁰ bits.
const (
	fracBits = 40
	unit     = 1.0 / (1 << fracBits) // exact: a power of two
)

// ErrConfig is wrapped by every error New returns for a bad size or lag.
var ErrConfig = errors.New("invalid entropy window configuration")

// DefaultWarmUp is the seed's warm-up, min(N, 16) runes, before which a
// caller should not act on H or dH.
func DefaultWarmUp(size int) int { return min(size, 16) }

// Sample is the state of the window after one update.
type Sample struct {
	H     float64 // entropy of the window, in bits
	DH    float64 // H_t − H_{t−K}; 0 until HasDH
	Len   int     // runes in the window, L ≤ N
	HasDH bool    // at least K+1 updates since New or Reset, so H_{t−K} exists
}

// Window is a sliding window of runes with its entropy. The zero value is not
// usable; call New. A Window is not safe for concurrent use.
type Window struct {
	size, lag int

	ring   []rune // the last size runes; ring[head] is the oldest when full
	head   int
	length int

	ascii [128]int32 // counts of runes < 128
	keys  []rune     // open-addressing table for the other runes
	cnts  []int32    // count 0 marks an empty slot
	mask  uint32
	shift uint32

	s     int64     // Σ f·log₂ f over the window, fixed point
	flog  []int64   // flog[f] = round(f·log₂ f · 2⁴⁰), f = 0..size
	log2L []float64 // log2L[L] = log₂ L, L = 1..size

	hist  []float64 // the last lag+1 values of H, a ring indexed by steps
	steps uint64    // updates since New or Reset
}

// New returns an empty window of size runes whose derivative spans lag updates.
func New(size, lag int) (*Window, error) {
	if size < 1 || size > MaxSize {
		return nil, fmt.Errorf("window size %d outside 1..%d: %w", size, MaxSize, ErrConfig)
	}
	if lag < 1 {
		return nil, fmt.Errorf("derivative lag %d below 1: %w", lag, ErrConfig)
	}
	w := &Window{size: size, lag: lag}
	w.ring = make([]rune, size)
	// At most size distinct runes are ever present, so 2·size slots keep the
	// load factor at or below one half.
	slots, bits := 8, uint32(3)
	for slots < 2*size {
		slots *= 2
		bits++
	}
	w.keys = make([]rune, slots)
	w.cnts = make([]int32, slots)
	w.mask = uint32(slots - 1)
	w.shift = 32 - bits
	w.flog = make([]int64, size+1)
	w.log2L = make([]float64, size+1)
	for f := 1; f <= size; f++ {
		x := float64(f) * math.Log2(float64(f))
		w.flog[f] = int64(math.Round(math.Ldexp(x, fracBits)))
		w.log2L[f] = math.Log2(float64(f))
	}
	w.hist = make([]float64, lag+1)
	return w, nil
}

// Size returns N, the window's capacity in runes.
func (w *Window) Size() int { return w.size }

// Lag returns K, the span of the derivative in updates.
func (w *Window) Lag() int { return w.lag }

// Len returns the number of runes in the window.
func (w *Window) Len() int { return w.length }

// Reset empties the window and its derivative history without allocating.
func (w *Window) Reset() {
	w.ascii = [128]int32{}
	clear(w.cnts)
	w.head, w.length, w.s, w.steps = 0, 0, 0, 0
}

// Entropy returns the entropy of the window in bits (0 when empty).
func (w *Window) Entropy() float64 {
	if w.length == 0 {
		return 0
	}
	return w.log2L[w.length] - float64(w.s)*unit/float64(w.length)
}

// Push slides the window by one rune: the oldest rune leaves if the window is
// full, r enters, and the new entropy and derivative are returned.
func (w *Window) Push(r rune) Sample {
	if w.length == w.size {
		old := w.ring[w.head]
		f := w.dec(old) // count after the decrement
		w.s += w.flog[f] - w.flog[f+1]
		w.ring[w.head] = r
		w.head++
		if w.head == w.size {
			w.head = 0
		}
	} else {
		i := w.head + w.length
		if i >= w.size {
			i -= w.size
		}
		w.ring[i] = r
		w.length++
	}
	f := w.inc(r) // count after the increment
	w.s += w.flog[f] - w.flog[f-1]

	h := w.Entropy()
	k := uint64(w.lag) + 1
	w.hist[w.steps%k] = h
	w.steps++
	smp := Sample{H: h, Len: w.length}
	if w.steps > uint64(w.lag) {
		// hist[(steps−1−lag) mod (lag+1)] is H_{t−K}; with steps−1 ≡ t it is
		// the slot that the next update will overwrite.
		smp.DH = h - w.hist[w.steps%k]
		smp.HasDH = true
	}
	return smp
}

// hash places r in the table by Fibonacci hashing.
func (w *Window) hash(r rune) uint32 { return (uint32(r) * 0x9E3779B1) >> w.shift }

// inc adds one occurrence of r and returns its new count.
func (w *Window) inc(r rune) int {
	if uint32(r) < 128 {
		w.ascii[r]++
		return int(w.ascii[r])
	}
	i := w.hash(r)
	for {
		switch {
		case w.cnts[i] == 0:
			w.keys[i], w.cnts[i] = r, 1
			return 1
		case w.keys[i] == r:
			w.cnts[i]++
			return int(w.cnts[i])
		}
		i = (i + 1) & w.mask
	}
}

// dec removes one occurrence of r, which must be present, and returns its new
// count. A slot that empties is filled by backward-shift deletion, so probe
// chains stay intact without tombstones.
func (w *Window) dec(r rune) int {
	if uint32(r) < 128 {
		w.ascii[r]--
		return int(w.ascii[r])
	}
	i := w.hash(r)
	for w.keys[i] != r || w.cnts[i] == 0 {
		i = (i + 1) & w.mask
	}
	w.cnts[i]--
	if c := w.cnts[i]; c > 0 {
		return int(c)
	}
	j := i
	for {
		j = (j + 1) & w.mask
		if w.cnts[j] == 0 {
			return 0
		}
		home := w.hash(w.keys[j])
		// The entry at j may move into the hole at i unless its home slot
		// lies cyclically in (i, j], where it would become unreachable.
		if i <= j {
			if i < home && home <= j {
				continue
			}
		} else if i < home || home <= j {
			continue
		}
		w.keys[i], w.cnts[i] = w.keys[j], w.cnts[j]
		w.cnts[j] = 0
		i = j
	}
}
