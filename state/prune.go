package state

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// What Djinn deletes: only regular files it made (by name: see djinnFile),
// with no other hard links, found by walking real directories from the
// root without following a link (fsafe.go). A link, a FIFO or a file of
// any other name is left where it is, and so is the directory holding it.

// ErrNoSession is returned by DeleteSession for a session with no directory.
var ErrNoSession = errors.New("no such session")

// djinnFile reports whether name is one Djinn gives its files: lock, a
// .json or .jsonl document or log, the plugin-data list, one of its temporary files
// (".<name><digits>") or a quarantined copy ("<name>.corrupt-<time>").
func djinnFile(name string) bool {
	if name == "lock" {
		return true
	}
	base := name
	if i := strings.Index(base, ".corrupt-"); i > 0 {
		base = base[:i]
	}
	if t, ok := tempBase(base); ok {
		base = t
	}
	if base == PluginDataFile {
		return true
	}
	if !strings.HasSuffix(base, ".json") && !strings.HasSuffix(base, ".jsonl") {
		return false
	}
	for i := 0; i < len(base); i++ {
		c := base[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return base[0] != '.'
}

// tempBase returns the target name of a temporary file of a whole-file
// write (renameio's and writeUnsynced's ".<name><digits>").
func tempBase(name string) (string, bool) {
	if len(name) < 2 || name[0] != '.' {
		return "", false
	}
	t := strings.TrimRight(name[1:], "0123456789")
	if len(t) == len(name)-1 || !(strings.HasSuffix(t, ".json") || strings.HasSuffix(t, ".jsonl") || t == PluginDataFile) {
		return "", false
	}
	return t, true
}

// entryAt is one directory entry, as fstatat(AT_SYMLINK_NOFOLLOW) sees it.
type entryAt struct {
	name  string
	mode  uint32
	nlink uint64
	mtime time.Time
}

func (e entryAt) regular() bool { return e.mode&unix.S_IFMT == unix.S_IFREG }
func (e entryAt) dir() bool     { return e.mode&unix.S_IFMT == unix.S_IFDIR }

// ownFile reports whether e is a file Djinn made and may delete.
func (e entryAt) ownFile() bool { return e.regular() && e.nlink == 1 && djinnFile(e.name) }

// listAt lists the directory dfd without following anything.
func listAt(dfd int, path string) ([]entryAt, error) {
	nfd, err := unix.Dup(dfd)
	if err != nil {
		return nil, err
	}
	d := os.NewFile(uintptr(nfd), path)
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	out := make([]entryAt, 0, len(names))
	for _, n := range names {
		var st unix.Stat_t
		if unix.Fstatat(dfd, n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		out = append(out, entryAt{name: n, mode: uint32(st.Mode), nlink: uint64(st.Nlink), mtime: time.Unix(st.Mtim.Unix())})
	}
	return out, nil
}

// SweepTemp removes the temporary files of whole-file writes a crash cut
// short (".<name><digits>", regular, Djinn's) older than olderThan from
// dir, a directory under the root. Nothing else is touched.
func (s *Store) SweepTemp(dir string, olderThan time.Duration) {
	dfd, err := s.openDirPath(dir, walkFix)
	if err != nil {
		return
	}
	defer unix.Close(dfd)
	entries, err := listAt(dfd, dir)
	if err != nil {
		return
	}
	now := time.Now() // file times are the real clock's, whatever s.Now says
	for _, e := range entries {
		if _, ok := tempBase(e.name); ok && e.ownFile() && now.Sub(e.mtime) > olderThan {
			_ = unix.Unlinkat(dfd, e.name, 0)
		}
	}
}

// TrimDir keeps the newest keep of the files Djinn made in dir (by
// modification time) and removes the older ones. dir is a directory under
// the root, opened without following a link (a link in its place is moved
// aside and reported). Files Djinn did not make, links and FIFOs stay.
func (s *Store) TrimDir(dir string, keep int) error {
	dfd, err := s.openDirPath(dir, walkFix)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	entries, err := listAt(dfd, dir)
	if err != nil {
		return err
	}
	var own []entryAt
	for _, e := range entries {
		if e.ownFile() {
			own = append(own, e)
		}
	}
	if len(own) <= keep {
		return nil
	}
	sort.Slice(own, func(i, j int) bool { return own[i].mtime.Before(own[j].mtime) })
	for _, e := range own[:len(own)-keep] {
		if err := unix.Unlinkat(dfd, e.name, 0); err != nil && err != unix.ENOENT {
			return &fs.PathError{Op: "remove", Path: filepath.Join(dir, e.name), Err: err}
		}
	}
	return nil
}

// sessionSubdir reports whether name is a directory Djinn makes in a
// session directory.
func sessionSubdir(name string) bool { return name == "outputs" || name == "archive" }

// removeOwn removes the files Djinn made from the directory dfd (at path)
// and, one level down, from its outputs/ and archive/ directories, which
// go too once empty. It keeps lock, and returns what it left: names of
// things Djinn did not make.
func removeOwn(dfd int, path string) ([]string, error) {
	entries, err := listAt(dfd, path)
	if err != nil {
		return nil, err
	}
	var left []string
	for _, e := range entries {
		switch {
		case e.name == "lock":
		case e.dir() && sessionSubdir(e.name):
			sub, err := unix.Openat(dfd, e.name, dirFlags, 0)
			if err != nil {
				left = append(left, e.name)
				continue
			}
			inner, err := removeOwn(sub, filepath.Join(path, e.name))
			_ = unix.Close(sub)
			if err != nil {
				return left, err
			}
			for _, n := range inner {
				left = append(left, filepath.Join(e.name, n))
			}
			if len(inner) == 0 {
				_ = unix.Unlinkat(dfd, e.name, unix.AT_REMOVEDIR)
			}
		case e.ownFile():
			if err := unix.Unlinkat(dfd, e.name, 0); err != nil && err != unix.ENOENT {
				return left, &fs.PathError{Op: "remove", Path: filepath.Join(path, e.name), Err: err}
			}
		default:
			left = append(left, e.name)
		}
	}
	return left, nil
}

// DeleteResult says what DeleteSession did besides deleting Djinn's files.
type DeleteResult struct {
	// Left names what was left in the session directory because Djinn did
	// not make it (a link, a FIFO, a file of another name); the directory
	// stays with them.
	Left []string
	// MovedAside is set when the session's place held a link or a file
	// instead of a directory: it was moved aside to this name, and
	// nothing it points to was touched.
	MovedAside string
}

// DeleteSession removes a session's files under its lock, so no hook is
// half-way through writing them, and its directory once empty; the lock
// file goes last. It removes only regular files Djinn made, in a real
// directory reached without following a link.
func (s *Store) DeleteSession(ctx context.Context, id string) (DeleteResult, error) {
	return s.deleteSession(ctx, id, s.LockWait)
}

func (s *Store) deleteSession(ctx context.Context, id string, wait time.Duration) (DeleteResult, error) {
	var res DeleteResult
	dir, err := s.SessionDir(id)
	if err != nil {
		return res, err
	}
	sfd, err := s.openDir(s.Root, []string{"sessions"}, walkRead)
	if errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("session %s: %w under %s", id, ErrNoSession, s.Root)
	}
	if err != nil {
		return res, err
	}
	defer unix.Close(sfd)
	var st unix.Stat_t
	switch err := unix.Fstatat(sfd, id, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case err == unix.ENOENT:
		return res, fmt.Errorf("session %s: %w under %s", id, ErrNoSession, s.Root)
	case err != nil:
		return res, &fs.PathError{Op: "stat", Path: dir, Err: err}
	case uint32(st.Mode)&unix.S_IFMT != unix.S_IFDIR:
		dst, err := s.moveAsideAt(sfd, id)
		if err != nil {
			return res, fmt.Errorf("%s is %s and could not be moved aside: %w", dir, describeMode(uint32(st.Mode)), err)
		}
		res.MovedAside = filepath.Join(s.SessionsDir(), dst)
		return res, nil
	}
	lock, err := s.acquire(ctx, filepath.Join(dir, "lock"), wait)
	if err != nil {
		return res, err
	}
	dfd, err := unix.Openat(sfd, id, dirFlags, 0)
	if err != nil {
		_ = lock.Unlock()
		return res, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(dfd)
	res.Left, err = removeOwn(dfd, dir)
	_ = lock.Unlock()
	if err != nil {
		return res, fmt.Errorf("delete session %s: %w", id, err)
	}
	if err := unix.Fstatat(dfd, "lock", &st, unix.AT_SYMLINK_NOFOLLOW); err == nil && uint32(st.Mode)&unix.S_IFMT == unix.S_IFREG {
		_ = unix.Unlinkat(dfd, "lock", 0)
	}
	if len(res.Left) > 0 {
		return res, nil
	}
	if err := unix.Unlinkat(sfd, id, unix.AT_REMOVEDIR); err != nil && err != unix.ENOENT {
		return res, &fs.PathError{Op: "remove", Path: dir, Err: err}
	}
	return res, nil
}

// PruneOptions bound one Prune run.
type PruneOptions struct {
	// MaxAge: a session untouched for longer is pruned. Zero or less
	// prunes nothing.
	MaxAge time.Duration
	// Keep is a session never pruned (the one starting).
	Keep string
	// MaxDirs and Budget bound the run (zero: no bound): it stops after
	// removing MaxDirs sessions or after Budget, and the next run goes on.
	MaxDirs int
	Budget  time.Duration
}

// PruneResult reports a Prune run.
type PruneResult struct {
	Removed []string // session ids removed
	Kept    []string // old sessions kept because they hold files Djinn did not make
	More    bool     // the run stopped at a bound with old sessions left
}

// Prune removes the sessions not touched for opts.MaxAge: finished ones
// (SessionEnd seen) and abandoned ones alike, as neither has written for
// that long. A session's age is its newest time among its directory and
// its window and logs. A session whose lock is held is skipped. Only
// regular files Djinn made are removed (see DeleteSession).
func (s *Store) Prune(ctx context.Context, opts PruneOptions) (PruneResult, error) {
	var res PruneResult
	if opts.MaxAge <= 0 {
		return res, nil
	}
	start := time.Now()
	sfd, err := s.openDir(s.Root, []string{"sessions"}, walkRead)
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	entries, err := listAt(sfd, s.SessionsDir())
	if err != nil {
		_ = unix.Close(sfd)
		return res, err
	}
	cutoff := time.Now().Add(-opts.MaxAge) // file times are the real clock's
	for _, e := range entries {
		if !e.dir() || e.name == opts.Keep || ValidateSessionID(e.name) != nil || e.mtime.After(cutoff) {
			continue
		}
		if sessionTouchedAfter(sfd, e.name, cutoff) {
			continue
		}
		if (opts.MaxDirs > 0 && len(res.Removed) >= opts.MaxDirs) || (opts.Budget > 0 && time.Since(start) > opts.Budget) || ctx.Err() != nil {
			res.More = true
			break
		}
		r, err := s.deleteSession(ctx, e.name, 0)
		if errors.Is(err, ErrLockBusy) {
			continue
		}
		if err != nil {
			_ = unix.Close(sfd)
			return res, err
		}
		if len(r.Left) > 0 {
			res.Kept = append(res.Kept, e.name)
			continue
		}
		res.Removed = append(res.Removed, e.name)
	}
	_ = unix.Close(sfd)
	return res, nil
}

// sessionTouchedAfter reports whether a session's window or logs were
// written after t (an append does not change the directory's time).
func sessionTouchedAfter(sfd int, id string, t time.Time) bool {
	dfd, err := unix.Openat(sfd, id, dirFlags, 0)
	if err != nil {
		return true
	}
	defer unix.Close(dfd)
	for _, n := range []string{"window.json", "turns.jsonl", "advisories.jsonl"} {
		var st unix.Stat_t
		if unix.Fstatat(dfd, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && time.Unix(st.Mtim.Unix()).After(t) {
			return true
		}
	}
	return false
}
