// Command djinn-hook is the hook process of the Djinn Claude Code plugin:
// what the launcher (hooks/djinn) runs for every hook event, as
// `djinn-hook hook <Event>` with the payload on stdin. It is `djinn hook`
// without the command-line app and the commands, which it does not need
// and whose start-up it would pay on every hook (see internal/hookmain).
package main

import (
	"os"

	"github.com/djinn-cc/djinn/internal/hookmain"
)

func main() {
	os.Exit(hookmain.Main())
}
