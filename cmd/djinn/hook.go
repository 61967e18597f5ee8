package main

import (
	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/hooks"
)

func (a *app) hookCommand() *cli.Command {
	return &cli.Command{
		Name:      "hook",
		Usage:     "handle one Claude Code hook event (what hooks.json runs)",
		ArgsUsage: "<event>",
		Flags:     commonFlags(),
		Action:    a.hook,
	}
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
	event, err := hooks.CanonicalEvent(c.Args().First())
	if err != nil {
		a.tui.errorf("hook: %v", err)
		return nil
	}
	p, err := hooks.DecodePayload(a.stdin, event)
	if err != nil {
		a.tui.errorf("hook %s: %v", event, err)
		return nil
	}
	if s := c.String("session"); s != "" {
		p.SessionID = s
	}
	env, err := a.env(c)
	if err != nil {
		a.tui.errorf("hook %s: %v", event, err)
		return nil
	}
	resp, err := hooks.Run(c.Context, env, p)
	if err != nil {
		a.tui.errorf("hook %s: %v", event, err)
		return nil
	}
	out, err := hooks.Encode(event, resp)
	if err != nil {
		a.tui.errorf("hook %s: %v", event, err)
		return nil
	}
	if len(out) > 0 {
		if _, err := a.stdout.Write(out); err != nil {
			a.tui.errorf("hook %s: write output: %v", event, err)
		}
	}
	return nil
}
