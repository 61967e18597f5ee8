package main

import (
	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/internal/report"
)

func (a *app) statusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show the session's goal, constraints, current drift verdict with its numbers, and recent advisories",
		Flags: commonFlags(),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			env, id, err := a.session(c)
			if err != nil {
				return err
			}
			if err := report.Status(a.stdout, env.Store, id, env.Settings.Drift); err != nil {
				return err
			}
			return hooks.WriteProfile(a.stdout, env)
		},
	}
}
