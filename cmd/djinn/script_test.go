package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/djinn-cc/djinn/internal/hookmain"
	"github.com/gofrs/flock"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run the djinn command in-process: "exec djinn"
// inside a script calls run with the script's arguments and environment;
// "exec djinn-hook" runs the hook binary's main (cmd/djinn-hook).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"djinn":      func() { os.Exit(run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr)) },
		"djinn-hook": func() { os.Exit(hookmain.Main()) },
	})
}

// TestScript runs every testdata/script/*.txtar. Each script gets
// $PAYLOADS (the captured hook payloads), $CORPUS (the shipped transcripts)
// and a fresh DJINN_STATE_DIR; the clock is pinned with DJINN_NOW.
func TestScript(t *testing.T) {
	root, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(root, "script"),
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("DJINN_UPDATE_SCRIPTS") == "1",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PAYLOADS", filepath.Join(root, "payloads"))
			env.Setenv("CORPUS", filepath.Join(root, "transcripts"))
			env.Setenv("DJINN_STATE_DIR", filepath.Join(env.WorkDir, "state"))
			env.Setenv("DJINN_NOW", "2026-11-21T10:00:00Z")
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// status N cmd args...: run cmd and require exit code N exactly.
			"status": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: status <code> <command> [args...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("status: bad code %q", args[0])
				}
				err = ts.Exec(args[1], args[2:]...)
				got := 0
				if ee, ok := err.(*exec.ExitError); ok {
					got = ee.ExitCode()
				} else if err != nil {
					ts.Fatalf("status: %v", err)
				}
				if got != want {
					ts.Fatalf("exit status %d, want %d", got, want)
				}
			},
			"expand":     cmdExpand,
			"fill":       cmdFill,
			"tree":       cmdTree,
			"unwritable": cmdUnwritable,
			"holdlock":   cmdHoldLock,
		},
	})
}

// expand in out: copy in to out, replacing $VAR and ${VAR} with the
// script's environment (payloads name files under $WORK, which only exists
// when the script runs).
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expand <in> <out>")
	}
	out := os.Expand(ts.ReadFile(args[0]), ts.Getenv)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out), 0o644))
}

// fill in out marker n unit [marker n unit]...: copy in to out, replacing
// each marker with unit repeated n times. Scripts build huge or deeply nested
// payloads with it instead of committing them.
func cmdFill(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 5 || (len(args)-2)%3 != 0 {
		ts.Fatalf("usage: fill <in> <out> <marker> <n> <unit> [<marker> <n> <unit>]...")
	}
	text := ts.ReadFile(args[0])
	for i := 2; i < len(args); i += 3 {
		n, err := strconv.Atoi(args[i+1])
		if err != nil || n < 0 {
			ts.Fatalf("fill: bad count %q", args[i+1])
		}
		if !strings.Contains(text, args[i]) {
			ts.Fatalf("fill: marker %q not in %s", args[i], args[0])
		}
		text = strings.ReplaceAll(text, args[i], strings.Repeat(args[i+2], n))
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(text), 0o644))
}

// tree dir: print every path under dir, relative to it and sorted, one a
// line, directories with a trailing slash; scripts compare it with cmp to
// show that nothing was written where it should not be.
func cmdTree(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: tree <dir>")
	}
	root := ts.MkAbs(args[0])
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		paths = append(paths, rel)
		return nil
	})
	ts.Check(err)
	slices.Sort(paths)
	for _, p := range paths {
		fmt.Fprintln(ts.Stdout(), p)
	}
}

// unwritable dir: create dir and make it impossible for this process to
// create anything under it. chmod 0500 does that for a normal user; root
// ignores permission bits, so there the directory's "sessions" entry is made
// a regular file instead, which no user can create a session under. The
// mode used is printed.
func cmdUnwritable(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: unwritable <dir>")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o700))
	ts.Check(os.Chmod(dir, 0o500))
	// Restore the mode so the work directory can be removed afterwards.
	ts.Defer(func() { _ = os.Chmod(dir, 0o700) })
	probe := filepath.Join(dir, ".probe")
	f, err := os.Create(probe)
	if err != nil {
		fmt.Fprintln(ts.Stdout(), "chmod")
		return
	}
	f.Close()
	ts.Check(os.Remove(probe))
	ts.Check(os.WriteFile(filepath.Join(dir, "sessions"), []byte("not a directory\n"), 0o400))
	fmt.Fprintln(ts.Stdout(), "sessions-file")
}

// holdlock file: take the exclusive lock Djinn's processes take on file
// and keep it until the script ends, to show a hook giving up on a busy
// lock.
func cmdHoldLock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: holdlock <file>")
	}
	path := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(path), 0o700))
	fl := flock.New(path)
	ok, err := fl.TryLock()
	ts.Check(err)
	if !ok {
		ts.Check(errors.New("holdlock: " + path + " is already locked"))
	}
	ts.Defer(func() { _ = fl.Unlock() })
}
