// Package hooks is what Claude Code runs: it decodes one hook payload,
// routes it to the handler of its event, and encodes the one answer the
// hook contract allows for that event.
//
// Event handlers route and keep state; what is worth saying, and how it is
// worded, is decided in [github.com/djinn-cc/djinn/hooks/advice]. Any failure
// of Djinn's own ends the hook with one "djinn:" line on stderr, exit 0,
// nothing on stdout and the state as it was.
//
// The commands that change a session from a terminal (djinn reorient,
// djinn feedback) live in their own packages and take the hooks' own steps
// through [Session]; hooks imports none of them.
package hooks
