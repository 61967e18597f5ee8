package drift

import (
	"strings"
	"sync"

	"github.com/kljensen/snowball/english"
)

// WordSet returns the set of the whitespace-separated words of text, built
// on first use: a hook that never asks pays nothing for it.
func WordSet(text string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		set := map[string]bool{}
		for _, w := range strings.Fields(text) {
			set[w] = true
		}
		return set
	})
}

var (
	genericWords    = WordSet(genericWordsText)
	subcommandTools = WordSet(subcommandToolsText)
)

// isGenericWord reports whether w is one of the words of genericWordsText.
func isGenericWord(w string) bool { return genericWords()[w] }

// isSubcommandTool reports whether w is one of the words of subcommandToolsText.
func isSubcommandTool(w string) bool { return subcommandTools()[w] }

// Stem is the English (Porter2) stem of a lower-case word, the form words
// are compared in: scopes and scope, pooling and pool meet.
func Stem(w string) string { return english.Stem(w, true) }
