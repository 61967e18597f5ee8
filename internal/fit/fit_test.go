package fit

import "testing"

func TestFit(t *testing.T) {
	if got := Bytes("héllo", 2); got != "h" {
		t.Errorf("Bytes cut inside a rune: %q", got)
	}
	if got := Bytes("hello", 9); got != "hello" {
		t.Errorf("Bytes(hello, 9) = %q", got)
	}
	if got := Runes("héllo", 2); got != "hé" {
		t.Errorf("Runes(héllo, 2) = %q", got)
	}
	if got := Runes("hé", 2); got != "hé" {
		t.Errorf("Runes(hé, 2) = %q", got)
	}
	if got := Round3(0.12345); got != 0.123 {
		t.Errorf("Round3(0.12345) = %v", got)
	}
	if got := Round3(0.6666); got != 0.667 {
		t.Errorf("Round3(0.6666) = %v", got)
	}
}

func TestEnds(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"0123456789abcdefghij", 13, "0123456 … hij"}, // room 10: head 7, tail 3
		{"héllo wörld, just analyze", 16, "héllo wör … lyze"},
		{"abcdef", 4, "abcd"}, // no room for the gap: the head alone
	} {
		got := Ends(c.s, c.n)
		if got != c.want {
			t.Errorf("Ends(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
		if n := len([]rune(got)); n > c.n {
			t.Errorf("Ends(%q, %d) has %d runes", c.s, c.n, n)
		}
	}
}
