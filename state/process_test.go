package state

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestMain lets the test binary act as a second process: with
// DJINN_STATE_HELPER set it runs the named helper instead of the tests.
func TestMain(m *testing.M) {
	switch os.Getenv("DJINN_STATE_HELPER") {
	case "increment":
		os.Exit(helperIncrement())
	}
	os.Exit(m.Run())
}

// helperIncrement does N load-modify-write cycles on one session's
// window.json under the session lock.
func helperIncrement() int {
	n, _ := strconv.Atoi(os.Getenv("DJINN_STATE_N"))
	st := &Store{Root: os.Getenv("DJINN_STATE_ROOT"), LockWait: 30 * time.Second}
	for i := 0; i < n; i++ {
		lock, err := st.LockSession(context.Background(), "shared")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		p := filepath.Join(st.Root, "sessions", "shared", "window.json")
		var w Window
		found, err := st.Load(p, KindWindow, &w)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if !found {
			w = *sampleWindow("shared")
			w.ToolCalls = 0
		}
		w.ToolCalls++
		if err := st.Save(p, KindWindow, &w); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := lock.Unlock(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// TestConcurrentProcessesLoseNoUpdate runs real processes doing
// load-modify-write on one session at once: every increment must survive.
func TestConcurrentProcessesLoseNoUpdate(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	root := t.TempDir()
	const procs, each = 4, 100
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for i := 0; i < procs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "DJINN_STATE_HELPER=increment", "DJINN_STATE_ROOT="+root, "DJINN_STATE_N="+strconv.Itoa(each))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("helper: %v: %s", err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st := &Store{Root: root}
	var w Window
	if found, err := st.Load(filepath.Join(root, "sessions", "shared", "window.json"), KindWindow, &w); !found || err != nil {
		t.Fatalf("found=%v err=%v", found, err)
	}
	if w.ToolCalls != procs*each {
		t.Fatalf("tool_calls = %d, want %d: updates were lost", w.ToolCalls, procs*each)
	}
}
