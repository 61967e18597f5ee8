package main

import (
	"fmt"
	"runtime"

	"github.com/urfave/cli/v2"
)

// Version is Djinn's version; plugin.json, marketplace.json and the hooks/djinn
// launcher carry the same string (a test checks).
const Version = "0.1.0"

func (a *app) versionCommand() *cli.Command {
	return command("version", "print the version", "", func(c *cli.Context) error {
		_, err := fmt.Fprintf(a.stdout, "djinn %s (%s, %s/%s)\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return err
	})
}
