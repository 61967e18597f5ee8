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

// Round3 rounds a non-negative f to three decimals.
func Round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }
