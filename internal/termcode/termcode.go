// Package termcode removes terminal control sequences from text a program
// printed for a terminal: colours, cursor moves, titles.
package termcode

import (
	"regexp"
	"strings"
	"sync"
)

// seq matches ECMA-48 escape sequences: CSI (ESC [ or U+009B, parameters,
// intermediates, a final byte), the string controls OSC, DCS, SOS, PM and
// APC up to their terminator (BEL or ST), and the two-character escapes.
// Compiled on first use: most text holds none.
var seq = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:\x1b\[|\x{9b})[0-?]*[ -/]*[@-~]?` +
		`|(?:\x1b[\]PX^_]|[\x{90}\x{98}\x{9d}\x{9e}\x{9f}])[^\x07\x1b\x{9c}]*(?:\x07|\x1b\\|\x{9c})?` +
		`|\x1b[ -/]*[0-~]?`)
})

// Strip returns s without its terminal control sequences.
func Strip(s string) string {
	if !strings.ContainsRune(s, 0x1b) && !strings.ContainsAny(s, "\u0090\u0098\u009b\u009d\u009e\u009f") {
		return s
	}
	return seq().ReplaceAllString(s, "")
}
