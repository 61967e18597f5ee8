package drift

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// prefilterTokens build texts near identRe's language (and hooks' pivotRe's): their
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

// TestMayIdentNeverHidesAMatch: mayIdent only spares identRe texts it
// cannot match. The oracle is the regular expression itself, on 200,000
// random texts built from its own words; the filter must also turn texts
// away (it is not "always true").
func TestMayIdentNeverHidesAMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var idents, spared int
	for i := 0; i < 200_000; i++ {
		s := randomPrefilterText(rng)
		if identRe().MatchString(s) {
			idents++
			if !mayIdent(s) {
				t.Fatalf("mayIdent(%q) = false, but identRe matches it", s)
			}
		} else if !mayIdent(s) {
			spared++
		}
	}
	t.Logf("identRe matched %d, spared %d", idents, spared)
	if idents == 0 || spared == 0 {
		t.Fatal("the random texts do not exercise both sides of the filter")
	}
}

// TestMayIdentOnPrompts: the common prompts skip the expression.
func TestMayIdentOnPrompts(t *testing.T) {
	cases := []struct {
		text  string
		ident bool
	}{
		{"also check invoice 7 and the currency table", false},
		{"Fix the login redirect loop in the session middleware", false},
		{"Work on bead spotter-dov. Run bd show spotter-dov", true},
		{"New task: write the docs", false},
		{"ok, scratch that", false},
		{"ſwitch to the parser", true}, // non-ASCII: left to the expression
	}
	for _, c := range cases {
		if got := mayIdent(c.text); got != c.ident {
			t.Errorf("mayIdent(%q) = %v, want %v", c.text, got, c.ident)
		}
	}
}
