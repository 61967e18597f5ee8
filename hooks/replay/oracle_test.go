package replay

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/djinn-cc/djinn/state"
)

// oracleFiles are the transcripts the fast path is held to the plain one
// on: the team corpus when it is beside the repository, then the
// repository's copies (several are the same sessions, so those replays
// continue sessions the corpus replays left on disk).
func oracleFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, d := range []string{corpusDir, "../../testdata/transcripts"} {
		m, _ := filepath.Glob(filepath.Join(d, "*.jsonl"))
		sort.Strings(m)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("no transcripts")
	}
	return files
}

// replayed is what one replay showed: its report and every event.
type replayed struct {
	rep    *Report
	events []Event
}

// replayAll replays files in order, like `djinn replay --keep-state`:
// into one state directory when stateDir is set (sessions and the learned
// posteriors carry from one file to the next), else each into scratch
// state. Each file gets a fresh work directory at work, so that the paths
// the state records are the same from one call to the next.
func replayAll(t *testing.T, files []string, work, stateDir string, plain bool) []replayed {
	t.Helper()
	out := make([]replayed, len(files))
	for i, f := range files {
		r := &out[i]
		if err := os.RemoveAll(work); err != nil {
			t.Fatal(err)
		}
		opt := Options{WorkDir: work, StateDir: stateDir, Settings: state.DefaultSettings(), Plain: plain, OnEvent: func(ev Event) { r.events = append(r.events, ev) }}
		rep, err := Run(context.Background(), f, opt)
		if err != nil {
			t.Fatalf("replay %s (plain %v): %v", f, plain, err)
		}
		rep.Duration, rep.StateDir = 0, ""
		r.rep = rep
	}
	return out
}

// tree reads every file under dir: name (relative) to mode and content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[rel] = fi.Mode().String() + "\n" + string(raw)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestFastPathMatchesPlain is the oracle of replay's fast path (the
// session cache with window.json written back at the end, decoding ahead,
// unsynced scratch writes): over every transcript, it gives the same
// reports, the same events (each hook's response and advisories, in
// order) and, with a state directory, the same files afterwards, byte for
// byte, as the plain path, where every hook reads and writes its session
// from and to disk as a hook process does.
func TestFastPathMatchesPlain(t *testing.T) {
	files := oracleFiles(t)
	compare := func(t *testing.T, files []string, plain, fast []replayed) {
		t.Helper()
		for i, f := range files {
			p, q := plain[i], fast[i]
			if p.rep.EventCount == 0 {
				t.Errorf("%s: no events replayed", f)
			}
			if len(p.events) != len(q.events) {
				t.Errorf("%s: plain %d events, fast %d", f, len(p.events), len(q.events))
			}
			for j := range min(len(p.events), len(q.events)) {
				if !reflect.DeepEqual(p.events[j], q.events[j]) {
					a, b := clipDiff(fmt.Sprintf("%+v", p.events[j]), fmt.Sprintf("%+v", q.events[j]))
					t.Errorf("%s: event %d differs:\nplain %s\nfast  %s", f, j+1, a, b)
					break
				}
			}
			if !reflect.DeepEqual(p.rep, q.rep) {
				a, b := clipDiff(fmt.Sprintf("%+v", p.rep), fmt.Sprintf("%+v", q.rep))
				t.Errorf("%s: reports differ:\nplain %s\nfast  %s", f, a, b)
			}
		}
	}

	t.Run("state_dir", func(t *testing.T) {
		work, plainDir, fastDir := filepath.Join(memDir(t), "work"), memDir(t), memDir(t)
		plain := replayAll(t, files, work, plainDir, true)
		fast := replayAll(t, files, work, fastDir, false)
		compare(t, files, plain, fast)
		pt, ft := tree(t, plainDir), tree(t, fastDir)
		windows := 0
		for name, want := range pt {
			got, ok := ft[name]
			switch {
			case !ok:
				t.Errorf("%s: written by the plain path only", name)
			case got != want:
				a, b := clipDiff(want, got)
				t.Errorf("%s differs:\nplain %s\nfast  %s", name, a, b)
			}
			if filepath.Base(name) == "window.json" {
				windows++
			}
		}
		for name := range ft {
			if _, ok := pt[name]; !ok {
				t.Errorf("%s: written by the fast path only", name)
			}
		}
		if windows == 0 {
			t.Error("no window.json compared")
		}
		t.Logf("%d files compared, %d sessions", len(pt), windows)
	})

	// Without a state directory (unsynced scratch state), over the
	// repository's copies: the same sessions as above, each from nothing.
	t.Run("scratch", func(t *testing.T) {
		files, _ := filepath.Glob("../../testdata/transcripts/*.jsonl")
		sort.Strings(files)
		work := filepath.Join(memDir(t), "work")
		compare(t, files, replayAll(t, files, work, "", true), replayAll(t, files, work, "", false))
	})

	// Files the fast path cannot share its transcript with (it must build
	// the transcript as the plain path writes it): CRLF line ends, no
	// final newline, both.
	t.Run("odd_line_ends", func(t *testing.T) {
		dir := memDir(t)
		var odd []string
		for _, src := range []string{"../../testdata/transcripts/spotter-subagent.jsonl", "../../testdata/transcripts/spotter-tool_heavy.jsonl"} {
			b, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			crlf := bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
			for name, data := range map[string][]byte{
				"crlf":        crlf,
				"no-final-nl": bytes.TrimRight(b, "\n"),
				"crlf-no-nl":  bytes.TrimRight(crlf, "\r\n"),
			} {
				f := filepath.Join(dir, name+"-"+filepath.Base(src))
				if err := os.WriteFile(f, data, 0o600); err != nil {
					t.Fatal(err)
				}
				odd = append(odd, f)
			}
		}
		sort.Strings(odd)
		work := filepath.Join(memDir(t), "work")
		compare(t, odd, replayAll(t, odd, work, "", true), replayAll(t, odd, work, "", false))
	})
}

// memDir is a temporary directory in memory when /dev/shm is there: the
// plain path syncs every write, which on a disk is most of this test's time
// and no part of what it checks.
func memDir(t *testing.T) string {
	t.Helper()
	if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
		return t.TempDir()
	}
	d, err := os.MkdirTemp("/dev/shm", "djinn-oracle-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

// clipDiff shows two long strings around their first difference.
func clipDiff(a, b string) (string, string) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-200)
	cut := func(s string) string {
		to := min(len(s), i+200)
		if from >= to {
			return fmt.Sprintf("…(%d bytes)", len(s))
		}
		return "…" + strings.ToValidUTF8(s[from:to], "?") + "…"
	}
	return cut(a), cut(b)
}

// TestFailedHookLeavesNoState: when a hook fails (here SessionEnd, which
// cannot append the session's learning: learnings.jsonl is a directory),
// the replay ends with its error and, with the cache, the state directory
// holds what the plain path leaves: the window of the last successful hook,
// not one the failed hook changed in memory (it counted its event before
// failing).
func TestFailedHookLeavesNoState(t *testing.T) {
	f := "../../testdata/transcripts/spotter-4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
	work := filepath.Join(memDir(t), "work")
	run := func(plain bool) (map[string]string, error) {
		dir := memDir(t)
		if err := os.RemoveAll(work); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "learnings.jsonl"), 0o700); err != nil {
			t.Fatal(err)
		}
		_, err := Run(context.Background(), f, Options{WorkDir: work, StateDir: dir, Settings: state.DefaultSettings(), Plain: plain})
		return tree(t, dir), err
	}
	pt, perr := run(true)
	ft, ferr := run(false)
	if perr == nil || ferr == nil || !strings.Contains(perr.Error(), "SessionEnd") || !strings.Contains(ferr.Error(), "SessionEnd") {
		t.Fatalf("want both replays to fail at SessionEnd: plain %v, fast %v", perr, ferr)
	}
	windows := 0
	for name, want := range pt {
		if filepath.Base(name) == "window.json" {
			windows++
			if strings.Contains(want, `"SessionEnd"`) {
				t.Errorf("plain path: %s counts the failed SessionEnd", name)
			}
		}
		if got, ok := ft[name]; !ok || got != want {
			a, b := clipDiff(want, got)
			t.Errorf("%s differs after the failed hook:\nplain %s\nfast  %s", name, a, b)
		}
	}
	for name := range ft {
		if _, ok := pt[name]; !ok {
			t.Errorf("%s: left by the fast path only", name)
		}
	}
	if windows != 1 {
		t.Errorf("%d windows written, want 1", windows)
	}
}
