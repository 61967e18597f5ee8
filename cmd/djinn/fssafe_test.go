package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The file-system safety cases of issue 18: a link, a FIFO, a hard link
// or a loose mode where Djinn's state belongs. Each puts decoy files (the
// user's) where a link points, runs the real binaries, and checks the
// decoys are untouched, the hook kept its contract, and the link itself
// was moved aside rather than followed.

const linkSession = "hostile-session"

// decoys makes dir holding the user's files names, two days old.
func decoys(t *testing.T, dir string, names ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	for i, n := range names {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("the user's file %d\n", i)), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// sameOutside fails for every path outside the state root that changed.
func sameOutside(t *testing.T, sb *sandbox, before map[string]string) {
	t.Helper()
	after := sb.tree(t)
	for p, sum := range before {
		if after[p] != sum {
			t.Errorf("%s changed or went: a link was followed", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s appeared outside the state root: a link was followed", p)
		}
	}
}

// replaceWithLink removes path (a file or directory) and puts a link to
// target there.
func replaceWithLink(t *testing.T, path, target string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// notLink fails unless path is a real directory or regular file now.
func notLink(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		t.Errorf("%s is still %v", path, fi.Mode().Type())
	}
}

// movedAside fails unless a <name>.corrupt-* sibling of path exists and
// is the link or FIFO that was there.
func movedAside(t *testing.T, path string) {
	t.Helper()
	m, _ := filepath.Glob(path + ".corrupt-*")
	if len(m) == 0 {
		t.Errorf("%s: nothing moved aside", path)
	}
}

func mcpPayload(sb *sandbox, i int) []byte {
	var text strings.Builder
	for j := 0; text.Len() < 250_000; j++ {
		fmt.Fprintf(&text, "row %d of the report: %d\n", j, j*7919%1000)
	}
	return sb.payload("PostToolUse", map[string]any{
		"tool_name": "mcp__x__y", "tool_input": map[string]any{"query": "all rows"},
		"tool_response": []any{map[string]any{"type": "text", "text": text.String()}},
		"tool_use_id":   fmt.Sprintf("toolu_mcp_%d", i),
	})
}

func TestHostileStateLinks(t *testing.T) {
	session := func(sb *sandbox) string { return filepath.Join(sb.root, "sessions", linkSession) }
	first := func(t *testing.T) *sandbox {
		sb := newSandbox(t)
		checkHookContract(t, "first", runHook(t, sb.dir, sb.root, "PostToolUse", toolPayload(linkSession, 0, sb.project)))
		return sb
	}
	// call runs PostToolUse for the session's tool call i and checks the
	// hook's contract.
	call := func(t *testing.T, sb *sandbox, i int) hookRun {
		t.Helper()
		r := runHook(t, sb.dir, sb.root, "PostToolUse", toolPayload(linkSession, i, sb.project))
		checkHookContract(t, "hook", r)
		return r
	}

	t.Run("outputs-dir-link", func(t *testing.T) {
		sb := first(t)
		checkHookContract(t, "mcp", runHook(t, sb.dir, sb.root, "PostToolUse", mcpPayload(sb, 0)))
		decoy := filepath.Join(sb.dir, "home", "Documents")
		var names []string
		for i := range 20 {
			names = append(names, fmt.Sprintf("report-%02d.json", i))
		}
		decoys(t, decoy, names...)
		out := filepath.Join(session(sb), "outputs")
		replaceWithLink(t, out, decoy)
		before := sb.tree(t)
		r := runHook(t, sb.dir, sb.root, "PostToolUse", mcpPayload(sb, 1))
		checkHookContract(t, "mcp", r)
		sameOutside(t, sb, before)
		notLink(t, out)
		movedAside(t, out)
	})

	t.Run("session-dir-link-sweep", func(t *testing.T) {
		sb := first(t)
		home := filepath.Join(sb.dir, "home")
		decoys(t, home, ".bashrc", ".profile", ".gitconfig", ".netrc")
		replaceWithLink(t, session(sb), home)
		before := sb.tree(t)
		r := runHook(t, sb.dir, sb.root, "SessionStart", sb.payload("SessionStart", map[string]any{"source": "startup"}))
		checkHookContract(t, "SessionStart", r)
		sameOutside(t, sb, before)
		notLink(t, session(sb))
		movedAside(t, session(sb))
		if !bytes.Contains(r.stderr, []byte("symbolic link")) {
			t.Errorf("the link was not reported: stderr %q", r.stderr)
		}
	})

	t.Run("state-delete-session-link", func(t *testing.T) {
		sb := first(t)
		decoys(t, sb.project, "main.go", "go.mod", "window.json", "turns.jsonl", "lock")
		replaceWithLink(t, session(sb), sb.project)
		before := sb.tree(t)
		cmd := exec.Command(cmdBinary(t), "state", "delete", "--session", linkSession)
		cmd.Env = hookEnv(sb.dir, sb.root)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("state delete: %v\n%s", err, out)
		}
		sameOutside(t, sb, before)
		if _, err := os.Lstat(session(sb)); err == nil {
			t.Errorf("the session is still there")
		}
	})

	t.Run("turns-link-reconcile", func(t *testing.T) {
		sb := first(t)
		decoy := filepath.Join(sb.dir, "home", "notes.txt")
		if err := os.WriteFile(decoy, []byte("line one\nhalf a li"), 0o600); err != nil {
			t.Fatal(err)
		}
		replaceWithLink(t, filepath.Join(session(sb), "turns.jsonl"), decoy)
		before := sb.tree(t)
		call(t, sb, 1)
		sameOutside(t, sb, before)
		notLink(t, filepath.Join(session(sb), "turns.jsonl"))
		movedAside(t, filepath.Join(session(sb), "turns.jsonl"))
	})

	t.Run("turns-hard-link", func(t *testing.T) {
		sb := first(t)
		decoy := filepath.Join(sb.dir, "home", "diary.txt")
		if err := os.WriteFile(decoy, []byte("dear diary\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		turns := filepath.Join(session(sb), "turns.jsonl")
		_ = os.Remove(turns)
		if err := os.Link(decoy, turns); err != nil {
			t.Fatal(err)
		}
		before := sb.tree(t)
		call(t, sb, 1)
		sameOutside(t, sb, before)
		movedAside(t, turns)
		if raw, _ := os.ReadFile(turns); bytes.Contains(raw, []byte("diary")) || !bytes.Contains(raw, []byte(`"seq":2`)) {
			t.Errorf("turns.jsonl is not a fresh log with the new call:\n%s", raw)
		}
	})

	// Other state paths a hook writes (the root's files are state's unit
	// tests): the link is moved aside, and nothing it points to is
	// created, written or removed.
	for _, c := range []struct {
		name, rel string
		dir       bool
	}{
		{"sessions-dir", "sessions", true},
		{"session-lock", "sessions/" + linkSession + "/lock", false},
		{"window", "sessions/" + linkSession + "/window.json", false},
	} {
		t.Run("link-"+c.name, func(t *testing.T) {
			sb := first(t)
			target := filepath.Join(sb.dir, "home", "target-"+c.name)
			if c.dir {
				decoys(t, target, "keep.json", "lock")
			} else {
				decoys(t, filepath.Dir(target), filepath.Base(target))
			}
			p := filepath.Join(sb.root, c.rel)
			replaceWithLink(t, p, target)
			before := sb.tree(t)
			call(t, sb, 1)
			sameOutside(t, sb, before)
			if _, err := os.Lstat(p); err == nil {
				notLink(t, p)
			}
			movedAside(t, p)
		})
	}

	t.Run("fifo-turns", func(t *testing.T) {
		sb := first(t)
		turns := filepath.Join(session(sb), "turns.jsonl")
		_ = os.Remove(turns)
		if err := syscall.Mkfifo(turns, 0o600); err != nil {
			t.Skip("no FIFOs here:", err)
		}
		call(t, sb, 1)
		r := call(t, sb, 2)
		if len(r.stderr) > 0 {
			t.Errorf("the FIFO is reported again on a later hook: %q", r.stderr)
		}
		notLink(t, turns)
		movedAside(t, turns)
	})

	t.Run("crlf-turns", func(t *testing.T) {
		sb := first(t)
		turns := filepath.Join(session(sb), "turns.jsonl")
		raw, err := os.ReadFile(turns)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(turns, bytes.ReplaceAll(raw, []byte("\n"), []byte("\r\n")), 0o600); err != nil {
			t.Fatal(err)
		}
		r := call(t, sb, 1)
		if bytes.Contains(r.stderr, []byte("interrupted")) {
			t.Errorf("a hand-edited CRLF log was taken for an interrupted hook: %q", r.stderr)
		}
		raw, _ = os.ReadFile(turns)
		if n := bytes.Count(raw, []byte(`"seq":1,`)); n != 1 {
			t.Errorf("the first call is logged %d times, want once:\n%s", n, raw)
		}
	})

	t.Run("loose-modes", func(t *testing.T) {
		sb := first(t)
		for _, d := range []string{filepath.Join(sb.root, "sessions"), session(sb)} {
			if err := os.Chmod(d, 0o777); err != nil {
				t.Fatal(err)
			}
		}
		turns := filepath.Join(session(sb), "turns.jsonl")
		if err := os.Chmod(turns, 0o666); err != nil {
			t.Fatal(err)
		}
		call(t, sb, 1)
		for p, want := range map[string]os.FileMode{filepath.Join(sb.root, "sessions"): 0o700, session(sb): 0o700, turns: 0o600} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: mode %v, want %v (err %v)", p, fi.Mode().Perm(), want, err)
			}
		}
	})
}

// TestRetention: sessions untouched for longer than retention_days are
// pruned at a session start, a bounded number each time, and by `djinn
// state prune`; only the files Djinn made go, never through a link.
func TestRetention(t *testing.T) {
	sb := newSandbox(t)
	sessions := filepath.Join(sb.root, "sessions")
	old := time.Now().Add(-40 * 24 * time.Hour)
	mk := func(id string, files ...string) string {
		d := filepath.Join(sessions, id)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(d, f)), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, f), []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			_ = os.Chtimes(filepath.Join(d, f), old, old)
		}
		_ = os.Chtimes(filepath.Join(d, "outputs"), old, old)
		_ = os.Chtimes(d, old, old)
		return d
	}
	const n = 100
	for i := range n {
		mk(fmt.Sprintf("old-%03d", i), "window.json", "turns.jsonl", "lock", "outputs/toolu_1.json")
	}
	userFile := filepath.Join(mk("old-with-user-file", "window.json", "notes.md"), "notes.md")
	decoy := filepath.Join(sb.dir, "home", "project-copy")
	decoys(t, decoy, "window.json", "turns.jsonl")
	if err := os.Symlink(decoy, filepath.Join(sessions, "old-link")); err != nil {
		t.Fatal(err)
	}
	fresh := mk("fresh", "window.json")
	now := time.Now()
	_ = os.Chtimes(filepath.Join(fresh, "window.json"), now, now)
	before := sb.tree(t)

	start := sb.payload("SessionStart", map[string]any{"source": "startup", "session_id": "new-session"})
	r := runHook(t, sb.dir, sb.root, "SessionStart", start)
	checkHookContract(t, "SessionStart", r)
	left := func() int {
		m, _ := filepath.Glob(filepath.Join(sessions, "old-[0-9]*"))
		return len(m)
	}
	if l := left(); l == n || l == 0 {
		t.Errorf("after one start %d of %d old sessions are left: want some pruned, within the bound", l, n)
	}
	cmd := exec.Command(cmdBinary(t), "state", "prune")
	cmd.Env = hookEnv(sb.dir, sb.root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("state prune: %v\n%s", err, out)
	}
	if l := left(); l != 0 {
		t.Errorf("after state prune %d old sessions are left", l)
	}
	if _, err := os.Stat(userFile); err != nil {
		t.Errorf("a file Djinn did not make was removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(userFile), "window.json")); err == nil {
		t.Errorf("the old session's own files were kept beside the user's")
	}
	for _, keep := range []string{fresh, filepath.Join(sessions, "new-session")} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("a live session was pruned: %v", err)
		}
	}
	sameOutside(t, sb, before)
	if fi, err := os.Lstat(filepath.Join(sessions, "old-link")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("a link among the sessions was not left alone: %v", err)
	}
}
