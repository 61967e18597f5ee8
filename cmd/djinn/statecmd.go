package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
	"github.com/djinn-cc/djinn/state/schemacheck"
)

func (a *app) stateCommand() *cli.Command {
	return &cli.Command{
		Name:  "state",
		Usage: "inspect, check or delete Djinn's state",
		Subcommands: []*cli.Command{
			command("path", "print the state root, or a session's directory with --session", "", a.statePath),
			command("show", "print a session's state files", "", a.stateShow),
			command("validate", "check every state file against its schema (a session, or all with --all); exit 1 on a failure", "", a.stateValidate,
				&cli.BoolFlag{Name: "all", Usage: "check every session"}),
			command("delete", "delete a session's data (--session, default: the current project's newest), or with --all everything Djinn wrote (every session, learnings, posteriors, locks; config.json and the binaries in bin/ stay)", "", a.stateDelete,
				&cli.BoolFlag{Name: "all", Usage: "delete everything Djinn wrote, under every state root found when none is given"}),
			command("prune", "delete the sessions untouched for retention_days (default 30), or --days", "", a.statePrune,
				&cli.IntFlag{Name: "days", Usage: "prune sessions untouched for more than this many days"}),
		},
		Action: func(c *cli.Context) error {
			return usagef("state: expected a subcommand: path, show, validate, delete or prune")
		},
	}
}

func noArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("%s: unexpected argument %q (flags go before arguments)", c.Command.FullName(), c.Args().First())
	}
	return nil
}

// flagsFirst refuses an argument that looks like a flag: urfave/cli v2 does
// not parse flags after the first argument, and silently taking "--json" as
// a file name or "--force" as part of a goal would be worse than an error.
func flagsFirst(c *cli.Context) error {
	for _, a := range c.Args().Slice() {
		if strings.HasPrefix(a, "-") && a != "-" {
			return usagef("%s: %q after an argument: flags go before arguments", c.Command.FullName(), a)
		}
	}
	return nil
}

// storeNoArgs refuses arguments (the state subcommands take flags only)
// and resolves the state root.
func (a *app) storeNoArgs(c *cli.Context) (*state.Store, error) {
	if err := noArgs(c); err != nil {
		return nil, err
	}
	return a.store(c)
}

func (a *app) statePath(c *cli.Context) error {
	st, err := a.storeNoArgs(c)
	if err != nil {
		return err
	}
	if c.String("session") == "" {
		_, err = fmt.Fprintln(a.stdout, st.Root)
		return err
	}
	dir, err := st.SessionDir(c.String("session"))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(a.stdout, dir)
	return err
}

func (a *app) stateShow(c *cli.Context) error {
	st, err := a.storeNoArgs(c)
	if err != nil {
		return err
	}
	id, err := a.sessionID(c, st)
	if err != nil {
		return err
	}
	dir, _ := st.SessionDir(id)
	fmt.Fprintf(a.stdout, "session %s\n%s\n", id, dir)
	for _, f := range []struct {
		name string
		kind state.Kind
		v    any
	}{
		{"anchor.json", state.KindAnchor, &state.Anchor{}},
		{"window.json", state.KindWindow, &state.Window{}},
	} {
		p := filepath.Join(dir, f.name)
		raw, err := st.ReadDoc(p)
		if errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(a.stdout, "\n== %s: none\n", f.name)
			continue
		}
		if err != nil {
			fmt.Fprintf(a.stdout, "\n== %s: not shown: %v\n", f.name, err)
			continue
		}
		if errs := settings.ValidateBytes(f.kind, raw); len(errs) > 0 {
			fmt.Fprintf(a.stdout, "\n== %s: INVALID: %v\n", f.name, errs[0])
			continue
		}
		var v any
		_ = json.Unmarshal(raw, &v)
		out, _ := json.MarshalIndent(v, "", "  ")
		fmt.Fprintf(a.stdout, "\n== %s\n%s\n", f.name, out)
	}
	// The live drift sample is part of window.json (drift.reservoir); the
	// goals /djinn:reorient replaced, and their samples, are archived.
	fmt.Fprintf(a.stdout, "\n== archive/: %s\n", archiveSummary(filepath.Join(dir, "archive")))
	for _, f := range []struct {
		name string
		kind state.Kind
	}{{"turns.jsonl", state.KindTurn}, {"advisories.jsonl", state.KindAdvisory}} {
		n := 0
		stats, err := st.ReadLines(filepath.Join(dir, f.name), f.kind, 0, func([]byte) error { n++; return nil })
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "\n== %s: %s", f.name, plural(n, "line", "lines"))
		if stats.Invalid > 0 || stats.Torn {
			fmt.Fprintf(a.stdout, " (%d invalid, torn last line: %v)", stats.Invalid, stats.Torn)
		}
		fmt.Fprintln(a.stdout)
	}
	return nil
}

func (a *app) stateValidate(c *cli.Context) error {
	st, err := a.storeNoArgs(c)
	if err != nil {
		return err
	}
	var ids []string
	if !c.Bool("all") {
		id, err := a.sessionID(c, st)
		if err != nil {
			return err
		}
		ids = []string{id}
	}
	rep, err := st.CheckWith(ids, checkDoc)
	if err != nil {
		return err
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(a.stdout, "note: %s\n", n)
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(a.stdout, "invalid: %s\n", p)
	}
	fmt.Fprintf(a.stdout, "%s checked, %s\n", plural(rep.Files, "file", "files"), plural(len(rep.Problems), "problem", "problems"))
	if len(rep.Problems) > 0 {
		return exitError{ExitFailure}
	}
	return nil
}

// checkDoc checks a state document against its embedded schema, the
// documented contract, and then as a hook reads it: a document the schema
// allows but a hook would still move aside (an integer written 1.0, say)
// is reported too.
func checkDoc(k state.Kind, raw []byte) []state.FieldError {
	if errs := schemacheck.Validate(k, raw); len(errs) > 0 {
		return errs
	}
	return settings.ValidateBytes(k, raw)
}

// stateDelete deletes the session named (--session), else the current
// project's newest (as every command defaults), or with --all everything
// Djinn wrote under the state root: every session, learnings.jsonl,
// posteriors.json and the lock files. Without a root given, --all covers
// every root a command searches (discover.go): the XDG root and each of
// Claude Code's plugin data directories of Djinn, djinn-inline included.
func (a *app) stateDelete(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	if !c.Bool("all") {
		st, err := a.store(c)
		if err != nil {
			return err
		}
		id := c.String("session")
		if id == "" {
			if id, err = a.sessionID(c, st); err != nil {
				return err
			}
		}
		return a.deleteSession(c.Context, st, id)
	}
	if c.String("session") != "" {
		return usagef("state delete: --session and --all together")
	}
	roots := []string{c.String("state-dir")}
	if !a.explicitRoot(c.String("state-dir")) {
		roots = a.candidateRoots()
	}
	said := false
	var where []string
	for _, r := range roots {
		st, err := a.storeAt(r)
		if err != nil {
			return err
		}
		where = append(where, st.Root)
		did, err := a.deleteAll(c.Context, st)
		if err != nil {
			return err
		}
		said = said || did
	}
	if !said {
		fmt.Fprintf(a.stdout, "nothing of Djinn's to delete under %s\n", strings.Join(where, ", "))
	}
	return nil
}

// deleteAll removes every session under st's root, then what Djinn keeps
// at the root (state.Store.DeleteRootFiles), and says what stayed. It
// reports whether there was anything to delete.
func (a *app) deleteAll(ctx context.Context, st *state.Store) (bool, error) {
	all, err := st.Sessions()
	if err != nil {
		return false, err
	}
	for _, s := range all {
		// learnings.jsonl goes whole below: no line of it is dropped.
		if err := a.deleteSessionDir(ctx, st, s.ID); err != nil {
			return true, err
		}
	}
	res, err := st.DeleteRootFiles(ctx)
	if err != nil {
		return true, err
	}
	if len(all) == 0 && len(res.Removed) == 0 && !res.RootRemoved {
		return false, nil
	}
	switch {
	case res.RootRemoved:
		fmt.Fprintf(a.stdout, "deleted %s\n", st.Root)
	case len(res.Left) > 0:
		fmt.Fprintf(a.stdout, "deleted Djinn's files from %s; left %s\n", st.Root, strings.Join(res.Left, ", "))
	default:
		fmt.Fprintf(a.stdout, "deleted Djinn's files from %s\n", st.Root)
	}
	return true, nil
}

// deleteSession removes a session's data (Store.DeleteSession: under its
// lock, only the regular files Djinn made, never through a link) and its
// line in learnings.jsonl.
func (a *app) deleteSession(ctx context.Context, st *state.Store, id string) error {
	if err := a.deleteSessionDir(ctx, st, id); err != nil {
		return err
	}
	// The session's line in learnings.jsonl goes too (the posterior it was
	// folded into keeps only a running average, no session).
	g, err := st.LockGlobal(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = g.Unlock() }()
	_, err = st.DropLines(filepath.Join(st.Root, "learnings.jsonl"), func(raw []byte) bool {
		var l struct {
			SessionID string `json:"session_id"`
		}
		return json.Unmarshal(raw, &l) == nil && l.SessionID == id
	})
	return err
}

// deleteSessionDir removes a session's directory (Store.DeleteSession) and
// says what it did.
func (a *app) deleteSessionDir(ctx context.Context, st *state.Store, id string) error {
	res, err := st.DeleteSession(ctx, id)
	if err != nil {
		return err
	}
	switch {
	case res.MovedAside != "":
		fmt.Fprintf(a.stdout, "session %s was not a directory Djinn made; moved it aside to %s, and followed nothing\n", id, res.MovedAside)
	case len(res.Left) > 0:
		dir, _ := st.SessionDir(id)
		fmt.Fprintf(a.stdout, "deleted session %s; left %s, which Djinn did not make: %s\n", id, dir, strings.Join(res.Left, ", "))
	default:
		fmt.Fprintf(a.stdout, "deleted session %s\n", id)
	}
	return nil
}

// statePrune removes the sessions untouched for longer than retention_days
// (or --days), as SessionStart does a few at a time, all at once.
func (a *app) statePrune(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	env, err := a.env(c)
	if err != nil {
		return err
	}
	st, days := env.Store, env.Settings.RetentionDays
	if c.IsSet("days") {
		days = c.Int("days")
	}
	if days <= 0 {
		fmt.Fprintln(a.stdout, "retention is off (retention_days 0): nothing pruned")
		return nil
	}
	res, err := st.Prune(c.Context, state.PruneOptions{MaxAge: time.Duration(days) * 24 * time.Hour})
	if err != nil {
		return err
	}
	for _, id := range res.Removed {
		fmt.Fprintf(a.stdout, "pruned session %s\n", id)
	}
	for _, id := range res.Kept {
		fmt.Fprintf(a.stdout, "kept session %s: it holds files Djinn did not make\n", id)
	}
	fmt.Fprintf(a.stdout, "%d sessions untouched for %d days pruned\n", len(res.Removed), days)
	return nil
}

// plural is n with its noun: "1 problem", "2 problems".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// archiveSummary says what a session's archive/ holds: the goals
// /djinn:reorient replaced (anchor-*.json) and their drift samples
// (reservoir-*.json). The directory is not followed if it is a link.
func archiveSummary(dir string) string {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return "none (no goal was replaced with /djinn:reorient)"
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "not shown: " + err.Error()
	}
	goals, samples := 0, 0
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.Name(), "anchor-"):
			goals++
		case strings.HasPrefix(e.Name(), "reservoir-"):
			samples++
		}
	}
	return fmt.Sprintf("%s replaced with /djinn:reorient, %s of their drift samples", plural(goals, "earlier goal", "earlier goals"), plural(samples, "file", "files"))
}
