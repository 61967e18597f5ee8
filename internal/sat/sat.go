// Package sat increments counters without wrapping. A counter in
// window.json that reached its type's maximum and wrapped to −2⁶³ (or to
// 0) would fail the state's schema or reorder events; saturated, it stays
// at the maximum and the state stays valid.
package sat

// Integer is any built-in integer type.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// Next returns v+1, or v when v is its type's maximum.
func Next[T Integer](v T) T {
	if v+1 < v {
		return v
	}
	return v + 1
}

// Inc increments *p, saturating at its type's maximum.
func Inc[T Integer](p *T) { *p = Next(*p) }
