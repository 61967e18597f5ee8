package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/internal/hookmain"
)

func (a *app) hookCommand() *cli.Command {
	return command("hook", "handle one Claude Code hook event (what hooks.json runs)", "<event>", a.hook)
}

// hook never returns an error to urfave: every failure becomes one "djinn:"
// line on stderr, nothing on stdout, exit 0.
func (a *app) hook(c *cli.Context) error {
	if c.NArg() > 1 {
		if err := flagsFirst(c); err != nil {
			a.tui.errorf("%v", err)
			return nil
		}
	}
	if c.NArg() != 1 {
		a.tui.errorf("hook: expected one event name, got %d arguments", c.NArg())
		return nil
	}
	a.runHook(c.Context, c.Args().First(), c.String("session"), c.String("state-dir"))
	return nil
}

// runHook handles one event (internal/hookmain, what djinn-hook runs). The
// plain `djinn hook <Event>` comes here straight from run, without
// building the command-line app.
func (a *app) runHook(ctx context.Context, name, session, stateDir string) {
	p := &hookmain.Process{
		Stdin: a.stdin, Stdout: a.stdout, Stderr: a.stderr,
		Getenv: a.getenv, Environ: a.environ, Now: a.now,
		Stale: a.stale, Args: a.args,
	}
	p.Run(ctx, name, session, stateDir)
}
