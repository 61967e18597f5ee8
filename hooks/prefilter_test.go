package hooks

import (
	"testing"

	"github.com/djinn-cc/djinn/internal/prefiltertest"
)

// TestPrefiltersNeverHideAMatch: mayPivot only spares pivotRe texts it
// cannot match (the expression is the oracle). engines/drift tests mayIdent
// the same way.
func TestPrefiltersNeverHideAMatch(t *testing.T) {
	prefiltertest.NeverHides(t, "mayPivot", pivotRe(), mayPivot)
}

// TestPrefiltersOnPrompts: the common prompts skip the expression.
func TestPrefiltersOnPrompts(t *testing.T) {
	for _, c := range prefiltertest.Prompts {
		if got := mayPivot(c.Text); got != c.Pivot {
			t.Errorf("mayPivot(%q) = %v, want %v", c.Text, got, c.Pivot)
		}
	}
}
