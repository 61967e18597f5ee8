// Package hookmain is the process Claude Code starts for every hook event.
// The launcher (hooks/djinn) runs `djinn-hook hook <Event>`, a binary of its
// own (cmd/djinn-hook) that links this package and the hooks, but not
// urfave/cli nor what only the commands need: their package initialisation
// and size cost about half a millisecond of every hook, against a budget of
// three times a bare Go process. `djinn hook <Event>` runs the same code.
//
// Whatever happens, a hook exits 0 and reports its own failures as one
// "djinn:" line on stderr, with nothing on stdout.
package hookmain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// Process is what one hook process takes from outside.
type Process struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Environ        []string
	Now            func() time.Time
	// Stale, when set, waits for the launcher's background staleness check
	// (see StaleAsync); Args are the process's own, for handing the hook
	// to the launcher.
	Stale func() bool
	Args  []string
}

// Main is djinn-hook's main: `djinn-hook hook <Event>`. It returns the exit
// code, always 0.
func Main() int {
	LimitMemory(os.Getenv)
	p := &Process{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: errorOutput(os.Getenv),
		Getenv: os.Getenv, Environ: os.Environ(), Now: Clock(os.Getenv),
		Args: os.Args,
	}
	defer func() {
		if r := recover(); r != nil {
			p.Errorf("internal error: %v", r)
		}
	}()
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "hook" {
		args = args[1:]
	}
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		p.Errorf("hook: expected one event name (djinn-hook hook <Event>), got %q", args)
		return 0
	}
	p.Stale = StaleAsync(os.Getenv, args[0])
	p.Run(context.Background(), args[0], "", "")
	return 0
}

// Clock is time.Now, or the time DJINN_NOW pins (RFC 3339; tests use it).
// A bad value is ignored, not fatal.
func Clock(getenv func(string) string) func() time.Time {
	if v := getenv("DJINN_NOW"); v != "" {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			return func() time.Time { return t }
		}
	}
	return time.Now
}

// Errorf prints one "djinn:" line to the process's stderr.
func (p *Process) Errorf(format string, args ...any) { Report(p.Stderr, format, args...) }

// Report prints one "djinn:" line to w; newlines inside are flattened so a
// message is always exactly one line. Every command reports this way.
func Report(w io.Writer, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	msg = strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", " ")), " ")
	fmt.Fprintln(w, "djinn: "+msg)
}

// errStale stops a hook whose binary is older than its sources before it
// writes anything.
var errStale = errors.New("the binary is older than its sources")

// Run handles one event: decode the payload, run the handlers, print the
// answer. Every failure is one "djinn:" line on stderr and nothing on
// stdout. session and stateDir are the --session and --state-dir of
// `djinn hook` (empty: from the payload and the environment).
func (p *Process) Run(ctx context.Context, name, session, stateDir string) {
	event, err := hooks.CanonicalEvent(name)
	if err != nil {
		p.Errorf("hook: %v", err)
		return
	}
	// stdin is read up to a bound; a hook that may turn out stale keeps
	// the payload it read, to hand it to the rebuilt binary.
	in := &payloadReader{r: p.Stdin, max: maxPayload(p.Getenv), stale: p.Stale}
	if p.Stale != nil {
		in.kept = &bytes.Buffer{}
	}
	payload, err := hooks.DecodePayload(in, event)
	if errors.Is(err, errPayloadTooBig) {
		p.Errorf("hook %s: the payload is over %d MiB (DJINN_MAX_PAYLOAD_MB); this event is skipped", event, in.max>>20)
		return
	}
	if err != nil {
		p.Errorf("hook %s: %v", event, err)
		return
	}
	if session != "" {
		payload.SessionID = session
	}
	// The settings' problems are the session's to report, once
	// (hooks.Env.ConfigProblems), not on every hook.
	env, problems, err := newEnv(stateDir, p.Getenv, p.Environ, p.Now, func(msg string) { p.Errorf("%s", msg) })
	if err == nil {
		env.ConfigProblems = problems
	}
	if err != nil {
		p.Errorf("hook %s: %v", event, err)
		return
	}
	if p.Stale != nil {
		env.Gate = func() error {
			if p.Stale() {
				return errStale
			}
			return nil
		}
	}
	resp, err := hooks.Run(ctx, env, payload)
	if errors.Is(err, errStale) {
		// Nothing was written: the rebuilt binary handles this event. If
		// the hand-over fails, this binary handles it after all.
		rerr := relaunchHook(p.Getenv, p.Args, in.kept.Bytes())
		p.Errorf("hook %s: the binary is stale but could not hand over to the launcher (%v); running it as it is", event, rerr)
		env.Gate = nil
		resp, err = hooks.Run(ctx, env, payload)
	}
	if err != nil {
		p.Errorf("hook %s: %v", event, err)
		return
	}
	if event == hooks.SessionStart {
		recordPluginData(p.Getenv, p.Now)
	}
	resp = withBuildNote(event, resp, p.Getenv)
	out, err := hooks.Encode(event, resp)
	if err != nil {
		p.Errorf("hook %s: %v", event, err)
		return
	}
	if len(out) > 0 {
		if _, err := p.Stdout.Write(out); err != nil {
			p.Errorf("hook %s: write output: %v", event, err)
		}
	}
}

// recordPluginData lists $CLAUDE_PLUGIN_DATA, where an installed plugin's
// hooks keep their state, in the default state root's plugin-data file
// (state.PluginDataFile), for commands run from a shell to find it. Once a
// session start, a read when it is listed already; any failure is ignored,
// as it must never touch the hook's answer.
func recordPluginData(getenv func(string) string, now func() time.Time) {
	data := getenv("CLAUDE_PLUGIN_DATA")
	if data == "" || getenv("DJINN_STATE_DIR") != "" {
		return
	}
	dflt, err := state.ResolveRoot("", func(k string) string {
		if k == "CLAUDE_PLUGIN_DATA" || k == "DJINN_STATE_DIR" {
			return ""
		}
		return getenv(k)
	})
	data, err2 := filepath.Abs(data)
	if err != nil || err2 != nil || dflt == data {
		return
	}
	st := &state.Store{Root: dflt, Now: now}
	_ = st.RecordPluginData(data)
}

// withBuildNote puts the launcher's note that it has just built Djinn, and
// how long that took (DJINN_BUILD_NOTE), first in SessionStart's
// systemMessage: the person waited through the build and is told once.
func withBuildNote(event string, resp hooks.Response, getenv func(string) string) hooks.Response {
	note := getenv("DJINN_BUILD_NOTE")
	if event != hooks.SessionStart || note == "" {
		return resp
	}
	if resp.SystemMessage != "" {
		note += "\n" + resp.SystemMessage
	}
	resp.SystemMessage = note
	return resp
}

// NewEnv builds a hook's environment: the store under the state root
// (--state-dir, else the environment), the settings, the clock. Settings
// problems and store notices go to report.
func NewEnv(stateDir string, getenv func(string) string, environ []string, now func() time.Time, report func(string)) (*hooks.Env, error) {
	env, problems, err := newEnv(stateDir, getenv, environ, now, report)
	if err != nil {
		return nil, err
	}
	for _, p := range problems {
		report(p)
	}
	return env, nil
}

// newEnv is NewEnv that returns the settings' problems instead of
// reporting them.
func newEnv(stateDir string, getenv func(string) string, environ []string, now func() time.Time, report func(string)) (*hooks.Env, []string, error) {
	st, err := NewStore(stateDir, getenv, now, report)
	if err != nil {
		return nil, nil, err
	}
	set, problems := settings.Load(st.Root, getenv, withoutHookVars(environ))
	st.LockWait = time.Duration(set.LockWaitMS) * time.Millisecond
	return &hooks.Env{Store: st, Settings: set, Now: now, Getenv: getenv}, problems, nil
}

// LoadSettings loads the settings a hook under the state root uses, with
// each key's source (settings.LoadSources), as the hooks see the
// environment: without the hook process's own variables (hookVars).
func LoadSettings(root string, getenv func(string) string, environ []string) (settings.Settings, map[string]settings.Source, []string) {
	return settings.LoadSources(root, getenv, withoutHookVars(environ))
}

// NewStore resolves the state root from a --state-dir value (may be empty)
// and the environment.
func NewStore(stateDir string, getenv func(string) string, now func() time.Time, report func(string)) (*state.Store, error) {
	root, err := state.ResolveRoot(stateDir, getenv)
	if err != nil {
		return nil, err
	}
	return &state.Store{Root: root, LockWait: 5 * time.Second, Now: now, Notice: report}, nil
}
