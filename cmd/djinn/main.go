// Command djinn is the one binary of the Djinn Claude Code plugin: the hook
// handler Claude Code starts on every event, and the commands behind the
// /djinn:rank, /djinn:reorient and /djinn:status skills.
package main

import (
	"context"
	"os"

	"github.com/djinn-cc/djinn/internal/hookmain"
)

func main() {
	// stale, for a hook, waits for the background staleness check of the
	// binary the launcher started (see hookmain.StaleAsync).
	var stale func() bool
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		hookmain.LimitMemory(os.Getenv)
		// The event is the last argument (any flags come first).
		stale = hookmain.StaleAsync(os.Getenv, os.Args[len(os.Args)-1])
	} else {
		hookmain.StaleRelaunch(os.Getenv, os.Args)
	}
	// run is separate so deferred unlocks and cleanups finish before exit.
	os.Exit(runWith(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr, stale))
}
