package main

import (
	"io"

	"github.com/djinn-cc/djinn/internal/hookmain"
)

// Everything that is not a hook's JSON answer or a command's report goes to
// standard error, one line per message, with a "djinn: " prefix, lowercase
// and without a final period. Claude Code reads a hook's stdout, so nothing
// else may ever reach it.

// Exit codes. Hooks always exit ExitOK (exit 2 would block the agent).
const (
	ExitOK      = 0
	ExitFailure = 1
	// ExitUsage avoids 2 (a blocking hook error) and 3 (urfave/cli's
	// unknown-command code).
	ExitUsage = 64
)

// tui prints diagnostics to stderr.
type tui struct {
	stderr io.Writer
}

// errorf prints one "djinn:" line; newlines inside are flattened so a
// message is always exactly one line.
func (t tui) errorf(format string, args ...any) { hookmain.Report(t.stderr, format, args...) }
