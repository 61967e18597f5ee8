package state

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRecordPluginData: a directory is listed once; recording it again
// reads and does not write (the file keeps its inode); the list keeps the
// newest 16; a link where the file belongs is neither followed nor
// replaced.
func TestRecordPluginData(t *testing.T) {
	root := t.TempDir()
	s := &Store{Root: root}
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b, a} {
		if err := s.RecordPluginData(d); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.PluginData(); fmt.Sprint(got) != fmt.Sprint([]string{a, b}) {
		t.Fatalf("listed %q, want %q", got, []string{a, b})
	}
	path := filepath.Join(root, PluginDataFile)
	ino := func() uint64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	before := ino()
	if err := s.RecordPluginData(b); err != nil {
		t.Fatal(err)
	}
	if ino() != before {
		t.Error("recording a listed directory rewrote the file")
	}
	if err := s.RecordPluginData("relative/dir"); err == nil {
		t.Error("a relative directory was recorded")
	}
	for i := range 20 {
		if err := s.RecordPluginData(filepath.Join(root, fmt.Sprint("d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.PluginData(); len(got) != 16 || got[15] != filepath.Join(root, "d19") {
		t.Errorf("after 22 directories the list is %d long ending %q; want the newest 16", len(got), got[len(got)-1])
	}

	// A link where the list belongs.
	other := t.TempDir()
	target := filepath.Join(other, "precious")
	if err := os.WriteFile(target, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l := &Store{Root: t.TempDir()}
	if err := os.Symlink(target, filepath.Join(l.Root, PluginDataFile)); err != nil {
		t.Fatal(err)
	}
	if err := l.RecordPluginData(a); err == nil {
		t.Error("recorded through a link")
	}
	if raw, _ := os.ReadFile(target); string(raw) != "keep\n" {
		t.Errorf("the link's target became %q", raw)
	}
	if fi, err := os.Lstat(filepath.Join(l.Root, PluginDataFile)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if got := l.PluginData(); got != nil {
		t.Errorf("read %q through a link", got)
	}
}

// FuzzParsePluginData: whatever the file holds, the list is absolute
// paths, each once, and reading it never panics.
func FuzzParsePluginData(f *testing.F) {
	f.Add([]byte("/a\n/b\n/a\nrelative\n\n"))
	f.Add([]byte("\x00/\r\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		seen := map[string]bool{}
		for _, p := range parsePluginData(raw) {
			if !filepath.IsAbs(p) || seen[p] {
				t.Fatalf("listed %q (absolute %v, twice %v)", p, filepath.IsAbs(p), seen[p])
			}
			seen[p] = true
		}
	})
}
