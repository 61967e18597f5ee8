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
