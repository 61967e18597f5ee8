package state

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestNoSyncWritesTheSameFiles: a NoSync store (replay's scratch state)
// leaves exactly the files a synced one does, bytes and modes, with no
// temporary file behind, and a write that cannot land leaves nothing.
func TestNoSyncWritesTheSameFiles(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	files := func(t *testing.T, noSync bool) map[string]string {
		t.Helper()
		st, _ := testStore(t)
		st.NoSync = noSync
		dir := filepath.Join(st.Root, "sessions", "s1")
		w := sampleWindow("s1")
		for i := range 3 { // create, then replace
			w.ToolCalls = i
			if err := st.Save(filepath.Join(dir, "window.json"), KindWindow, w); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.WriteRaw(filepath.Join(dir, "out", "raw.txt"), []byte("raw\n")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "log.jsonl"), []byte("a\nb\na\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if n, err := st.DropLines(filepath.Join(dir, "log.jsonl"), func(raw []byte) bool { return bytes.Equal(raw, []byte("a")) }); n != 2 || err != nil {
			t.Fatalf("DropLines: %d, %v", n, err)
		}
		// A target that is a directory: the rename fails, nothing is left.
		if err := os.Mkdir(filepath.Join(dir, "busy"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := st.WriteRaw(filepath.Join(dir, "busy"), []byte("x")); err == nil {
			t.Fatal("write over a directory succeeded")
		}
		got := map[string]string{}
		err := filepath.WalkDir(st.Root, func(p string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			fi, err := e.Info()
			if err != nil {
				return err
			}
			raw, err := os.ReadFile(p)
			rel, _ := filepath.Rel(st.Root, p)
			got[rel] = fi.Mode().String() + " " + string(raw)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	synced, unsynced := files(t, false), files(t, true)
	if len(synced) != 3 {
		t.Fatalf("synced store left %d files, want 3: %v", len(synced), synced)
	}
	for name, want := range synced {
		if got, ok := unsynced[name]; !ok || got != want {
			t.Errorf("%s: NoSync wrote %q, synced %q", name, got, want)
		}
	}
	for name := range unsynced {
		if _, ok := synced[name]; !ok {
			t.Errorf("NoSync left %s behind", name)
		}
	}
}
