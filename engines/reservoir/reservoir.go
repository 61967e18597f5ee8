// Package reservoir is Djinn's D3 engine: a uniform sample of a session's
// per-turn scores kept in constant space, and a bootstrap confidence interval
// of their mean.
//
// Sampling is Algorithm R from J. S. Vitter, "Random sampling with a
// reservoir", ACM Transactions on Mathematical Software 11(1):37–57, 1985
// (Vitter credits it to Waterman). The first k items fill the reservoir; the
// n-th item after that replaces slot j when j, drawn uniformly from
// {0, …, n−1}, is below k. After n ≥ k items every item is in the reservoir
// with probability exactly k/n. The stream position n (NSeen) is part of the
// persisted state, so a reservoir reloaded from JSON continues the same
// stream.
//
// The interval is Efron's bootstrap (B. Efron, "Bootstrap methods: another
// look at the jackknife", Annals of Statistics 7(1):1–26, 1979), percentile
// method: the 2.5th and 97.5th percentiles of the means of resamples drawn
// with replacement. Below MinBootstrapN values the seed's honest-numbers
// rule answers `insufficient data` instead of an interval.
//
// All randomness comes from an injected *rand.Rand (math/rand/v2), so runs
// are reproducible from a seed.
package reservoir

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/djinn-cc/djinn/internal/sat"
)

// DefaultK is the seed's reservoir size.
const DefaultK = 32

// ErrInvalid marks a reservoir whose fields contradict each other, such as
// one loaded from a damaged file.
var ErrInvalid = errors.New("invalid reservoir")

// Reservoir is a uniform sample of up to K items from a stream of NSeen
// items. It is plain data: the zero value is not usable (K is 0), New makes
// an empty one, and encoding/json round-trips it as
// {"k":32,"n_seen":…,"items":[…]}.
type Reservoir[T any] struct {
	K     int   `json:"k"`
	NSeen int64 `json:"n_seen"`
	Items []T   `json:"items"`
}

// New returns an empty reservoir of size k (k < 1 means DefaultK).
func New[T any](k int) *Reservoir[T] {
	if k < 1 {
		k = DefaultK
	}
	return &Reservoir[T]{K: k, Items: make([]T, 0, k)}
}

// Add offers the next item of the stream. It returns the slot the item now
// occupies, or -1 when the item was not kept.
func (r *Reservoir[T]) Add(item T, rng *rand.Rand) int {
	sat.Inc(&r.NSeen)
	if len(r.Items) < r.K {
		r.Items = append(r.Items, item)
		return len(r.Items) - 1
	}
	// The item is the NSeen-th (1-based); keep it with probability K/NSeen.
	j := rng.Int64N(r.NSeen)
	if j < int64(r.K) {
		r.Items[j] = item
		return int(j)
	}
	return -1
}

// Reset empties the reservoir and restarts the stream (what /reorient does
// after archiving the old one).
func (r *Reservoir[T]) Reset() {
	clear(r.Items)
	r.Items = r.Items[:0]
	r.NSeen = 0
}

// Validate reports whether the fields are consistent: K ≥ 1, NSeen ≥ 0 and
// exactly min(NSeen, K) items. Callers check a reservoir read from disk
// before adding to it.
func (r *Reservoir[T]) Validate() error {
	switch {
	case r.K < 1:
		return fmt.Errorf("k = %d, want at least 1: %w", r.K, ErrInvalid)
	case r.NSeen < 0:
		return fmt.Errorf("n_seen = %d is negative: %w", r.NSeen, ErrInvalid)
	case int64(len(r.Items)) != min(r.NSeen, int64(r.K)):
		return fmt.Errorf("%d items for n_seen = %d and k = %d, want %d: %w",
			len(r.Items), r.NSeen, r.K, min(r.NSeen, int64(r.K)), ErrInvalid)
	}
	return nil
}

// Bootstrap parameters.
const (
	// MinBootstrapN is the seed's floor: with fewer values the answer is
	// `insufficient data`, not an interval.
	MinBootstrapN = 5
	// DefaultResamples is the seed's number of bootstrap resamples.
	DefaultResamples = 1000
	// Lower and upper percentiles of the 95 % interval.
	lowerQ = 0.025
	upperQ = 0.975
)

// CI is a bootstrap interval of a mean.
type CI struct {
	Mean float64 `json:"mean"` // sample mean (0 when N is 0)
	Lo   float64 `json:"lo"`   // 2.5th percentile of the resampled means
	Hi   float64 `json:"hi"`   // 97.5th percentile of the resampled means
	N    int     `json:"n"`    // number of values
	// Insufficient is set when N < MinBootstrapN: Lo and Hi then equal
	// Mean and are not an interval; say `insufficient data` instead.
	Insufficient bool `json:"insufficient"`
}

// Bootstrap returns the percentile bootstrap 95 % interval of the mean of
// xs from the given number of resamples (resamples < 1 means
// DefaultResamples). It draws from rng only when N ≥ MinBootstrapN.
// Percentiles interpolate linearly between order statistics (Hyndman and
// Fan's type 7, numpy's default).
func Bootstrap(xs []float64, resamples int, rng *rand.Rand) CI {
	n := len(xs)
	ci := CI{N: n}
	if n > 0 {
		ci.Mean = mean(xs)
	}
	if n < MinBootstrapN {
		ci.Lo, ci.Hi, ci.Insufficient = ci.Mean, ci.Mean, true
		return ci
	}
	if resamples < 1 {
		resamples = DefaultResamples
	}
	means := make([]float64, resamples)
	for b := range means {
		var sum float64
		for range n {
			sum += xs[rng.IntN(n)]
		}
		means[b] = sum / float64(n)
	}
	slices.Sort(means)
	ci.Lo = percentile(means, lowerQ)
	ci.Hi = percentile(means, upperQ)
	return ci
}

func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// percentile interpolates the q-quantile of sorted (non-empty).
func percentile(sorted []float64, q float64) float64 {
	h := q * float64(len(sorted)-1)
	lo := int(h)
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	frac := h - float64(lo)
	return sorted[lo] + frac*(sorted[lo+1]-sorted[lo])
}
