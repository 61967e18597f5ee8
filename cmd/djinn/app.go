package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/internal/hookmain"
	"github.com/djinn-cc/djinn/state"
)

// usageError marks a command-line mistake (exit ExitUsage, never help on
// stdout).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// exitError carries a command's non-zero exit after it printed its own
// report (state validate finding problems).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// app holds what every command needs.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	tui            tui
	getenv         func(string) string
	environ        []string
	now            func() time.Time
	// stale, when set, waits for the launcher's background staleness
	// check (hooks only, see staleAsync); args are the process's own, for
	// handing a hook to the launcher.
	stale func() bool
	args  []string
	// searched and newest are set when a command looked for its state
	// root (discover.go): the roots it searched and the newest session it
	// saw, for an error to name the --state-dir to pass.
	searched []string
	newest   *rootSession
}

// commonFlags are taken by every command (flags go before arguments: urfave
// v2 does not parse flags after a positional argument).
func commonFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "state-dir", Usage: "state directory (default: $DJINN_STATE_DIR, $CLAUDE_PLUGIN_DATA, $XDG_STATE_HOME/djinn)"},
		&cli.StringFlag{Name: "session", Usage: "session id (default: the newest session of the current project)"},
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWith(ctx, args, stdin, stdout, stderr, nil)
}

// runWith is run with the launcher's staleness check of a hook (nil for
// none).
func runWith(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, stale func() bool) int {
	a := &app{
		stdin: stdin, stdout: stdout, stderr: stderr, tui: tui{stderr},
		getenv: os.Getenv, environ: os.Environ(), now: time.Now,
		stale: stale, args: args,
	}
	// Tests pin the clock with DJINN_NOW.
	a.now = hookmain.Clock(os.Getenv)
	return a.run(ctx, args)
}

func (a *app) run(ctx context.Context, args []string) (code int) {
	// A hook must never fail the agent, whatever happens below.
	isHook := len(args) > 1 && args[1] == "hook"
	defer func() {
		if r := recover(); r != nil {
			a.tui.errorf("internal error: %v", r)
			code = ExitFailure
			if isHook {
				code = ExitOK
			}
		}
	}()
	if isHook && len(args) == 3 && !strings.HasPrefix(args[2], "-") {
		// What hooks.json runs: no flags to parse.
		a.runHook(ctx, args[2], "", "")
		return ExitOK
	}
	c := &cli.App{
		Name:            "djinn",
		Usage:           "keep a Claude Code agent on task: goal drift, loops, stalls, context pressure",
		HideVersion:     true,
		HideHelpCommand: true,
		Reader:          a.stdin,
		Writer:          a.stdout,
		ErrWriter:       a.stderr,
		ExitErrHandler:  func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err.Error()}
		},
		CommandNotFound: func(c *cli.Context, name string) {},
		Commands: []*cli.Command{
			a.hookCommand(),
			a.stateCommand(),
			a.replayCommand(),
			a.rankCommand(),
			a.logCommand(),
			a.reorientCommand(),
			a.statusCommand(),
			a.reportCommand(),
			a.statuslineCommand(),
			a.switchCommand("disable"),
			a.switchCommand("enable"),
			a.feedbackCommand(),
			a.configCommand(),
			a.versionCommand(),
		},
	}
	for _, cmd := range c.Commands {
		cmd.OnUsageError = c.OnUsageError
		for _, sub := range cmd.Subcommands {
			sub.OnUsageError = c.OnUsageError
		}
	}
	switch {
	case len(args) < 2:
		a.tui.errorf("expected a command: %s (djinn --help lists them)", commandNames(c))
		return ExitUsage
	case args[1] == "help" && len(args) == 2:
		args = []string{args[0], "--help"}
	case !knownCommand(c, args[1]) && !strings.HasPrefix(args[1], "-"):
		a.tui.errorf("unknown command %q (try: djinn --help)", args[1])
		return ExitUsage
	}
	c.Action = func(*cli.Context) error {
		return usagef("expected a command: %s", commandNames(c))
	}
	err := c.RunContext(ctx, args)
	if isHook {
		// The hook command reports its own failures and always exits 0;
		// only a flag it could not parse is left to report here.
		var ue usageError
		if errors.As(err, &ue) {
			a.tui.errorf("hook: %s", ue.msg)
		}
		return ExitOK
	}
	var ue usageError
	var ee exitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		a.tui.errorf("%s", ue.msg)
		return ExitUsage
	default:
		a.tui.errorf("%v", err)
		return ExitFailure
	}
}

func commandNames(c *cli.App) string {
	names := make([]string, 0, len(c.Commands))
	for _, cmd := range c.Commands {
		names = append(names, cmd.Name)
	}
	return strings.Join(names, ", ")
}

func knownCommand(c *cli.App, name string) bool {
	for _, cmd := range c.Commands {
		if cmd.Name == name {
			return true
		}
	}
	return false
}

// store resolves the state root from --state-dir and the environment, else
// searches for it (discover.go).
func (a *app) store(c *cli.Context) (*state.Store, error) {
	return a.storeAt(a.discover(c))
}

// storeAt resolves the state root from a --state-dir value (may be empty)
// and the environment.
func (a *app) storeAt(stateDir string) (*state.Store, error) {
	return hookmain.NewStore(stateDir, a.getenv, a.now, func(msg string) { a.tui.errorf("%s", msg) })
}

// env builds the hook environment: store, settings and clock, under the
// state root store finds.
func (a *app) env(c *cli.Context) (*hooks.Env, error) {
	return a.envAt(a.discover(c))
}

// session builds the hook environment and resolves the session a command
// is about (see sessionID).
func (a *app) session(c *cli.Context) (*hooks.Env, string, error) {
	env, err := a.env(c)
	if err != nil {
		return nil, "", err
	}
	id, err := a.sessionID(c, env.Store)
	if err != nil {
		return nil, "", err
	}
	if a.searched != nil {
		// A session named but found under no root searched: say where
		// the search went.
		if dir, err := env.Store.SessionDir(id); err == nil {
			if _, err := os.Lstat(dir); err != nil {
				return nil, "", fmt.Errorf("session %s: no state under %s%s", id, env.Store.Root, a.searchHint())
			}
		}
	}
	return env, id, nil
}

// envAt is env for a --state-dir value (may be empty).
func (a *app) envAt(stateDir string) (*hooks.Env, error) {
	return hookmain.NewEnv(stateDir, a.getenv, a.environ, a.now, func(msg string) { a.tui.errorf("%s", msg) })
}
