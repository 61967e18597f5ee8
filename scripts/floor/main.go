// Command floor is the latency floor of scripts/bench-hooks: a bare Go
// process that reads a hook payload from stdin, decodes it as JSON and
// prints {}. A hook cannot cost less than starting a Go process and reading
// its input, so hook latency is reported as a ratio to this.
package main

import (
	"encoding/json"
	"io"
	"os"
)

func main() {
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		os.Exit(1)
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		os.Exit(1)
	}
	os.Stdout.WriteString("{}\n")
}
