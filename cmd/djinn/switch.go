package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/hooks"
)

// switchCommand builds "disable" and "enable": the per-session off switch,
// for all of Djinn or one detector.
func (a *app) switchCommand(name string) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     name + " Djinn, or one detector (drift, loops, stall, pressure, compress), for a session",
		ArgsUsage: "[detector]",
		Flags:     commonFlags(),
		Action: func(c *cli.Context) error {
			if err := flagsFirst(c); err != nil {
				return err
			}
			if c.NArg() > 1 {
				return usagef("%s: expected at most one detector", name)
			}
			detector := "all"
			if c.NArg() == 1 {
				detector = c.Args().First()
			}
			env, err := a.env(c)
			if err != nil {
				return err
			}
			id, err := a.sessionID(c, env.Store)
			if err != nil {
				return err
			}
			if !hooks.ValidDetector(detector) {
				return usagef("%s: unknown detector %q (one of: all, %s)", name, detector, strings.Join(hooks.Detectors, ", "))
			}
			now, err := hooks.SetDisabled(c.Context, env, id, detector, name == "disable")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.stdout, "session %s: disabled: %s\n", id, now)
			return err
		},
	}
}
