package main

import (
	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/internal/feedback"
	"github.com/djinn-cc/djinn/internal/report"
)

func (a *app) statusCommand() *cli.Command {
	return command("status", "show the session's goal, constraints, current drift verdict with its numbers, and recent advisories", "",
		a.onSession(func(_ *cli.Context, env *hooks.Env, id string) error {
			if err := report.Status(a.stdout, env.Store, id, env.Settings.Drift); err != nil {
				return err
			}
			return feedback.WriteProfile(a.stdout, env)
		}))
}
