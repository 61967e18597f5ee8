package main

import (
	"bytes"
	"context"
	"errors"
	"io"

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

// errStale stops a hook whose binary is older than its sources before it
// writes anything.
var errStale = errors.New("the binary is older than its sources")

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

// runHook handles one event: decode the payload, run the handlers, print
// the answer. Every failure is one "djinn:" line on stderr and nothing on
// stdout. The plain `djinn hook <Event>` that hooks.json runs comes here
// straight from run, without building the command-line app (about a tenth
// of a millisecond of every hook).
func (a *app) runHook(ctx context.Context, name, session, stateDir string) {
	event, err := hooks.CanonicalEvent(name)
	if err != nil {
		a.tui.errorf("hook: %v", err)
		return
	}
	// A hook that may turn out stale keeps the payload it read, to hand it
	// to the rebuilt binary.
	in, kept := a.stdin, (*bytes.Buffer)(nil)
	if a.stale != nil {
		kept = &bytes.Buffer{}
		in = io.TeeReader(a.stdin, kept)
	}
	p, err := hooks.DecodePayload(in, event)
	if err != nil {
		a.tui.errorf("hook %s: %v", event, err)
		return
	}
	if session != "" {
		p.SessionID = session
	}
	env, err := a.envAt(stateDir)
	if err != nil {
		a.tui.errorf("hook %s: %v", event, err)
		return
	}
	if a.stale != nil {
		env.Gate = func() error {
			if a.stale() {
				return errStale
			}
			return nil
		}
	}
	resp, err := hooks.Run(ctx, env, p)
	if errors.Is(err, errStale) {
		// Nothing was written: the rebuilt binary handles this event. If
		// the hand-over fails, this binary handles it after all.
		rerr := relaunchHook(a.getenv, a.args, kept.Bytes())
		a.tui.errorf("hook %s: the binary is stale but could not hand over to the launcher (%v); running it as it is", event, rerr)
		env.Gate = nil
		resp, err = hooks.Run(ctx, env, p)
	}
	if err != nil {
		a.tui.errorf("hook %s: %v", event, err)
		return
	}
	out, err := hooks.Encode(event, resp)
	if err != nil {
		a.tui.errorf("hook %s: %v", event, err)
		return
	}
	if len(out) > 0 {
		if _, err := a.stdout.Write(out); err != nil {
			a.tui.errorf("hook %s: write output: %v", event, err)
		}
	}
}
