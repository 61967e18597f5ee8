package state

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// decoy writes the user's file at path and returns its content.
func decoy(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	body := "the user's " + filepath.Base(path) + "\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return body
}

func unchanged(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Errorf("%s was written through a link: %q (err %v)", path, got, err)
	}
}

func isLinkFree(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		t.Errorf("%s is still a link", path)
	}
	if m, _ := filepath.Glob(path + ".corrupt-*"); len(m) == 0 {
		t.Errorf("%s: the link was not moved aside", path)
	}
}

// TestLinksAtTheRoot: the root's shared files and the session's archive/
// and advisories.jsonl, each a link to a user's file or directory: the
// write goes to a fresh file of Djinn's, the link is moved aside and
// reported, the user's file is untouched.
func TestLinksAtTheRoot(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		rel   string
		dir   bool
		write func(st *Store) error
	}{
		{"learnings", "learnings.jsonl", false, func(st *Store) error {
			return st.AppendLine(filepath.Join(st.Root, "learnings.jsonl"), []byte(`{}`))
		}},
		{"posteriors", "posteriors.json", false, func(st *Store) error {
			return st.Save(filepath.Join(st.Root, "posteriors.json"), KindPosteriors, &Posteriors{SchemaVersion: SchemaVersion, Entries: map[string]*Posterior{}})
		}},
		{"global-lock", "lock", false, func(st *Store) error {
			l, err := st.LockGlobal(ctx)
			if err == nil {
				err = l.Unlock()
			}
			return err
		}},
		{"advisories", "sessions/s1/advisories.jsonl", false, func(st *Store) error {
			return st.AppendLine(filepath.Join(st.Root, "sessions/s1/advisories.jsonl"), []byte(`{}`))
		}},
		{"archive", "sessions/s1/archive", true, func(st *Store) error {
			return st.Save(filepath.Join(st.Root, "sessions/s1/archive/anchor-x.json"), KindWindow, sampleWindow("s1"))
		}},
		{"sessions", "sessions", true, func(st *Store) error {
			return st.Save(filepath.Join(st.Root, "sessions/s1/window.json"), KindWindow, sampleWindow("s1"))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, notices := testStore(t)
			user := t.TempDir()
			target := filepath.Join(user, "file")
			decoy(t, filepath.Join(user, "file"))
			if c.dir {
				target = user
			}
			p := filepath.Join(st.Root, c.rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			if !c.dir {
				// A dangling link must not create its target either.
				_ = os.Remove(target)
			}
			if err := c.write(st); err != nil {
				t.Fatal(err)
			}
			entries, _ := os.ReadDir(user)
			if c.dir && (len(entries) != 1 || entries[0].Name() != "file") {
				t.Errorf("the user's directory was written into: %v", entries)
			}
			if c.dir {
				unchanged(t, filepath.Join(user, "file"), "the user's file\n")
			} else if _, err := os.Lstat(target); err == nil {
				t.Errorf("a dangling link's target %s was created", target)
			}
			isLinkFree(t, p)
			if len(*notices) == 0 || !strings.Contains(strings.Join(*notices, "\n"), "symbolic link") {
				t.Errorf("the link was not reported: %v", *notices)
			}
		})
	}
}

// TestAppendRefusesHardLinks: a log with another name is moved aside, not
// appended to (the append would write into the user's file).
func TestAppendRefusesHardLinks(t *testing.T) {
	st, notices := testStore(t)
	user := filepath.Join(t.TempDir(), "diary.txt")
	want := decoy(t, user)
	p := filepath.Join(st.Root, "learnings.jsonl")
	if err := os.MkdirAll(st.Root, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(user, p); err != nil {
		t.Skip("no hard links here:", err)
	}
	if err := st.AppendLine(p, []byte(`{"x":1}`)); err != nil {
		t.Fatal(err)
	}
	unchanged(t, user, want)
	if got, _ := os.ReadFile(p); string(got) != "{\"x\":1}\n" {
		t.Errorf("learnings.jsonl = %q, want a fresh log", got)
	}
	oneNotice(t, *notices, "hard links")
}

// TestFIFOLogMovedAside: a FIFO where a log belongs is moved aside on the
// first append, so it is reported once, not on every hook.
func TestFIFOLogMovedAside(t *testing.T) {
	st, notices := testStore(t)
	p := filepath.Join(st.Root, "sessions", "s1", "turns.jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for i := range 3 {
		if err := st.AppendLine(p, []byte(fmt.Sprintf(`{"i":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("turns.jsonl is not a regular file: %v", err)
	}
	if len(*notices) != 1 {
		t.Errorf("want one report, got %v", *notices)
	}
}

// TestLooseModesTightened: directories pre-created 0777 and a log 0666
// are tightened to 0700 and 0600 when Djinn writes there.
func TestLooseModesTightened(t *testing.T) {
	st, _ := testStore(t)
	dir := filepath.Join(st.Root, "sessions", "s1")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "turns.jsonl")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Dir(dir), dir} {
		_ = os.Chmod(d, 0o777)
	}
	_ = os.Chmod(p, 0o666)
	if err := st.AppendLine(p, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{filepath.Dir(dir): 0o700, dir: 0o700, p: 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, want %v", path, fi.Mode().Perm(), want)
		}
	}
}

// TestReconcileCRLF: a log edited by hand with CRLF line ends holds the
// lines; nothing is restored twice.
func TestReconcileCRLF(t *testing.T) {
	st, notices := testStore(t)
	p := filepath.Join(st.Root, "turns.jsonl")
	tu := &Turn{SchemaVersion: SchemaVersion, Seq: 1, Time: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), Tool: "Bash", Summary: "go test ./..."}
	line, err := st.EncodeLine(KindTurn, tu)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(line, '\r', '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	n, err := st.Reconcile(p, KindTurn, []any{tu})
	if err != nil || n != 0 {
		t.Errorf("Reconcile appended %d (err %v), want 0: the line is there", n, err)
	}
	if len(*notices) != 0 {
		t.Errorf("notices %v", *notices)
	}
	var got int
	if _, err := st.ReadLines(p, KindTurn, 0, func([]byte) error { got++; return nil }); err != nil || got != 1 {
		t.Errorf("ReadLines saw %d lines (err %v), want 1", got, err)
	}
}

// TestTrimDirOnlyOwnFiles: outputs/ trimmed to the newest n of Djinn's
// files; a user's file, a link and a FIFO in it stay; an outputs/ that is
// a link is moved aside, and the directory it points to is untouched.
func TestTrimDirOnlyOwnFiles(t *testing.T) {
	st, _ := testStore(t)
	dir := filepath.Join(st.Root, "sessions", "s1", "outputs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour)
	for i := range 12 {
		p := filepath.Join(dir, fmt.Sprintf("toolu_%02d.json", i))
		if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Minute)
		_ = os.Chtimes(p, at, at)
	}
	notes := filepath.Join(dir, "notes.md")
	decoy(t, notes)
	_ = os.Chtimes(notes, base.Add(-time.Hour), base.Add(-time.Hour))
	if err := st.TrimDir(dir, 8); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 9 || names[0] != "notes.md" || names[1] != "toolu_04.json" {
		t.Errorf("left %v, want notes.md and toolu_04..11", names)
	}

	user := t.TempDir()
	for i := range 20 {
		decoy(t, filepath.Join(user, fmt.Sprintf("report-%02d.json", i)))
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(user, dir); err != nil {
		t.Fatal(err)
	}
	_ = st.TrimDir(dir, 8)
	if entries, _ := os.ReadDir(user); len(entries) != 20 {
		t.Errorf("the linked directory holds %d of its 20 files", len(entries))
	}
	isLinkFree(t, dir)
}

// TestSweepTempOnlyDjinnTemps: the crash sweep removes Djinn's old
// temporary files and nothing else (a user's dotfiles stay).
func TestSweepTempOnlyDjinnTemps(t *testing.T) {
	st, _ := testStore(t)
	dir := filepath.Join(st.Root, "sessions", "s1")
	old := time.Now().Add(-time.Hour)
	keep := []string{".bashrc", ".profile", ".gitconfig", ".netrc", ".json", "window.json"}
	gone := []string{".window.json123456", ".turns.jsonl99"}
	for _, n := range append(append([]string{}, keep...), gone...) {
		decoy(t, filepath.Join(dir, n))
		_ = os.Chtimes(filepath.Join(dir, n), old, old)
	}
	st.SweepTemp(dir, time.Minute)
	for _, n := range keep {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s was swept: %v", n, err)
		}
	}
	for _, n := range gone {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			t.Errorf("%s was not swept", n)
		}
	}
}

// TestPrune: old sessions go, a bounded number per run; a session holding
// a user's file keeps that file (and its directory); a live one, the one
// named Keep and a link stay.
func TestPrune(t *testing.T) {
	st, _ := testStore(t)
	ctx := context.Background()
	sessions := filepath.Join(st.Root, "sessions")
	old := time.Now().Add(-40 * 24 * time.Hour)
	mk := func(id string, age time.Time, files ...string) string {
		d := filepath.Join(sessions, id)
		for _, f := range files {
			p := filepath.Join(d, f)
			decoy(t, p)
			_ = os.Chtimes(p, age, age)
			_ = os.Chtimes(filepath.Dir(p), age, age)
		}
		_ = os.Chtimes(d, age, age)
		return d
	}
	for i := range 10 {
		mk(fmt.Sprintf("old%d", i), old, "window.json", "turns.jsonl", "lock", "archive/anchor-1.json", ".window.json12")
	}
	user := mk("olduser", old, "window.json", "mine.txt")
	live := mk("live", time.Now(), "window.json")
	keep := mk("keep", old, "window.json")
	appended := mk("appended", old, "window.json", "turns.jsonl")
	now := time.Now()
	_ = os.Chtimes(filepath.Join(appended, "turns.jsonl"), now, now)
	target := t.TempDir()
	want := decoy(t, filepath.Join(target, "window.json"))
	_ = os.Symlink(target, filepath.Join(sessions, "oldlink"))

	res, err := st.Prune(ctx, PruneOptions{MaxAge: 30 * 24 * time.Hour, Keep: "keep", MaxDirs: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 4 || !res.More {
		t.Errorf("first run removed %v (more %v), want 4 and more", res.Removed, res.More)
	}
	res, err = st.Prune(ctx, PruneOptions{MaxAge: 30 * 24 * time.Hour, Keep: "keep"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 6 || res.More {
		t.Errorf("second run removed %v (more %v), want the other 6", res.Removed, res.More)
	}
	entries, _ := os.ReadDir(sessions)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "appended keep live oldlink olduser" {
		t.Errorf("left %v", names)
	}
	if e, _ := os.ReadDir(user); len(e) != 1 || e[0].Name() != "mine.txt" {
		t.Errorf("olduser holds %v, want only the user's file", e)
	}
	unchanged(t, filepath.Join(target, "window.json"), want)
	for _, d := range []string{live, keep, appended} {
		if _, err := os.Stat(filepath.Join(d, "window.json")); err != nil {
			t.Errorf("%s was pruned: %v", d, err)
		}
	}
}

// `djinn state validate` reads the session's files as the hooks do: a
// link where window.json belongs is reported, and the file it points to is
// never read as if it were Djinn's.
func TestCheckDoesNotReadThroughLinks(t *testing.T) {
	root := t.TempDir()
	s := &Store{Root: root, LockWait: time.Second}
	dir := filepath.Join(root, "sessions", "s-1")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.json")
	decoy(t, outside)
	if err := os.Symlink(outside, filepath.Join(dir, "window.json")); err != nil {
		t.Fatal(err)
	}
	rep, err := s.CheckWith([]string{"s-1"}, func(k Kind, raw []byte) []FieldError {
		if strings.Contains(string(raw), "the user's") {
			t.Errorf("the check read the linked file's content as %s", k)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range rep.Problems {
		if strings.HasSuffix(p.File, "window.json") {
			found = true
		}
	}
	if !found {
		t.Errorf("no problem reported for the linked window.json: %+v", rep.Problems)
	}
}
