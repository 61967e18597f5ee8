package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/hooks"
)

// The skills' commands. A skill aborts on a non-zero exit and the user sees
// nothing, so the skills append "|| true" and merge stderr: an error (no
// such session) still reaches the user as its one "djinn:" line.

func (a *app) rankCommand() *cli.Command {
	return &cli.Command{
		Name:  "rank",
		Usage: "rank the session's load-bearing tool calls (PageRank over the files they touched) and list the noise",
		Flags: append(commonFlags(), &cli.BoolFlag{Name: "json", Usage: "print JSON"}),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			env, err := a.env(c)
			if err != nil {
				return err
			}
			id, err := a.sessionID(c, env.Store)
			if err != nil {
				return err
			}
			rep, err := hooks.RankSession(env, id, 10000, 16<<20)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			rep.Write(a.stdout)
			return nil
		},
	}
}

func (a *app) statusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show the session's goal, constraints, current drift verdict with its numbers, and recent advisories",
		Flags: commonFlags(),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			env, err := a.env(c)
			if err != nil {
				return err
			}
			id, err := a.sessionID(c, env.Store)
			if err != nil {
				return err
			}
			return hooks.WriteStatus(c.Context, env, id, a.stdout)
		},
	}
}

func (a *app) reorientCommand() *cli.Command {
	return &cli.Command{
		Name:      "reorient",
		Usage:     "replace the session's goal (or add a constraint when the new intent restates it); the intent comes from the arguments, or stdin with -",
		ArgsUsage: "<new intent> | -",
		Flags: append(commonFlags(),
			&cli.BoolFlag{Name: "force", Usage: "replace the goal even if the new intent restates it"},
			&cli.BoolFlag{Name: "last", Usage: "print the result of the last /djinn:reorient (what the skill shows)"},
		),
		Action: func(c *cli.Context) error {
			env, err := a.env(c)
			if err != nil {
				return err
			}
			id, err := a.sessionID(c, env.Store)
			if err != nil {
				return err
			}
			if c.Bool("last") {
				if err := noArgs(c); err != nil {
					return err
				}
				text, err := hooks.LastReorient(env, id)
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
			text, err := hooks.Reorient(c.Context, env, id, intent, c.Bool("force"))
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(a.stdout, text)
			return err
		},
	}
}
