package hooks

import (
	"testing"

	"github.com/djinn-cc/djinn/internal/prefiltertest"
)

// TestMayPivot: mayPivot only spares pivotRe texts it cannot match (the
// expression is the oracle), and the common prompts skip the expression.
// engines/drift tests mayIdent the same way.
func TestMayPivot(t *testing.T) {
	prefiltertest.Check(t, "mayPivot", pivotRe(), mayPivot, func(p prefiltertest.Prompt) bool { return p.Pivot })
}
