// Command djinn is the one binary of the Djinn Claude Code plugin: the hook
// handler Claude Code starts on every event, and the commands behind the
// /djinn:rank, /djinn:reorient and /djinn:status skills.
package main

import (
	"context"
	"os"

	"github.com/djinn-cc/djinn/internal/hookmain"
)

// launcherStale, when set, waits for the background staleness check of a
// hook started by the launcher (see hookmain.StaleAsync).
var launcherStale func() bool

func main() {
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		hookmain.LimitMemory(os.Getenv)
		launcherStale = hookmain.StaleAsync(os.Getenv)
	} else {
		hookmain.StaleRelaunch(os.Getenv, os.Args)
	}
	// run is separate so deferred unlocks and cleanups finish before exit.
	os.Exit(run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr))
}
