package termcode

import "testing"

// TestStrip: colours, cursor moves, a window title and the 8-bit CSI go;
// text, and a bracket that starts no sequence, stay.
func TestStrip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\x1b[?25l\x1b[2K\x1b[1G\x1b[36m?\x1b[39m \x1b[1mWould you like?\x1b[22m", "? Would you like?"},
		{"\x1b]0;title\x07done", "done"},
		{"\u009b31mred\u009b0m", "red"},
		{"plain [1m] text", "plain [1m] text"},
		{"", ""},
	} {
		if got := Strip(tc.in); got != tc.want {
			t.Errorf("Strip(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
