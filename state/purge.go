package state

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// RootResult says what DeleteRootFiles did.
type RootResult struct {
	// Removed names the files removed from the root.
	Removed []string
	// Left names what stayed at the root: config.json (the person's),
	// the binary cache bin/, sessions/ when a session in it was kept, and
	// anything Djinn did not make.
	Left []string
	// RootRemoved is set when the root itself went, being empty.
	RootRemoved bool
}

// keptAtRoot reports whether a root entry is one DeleteRootFiles never
// removes though Djinn's rules would let it: the person's config.json and
// its copies.
func keptAtRoot(name string) bool {
	return strings.HasPrefix(name, "config.json") || strings.HasPrefix(name, ".config.json")
}

// DeleteRootFiles removes what Djinn keeps at the root besides sessions:
// learnings.jsonl, posteriors.json, their quarantined and temporary copies
// (under the global lock), then the lock file, then sessions/ and the root
// itself once empty. Like DeleteSession it removes only regular files Djinn
// made (djinnFile, one hard link), never through a link; config.json, which
// the person writes, stays. Delete the sessions first.
func (s *Store) DeleteRootFiles(ctx context.Context) (RootResult, error) {
	var res RootResult
	dfd, err := s.openDir(s.Root, nil, walkRead)
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	hadLock := unix.Fstatat(dfd, "lock", &st, unix.AT_SYMLINK_NOFOLLOW) == nil
	g, err := s.LockGlobal(ctx)
	if err != nil {
		return res, err
	}
	entries, err := listAt(dfd, s.Root)
	if err != nil {
		_ = g.Unlock()
		return res, err
	}
	for _, e := range entries {
		switch {
		case e.name == "lock":
		case e.dir() && e.name == "sessions":
			if unix.Unlinkat(dfd, e.name, unix.AT_REMOVEDIR) != nil {
				res.Left = append(res.Left, e.name+"/")
			}
		case keptAtRoot(e.name) || !e.ownFile():
			if e.dir() {
				res.Left = append(res.Left, e.name+"/")
			} else {
				res.Left = append(res.Left, e.name)
			}
		default:
			if err := unix.Unlinkat(dfd, e.name, 0); err != nil && err != unix.ENOENT {
				_ = g.Unlock()
				return res, &fs.PathError{Op: "remove", Path: filepath.Join(s.Root, e.name), Err: err}
			}
			res.Removed = append(res.Removed, e.name)
		}
	}
	_ = g.Unlock()
	// The lock goes last, once released (taking it made it if it was
	// not there).
	if unix.Fstatat(dfd, "lock", &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		if uint32(st.Mode)&unix.S_IFMT == unix.S_IFREG && st.Nlink == 1 && unix.Unlinkat(dfd, "lock", 0) == nil {
			if hadLock {
				res.Removed = append(res.Removed, "lock")
			}
		} else {
			res.Left = append(res.Left, "lock")
		}
	}
	sort.Strings(res.Left)
	if len(res.Left) == 0 {
		// rmdir removes only an empty directory, never a link to one.
		res.RootRemoved = unix.Rmdir(s.Root) == nil
	}
	return res, nil
}
