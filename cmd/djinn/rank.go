package main

import (
	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/internal/report"
)

// The skills' commands. A skill aborts on a non-zero exit and the user sees
// nothing, so the skills append "|| true" and merge stderr: an error (no
// such session) still reaches the user as its one "djinn:" line.

func (a *app) rankCommand() *cli.Command {
	return command("rank", "rank the session's load-bearing tool calls (PageRank over the files they touched) and list the noise", "",
		a.onSession(func(c *cli.Context, env *hooks.Env, id string) error {
			rep, err := report.Rank(env.Store, id, 10000, 16<<20)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return a.printJSON(rep)
			}
			rep.Write(a.stdout)
			return nil
		}),
		jsonFlag())
}
