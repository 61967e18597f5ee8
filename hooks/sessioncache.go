package hooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"sync"

	"github.com/djinn-cc/djinn/state"
)

// SessionCache keeps each session's window in memory between the hooks of
// one long-lived process, and writes it back to window.json only on Flush;
// it also keeps the anchor a hook read or wrote, so the next hook need not
// read it back. A hook then neither reads, checks and decodes window.json
// nor encodes and writes it: replay's hooks spent half their time on that.
// Replay sets one; a hook process runs one hook and leaves Env.Cache nil.
// The zero value is ready to use, and a nil *SessionCache caches nothing.
//
// A hook works on a deep copy of the cached window (Window.Clone, generated
// code: the reflective copy it replaced was a sixth of replay's hook time),
// which replaces the
// cached one only after the hook's whole save has succeeded (everything but
// window.json is still written as without a cache: the anchor, the
// archive, the log lines). A hook that fails thus leaves the cache as it
// was, and the anchor it may have changed in memory is dropped (the disk
// holds the last one written). The final window.json, after Flush, is the
// one the per-hook path writes last.
//
// Each entry remembers window.json and anchor.json as this process last
// left them (inode, size, modification time). When another process has
// written either since, the cached document is not used; Flush refuses to
// overwrite a window.json written by someone else.
//
// One difference from the per-hook path remains: a window that cannot be
// encoded (a NaN, or one the schema refuses in the default build) fails at
// Flush, not at the hook that made it.
//
// With HoldLocks, the cache also keeps each session's lock from the first
// hook that opens the session until Flush or Release, instead of each hook
// creating, opening, locking and closing the lock file (about 7 ms of a
// 180 ms corpus replay). Only for a state directory no other process
// uses, such as replay's scratch one: anyone else would wait on the lock
// for the whole replay.
type SessionCache struct {
	// HoldLocks: keep each session's lock between hooks (see above).
	HoldLocks bool

	mu      sync.Mutex
	entries map[string]*cacheEntry
	locks   map[string]*state.Lock // held, with HoldLocks
}

// lockSession takes the session's lock for one hook. With HoldLocks the
// cache takes it once and keeps it, and the hook gets a lock whose Unlock
// does nothing.
func (c *SessionCache) lockSession(ctx context.Context, st *state.Store, id string) (*state.Lock, error) {
	if c == nil || !c.HoldLocks {
		return st.LockSession(ctx, id)
	}
	if err := c.holdLock(ctx, st, id); err != nil {
		return nil, err
	}
	return &state.Lock{}, nil
}

// holdLock makes sure the cache holds the session's lock.
func (c *SessionCache) holdLock(ctx context.Context, st *state.Store, id string) error {
	c.mu.Lock()
	_, held := c.locks[id]
	c.mu.Unlock()
	if held {
		return nil
	}
	lock, err := st.LockSession(ctx, id)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.locks == nil {
		c.locks = map[string]*state.Lock{}
	}
	c.locks[id] = lock
	return nil
}

// Release gives up the locks the cache holds (HoldLocks); the next hook
// takes its session's lock again. Flush calls it; a user of HoldLocks
// calls it when done, even after a failure. It returns the first error.
func (c *SessionCache) Release() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	locks := c.locks
	c.locks = nil
	c.mu.Unlock()
	var first error
	for _, l := range locks {
		if err := l.Unlock(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// cacheEntry is one session's documents as the last successful hook left
// them.
type cacheEntry struct {
	w       state.Window
	dirty   bool      // w is newer than window.json
	winFile fileStamp // window.json as this process last read or wrote it

	// anchor (nil: there is none) is anchor.json as anchorFile stamps it,
	// when anchorKnown. A hook takes it; put hands it back.
	anchorKnown bool
	anchor      *state.Anchor
	anchorFile  fileStamp
}

// fileStamp identifies one version of a file; a nil info means the file
// did not exist.
type fileStamp struct{ fi os.FileInfo }

// stampOf stats path; ok is false when that failed for another reason
// than the file's absence.
func stampOf(path string) (fileStamp, bool) {
	fi, err := os.Stat(path)
	switch {
	case err == nil:
		return fileStamp{fi}, true
	case errors.Is(err, fs.ErrNotExist):
		return fileStamp{}, true
	default:
		return fileStamp{}, false
	}
}

func (f fileStamp) same(g fileStamp) bool {
	if f.fi == nil || g.fi == nil {
		return f.fi == nil && g.fi == nil
	}
	return os.SameFile(f.fi, g.fi) && f.fi.Size() == g.fi.Size() && f.fi.ModTime().Equal(g.fi.ModTime()) && f.fi.Mode() == g.fi.Mode()
}

func (c *SessionCache) entry(id string) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[id]
}

// take loads the session from the cache into s, under the session lock,
// and reports whether it did: s.w becomes a deep copy of the cached window
// and the cached anchor, if any, moves to s (loadAnchor checks its file).
func (c *SessionCache) take(s *session) bool {
	if c == nil {
		return false
	}
	e := c.entry(s.id)
	if e == nil {
		return false
	}
	if now, ok := stampOf(s.path("window.json")); !ok || !now.same(e.winFile) {
		// Another process wrote the session: what it wrote wins.
		c.drop(s.id)
		return false
	}
	s.w = e.w.Clone()
	s.winFile = e.winFile
	if e.anchorKnown {
		s.cachedAnchor, s.cachedAnchorOK, s.anchorFile = e.anchor, true, e.anchorFile
		// Taken: if this hook fails after changing the anchor in
		// memory, the next one reads anchor.json.
		c.mu.Lock()
		e.anchorKnown, e.anchor = false, nil
		c.mu.Unlock()
	}
	return true
}

// takeAnchor returns the anchor take moved into s, if anchor.json is still
// the file it came from.
func (s *session) takeAnchor() (*state.Anchor, bool) {
	if !s.cachedAnchorOK {
		return nil, false
	}
	a := s.cachedAnchor
	s.cachedAnchor, s.cachedAnchorOK = nil, false
	if now, ok := stampOf(s.path("anchor.json")); !ok || !now.same(s.anchorFile) {
		return nil, false
	}
	return a, true
}

// put makes a successfully saved session the cached one, still under the
// session lock. The window was not written (Flush writes it); the anchor
// was, if it changed.
func (c *SessionCache) put(s *session) {
	if c == nil {
		return
	}
	e := &cacheEntry{w: s.w, dirty: true, winFile: s.winFile}
	// An anchor set to nil was not written (save writes only a non-nil
	// one): memory and disk would differ, so it is left to the disk.
	if s.anchorLoaded && !(s.anchorDirty && s.anchor == nil) {
		stamp, ok := s.anchorFile, s.anchorFileOK
		if s.anchorDirty {
			stamp, ok = stampOf(s.path("anchor.json"))
		}
		if ok {
			e.anchorKnown, e.anchor, e.anchorFile = true, s.anchor, stamp
		}
	} else if !s.anchorLoaded && s.cachedAnchorOK {
		// This hook never looked at the anchor take handed it.
		e.anchorKnown, e.anchor, e.anchorFile = true, s.cachedAnchor, s.anchorFile
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]*cacheEntry{}
	}
	c.entries[s.id] = e
}

func (c *SessionCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, id)
}

// Flush writes every window newer than its window.json, each under its
// session's lock, through st (the store the hooks use), and then releases
// the locks the cache holds. It refuses to overwrite a window.json
// another process wrote since this one last read or wrote it, and
// returns the first error after trying every session.
func (c *SessionCache) Flush(ctx context.Context, st *state.Store) error {
	if c == nil {
		return nil
	}
	defer func() { _ = c.Release() }()
	c.mu.Lock()
	ids := make([]string, 0, len(c.entries))
	for id, e := range c.entries {
		if e.dirty {
			ids = append(ids, id)
		}
	}
	c.mu.Unlock()
	sort.Strings(ids)
	var first error
	for _, id := range ids {
		if err := c.flush(ctx, st, id); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (c *SessionCache) flush(ctx context.Context, st *state.Store, id string) error {
	dir, err := st.SessionDir(id)
	if err != nil {
		return err
	}
	lock, err := c.lockSession(ctx, st, id)
	if err != nil {
		return err
	}
	defer func() { _ = lock.Unlock() }()
	e := c.entry(id)
	if e == nil || !e.dirty {
		return nil
	}
	path := dir + string(os.PathSeparator) + "window.json"
	if now, ok := stampOf(path); !ok || !now.same(e.winFile) {
		c.drop(id)
		return fmt.Errorf("session %s: window.json was changed by another process; the replay's window was not written over it", id)
	}
	if err := st.Save(path, state.KindWindow, &e.w); err != nil {
		return fmt.Errorf("save window: %w", err)
	}
	stamp, ok := stampOf(path)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !ok {
		delete(c.entries, id)
		return nil
	}
	e.dirty, e.winFile = false, stamp
	return nil
}
