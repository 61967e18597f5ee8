package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func testStore(t *testing.T) (*Store, *[]string) {
	t.Helper()
	var notices []string
	return &Store{
		Root:     t.TempDir(),
		LockWait: time.Second,
		Now:      func() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) },
		Notice:   func(m string) { notices = append(notices, m) },
	}, &notices
}

// oneNotice stops the test unless the store gave exactly one notice and
// it says each of says.
func oneNotice(t *testing.T, notices []string, says ...string) {
	t.Helper()
	if len(notices) != 1 {
		t.Fatalf("notices = %q, want one", notices)
	}
	for _, want := range says {
		if !strings.Contains(notices[0], want) {
			t.Fatalf("notice %q does not say %q", notices[0], want)
		}
	}
}

func sampleWindow(id string) *Window {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	return &Window{SchemaVersion: SchemaVersion, SessionID: id, CreatedAt: now, UpdatedAt: now, Events: map[string]int{"Stop": 1}, ToolCalls: 2}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	st, notices := testStore(t)
	p := filepath.Join(st.Root, "sessions", "s1", "window.json")
	if err := st.Save(p, KindWindow, sampleWindow("s1")); err != nil {
		t.Fatal(err)
	}
	var got Window
	found, err := st.Load(p, KindWindow, &got)
	if err != nil || !found {
		t.Fatalf("found=%v err=%v", found, err)
	}
	if got.ToolCalls != 2 || got.Events["Stop"] != 1 {
		t.Fatalf("round trip lost data: %+v", got)
	}
	if len(*notices) != 0 {
		t.Fatalf("unexpected notices %v", *notices)
	}
	// No temporary file is left beside the target.
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("want only window.json, got %v", entries)
	}
}

func TestLoadMissing(t *testing.T) {
	st, _ := testStore(t)
	var w Window
	found, err := st.Load(filepath.Join(st.Root, "nope.json"), KindWindow, &w)
	if found || err != nil {
		t.Fatalf("found=%v err=%v", found, err)
	}
}

// TestLoadQuarantines: a file edited by hand into something no field-by-field
// repair can save (not a JSON object, another schema version) is moved
// aside, reported once, and loading starts fresh.
func TestLoadQuarantines(t *testing.T) {
	for _, tc := range []struct {
		name, content, want string
	}{
		{"syntax", `garbage{"schema_version":1,`, "invalid JSON"},
		{"not-object", `[1,2]`, "expected object"},
		{"version", `{"schema_version":2,"session_id":"s1","created_at":"2026-11-21T10:00:00Z","updated_at":"2026-11-21T10:00:00Z","events":{},"tool_calls":1}`, "schema_version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, notices := testStore(t)
			p := filepath.Join(st.Root, "window.json")
			if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			var w Window
			found, err := st.Load(p, KindWindow, &w)
			if found || err != nil {
				t.Fatalf("found=%v err=%v", found, err)
			}
			if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("bad file still in place: %v", err)
			}
			moved := p + ".corrupt-20261121T100000Z"
			if b, err := os.ReadFile(moved); err != nil || string(b) != tc.content {
				t.Fatalf("quarantined copy: %q, %v", b, err)
			}
			oneNotice(t, *notices, tc.want, "corrupt-")
			// A second quarantine in the same second keeps the first copy.
			_ = os.WriteFile(p, []byte(tc.content), 0o600)
			_, _ = st.Load(p, KindWindow, &w)
			if _, err := os.Stat(moved + ".1"); err != nil {
				t.Fatalf("second quarantine: %v", err)
			}
		})
	}
}

func TestLoadRefusesNonRegular(t *testing.T) {
	st, notices := testStore(t)
	p := filepath.Join(st.Root, "window.json")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan struct{})
	go func() {
		var w Window
		_, _ = st.Load(p, KindWindow, &w)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Load blocked on a FIFO")
	}
	oneNotice(t, *notices, "not a regular file")
}

func TestSaveRefusesInvalid(t *testing.T) {
	st, _ := testStore(t)
	w := sampleWindow("s1")
	w.SessionID = "../evil"
	p := filepath.Join(st.Root, "window.json")
	err := st.Save(p, KindWindow, w)
	if err == nil || !strings.Contains(err.Error(), "session_id") {
		t.Fatalf("err = %v, want a refusal naming session_id", err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("invalid document was written")
	}
}

func TestPermissions(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	st, _ := testStore(t)
	dir := filepath.Join(st.Root, "sessions", "s1")
	lock, err := st.LockSession(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	if err := st.Save(filepath.Join(dir, "window.json"), KindWindow, sampleWindow("s1")); err != nil {
		t.Fatal(err)
	}
	if err := st.Append(filepath.Join(dir, "turns.jsonl"), KindTurn, Turn{SchemaVersion: 1, Seq: 1, Time: time.Now(), Tool: "Read"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(st.Root, "sessions"), dir} {
		fi, _ := os.Stat(p)
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", p, fi.Mode().Perm())
		}
	}
	for _, name := range []string{"window.json", "turns.jsonl", "lock"} {
		fi, _ := os.Stat(filepath.Join(dir, name))
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", name, fi.Mode().Perm())
		}
	}
}

func TestAppendAndReadLines(t *testing.T) {
	st, notices := testStore(t)
	p := filepath.Join(st.Root, "turns.jsonl")
	appendTurns(t, st, p, 3)
	// A crash mid-append leaves a torn last line.
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0o600)
	f.WriteString(`{"schema_version":1,"seq":4,"ti`)
	f.Close()
	var seqs []int
	stats, err := st.ReadLines(p, KindTurn, 0, func(raw []byte) error {
		seqs = append(seqs, bytes.Count(raw, []byte(`"seq"`)))
		return nil
	})
	if err != nil || stats.Lines != 3 || !stats.Torn || stats.Invalid != 0 {
		t.Fatalf("stats=%+v err=%v", stats, err)
	}
	oneNotice(t, *notices, "torn")
	// The next append starts on a fresh line, so it is intact and the torn
	// fragment becomes an invalid line of its own.
	if err := st.Append(p, KindTurn, Turn{SchemaVersion: 1, Seq: 5, Time: time.Now(), Tool: "Bash"}); err != nil {
		t.Fatal(err)
	}
	*notices = nil
	stats, err = st.ReadLines(p, KindTurn, 0, func([]byte) error { return nil })
	if err != nil || stats.Lines != 4 || stats.Torn || stats.Invalid != 1 {
		t.Fatalf("after repair: stats=%+v err=%v", stats, err)
	}
}

func TestReadLinesWindow(t *testing.T) {
	st, _ := testStore(t)
	p := filepath.Join(st.Root, "turns.jsonl")
	appendTurns(t, st, p, 100)
	n := 0
	stats, err := st.ReadLines(p, KindTurn, 1000, func([]byte) error { n++; return nil })
	if err != nil || !stats.Truncated || n == 0 || n >= 100 || stats.Invalid != 0 || stats.Torn {
		t.Fatalf("n=%d stats=%+v err=%v", n, stats, err)
	}
}

// TestReadLastLines: only the last maxLines lines are delivered, in order,
// and Truncated says lines were left out; a torn last line counts as one
// of them and is reported, not delivered. The oracle is the seq numbers
// appended.
func TestReadLastLines(t *testing.T) {
	st, _ := testStore(t)
	p := filepath.Join(st.Root, "turns.jsonl")
	appendTurns(t, st, p, 20)
	seqs := func(maxLines int) ([]int, LineStats) {
		var got []int
		stats, err := st.ReadLastLines(p, KindTurn, 0, maxLines, func(raw []byte) error {
			var tn Turn
			if err := json.Unmarshal(raw, &tn); err != nil {
				t.Fatal(err)
			}
			got = append(got, tn.Seq)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got, stats
	}
	for _, c := range []struct {
		max       int
		first, n  int
		truncated bool
	}{{0, 1, 20, false}, {5, 16, 5, true}, {1, 20, 1, true}, {20, 1, 20, false}, {50, 1, 20, false}} {
		got, stats := seqs(c.max)
		if len(got) != c.n || got[0] != c.first || got[len(got)-1] != 20 || stats.Truncated != c.truncated {
			t.Errorf("maxLines %d: seqs %v, stats %+v; want %d lines from %d, truncated %v", c.max, got, stats, c.n, c.first, c.truncated)
		}
	}
	// A torn last line is the last of the lines kept.
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"schema_version":1,"seq":21,"ti`)
	_ = f.Close()
	got, stats := seqs(3)
	if len(got) != 2 || got[0] != 19 || !stats.Torn {
		t.Errorf("torn tail: seqs %v, stats %+v; want 19, 20 and a torn line", got, stats)
	}
}

func TestLockBusy(t *testing.T) {
	st, _ := testStore(t)
	st.LockWait = 30 * time.Millisecond
	l1, err := st.LockSession(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	// gofrs/flock locks are per open file description, so a second lock in
	// the same process contends like another process would.
	if _, err := st.LockSession(context.Background(), "s1"); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("err = %v, want ErrLockBusy", err)
	}
	l1.Unlock()
	l2, err := st.LockSession(context.Background(), "s1")
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	l2.Unlock()
}

// TestLockWait: a waiting process gets the lock when the holder lets go
// (a blocked flock, not a poll); one that gave up leaves nothing held once
// its late lock comes (its goroutine releases it), so the next comer gets
// the lock; and a cancelled context ends the wait with its error.
func TestLockWait(t *testing.T) {
	st, _ := testStore(t)
	lockPath := filepath.Join(st.Root, "sessions", "s1", "lock")
	// waiting and closed hear of this lock's waiters blocking and of
	// abandoned waiters letting their late lock go.
	waiting, closed := make(chan struct{}, 4), make(chan struct{}, 4)
	onWaiting := func(path string) {
		if path == lockPath {
			waiting <- struct{}{}
		}
	}
	onClosed := func(path string) {
		if path == lockPath {
			closed <- struct{}{}
		}
	}
	hear := func(ch chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("never heard that %s", what)
		}
	}
	lockIn := func(ctx context.Context, wait time.Duration) chan error {
		done := make(chan error, 1)
		go func() {
			s := &Store{Root: st.Root, LockWait: wait, lockHooks: lockHooks{waiting: onWaiting, abandonedClosed: onClosed}}
			l, err := s.LockSession(ctx, "s1")
			if err == nil {
				err = l.Unlock()
			}
			done <- err
		}()
		return done
	}

	l1, err := st.LockSession(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	// A waiter blocks while l1 holds the lock and gets it once l1 lets go.
	done := lockIn(context.Background(), time.Hour)
	hear(waiting, "the waiter blocked")
	select {
	case err := <-done:
		t.Fatalf("got the lock while it was held (%v)", err)
	default:
	}
	_ = l1.Unlock()
	if err := <-done; err != nil {
		t.Fatalf("waiting for a released lock: %v", err)
	}

	// A waiter that gives up while l2 holds it: its goroutine gets the
	// lock once l2 lets go, and lets it go again at once.
	l2, err := st.LockSession(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := <-lockIn(context.Background(), time.Millisecond); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("err = %v, want ErrLockBusy", err)
	}
	_ = l2.Unlock()
	hear(closed, "the abandoned waiter let its lock go")
	noWait := &Store{Root: st.Root} // the lock must be free now
	l3, err := noWait.LockSession(context.Background(), "s1")
	if err != nil {
		t.Fatalf("after an abandoned wait: %v", err)
	}

	// A cancelled context, not the budget, ends this wait.
	ctx, cancel := context.WithCancel(context.Background())
	done = lockIn(ctx, time.Hour)
	hear(waiting, "the waiter blocked")
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || errors.Is(err, ErrLockBusy) {
		t.Fatalf("cancelled wait: err = %v, want context.Canceled", err)
	}
	_ = l3.Unlock()
	hear(closed, "the cancelled waiter let its lock go")
	l4, err := noWait.LockSession(context.Background(), "s1")
	if err != nil {
		t.Fatalf("after a cancelled wait: %v", err)
	}
	_ = l4.Unlock()
}

func TestValidateSessionID(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"09327fcd-3030-4296-813e-e11d47f78b81", true},
		{"abc_DEF-123", true},
		{"", false},
		{"../etc", false},
		{"a/b", false},
		{"a\x00b", false},
		{"a b", false},
		{"é", false},
		{strings.Repeat("a", 128), true},
		{strings.Repeat("a", 129), false},
		{strings.Repeat("a", 10000), false},
	} {
		if err := ValidateSessionID(tc.id); (err == nil) != tc.ok {
			t.Errorf("ValidateSessionID(%.20q) = %v, want ok=%v", tc.id, err, tc.ok)
		}
	}
}

func TestResolveRoot(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		name string
		flag string
		env  map[string]string
		want string
	}{
		{"flag wins", "/f", map[string]string{"DJINN_STATE_DIR": "/d", "CLAUDE_PLUGIN_DATA": "/p"}, "/f"},
		{"djinn env", "", map[string]string{"DJINN_STATE_DIR": "/d", "CLAUDE_PLUGIN_DATA": "/p"}, "/d"},
		{"plugin data", "", map[string]string{"CLAUDE_PLUGIN_DATA": "/p", "XDG_STATE_HOME": "/x"}, "/p"},
		{"xdg", "", map[string]string{"XDG_STATE_HOME": "/x", "HOME": "/h"}, "/x/djinn"},
		{"home", "", map[string]string{"HOME": "/h"}, "/h/.local/state/djinn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveRoot(tc.flag, env(tc.env))
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := ResolveRoot("", env(nil)); !errors.Is(err, ErrNoRoot) {
		t.Fatalf("no env: err = %v", err)
	}
}

// TestSaveAll: documents saved together are byte for byte what Save
// writes, 0600, with no temporary file left; and one that cannot be
// encoded leaves every target as it was, the ones before it included.
func TestSaveAll(t *testing.T) {
	st, _ := testStore(t)
	dir := filepath.Join(st.Root, "sessions", "s1")
	win, anc := filepath.Join(dir, "window.json"), filepath.Join(dir, "anchor.json")
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	anchor := &Anchor{SchemaVersion: SchemaVersion, SessionID: "s1", Text: "Add a --json flag", Hash: "0123456789ab", IntentType: "feature", Tokens: []string{"json", "flag"}, CapturedAt: now, Source: "prompt", Deltas: []Delta{}}
	if err := st.SaveAll(Doc{win, KindWindow, sampleWindow("s1")}, Doc{anc, KindAnchor, anchor}); err != nil {
		t.Fatal(err)
	}
	ref, _ := testStore(t)
	for _, c := range []struct {
		path string
		kind Kind
		v    any
	}{{win, KindWindow, sampleWindow("s1")}, {anc, KindAnchor, anchor}} {
		want := filepath.Join(ref.Root, filepath.Base(c.path))
		if err := ref.Save(want, c.kind, c.v); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if w, _ := os.ReadFile(want); !bytes.Equal(got, w) {
			t.Errorf("%s: SaveAll wrote\n%s\nSave writes\n%s", filepath.Base(c.path), got, w)
		}
		if fi, _ := os.Stat(c.path); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v", filepath.Base(c.path), fi.Mode().Perm())
		}
	}
	before, _ := os.ReadFile(win)
	newer := sampleWindow("s1")
	newer.ToolCalls = 99
	bad := *anchor
	bad.Deltas = []Delta{{Text: "x", Ratio: math.NaN(), At: now}}
	if err := st.SaveAll(Doc{win, KindWindow, newer}, Doc{anc, KindAnchor, &bad}); err == nil {
		t.Fatal("SaveAll of an unencodable anchor succeeded")
	}
	if after, _ := os.ReadFile(win); !bytes.Equal(after, before) {
		t.Errorf("a failed SaveAll changed window.json:\n%s", after)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("want window.json and anchor.json only, got %v", entries)
	}
}

// appendTurns appends turns 1 to n to the log at p.
func appendTurns(t *testing.T, st *Store, p string, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		if err := st.Append(p, KindTurn, Turn{SchemaVersion: 1, Seq: i, Time: time.Now(), Tool: "Bash"}); err != nil {
			t.Fatal(err)
		}
	}
}
