package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/internal/reorient"
)

func (a *app) reorientCommand() *cli.Command {
	return command("reorient", "replace the session's goal (or add a constraint when the new intent restates it); the intent comes from the arguments, or stdin with -", "<new intent> | -",
		func(c *cli.Context) error {
			env, id, err := a.session(c)
			if err != nil {
				return err
			}
			if c.Bool("last") {
				if err := noArgs(c); err != nil {
					return err
				}
				text, err := reorient.Last(env.Store, id)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(a.stdout, text)
				return err
			}
			if err := flagsFirst(c); err != nil {
				return err
			}
			intent := strings.Join(c.Args().Slice(), " ")
			if intent == "-" {
				b, err := io.ReadAll(io.LimitReader(a.stdin, 64<<10))
				if err != nil {
					return err
				}
				intent = string(b)
			}
			text, err := reorient.Apply(c.Context, env, id, intent, c.Bool("force"))
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(a.stdout, text)
			return err
		},
		&cli.BoolFlag{Name: "force", Usage: "replace the goal even if the new intent restates it"},
		&cli.BoolFlag{Name: "last", Usage: "print the result of the last /djinn:reorient (what the skill shows)"},
	)
}
