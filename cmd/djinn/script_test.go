package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run the djinn command in-process: "exec djinn"
// inside a script calls run with the script's arguments and environment.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"djinn": func() { os.Exit(run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr)) },
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
		},
	})
}
