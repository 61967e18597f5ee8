package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

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
// A hook works on a deep copy of the cached window, which replaces the
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
type SessionCache struct {
	mu      sync.Mutex
	entries map[string]*cacheEntry
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
	deepCopy(reflect.ValueOf(&s.w).Elem(), reflect.ValueOf(&e.w).Elem())
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
// session's lock, through st (the store the hooks use). It refuses to
// overwrite a window.json another process wrote since this one last read
// or wrote it, and returns the first error after trying every session.
func (c *SessionCache) Flush(ctx context.Context, st *state.Store) error {
	if c == nil {
		return nil
	}
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
	lock, err := st.LockSession(ctx, id)
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

// deepCopy sets dst, settable, to a copy of src that shares no memory with
// it and equals what encoding/json gives back for src (what a hook reading
// window.json would see): an empty slice or map in an omitempty field
// becomes nil, each byte of a string that is not UTF-8 becomes U+FFFD, and
// a json.RawMessage is compacted with HTML escaped; nil stays nil and empty
// stays empty elsewhere. Structs with unexported fields are copied as
// values: the only one in the state types is time.Time, which is immutable
// (TestCacheableTypes holds the types to that, TestDeepCopy holds deepCopy
// to encoding/json).
func deepCopy(dst, src reflect.Value) {
	copierFor(src.Type())(dst, src)
}

// copier copies src into dst (settable) as deepCopy does; one is built per
// type, once.
type copier func(dst, src reflect.Value)

var (
	copiers sync.Map   // reflect.Type -> copier, complete ones only
	buildMu sync.Mutex // one build at a time
)

func copierFor(t reflect.Type) copier {
	if c, ok := copiers.Load(t); ok {
		return c.(copier)
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	b := &builder{pending: map[reflect.Type]*copier{}}
	c := b.copier(t)
	for t, p := range b.pending {
		copiers.Store(t, *p)
	}
	return c
}

// builder builds the copiers of a type and the types in it.
type builder struct {
	pending map[reflect.Type]*copier
}

func (b *builder) copier(t reflect.Type) copier {
	if c, ok := copiers.Load(t); ok {
		return c.(copier)
	}
	if p, ok := b.pending[t]; ok {
		// A recursive type: by the time this runs, *p is built.
		return func(dst, src reflect.Value) { (*p)(dst, src) }
	}
	p := new(copier)
	b.pending[t] = p
	*p = b.build(t)
	return *p
}

func setValue(dst, src reflect.Value) { dst.Set(src) }

func (b *builder) build(t reflect.Type) copier {
	switch t.Kind() {
	case reflect.String:
		return func(dst, src reflect.Value) {
			s := src.String()
			if !utf8.ValidString(s) {
				s = jsonString(s)
			}
			dst.SetString(s)
		}
	case reflect.Pointer:
		elem := b.copier(t.Elem())
		return func(dst, src reflect.Value) {
			if src.IsNil() {
				dst.SetZero()
				return
			}
			p := reflect.New(t.Elem())
			elem(p.Elem(), src.Elem())
			dst.Set(p)
		}
	case reflect.Struct:
		return b.structCopier(t)
	case reflect.Array:
		elem := b.copier(t.Elem())
		return func(dst, src reflect.Value) {
			for i := range src.Len() {
				elem(dst.Index(i), src.Index(i))
			}
		}
	case reflect.Slice:
		if t == rawMessageType {
			return func(dst, src reflect.Value) {
				if src.IsNil() {
					dst.SetZero()
					return
				}
				dst.SetBytes(compactRaw(src.Bytes()))
			}
		}
		if t.Elem().Kind() == reflect.String {
			return stringsCopier(t)
		}
		if plain(t.Elem()) {
			return func(dst, src reflect.Value) {
				if src.IsNil() {
					dst.SetZero()
					return
				}
				s := reflect.MakeSlice(t, src.Len(), src.Len())
				reflect.Copy(s, src)
				dst.Set(s)
			}
		}
		elem := b.copier(t.Elem())
		return func(dst, src reflect.Value) {
			if src.IsNil() {
				dst.SetZero()
				return
			}
			n := src.Len()
			s := reflect.MakeSlice(t, n, n)
			for i := range n {
				elem(s.Index(i), src.Index(i))
			}
			dst.Set(s)
		}
	case reflect.Map:
		key, elem := b.copier(t.Key()), b.copier(t.Elem())
		return func(dst, src reflect.Value) {
			if src.IsNil() {
				dst.SetZero()
				return
			}
			m := reflect.MakeMapWithSize(t, src.Len())
			k, v := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
			for it := src.MapRange(); it.Next(); {
				key(k, it.Key())
				elem(v, it.Value())
				m.SetMapIndex(k, v)
			}
			dst.Set(m)
		}
	default:
		// Numbers and booleans; interfaces, channels and functions are
		// not in the state types.
		return setValue
	}
}

// plain reports whether a value of type t is copied by assignment: no
// references, no strings (which may need mending), no fields to look at.
func plain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return false
	case reflect.Array:
		return plain(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !t.Field(i).IsExported() {
				return true // copied as a value: see deepCopy
			}
		}
		for i := range t.NumField() {
			if !plain(t.Field(i).Type) {
				return false
			}
		}
	}
	return true
}

// structCopier assigns the whole struct, then copies again the fields
// assignment would share or that need mending.
func (b *builder) structCopier(t reflect.Type) copier {
	if plain(t) {
		return setValue
	}
	type field struct {
		i     int
		omit  bool // omitempty slice or map: empty becomes nil
		c     copier
		isStr bool
	}
	var fields []field
	for i := range t.NumField() {
		f := t.Field(i)
		if plain(f.Type) {
			continue
		}
		_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		omit := false
		for _, o := range strings.Split(opts, ",") {
			omit = omit || o == "omitempty"
		}
		k := f.Type.Kind()
		fields = append(fields, field{i: i, omit: omit && (k == reflect.Slice || k == reflect.Map), c: b.copier(f.Type), isStr: k == reflect.String})
	}
	return func(dst, src reflect.Value) {
		dst.Set(src)
		for _, f := range fields {
			sf := src.Field(f.i)
			switch {
			case f.isStr:
				if !utf8.ValidString(sf.String()) {
					dst.Field(f.i).SetString(jsonString(sf.String()))
				}
			case f.omit && sf.Len() == 0:
				dst.Field(f.i).SetZero()
			default:
				f.c(dst.Field(f.i), sf)
			}
		}
	}
}

// stringsCopier copies a slice of strings.
func stringsCopier(t reflect.Type) copier {
	if t == stringsType {
		return func(dst, src reflect.Value) {
			if src.IsNil() {
				dst.SetZero()
				return
			}
			in := src.Interface().([]string)
			out := make([]string, len(in))
			for i, e := range in {
				if !utf8.ValidString(e) {
					e = jsonString(e)
				}
				out[i] = e
			}
			dst.Set(reflect.ValueOf(out))
		}
	}
	return func(dst, src reflect.Value) {
		if src.IsNil() {
			dst.SetZero()
			return
		}
		n := src.Len()
		s := reflect.MakeSlice(t, n, n)
		reflect.Copy(s, src)
		for i := range n {
			if e := s.Index(i); !utf8.ValidString(e.String()) {
				e.SetString(jsonString(e.String()))
			}
		}
		dst.Set(s)
	}
}

var stringsType = reflect.TypeFor[[]string]()

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// jsonString is s as encoding/json writes it and reads it back: each byte
// that does not start a valid UTF-8 sequence becomes U+FFFD.
func jsonString(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// compactRaw is a json.RawMessage as encoding/json writes it: compacted,
// with <, > and & escaped. What is not JSON is kept (encoding it fails).
func compactRaw(raw []byte) []byte {
	var c bytes.Buffer
	if json.Compact(&c, raw) != nil {
		return bytes.Clone(raw)
	}
	var h bytes.Buffer
	json.HTMLEscape(&h, c.Bytes())
	return h.Bytes()
}
