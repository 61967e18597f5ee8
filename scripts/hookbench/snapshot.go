package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// snapshot is a session's state (and the root's shared files) as it was,
// so that every sample starts from it: whole files are rewritten when they
// changed, append-only logs cut back to their length, files that were not
// there removed, and what changed fsynced, all outside the timed span (an
// fsync inside the hook must not pay for the restore's writes).
type snapshot struct {
	dirs  []string
	files map[string][]byte // whole documents
	logs  map[string]int64  // JSONL logs: their length
}

func takeSnapshot(sessionDir, root string) (*snapshot, error) {
	s := &snapshot{dirs: []string{sessionDir, root}, files: map[string][]byte{}, logs: map[string]int64{}}
	add := func(p string) error {
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		if strings.HasSuffix(p, ".jsonl") {
			s.logs[p] = fi.Size()
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s.files[p] = b
		return nil
	}
	err := filepath.WalkDir(sessionDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return add(p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"posteriors.json", "learnings.jsonl", "lock"} {
		if err := add(filepath.Join(root, name)); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *snapshot) known(p string) bool {
	_, a := s.files[p]
	_, b := s.logs[p]
	return a || b
}

func (s *snapshot) restore() error {
	var changed []string
	// Remove what a hook created (archives, saved outputs, posteriors).
	err := filepath.WalkDir(s.dirs[0], func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !s.known(p) {
			changed = append(changed, filepath.Dir(p))
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, name := range []string{"posteriors.json", "learnings.jsonl"} {
		p := filepath.Join(s.dirs[1], name)
		if _, err := os.Lstat(p); err == nil && !s.known(p) {
			if err := os.Remove(p); err != nil {
				return err
			}
			changed = append(changed, s.dirs[1])
		}
	}
	for p, want := range s.files {
		got, err := os.ReadFile(p)
		if err == nil && bytes.Equal(got, want) {
			continue
		}
		if err := os.WriteFile(p, want, 0o600); err != nil {
			return err
		}
		changed = append(changed, p, filepath.Dir(p))
	}
	for p, n := range s.logs {
		fi, err := os.Stat(p)
		if err == nil && fi.Size() == n {
			continue
		}
		if err := os.Truncate(p, n); err != nil {
			return err
		}
		changed = append(changed, p)
	}
	for _, p := range changed {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		_ = f.Sync()
		f.Close()
	}
	return nil
}
