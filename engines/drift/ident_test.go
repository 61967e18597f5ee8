package drift

import (
	"testing"

	"github.com/djinn-cc/djinn/internal/prefiltertest"
)

// TestMayIdentNeverHidesAMatch: mayIdent only spares identRe texts it
// cannot match (the expression is the oracle).
func TestMayIdentNeverHidesAMatch(t *testing.T) {
	prefiltertest.NeverHides(t, "mayIdent", identRe(), mayIdent)
}

// TestMayIdentOnPrompts: the common prompts skip the expression.
func TestMayIdentOnPrompts(t *testing.T) {
	for _, c := range prefiltertest.Prompts {
		if got := mayIdent(c.Text); got != c.Ident {
			t.Errorf("mayIdent(%q) = %v, want %v", c.Text, got, c.Ident)
		}
	}
}
