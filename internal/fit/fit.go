// Package fit cuts strings and rounds numbers to the bounds the state
// files keep, the same way wherever they are written: hooks and
// engines/drift both store goal text, identifiers and ratios.
package fit

import "unicode/utf8"

// Bytes cuts s to at most n bytes, at a rune boundary.
func Bytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// Runes cuts s to at most n runes.
func Runes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// Ends cuts s to at most n runes by dropping its middle: the first three
// quarters of the room and its last runes, joined by " … ". A prompt that
// pastes a long log ends in what the person asks of it ("… just analyze,
// don't do anything yet"): a cut that keeps only the head loses that.
func Ends(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	const gap = " … "
	room := n - utf8.RuneCountInString(gap)
	if room < 2 {
		return Runes(s, n)
	}
	r := []rune(s)
	head := room * 3 / 4
	return string(r[:head]) + gap + string(r[len(r)-(room-head):])
}

// Round3 rounds a non-negative f to three decimals.
func Round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }
