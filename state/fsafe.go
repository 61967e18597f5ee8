package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Every path below the state root is reached one component at a time with
// openat(2) and O_NOFOLLOW, never through a path string the kernel resolves:
// a symbolic link, a FIFO or a file where one of Djinn's directories or
// files belongs is never followed, written through or deleted through. On a
// path that writes (walkFix, walkCreate), it is moved aside as
// <name>.corrupt-<time> and reported once through Notice; on a read-only
// path (walkRead) it is an error. The root itself is the user's choice (a
// flag or an environment variable) and may be a link. Paths outside the
// root (tests with an empty Root) have only their last component guarded.

var (
	errLink     = errors.New("a symbolic link")
	errNotDir   = errors.New("not a directory")
	errHardLink = errors.New("a file with other hard links")
)

// walkMode says what a walk may change on its way.
type walkMode int

const (
	// walkRead changes nothing: a link or a non-directory is an error.
	walkRead walkMode = iota
	// walkFix moves a link, FIFO or device aside, but creates nothing.
	walkFix
	// walkCreate is walkFix that also creates missing directories 0700
	// and tightens loose ones (and a loose file it opens) to 0700/0600.
	walkCreate
)

const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// split returns the directory a walk starts from (the root, or path's own
// directory for a path outside it), the directories below it, and path's
// last component.
func (s *Store) split(path string) (base string, dirs []string, name string) {
	path = filepath.Clean(path)
	dir, name := filepath.Dir(path), filepath.Base(path)
	if s.Root != "" {
		root := filepath.Clean(s.Root)
		if dir == root {
			return root, nil, name
		}
		if rest, ok := strings.CutPrefix(dir, root+string(filepath.Separator)); ok {
			return root, strings.Split(rest, string(filepath.Separator)), name
		}
	}
	return dir, nil, name
}

// openDir opens the directory base/dirs... as a file descriptor, walking
// dirs without following links (see walkMode). The caller closes it.
func (s *Store) openDir(base string, dirs []string, mode walkMode) (int, error) {
	if fd, ok := s.held.Load().dup(base, dirs); ok {
		return fd, nil
	}
	fd, err := unix.Open(base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err == unix.ENOENT && mode == walkCreate {
		if err := os.MkdirAll(base, 0o700); err != nil {
			return -1, err
		}
		fd, err = unix.Open(base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: base, Err: err}
	}
	p := base
	for _, d := range dirs {
		p = filepath.Join(p, d)
		nfd, err := s.subdir(fd, d, p, mode)
		_ = unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = nfd
	}
	return fd, nil
}

// openDirPath is openDir for the directory dir.
func (s *Store) openDirPath(dir string, mode walkMode) (int, error) {
	base, dirs, _ := s.split(filepath.Join(dir, "x"))
	return s.openDir(base, dirs, mode)
}

// subdir opens the directory name in parent without following a link.
func (s *Store) subdir(parent int, name, path string, mode walkMode) (int, error) {
	for attempt := 0; ; attempt++ {
		fd, err := unix.Openat(parent, name, dirFlags, 0)
		if err == nil {
			if mode == walkCreate {
				tighten(fd, 0o700)
			}
			return fd, nil
		}
		if err == unix.ELOOP || err == unix.ENOTDIR || err == unix.EMLINK {
			what := describeAt(parent, name)
			// A regular file where a directory belongs is left for the
			// user (it blocks Djinn, as a file does; moving it is not
			// Djinn's to decide); a link, FIFO, socket or device is moved.
			if mode == walkRead || attempt > 1 || what == "a regular file" {
				return -1, &fs.PathError{Op: "open", Path: path, Err: whatErr(what)}
			}
			dst, err := s.moveAsideAt(parent, name)
			if err != nil {
				return -1, fmt.Errorf("%s is %s and could not be moved aside: %w", path, what, err)
			}
			s.notice("%s is %s, not a directory Djinn made; moved aside to %s (not followed)", path, what, dst)
			if mode == walkFix {
				return -1, &fs.PathError{Op: "open", Path: path, Err: unix.ENOENT}
			}
			continue
		}
		if err == unix.ENOENT && mode == walkCreate && attempt <= 1 {
			if err := unix.Mkdirat(parent, name, 0o700); err != nil && err != unix.EEXIST {
				return -1, &fs.PathError{Op: "mkdir", Path: path, Err: err}
			}
			continue
		}
		return -1, &fs.PathError{Op: "open", Path: path, Err: err}
	}
}

// tighten takes group and other permissions off fd's file, as Djinn
// creates its own (0700 directories, 0600 files). Failures (a file of
// another user, a read-only file system) are left alone: tightening is a
// courtesy, not a condition.
func tighten(fd int, perm uint32) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && uint32(st.Mode)&0o077 != 0 {
		_ = unix.Fchmod(fd, perm)
	}
}

// describeAt names what is at name in dir, for a report.
func describeAt(dir int, name string) string {
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return "unreadable (" + err.Error() + ")"
	}
	return describeMode(uint32(st.Mode))
}

func describeMode(m uint32) string {
	switch m & unix.S_IFMT {
	case unix.S_IFLNK:
		return errLink.Error()
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFREG:
		return "a regular file"
	case unix.S_IFSOCK:
		return "a socket"
	default:
		return "a device"
	}
}

// whatErr turns describeMode's words back into the error callers test for.
func whatErr(what string) error {
	switch what {
	case errLink.Error():
		return errLink
	case "a regular file":
		return errNotDir
	}
	return errNotRegular
}

// moveAsideAt renames name in dir to <name>.corrupt-<UTC time>, adding a
// counter if that is taken, and returns the new name. A rename moves a link
// itself, never its target.
func (s *Store) moveAsideAt(dir int, name string) (string, error) {
	stamp := s.now().UTC().Format("20060102T150405Z")
	for i := 0; i < 100; i++ {
		dst := name + ".corrupt-" + stamp
		if i > 0 {
			dst = fmt.Sprintf("%s.%d", dst, i)
		}
		var st unix.Stat_t
		if err := unix.Fstatat(dir, dst, &st, unix.AT_SYMLINK_NOFOLLOW); err == unix.ENOENT {
			return dst, unix.Renameat(dir, name, dir, dst)
		}
	}
	return "", fmt.Errorf("too many quarantined copies of %s", name)
}

// fileOpts says how openFile treats what it finds.
type fileOpts struct {
	mode  walkMode
	flags int    // open flags besides O_NOFOLLOW, O_NONBLOCK, O_CLOEXEC
	perm  uint32 // for O_CREAT
	// noHardLinks refuses a file with other names (an append target: an
	// append would write into every name); in walkFix and walkCreate it is
	// moved aside and a fresh file created.
	noHardLinks bool
}

// openFile opens path's last component without following it, after a
// walk to its directory (see walkMode). Only a regular file is opened: a
// link, FIFO, device or directory in its place is an error wrapping
// errLink or errNotRegular, or, when the walk may fix things and the open
// creates, is moved aside and reported, and a fresh file created. It is
// checked before it is opened, so a FIFO or a device is never opened.
func (s *Store) openFile(path string, o fileOpts) (*os.File, error) {
	base, dirs, name := s.split(path)
	dmode := o.mode
	if o.flags&os.O_CREATE == 0 && dmode == walkCreate {
		dmode = walkFix
	}
	dfd, err := s.openDir(base, dirs, dmode)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	return s.openFileAt(dfd, path, name, o)
}

// openFileAt is openFile's last step: it opens name in the directory dfd,
// which the caller reached without following a link; path names it in
// errors and reports.
func (s *Store) openFileAt(dfd int, path, name string, o fileOpts) (*os.File, error) {
	for attempt := 0; ; attempt++ {
		if attempt > 3 {
			return nil, &fs.PathError{Op: "open", Path: path, Err: errNotRegular}
		}
		var st unix.Stat_t
		err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		bad := ""
		switch {
		case err == unix.ENOENT:
		case err != nil:
			return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
		case uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG:
			bad = describeMode(uint32(st.Mode))
		case o.noHardLinks && uint64(st.Nlink) > 1:
			bad = fmt.Sprintf("a file with %d hard links (appending would write into the others)", st.Nlink)
		}
		if bad != "" {
			if o.mode == walkRead || o.flags&os.O_CREATE == 0 || attempt > 1 || uint32(st.Mode)&unix.S_IFMT == unix.S_IFDIR {
				e := errNotRegular
				if bad == errLink.Error() {
					e = errLink
				} else if strings.HasPrefix(bad, "a file with") {
					e = errHardLink
				}
				return nil, &fs.PathError{Op: "open", Path: path, Err: e}
			}
			dst, err := s.moveAsideAt(dfd, name)
			if err != nil {
				return nil, fmt.Errorf("%s is %s and could not be moved aside: %w", path, bad, err)
			}
			s.notice("%s was %s; moved aside to %s (not followed), starting a fresh one", path, bad, dst)
			continue
		}
		fd, err := unix.Openat(dfd, name, o.flags|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, o.perm)
		if err == unix.ELOOP || err == unix.EMLINK {
			continue // it changed under us: look again
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		f := os.NewFile(uintptr(fd), path)
		if err := unix.Fstat(fd, &st); err != nil {
			_ = f.Close()
			return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
		}
		if uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG || (o.noHardLinks && uint64(st.Nlink) > 1) {
			_ = f.Close()
			if attempt > 1 {
				return nil, &fs.PathError{Op: "open", Path: path, Err: errNotRegular}
			}
			continue // it changed under us: look again
		}
		if o.flags&os.O_CREATE != 0 && o.mode == walkCreate && uint32(st.Mode)&0o077 != 0 {
			_ = unix.Fchmod(fd, 0o600)
		}
		return f, nil
	}
}

// prepareTarget makes path ready for a whole-file write that renames a
// temporary file over it: its directories are real ones (created 0700 if
// missing), and anything but a regular file where it goes is moved aside
// and reported. The rename then replaces a directory entry Djinn owns.
func (s *Store) prepareTarget(path string) error {
	base, dirs, name := s.split(path)
	dfd, err := s.openDir(base, dirs, walkCreate)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	err = unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if err != nil || uint32(st.Mode)&unix.S_IFMT == unix.S_IFREG || uint32(st.Mode)&unix.S_IFMT == unix.S_IFDIR {
		// A directory is left for the rename to fail on: it may hold
		// anything, and moving it is not Djinn's to decide.
		return nil
	}
	bad := describeMode(uint32(st.Mode))
	dst, err := s.moveAsideAt(dfd, name)
	if err != nil {
		return fmt.Errorf("%s is %s and could not be moved aside: %w", path, bad, err)
	}
	s.notice("%s was %s; moved aside to %s (not followed), writing a fresh one", path, bad, dst)
	return nil
}

// moveAside renames path's last component aside (see moveAsideAt), after
// a walk to its directory that fixes but creates nothing.
func (s *Store) moveAside(path string) (string, error) {
	base, dirs, name := s.split(path)
	dfd, err := s.openDir(base, dirs, walkFix)
	if err != nil {
		return "", err
	}
	defer unix.Close(dfd)
	dst, err := s.moveAsideAt(dfd, name)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(path), dst), nil
}

// readFile reads the regular file at path, of at most max bytes, opened as
// openFile opens it (never a link, FIFO or device) with the walk mode given.
func (s *Store) readFile(path string, max int64, mode walkMode) ([]byte, error) {
	f, err := s.openFile(path, fileOpts{mode: mode, flags: os.O_RDONLY})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(f, max)
}

// heldDir is the directory of a lock the Store holds, kept open from the
// walk that reached the lock file so that the files beside it are opened
// relative to it without walking from the root again. No other Djinn
// process can delete or replace that directory while the lock is held
// (deleting a session takes its lock), so the descriptor stays the
// directory the walk checked.
type heldDir struct {
	mu     sync.Mutex
	base   string
	dirs   []string
	fd     int
	closed bool
}

// dup returns a duplicate of the held directory's descriptor if it is the
// directory base/dirs..., for the caller to close.
func (h *heldDir) dup(base string, dirs []string) (int, bool) {
	if h == nil || base != h.base || !slices.Equal(dirs, h.dirs) {
		return -1, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return -1, false
	}
	fd, err := unix.FcntlInt(uintptr(h.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1, false
	}
	return fd, true
}

// close closes the held descriptor; dup refuses it afterwards.
func (h *heldDir) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		_ = unix.Close(h.fd)
	}
}
