package fit

import "testing"

func TestFit(t *testing.T) {
	for _, c := range []struct {
		name string
		cut  func(string, int) string
		s    string
		n    int
		want string
	}{
		{"Bytes", Bytes, "héllo", 2, "h"}, // not cut inside a rune
		{"Bytes", Bytes, "hello", 9, "hello"},
		{"Runes", Runes, "héllo", 2, "hé"},
		{"Runes", Runes, "hé", 2, "hé"},
	} {
		if got := c.cut(c.s, c.n); got != c.want {
			t.Errorf("%s(%q, %d) = %q, want %q", c.name, c.s, c.n, got, c.want)
		}
	}
	for _, c := range []struct{ f, want float64 }{{0.12345, 0.123}, {0.6666, 0.667}} {
		if got := Round3(c.f); got != c.want {
			t.Errorf("Round3(%v) = %v, want %v", c.f, got, c.want)
		}
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
