//go:build unix

package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Paths that are not regular files must fail fast, before any read, and a
// large sparse file must cost no more than a small one.
func TestMeasureOddPaths(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	loopA, loopB := filepath.Join(dir, "loopA"), filepath.Join(dir, "loopB")
	if err := os.Symlink(loopB, loopA); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(loopA, loopB); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		path       string
		notRegular bool
	}{
		{"directory", dir, true},
		{"fifo", fifo, true},
		{"dev zero", "/dev/zero", true},
		{"symlink loop", loopA, false},
		{"missing", filepath.Join(dir, "missing.jsonl"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.path); tc.name == "dev zero" && err != nil {
				t.Skip("no /dev/zero")
			}
			prev := &Cursor{Size: 10, Boundary: 0, Reading: Reading{Tokens: 5, Found: true, Source: SourceTail}}
			s, err := Measure(tc.path, prev, DefaultOptions())
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, ErrNotRegular) != tc.notRegular {
				t.Errorf("error %v", err)
			}
			if s.BytesRead != 0 || s.Reading.Source != SourceCarried || s.Reading.Tokens != 5 {
				t.Errorf("scan %+v", s)
			}
		})
	}
}

func TestMeasureSparseFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sparse.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(jsonl(t, asst("m1", 33_000)))
	if _, err := f.Write(line); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil { // 2 GB of holes after the line
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	opt := DefaultOptions()
	prev := &Cursor{Size: int64(len(line)), Boundary: int64(len(line)), Reading: Reading{Tokens: 33_000, Found: true, Source: SourceTail}}
	s, err := Measure(path, prev, opt)
	if err != nil {
		t.Fatal(err)
	}
	if s.BytesRead > 2*opt.Budget+1 {
		t.Errorf("read %d bytes of a 2 GB file", s.BytesRead)
	}
	if s.Reading.Source != SourceCarried || s.Reading.Tokens != 33_000 {
		t.Errorf("reading %+v", s.Reading)
	}
	// A symlink to a regular file is followed.
	link := filepath.Join(filepath.Dir(path), "link.jsonl")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if s2, err := Measure(link, prev, opt); err != nil || s2.Reading != s.Reading {
		t.Errorf("through a symlink: %+v, %v", s2.Reading, err)
	}
}
