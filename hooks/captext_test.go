package hooks

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCapText checks the cut of what reaches Claude Code against slicing
// the runes: a text within the limit is kept whole, a longer one is cut so
// that it and the marker together fill the limit exactly.
func TestCapText(t *testing.T) {
	const marker = "\n[djinn: cut to fit Claude Code's limit]"
	room := utf8.RuneCountInString(marker)
	for _, tc := range []struct {
		s   string
		max int
	}{
		{"", 100},
		{"fits", 100},
		{strings.Repeat("x", 100), 100},
		{strings.Repeat("x", 101), 100},
		{strings.Repeat("é日", 300), 2000 / 4},
		{strings.Repeat("word ", 2000), 9500},
	} {
		got := capText(tc.s, tc.max)
		want := tc.s
		if r := []rune(tc.s); len(r) > tc.max {
			want = string(r[:tc.max-room]) + marker
		}
		if got != want {
			t.Errorf("capText(%d runes, %d): got %d runes ending %q, want %d runes", utf8.RuneCountInString(tc.s), tc.max, utf8.RuneCountInString(got), got[max(0, len(got)-50):], utf8.RuneCountInString(want))
		}
	}
}
