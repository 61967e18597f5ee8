package hooks

import (
	"strings"
	"sync"
)

// ackWords is the set of the words of ackWordsText, built on first use: a
// hook that never classifies a prompt pays nothing for it.
var ackWords = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(ackWordsText) {
		set[w] = true
	}
	return set
})

// isAckWord reports whether w is one of the words of ackWordsText.
func isAckWord(w string) bool { return ackWords()[w] }
