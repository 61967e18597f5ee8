// Package thousands writes integers with commas between groups of three
// digits (183402 as "183,402"), as Djinn shows counts to people: in
// advisories, in the markers of shortened tool outputs and in reports.
package thousands

import (
	"strconv"
	"strings"
)

// Group writes n with a comma between each group of three digits.
func Group[I ~int | ~int64](n I) string {
	s := strconv.FormatInt(int64(n), 10)
	var b strings.Builder
	if s[0] == '-' {
		b.WriteByte('-')
		s = s[1:]
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
