// Package prefiltertest checks a cheap prefilter against the regular
// expression it spares: hooks' mayPivot before pivotRe and engines/drift's
// mayIdent before identRe. The expression is the oracle, on random texts
// built from the words of both languages.
package prefiltertest

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// tokens build texts near pivotRe's and identRe's languages: their words in
// several cases, their separators, ticket-like codes, the non-ASCII runes
// that (?i) folds to ASCII letters (K, ſ), and filler.
var tokens = []string{
	"new task", "New Task", "NEW TASK", "now", "Now,", "now let's", "lets", "let's", "forget ", "forget that",
	"forget it", "Forget everything", "switch", "Switching to", "switch to", "change of plan", "change of plans",
	"Different topic", "different task", "move on to", "let's move on to", "Moving on to", "instead", "Instead, let's",
	"scratch that", "SCRATCH THAT", "ok ", "Okay, ", "so ", "Actually, ", ". ", "! ", "? ", "\n", " ", "  ", "\t",
	"ſwitch to", "\u212a", "ſcratch that", "é", "spotter-dov", "PROJ-123", "a#12", "x-1", "_ab-12", "ab-c", "ab#cd",
	"gqc.1", "-a", "#", "-", "7", "fix", "the", "login", "test", "_", "ab", "12", "zz", "./", "--json",
}

// Text is a random text of one to eight tokens.
func Text(rng *rand.Rand) string {
	var b strings.Builder
	for n := rng.IntN(8); n >= 0; n-- {
		b.WriteString(tokens[rng.IntN(len(tokens))])
	}
	return b.String()
}

// Check holds the prefilter may (named name) to the expression re it
// spares: on 200,000 random texts, may is true of every text re matches,
// and it also turns texts away (it is not "always true"); on the common
// Prompts it says what want says of each.
func Check(t *testing.T, name string, re *regexp.Regexp, may func(string) bool, want func(Prompt) bool) {
	t.Run("never hides a match", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 11))
		var matched, spared int
		for i := 0; i < 200_000; i++ {
			s := Text(rng)
			if re.MatchString(s) {
				matched++
				if !may(s) {
					t.Fatalf("%s(%q) = false, but %s matches it", name, s, re)
				}
			} else if !may(s) {
				spared++
			}
		}
		t.Logf("the expression matched %d, %s spared %d", matched, name, spared)
		if matched == 0 || spared == 0 {
			t.Fatal("the random texts do not exercise both sides of the filter")
		}
	})
	t.Run("prompts", func(t *testing.T) {
		for _, p := range Prompts {
			if got := may(p.Text); got != want(p) {
				t.Errorf("%s(%q) = %v, want %v", name, p.Text, got, want(p))
			}
		}
	})
}

// Prompt is a common prompt and what each prefilter must say of it: Pivot
// for mayPivot, Ident for mayIdent.
type Prompt struct {
	Text         string
	Pivot, Ident bool
}

// Prompts are common prompts; most skip both expressions.
var Prompts = []Prompt{
	{"also check invoice 7 and the currency table", false, false},
	{"Fix the login redirect loop in the session middleware", false, false},
	{"Work on bead spotter-dov. Run bd show spotter-dov", false, true},
	{"New task: write the docs", true, false},
	{"ok, scratch that", true, false},
	{"ſwitch to the parser", true, true}, // non-ASCII: left to the expression
}
