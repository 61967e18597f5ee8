package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/internal/report"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

func (a *app) reportCommand() *cli.Command {
	return command("report", "write the session's timeline (drift, advisories, context, prompts) as one self-contained HTML file and print its path", "",
		a.onSession(func(c *cli.Context, env *hooks.Env, id string) error {
			path, err := report.WriteFile(env.Store, id, c.String("out"), a.reportOptions(env.Settings, ""))
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(a.stdout, path)
			return err
		}),
		&cli.StringFlag{Name: "out", Usage: "the file to write (default: report.html in the session's state directory)"},
	)
}

// reportOptions are the session report's settings: the tiers in force, the
// time, and for a replay the transcript's name.
func (a *app) reportOptions(set settings.Settings, source string) report.HTMLOptions {
	return report.HTMLOptions{Tiers: set.Pressure.Tiers, Source: source, Generated: a.now()}
}

// replayReport writes a replayed session's report into dir as
// <session id>.html; it is replay.Options.Finish.
func (a *app) replayReport(dir, transcript string, set settings.Settings, written *string) func(st *state.Store, id string) error {
	return func(st *state.Store, id string) error {
		path, err := report.WriteFile(st, id, filepath.Join(dir, id+".html"), a.reportOptions(set, filepath.Base(transcript)))
		*written = path
		return err
	}
}
