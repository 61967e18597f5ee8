package hooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"sync"

	"github.com/djinn-cc/djinn/hooks/transcript"
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
//
// Holding the lock also lets the cache skip what only another process
// could change. A window taken from an entry put while the lock was held
// without a break is not checked against window.json's stamp, nor the
// anchor against anchor.json's (two stats a hook, about 2 ms of a 160 ms
// corpus replay): nobody else can have written them. And the hooks' log
// lines (turns.jsonl, advisories.jsonl) are kept in memory, encoded and
// checked as Append would, and appended together by Flush after the
// windows, or earlier when something is about to read a session's logs
// (RankSession, the pressure advisory's contextFill): one open, write and
// close per file instead of one per line (about 6 ms). Until then the
// logs on disk lag behind; after Flush they hold the very bytes the
// per-hook path appends. Between hooks the logs may thus be ahead of
// window.json, which only matters to a crash or to another process
// (whose Reconcile would append its window's lines again), and HoldLocks
// is only for a state directory nobody else uses and a crash throws
// away. Lines held back for a window the cache drops are dropped with it.
// A failed write is reported by Flush.
type SessionCache struct {
	// HoldLocks: keep each session's lock between hooks (see above).
	HoldLocks bool

	mu      sync.Mutex
	entries map[string]*cacheEntry
	locks   map[string]*state.Lock // held, with HoldLocks
	// epoch counts the times Release gave the locks up: an entry put in
	// the current epoch under a held lock is still under it.
	epoch int
	// logs are the log lines not written yet (HoldLocks), by session.
	logs map[string]*pendingLogs
	// logErr is the first failure to write them, for Flush to return.
	logErr error
}

// pendingLogs are a session's log lines held back by the cache: each
// file's lines, newline-terminated, in the order they were appended.
type pendingLogs struct {
	paths []string
	lines map[string][]byte
}

// buffersLogs reports whether hooks hand their log lines to the cache
// instead of appending them (see SessionCache).
func (c *SessionCache) buffersLogs() bool { return c != nil && c.HoldLocks }

// addLogs takes one successful hook's log lines (path, line) for session
// id, to be written later (writeLogs).
func (c *SessionCache) addLogs(id string, lines []logLine) {
	if len(lines) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.logs == nil {
		c.logs = map[string]*pendingLogs{}
	}
	p := c.logs[id]
	if p == nil {
		p = &pendingLogs{lines: map[string][]byte{}}
		c.logs[id] = p
	}
	for _, l := range lines {
		b, seen := p.lines[l.path]
		if !seen {
			p.paths = append(p.paths, l.path)
		}
		p.lines[l.path] = append(append(b, l.raw...), '\n')
	}
}

// logLine is one encoded log line and the file it goes to.
type logLine struct {
	path string
	raw  []byte
}

// writeLogs appends the log lines the cache holds for session id to their
// files, each file's in one AppendLine (which, like Append, first ends a
// torn last line). The caller holds the session's lock. A failure is kept
// for Flush to report; the lines are dropped either way, as a failed
// append's are.
func (c *SessionCache) writeLogs(st *state.Store, id string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	p := c.logs[id]
	delete(c.logs, id)
	c.mu.Unlock()
	if p == nil {
		return
	}
	for _, path := range p.paths {
		b := p.lines[path]
		if err := st.AppendLine(path, b[:len(b)-1]); err != nil {
			c.mu.Lock()
			if c.logErr == nil {
				c.logErr = err
			}
			c.mu.Unlock()
		}
	}
}

// heldSince reports whether session id's lock has been held by the cache
// without a break since epoch (HoldLocks).
func (c *SessionCache) heldSince(id string, epoch int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, held := c.locks[id]
	return c.HoldLocks && held && epoch == c.epoch
}

// holdEpoch is the epoch to stamp an entry of session id with, or -1 when
// the cache does not hold its lock.
func (c *SessionCache) holdEpoch(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, held := c.locks[id]; !c.HoldLocks || !held {
		return -1
	}
	return c.epoch
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
	c.epoch++
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

	// epoch is the cache's epoch when the entry was put under a lock the
	// cache held (-1: not held); see heldSince.
	epoch int

	// cursor is the meter's cursor as decoded from cursorRaw (what
	// json.Unmarshal gives), when cursorOK.
	cursorOK  bool
	cursorRaw []byte
	cursor    transcript.Cursor
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
	// Under a lock held since the entry was put, nobody else can have
	// written the session's files.
	s.held = e.epoch >= 0 && c.heldSince(s.id, e.epoch)
	if !s.held {
		if now, ok := stampOf(s.path("window.json")); !ok || !now.same(e.winFile) {
			// Another process wrote the session: what it wrote wins.
			c.drop(s.id)
			return false
		}
	}
	s.w = e.w.Clone()
	s.winFile = e.winFile
	s.cursorOK, s.cursorRaw, s.cursor = e.cursorOK, e.cursorRaw, e.cursor
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
	if s.held {
		return a, true
	}
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
	e := &cacheEntry{w: s.w, dirty: true, winFile: s.winFile, epoch: c.holdEpoch(s.id)}
	e.cursorOK, e.cursorRaw, e.cursor = s.cursorOK, s.cursorRaw, s.cursor
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

// drop forgets a session's window, superseded by one another process
// wrote, and the log lines held back with it: they belong to windows that
// are lost, and the disk's window is what its logs must match (its
// Reconcile would append its own lines again after ours).
func (c *SessionCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, id)
	delete(c.logs, id)
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
	// The log lines after the windows, as each hook writes them.
	c.mu.Lock()
	ids = ids[:0]
	for id := range c.logs {
		ids = append(ids, id)
	}
	c.mu.Unlock()
	sort.Strings(ids)
	for _, id := range ids {
		// Under the session's lock, which the cache still holds (the
		// lines are there only with HoldLocks).
		if _, err := c.lockSession(ctx, st, id); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		c.writeLogs(st, id)
	}
	c.mu.Lock()
	if c.logErr != nil && first == nil {
		first = fmt.Errorf("append log lines: %w", c.logErr)
	}
	c.logErr = nil
	c.mu.Unlock()
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
