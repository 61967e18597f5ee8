package advice

import (
	"strings"
	"testing"
)

// TestGistOf: an advisory's own gist, or the first sentence of its text
// without the tag, named by its kind and cut short.
func TestGistOf(t *testing.T) {
	if g := GistOf(Advisory{Kind: KindRisk, Text: "[djinn:risk] x", Gist: "call #3 deletes a tree"}); g != "call #3 deletes a tree" {
		t.Errorf("own gist: %q", g)
	}
	a := Advisory{Kind: "new-kind", Text: "[djinn:new-kind] The thing happened twice. Next step: stop."}
	if g := GistOf(a); g != "(new-kind) The thing happened twice" {
		t.Errorf("fallback: %q", g)
	}
	long := Advisory{Kind: "k", Text: "[djinn:k] " + strings.Repeat("word ", 100)}
	if g := GistOf(long); len([]rune(g)) > 170 || !strings.HasSuffix(g, "…") {
		t.Errorf("long fallback not cut: %q", g)
	}
	if g := Compacted(CompactedFacts{Target: "Bash cat x", Before: 250000, After: 200000}).Gist; g != `the output of "Bash cat x" was shortened to fit the context (250,000 to 200,000 characters)` {
		t.Errorf("compacted gist %q", g)
	}
}
