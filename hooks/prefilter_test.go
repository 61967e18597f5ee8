package hooks

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// prefilterTokens build texts near pivotRe's and identRe's languages: their
// words in several cases, their separators, ticket-like codes, the
// non-ASCII runes that (?i) folds to ASCII letters (K, ſ), and filler.
var prefilterTokens = []string{
	"new task", "New Task", "NEW TASK", "now", "Now,", "now let's", "lets", "let's", "forget ", "forget that",
	"forget it", "Forget everything", "switch", "Switching to", "switch to", "change of plan", "change of plans",
	"Different topic", "different task", "move on to", "let's move on to", "Moving on to", "instead", "Instead, let's",
	"scratch that", "SCRATCH THAT", "ok ", "Okay, ", "so ", "Actually, ", ". ", "! ", "? ", "\n", " ", "  ", "\t",
	"ſwitch to", "\u212a", "ſcratch that", "é", "spotter-dov", "PROJ-123", "a#12", "x-1", "_ab-12", "ab-c", "ab#cd",
	"gqc.1", "-a", "#", "-", "7", "fix", "the", "login", "test", "_", "ab", "12", "zz", "./", "--json",
}

func randomPrefilterText(rng *rand.Rand) string {
	var b strings.Builder
	for n := rng.IntN(8); n >= 0; n-- {
		b.WriteString(prefilterTokens[rng.IntN(len(prefilterTokens))])
	}
	return b.String()
}

// TestPrefiltersNeverHideAMatch: mayPivot only spares pivotRe texts it
// cannot match. The oracle is the regular expression itself, on 200,000
// random texts built from its own words; the filter must also turn texts
// away (it is not "always true"). engines/drift tests mayIdent the same way.
func TestPrefiltersNeverHideAMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var pivots, sparedPivot int
	for i := 0; i < 200_000; i++ {
		s := randomPrefilterText(rng)
		if pivotRe().MatchString(s) {
			pivots++
			if !mayPivot(s) {
				t.Fatalf("mayPivot(%q) = false, but pivotRe matches it", s)
			}
		} else if !mayPivot(s) {
			sparedPivot++
		}
	}
	t.Logf("pivotRe matched %d, spared %d", pivots, sparedPivot)
	if pivots == 0 || sparedPivot == 0 {
		t.Fatal("the random texts do not exercise both sides of the filter")
	}
}

// TestPrefiltersOnPrompts: the common prompts skip the expression.
func TestPrefiltersOnPrompts(t *testing.T) {
	cases := []struct {
		text  string
		pivot bool
	}{
		{"also check invoice 7 and the currency table", false},
		{"Fix the login redirect loop in the session middleware", false},
		{"Work on bead spotter-dov. Run bd show spotter-dov", false},
		{"New task: write the docs", true},
		{"ok, scratch that", true},
		{"ſwitch to the parser", true}, // non-ASCII: left to the expression
	}
	for _, c := range cases {
		if got := mayPivot(c.text); got != c.pivot {
			t.Errorf("mayPivot(%q) = %v, want %v", c.text, got, c.pivot)
		}
	}
}
