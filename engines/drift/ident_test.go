package drift

import (
	"testing"

	"github.com/djinn-cc/djinn/internal/prefiltertest"
)

// TestMayIdent: mayIdent only spares identRe texts it cannot match (the
// expression is the oracle), and the common prompts skip the expression.
func TestMayIdent(t *testing.T) {
	prefiltertest.Check(t, "mayIdent", identRe(), mayIdent, func(p prefiltertest.Prompt) bool { return p.Ident })
}
