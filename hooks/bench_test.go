package hooks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/internal/synth"
)

// newSynthSession is the benchmarks' synthetic session (internal/synth,
// the one scripts/hookbench measures), in root.
func newSynthSession(tb testing.TB, root string) *synth.Session {
	tb.Helper()
	s, err := synth.New(root, filepath.Join(root, "state"), "bench-session-0001", func(string) string { return "" })
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// snapshot keeps the session's files so every benchmark iteration starts
// from the same state: whole files are rewritten, append-only logs cut back
// to their length.
type snapshot struct {
	docs map[string][]byte
	logs map[string]int64
}

func takeSnapshot(tb testing.TB, dir string) snapshot {
	tb.Helper()
	sn := snapshot{docs: map[string][]byte{}, logs: map[string]int64{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case strings.HasSuffix(e.Name(), ".jsonl"):
			fi, _ := os.Stat(p)
			sn.logs[p] = fi.Size()
		case strings.HasSuffix(e.Name(), ".json"):
			b, _ := os.ReadFile(p)
			sn.docs[p] = b
		}
	}
	return sn
}

func (sn snapshot) restore(tb testing.TB) {
	for p, b := range sn.docs {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	for p, n := range sn.logs {
		if err := os.Truncate(p, n); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkHookInProcess measures hooks.Run (lock, load, handle, save with
// fsync) for each hot-path event at sessions of 10, 1,000 and 10,000 prior
// tool calls, in process: the process start and the launcher, which the
// script scripts/bench-hooks adds, are not in it. The state is on the
// test's temporary directory.
func BenchmarkHookInProcess(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		root := b.TempDir()
		s := newSynthSession(b, root)
		if err := s.Grow(n, nil); err != nil {
			b.Fatal(err)
		}
		dir, _ := s.Env.Store.SessionDir(s.ID)
		next, err := s.Call(n) // its transcript lines are written once
		if err != nil {
			b.Fatal(err)
		}
		events := []*hooks.Payload{next, s.Prompt(n/25 + 1), s.Stop(n)}
		fail := *next
		fail.HookEventName, fail.ToolResponse, fail.Error = hooks.PostToolUseFailure, nil, "exit status 1: FAIL TestInvoice"
		events = append(events, &fail)
		sn := takeSnapshot(b, dir)
		for _, p := range events {
			b.Run(fmt.Sprintf("calls=%d/%s", n, p.HookEventName), func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					sn.restore(b)
					b.StartTimer()
					if err := s.Run(p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
