package hooks

import (
	"encoding/xml"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestXMLEscape holds xmlEscape to encoding/xml.EscapeText on the awkward
// characters one by one and on 100,000 random strings of them.
func TestXMLEscape(t *testing.T) {
	oracle := func(s string) string {
		var b strings.Builder
		_ = xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	parts := []string{"a", "<", ">", "&", "\"", "'", "\t", "\n", "\r", "\x00", "\x1f", "\x7f", "é", "\ufffd", "\xff", "\xed\xa0\x80",
		"\ufffe", "\U0001F600", "\xe2\x82", "plain text", "]]>", "\u2028"}
	for _, p := range parts {
		if got, want := xmlEscape(p), oracle(p); got != want {
			t.Errorf("xmlEscape(%q) = %q, want %q", p, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for i := 0; i < 100_000; i++ {
		var b strings.Builder
		for n := rng.IntN(6); n >= 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		if got, want := xmlEscape(b.String()), oracle(b.String()); got != want {
			t.Fatalf("xmlEscape(%q) = %q, want %q", b.String(), got, want)
		}
	}
}
