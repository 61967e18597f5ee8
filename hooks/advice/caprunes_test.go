package advice

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCapRunes checks the cut against slicing the runes, an oracle that
// shares no code with it: a text within the bound is kept whole, a longer
// one keeps its first n-1 runes and ends with "…".
func TestCapRunes(t *testing.T) {
	for _, tc := range []struct {
		s string
		n int
	}{
		{"", 5},
		{"short", 5},
		{"exactly", 7},
		{"one rune over", 12},
		{"héllo wörld, ünïcode", 8},
		{"日本語のテキストを切る", 4},
		{strings.Repeat("ab", 200), 160},
	} {
		got := capRunes(tc.s, tc.n)
		want := tc.s
		if r := []rune(tc.s); len(r) > tc.n {
			want = string(r[:tc.n-1]) + "…"
		}
		if got != want {
			t.Errorf("capRunes(%q, %d) = %q, want %q", tc.s, tc.n, got, want)
		}
		if c := utf8.RuneCountInString(got); c > tc.n {
			t.Errorf("capRunes(%q, %d) has %d runes", tc.s, tc.n, c)
		}
	}
}
