package hooks

import "github.com/djinn-cc/djinn/engines/drift"

var ackWords = drift.WordSet(ackWordsText)

// isAckWord reports whether w is one of the words of ackWordsText.
func isAckWord(w string) bool { return ackWords()[w] }

// pickWordsText lists the words that, in a short reply, point at what the
// agent proposed rather than say a task: options by number, "both", "the
// first", and asking for more thinking.
const pickWordsText = `option options choice choices number step steps plan approach both all first second third
one two three and or the a an as it them these those you your suggested proposed said recommended
ultrathink think hard harder keep activated active on mode`

var pickWords = drift.WordSet(pickWordsText)

// isPickWord reports whether w is one of the words of pickWordsText.
func isPickWord(w string) bool { return pickWords()[w] }
