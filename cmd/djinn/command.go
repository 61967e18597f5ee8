package main

import (
	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/hooks"
)

// command builds a djinn command: its name, usage, arguments (argsUsage, ""
// for none) and action, with --state-dir and --session (commonFlags) before
// any flags of its own.
func command(name, usage, argsUsage string, action cli.ActionFunc, flags ...cli.Flag) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		ArgsUsage: argsUsage,
		Flags:     append(commonFlags(), flags...),
		Action:    action,
	}
}

// onSession is the action of a command about one session that takes no
// arguments: it refuses arguments, builds the hook environment and resolves
// the session (see sessionID) before run.
func (a *app) onSession(run func(c *cli.Context, env *hooks.Env, id string) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		if err := noArgs(c); err != nil {
			return err
		}
		env, id, err := a.session(c)
		if err != nil {
			return err
		}
		return run(c, env, id)
	}
}
