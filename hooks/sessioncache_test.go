package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/hooks/transcript"
	"github.com/djinn-cc/djinn/state"
)

// TestCacheableTypes: the documents the cache keeps have only exported
// fields (encoding/json sees all of them, and deepCopy copies all of them),
// except in time.Time, which is immutable, and nothing deepCopy cannot
// copy (interfaces, channels, functions).
func TestCacheableTypes(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(ty reflect.Type, path string)
	walk = func(ty reflect.Type, path string) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(ty.Elem(), path+"[]")
		case reflect.Map:
			walk(ty.Key(), path+"[key]")
			walk(ty.Elem(), path+"[]")
		case reflect.Struct:
			if ty == reflect.TypeFor[time.Time]() {
				return
			}
			for i := range ty.NumField() {
				f := ty.Field(i)
				if !f.IsExported() || f.Tag.Get("json") == "-" {
					t.Errorf("%s.%s (%s): not in window.json, so a cached window would keep what the disk loses", path, f.Name, ty)
				}
				walk(f.Type, path+"."+f.Name)
			}
		case reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
			t.Errorf("%s: %s cannot be deep-copied", path, ty)
		}
	}
	walk(reflect.TypeFor[state.Window](), "Window")
	walk(reflect.TypeFor[state.Anchor](), "Anchor")
}

// fill sets v to random contents: nil, empty and filled containers, so that
// both of encoding/json's spellings (null, []) occur.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(r.Int64N(1000) - 500)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(r.Uint64N(1000))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(r.NormFloat64())
	case reflect.String:
		str := strings.Repeat("x", r.IntN(4)) + string(rune('a'+r.IntN(26)))
		switch r.IntN(8) {
		case 0:
			str = ""
		case 1:
			str += "é<&>\u2028"[:r.IntN(9)] // cut anywhere: not always UTF-8
		case 2:
			str = "\xff" + str + "\xe2\x82"
		}
		v.SetString(str)
	case reflect.Pointer:
		if r.IntN(4) == 0 || depth > 6 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(r, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			raws := []string{"", `{"size":1}`, ` { "a" : [1, 2] ,"b":"<&>"} `, `"x"`}
			if k := r.IntN(5); k < len(raws) {
				v.SetBytes([]byte(raws[k]))
			}
			return
		}
		switch k := r.IntN(5); {
		case k == 0 || depth > 6:
			v.SetZero()
		default:
			n := k - 1
			s := reflect.MakeSlice(v.Type(), n, n+r.IntN(3))
			for i := range n {
				fill(r, s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Map:
		switch k := r.IntN(5); {
		case k == 0 || depth > 6:
			v.SetZero()
		default:
			m := reflect.MakeMap(v.Type())
			for range k - 1 {
				key := reflect.New(v.Type().Key()).Elem()
				fill(r, key, depth+1)
				val := reflect.New(v.Type().Elem()).Elem()
				fill(r, val, depth+1)
				m.SetMapIndex(key, val)
			}
			v.Set(m)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(r.Int64N(1<<31), r.Int64N(1e9)).UTC()))
			return
		}
		for i := range v.NumField() {
			fill(r, v.Field(i), depth+1)
		}
	}
}

// scribble changes every value reachable from v in place: whatever a copy
// shares with its original shows up in the original.
func scribble(v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(v.Float() + 1)
	case reflect.String:
		v.SetString(v.String() + "!")
	case reflect.Pointer:
		if !v.IsNil() {
			scribble(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			scribble(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		for it := v.MapRange(); it.Next(); {
			val := reflect.New(v.Type().Elem()).Elem()
			val.Set(it.Value())
			if val.Kind() != reflect.Pointer {
				scribble(val)
			} else if !val.IsNil() {
				scribble(val.Elem())
			}
			v.SetMapIndex(it.Key(), val)
		}
		v.SetMapIndex(reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem())
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(v.Interface().(time.Time).Add(time.Second)))
			return
		}
		for i := range v.NumField() {
			scribble(v.Field(i))
		}
	}
}

// TestDeepCopy: over random windows and anchors (nil and empty
// containers, strings that are not UTF-8, raw JSON with spaces), both the
// generated Clone (what take uses) and the reflective deepCopy equal what
// encoding/json decodes from the original's encoding (reflect.DeepEqual:
// nil and empty told apart), encode to the same bytes, and changing every
// value of the copy leaves the original as it was.
func TestDeepCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for _, doc := range []any{&state.Window{}, &state.Anchor{}} {
		ty := reflect.TypeOf(doc).Elem()
		t.Run(ty.Name(), func(t *testing.T) {
			for i := range 2000 {
				orig := reflect.New(ty)
				fill(r, orig.Elem(), 0)
				before, err := json.Marshal(orig.Interface())
				if err != nil {
					t.Fatal(err)
				}
				want := reflect.New(ty)
				if err := json.Unmarshal(before, want.Interface()); err != nil {
					t.Fatal(err)
				}
				reflective := reflect.New(ty)
				deepCopy(reflective.Elem(), orig.Elem())
				generated := reflect.New(ty)
				generated.Elem().Set(orig.MethodByName("Clone").Call(nil)[0])
				for _, c := range []struct {
					name string
					cp   reflect.Value
				}{{"deepCopy", reflective}, {"Clone", generated}} {
					cp := c.cp
					if !reflect.DeepEqual(want.Interface(), cp.Interface()) {
						t.Fatalf("case %d, %s: copy differs from the decoded encoding: %s", i, c.name, firstDiff(want.Elem(), cp.Elem(), ty.Name()))
					}
					again := reflect.New(ty)
					if raw, err := json.Marshal(cp.Interface()); err != nil || json.Unmarshal(raw, again.Interface()) != nil || !reflect.DeepEqual(want.Interface(), again.Interface()) {
						t.Fatalf("case %d, %s: the copy does not encode to the original's value (%v)", i, c.name, err)
					}
					scribble(cp.Elem())
					if after, _ := json.Marshal(orig.Interface()); string(after) != string(before) {
						t.Fatalf("case %d, %s: changing the copy changed the original:\n%s\nwas\n%s", i, c.name, after, before)
					}
				}
			}
		})
	}
}

// cachedSim is a sim whose hooks share a SessionCache, as replay's do
// (from the hook after its SessionStart on).
func cachedSim(t *testing.T) *sim {
	s := newSim(t)
	s.env.Cache = &SessionCache{}
	return s
}

// flushAndCheck writes the cached window back and holds the cache to the
// disk: the window the next hook gets from the cache equals the one it
// would decode from what was written (what a hook process would see).
func flushAndCheck(t *testing.T, s *sim) {
	t.Helper()
	if err := s.env.Cache.Flush(context.Background(), s.env.Store); err != nil {
		t.Fatal(err)
	}
	e := s.env.Cache.entry(s.id)
	if e == nil {
		t.Fatal("no cache entry after a hook")
	}
	next := e.w.Clone()
	if w := s.window(); !reflect.DeepEqual(w, next) {
		t.Fatalf("window.json decodes to a different window than the cache gives: %s", firstDiff(reflect.ValueOf(w), reflect.ValueOf(next), "window"))
	}
}

// firstDiff names where two values first differ, reflect.DeepEqual's way
// (nil and empty are different).
func firstDiff(a, b reflect.Value, path string) string {
	if a.Kind() != b.Kind() {
		return path + ": kinds differ"
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		if a.IsNil() != b.IsNil() {
			return fmt.Sprintf("%s: disk nil %v, cached nil %v", path, a.IsNil(), b.IsNil())
		}
	}
	switch a.Kind() {
	case reflect.Pointer:
		if !a.IsNil() {
			return firstDiff(a.Elem(), b.Elem(), path)
		}
	case reflect.Slice:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: disk len %d, cached %d", path, a.Len(), b.Len())
		}
		for i := range a.Len() {
			if d := firstDiff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
	case reflect.Map:
		for _, k := range a.MapKeys() {
			if !b.MapIndex(k).IsValid() {
				return fmt.Sprintf("%s[%v]: not cached", path, k)
			}
			if d := firstDiff(a.MapIndex(k), b.MapIndex(k), fmt.Sprintf("%s[%v]", path, k)); d != "" {
				return d
			}
		}
		if a.Len() != b.Len() {
			return path + ": cached has more keys"
		}
	case reflect.Struct:
		if a.Type() == reflect.TypeFor[time.Time]() {
			if !a.Interface().(time.Time).Equal(b.Interface().(time.Time)) || !reflect.DeepEqual(a.Interface(), b.Interface()) {
				return fmt.Sprintf("%s: disk %v, cached %v", path, a.Interface(), b.Interface())
			}
			return ""
		}
		for i := range a.NumField() {
			if d := firstDiff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); d != "" {
				return d
			}
		}
	default:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			return fmt.Sprintf("%s: disk %v, cached %v", path, a.Interface(), b.Interface())
		}
	}
	return ""
}

// TestSessionCacheRoundTrip: through a session with prompts, reads, edits,
// failures and a compaction, every cached window equals its own encoding
// decoded, and the cached anchor the anchor on disk.
func TestSessionCacheRoundTrip(t *testing.T) {
	s := cachedSim(t)
	s.userPrompt("Fix the parser so that quoted commas in CSV fields are kept")
	flushAndCheck(t, s)
	f := s.file("csv/parse.go", "package csv\n")
	for i := range 30 {
		s.assistant("Reading the parser to see how quoted fields are split", int64(20000+i*900))
		switch i % 4 {
		case 0:
			s.tool("Read", jsonStr(map[string]any{"file_path": f}), map[string]any{"type": "text", "file": map[string]any{"filePath": f, "content": "package csv\n", "numLines": 1, "startLine": 1, "totalLines": 1}})
		case 1:
			s.tool("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "package csv", "new_string": "package csv // quoted"}), map[string]any{"filePath": f})
		case 2:
			s.fail("Bash", jsonStr(map[string]any{"command": "go test ./csv"}), "exit status 1: FAIL TestQuoted")
		default:
			s.tool("Grep", jsonStr(map[string]any{"pattern": "quote", "path": filepath.Dir(f)}), map[string]any{"mode": "files_with_matches", "filenames": []string{f}})
		}
		flushAndCheck(t, s)
		if i == 15 {
			s.userPrompt("Also keep escaped quotes inside quoted fields")
			flushAndCheck(t, s)
		}
	}
	s.run(&Payload{HookEventName: PreCompact, Trigger: "auto"})
	flushAndCheck(t, s)
	s.run(&Payload{HookEventName: SessionStart, Source: "compact"})
	flushAndCheck(t, s)
	s.run(&Payload{HookEventName: Stop, LastAssistantMessage: "Quoted commas are kept now."})
	flushAndCheck(t, s)
	e := s.env.Cache.entry(s.id)
	if !e.anchorKnown || !reflect.DeepEqual(e.anchor, s.anchor()) || e.anchor == nil {
		t.Errorf("cached anchor %+v, anchor.json %+v", e.anchor, s.anchor())
	}
}

// TestSessionCacheWriteBack: hooks with a cache leave window.json alone
// until Flush, which writes what the same hooks write without one.
func TestSessionCacheWriteBack(t *testing.T) {
	plain, cached := newSim(t), cachedSim(t)
	for _, s := range []*sim{plain, cached} {
		s.userPrompt("Add a retry to the upload client")
		for range 5 {
			s.fail("Bash", jsonStr(map[string]any{"command": "go test ./upload"}), "exit status 1")
		}
	}
	dir, _ := cached.env.Store.SessionDir(cached.id)
	raw, err := os.ReadFile(filepath.Join(dir, "window.json"))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk state.Window
	if err := json.Unmarshal(raw, &onDisk); err != nil {
		t.Fatal(err)
	}
	if onDisk.ToolCalls != 0 {
		t.Errorf("window.json was written before Flush: %d tool calls", onDisk.ToolCalls)
	}
	if err := cached.env.Cache.Flush(context.Background(), cached.env.Store); err != nil {
		t.Fatal(err)
	}
	// The sims' paths differ; everything else must not.
	norm := func(s *sim) string {
		w := s.window()
		w.ProjectDir, w.TranscriptPath = "", ""
		b, _ := json.Marshal(w)
		return strings.ReplaceAll(string(b), filepath.Dir(s.project), "ROOT")
	}
	if a, b := norm(plain), norm(cached); a != b {
		t.Errorf("flushed window differs from the per-hook one:\ncached %s\nplain  %s", b, a)
	}
}

// TestSessionCacheOtherWriter: a window.json written by another process
// between two hooks wins over the cached window, and Flush does not write
// over one written since the cache last left it.
func TestSessionCacheOtherWriter(t *testing.T) {
	s := cachedSim(t)
	other := &Env{Store: &state.Store{Root: s.env.Store.Root, LockWait: time.Second, Now: s.env.Now}, Settings: s.env.Settings, Now: s.env.Now, Getenv: s.env.Getenv}
	call := func(env *Env) {
		t.Helper()
		s.calls++
		p := &Payload{HookEventName: PostToolUseFailure, SessionID: s.id, TranscriptPath: s.tpath, Cwd: s.project, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"make"}`), Error: "exit 2"}
		if _, err := Run(context.Background(), env, p); err != nil {
			t.Fatal(err)
		}
	}
	call(s.env)
	if err := s.env.Cache.Flush(context.Background(), s.env.Store); err != nil {
		t.Fatal(err)
	}
	call(other) // reads the flushed window, writes its own
	call(s.env) // must start from the other process's window
	if err := s.env.Cache.Flush(context.Background(), s.env.Store); err != nil {
		t.Fatal(err)
	}
	if w := s.window(); w.ToolCalls != 3 {
		t.Errorf("after cached, other, cached: %d tool calls, want 3", w.ToolCalls)
	}
	call(s.env) // cached, not flushed
	call(other) // reads the stale disk and writes
	if err := s.env.Cache.Flush(context.Background(), s.env.Store); err == nil {
		t.Error("Flush wrote over a window.json another process wrote")
	}
	if w := s.window(); w.ToolCalls != 4 {
		t.Errorf("window.json has %d tool calls, want the other process's 4", w.ToolCalls)
	}
}

// TestDeepCopyConcurrentFirstUse: copiers built while other goroutines
// copy the same (here recursive) type are complete when used (replay runs
// transcripts side by side).
func TestDeepCopyConcurrentFirstUse(t *testing.T) {
	type node struct {
		Name string
		Next *node
		Kids []node           `json:",omitempty"`
		By   map[string]*node `json:",omitempty"`
	}
	src := node{Name: "a", Next: &node{Name: "b"}, Kids: []node{{Name: "c", By: map[string]*node{"d": {Name: "d"}}}}}
	start, done := make(chan struct{}), make(chan node)
	for range 8 {
		go func() {
			<-start
			var dst node
			deepCopy(reflect.ValueOf(&dst).Elem(), reflect.ValueOf(src))
			done <- dst
		}()
	}
	close(start)
	for range 8 {
		if got := <-done; !reflect.DeepEqual(got, src) {
			t.Errorf("copy %+v, want %+v", got, src)
		}
	}
}

// deepCopy, the oracle of Window.Clone (which take uses), sets dst,
// settable, to a copy of src that shares no memory with it and equals what
// encoding/json gives back for src (what a hook reading window.json would
// see), by reflection: an empty slice or map in an omitempty field
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

// TestSessionCacheHoldLocks: with HoldLocks the session's lock stays taken
// from the first hook until Flush (or Release), and the hooks leave the
// same files as hooks that each take and release it.
func TestSessionCacheHoldLocks(t *testing.T) {
	s := newSim(t)
	start, root := s.now, s.env.Store.Root
	other := func() (*state.Lock, error) {
		st := &state.Store{Root: s.env.Store.Root}
		return st.LockSession(context.Background(), s.id)
	}
	// session replays one session from nothing into a state root of its
	// own, with the same project, transcript and clock.
	session := func(name string, hold bool) map[string]string {
		s.env.Store = &state.Store{Root: filepath.Join(root, name), LockWait: time.Second, Now: s.env.Now}
		s.env.Cache = nil
		s.now, s.calls, s.prompt = start, 0, 0
		if err := os.WriteFile(s.tpath, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		s.run(&Payload{HookEventName: SessionStart, Source: "startup"})
		s.env.Cache = &SessionCache{HoldLocks: hold}
		s.userPrompt("Make the importer skip blank rows")
		f := s.file("imp/rows.go", "package imp\n")
		for i := range 6 {
			s.assistant("Checking how rows are read", int64(30000+i*500))
			s.tool("Read", jsonStr(map[string]any{"file_path": f}), map[string]any{"type": "text", "file": map[string]any{"filePath": f, "content": "package imp\n", "numLines": 1, "startLine": 1, "totalLines": 1}})
			s.fail("Bash", jsonStr(map[string]any{"command": "go test ./imp"}), "exit status 1: FAIL TestBlank")
		}
		s.run(&Payload{HookEventName: Stop, LastAssistantMessage: "Blank rows are skipped."})
		if l, err := other(); hold && !errors.Is(err, state.ErrLockBusy) {
			_ = l.Unlock()
			t.Fatalf("another lock while the cache holds it: %v, want %v", err, state.ErrLockBusy)
		} else if !hold {
			if err != nil {
				t.Fatal(err)
			}
			_ = l.Unlock()
		}
		if err := s.env.Cache.Flush(context.Background(), s.env.Store); err != nil {
			t.Fatal(err)
		}
		l, err := other()
		if err != nil {
			t.Fatalf("the lock after Flush: %v", err)
		}
		_ = l.Unlock()
		// A hook after Flush takes the lock again; Release gives it up.
		s.fail("Bash", jsonStr(map[string]any{"command": "go vet ./imp"}), "exit status 1")
		if l, err := other(); hold && !errors.Is(err, state.ErrLockBusy) {
			t.Fatalf("another lock after a hook took it again: %v, want %v", err, state.ErrLockBusy)
		} else if !hold {
			if err != nil {
				t.Fatal(err)
			}
			_ = l.Unlock()
		}
		if err := s.env.Cache.Release(); err != nil {
			t.Fatal(err)
		}
		if l, err := other(); err != nil {
			t.Fatalf("the lock after Release: %v", err)
		} else {
			_ = l.Unlock()
		}
		if err := s.env.Cache.Flush(context.Background(), s.env.Store); err != nil {
			t.Fatal(err)
		}
		dir, _ := s.env.Store.SessionDir(s.id)
		out := map[string]string{}
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	want, got := session("plain", false), session("held", true)
	if len(want) < 4 {
		t.Fatalf("only %d session files: %v", len(want), want)
	}
	for name, w := range want {
		if got[name] != w {
			a, b := clip2(got[name], w)
			t.Errorf("%s differs with HoldLocks:\n got %s\nwant %s", name, a, b)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: written with HoldLocks only", name)
		}
	}
}

// clip2 cuts two texts to where they first differ, with some context.
func clip2(a, b string) (string, string) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(i-80, 0)
	return a[from:min(len(a), i+120)], b[from:min(len(b), i+120)]
}

// TestSessionCacheBufferedLogs: with HoldLocks the hooks' log lines wait
// in the cache, and whatever reads a session's logs in between sees them
// all: the pressure advisory's contextFill (tiers crossed as the context
// grows), the compaction snapshot's RankSession (PreCompact and
// SessionStart(compact)), and RankSession called between hooks. Every
// response and every rank equals the per-hook path's, and after Flush the
// session's files are byte-identical to it; before Flush the logs on disk
// lag behind (the lines really were held back).
func TestSessionCacheBufferedLogs(t *testing.T) {
	s := newSim(t)
	start, root := s.now, s.env.Store.Root
	type run struct {
		said  []string
		ranks []string
		files map[string]string
		lag   int // turns.jsonl lines on disk short of the hooks', before Flush
	}
	session := func(name string, hold bool) run {
		s.env.Store = &state.Store{Root: filepath.Join(root, name), LockWait: time.Second, Now: s.env.Now}
		s.env.Cache = nil
		s.now, s.calls, s.prompt, s.said = start, 0, 0, nil
		if err := os.WriteFile(s.tpath, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		s.run(&Payload{HookEventName: SessionStart, Source: "startup"})
		s.env.Cache = &SessionCache{HoldLocks: hold}
		var out run
		rank := func() {
			t.Helper()
			r, err := RankSession(s.env, s.id, 100, 32<<10)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(r)
			out.ranks = append(out.ranks, string(b))
		}
		s.userPrompt("Make the exporter write dates in ISO 8601")
		var files []string
		for i := range 4 {
			files = append(files, s.file(fmt.Sprintf("exp/f%d.go", i), "package exp\n"))
		}
		for i := range 24 {
			// 40%, 55% and 70% of 200,000 tokens are crossed on the way.
			s.assistant("Working through the exporter's date handling", int64(60000+i*5000))
			f := files[(i*3)%len(files)]
			switch i % 3 {
			case 0:
				s.tool("Read", jsonStr(map[string]any{"file_path": f}), map[string]any{"type": "text", "file": map[string]any{"filePath": f, "content": "package exp\n", "numLines": 1, "startLine": 1, "totalLines": 1}})
			case 1:
				s.tool("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "package exp", "new_string": fmt.Sprintf("package exp // %d", i)}), map[string]any{"filePath": f, "originalFile": "package exp\n"})
			default:
				s.fail("Bash", jsonStr(map[string]any{"command": "go test ./exp"}), "exit status 1: FAIL TestISODates")
			}
			if i%8 == 7 {
				rank()
			}
		}
		s.run(&Payload{HookEventName: PreCompact, Trigger: "auto"})
		s.run(&Payload{HookEventName: SessionStart, Source: "compact"})
		rank()
		for range 3 {
			s.fail("Bash", jsonStr(map[string]any{"command": "go vet ./exp"}), "exit status 1")
		}
		dir, _ := s.env.Store.SessionDir(s.id)
		disk := func() int {
			b, _ := os.ReadFile(filepath.Join(dir, "turns.jsonl"))
			return bytes.Count(b, []byte("\n"))
		}
		before := disk()
		if err := s.env.Cache.Flush(context.Background(), s.env.Store); err != nil {
			t.Fatal(err)
		}
		out.lag = disk() - before
		out.said = s.said
		out.files = map[string]string{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out.files[rel] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	want, got := session("plain", false), session("held", true)
	if want.lag != 0 || got.lag == 0 {
		t.Errorf("turns.jsonl lines written by Flush: per-hook %d (want 0), held %d (want some)", want.lag, got.lag)
	}
	kinds := strings.Join(want.said, "\n")
	for _, k := range []string{"[djinn:pressure]", "[djinn:reanchor]", "<load_bearing_files>"} {
		if !strings.Contains(kinds, k) {
			t.Errorf("the session never said %s: the readers were not exercised", k)
		}
	}
	if !reflect.DeepEqual(got.said, want.said) {
		for i := range min(len(got.said), len(want.said)) {
			if got.said[i] != want.said[i] {
				a, b := clip2(got.said[i], want.said[i])
				t.Fatalf("advisory %d differs with held log lines:\n got %s\nwant %s", i, a, b)
			}
		}
		t.Fatalf("%d advisories with held log lines, %d without", len(got.said), len(want.said))
	}
	if !reflect.DeepEqual(got.ranks, want.ranks) {
		t.Errorf("RankSession between hooks differs with held log lines:\n got %v\nwant %v", got.ranks, want.ranks)
	}
	if len(want.files) < 4 {
		t.Fatalf("only %d session files", len(want.files))
	}
	for name, w := range want.files {
		if got.files[name] != w {
			a, b := clip2(got.files[name], w)
			t.Errorf("%s differs with held log lines:\n got %s\nwant %s", name, a, b)
		}
	}
	for name := range got.files {
		if _, ok := want.files[name]; !ok {
			t.Errorf("%s: written with held log lines only", name)
		}
	}
}

// TestSessionCacheHeldReload: log lines held back for a window the cache
// drops (as when another process wrote window.json) are dropped with it,
// so the logs stay those of the window on disk, and the next hook's
// Reconcile finds its lines there instead of appending them again.
func TestSessionCacheHeldReload(t *testing.T) {
	s := newSim(t)
	s.env.Cache = &SessionCache{HoldLocks: true}
	for range 3 {
		s.fail("Bash", jsonStr(map[string]any{"command": "make"}), "exit status 2")
	}
	if err := s.env.Cache.Flush(context.Background(), s.env.Store); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		s.fail("Bash", jsonStr(map[string]any{"command": "make lint"}), "exit status 2")
	}
	dir, _ := s.env.Store.SessionDir(s.id)
	read := func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "turns.jsonl"))
		return string(b)
	}
	held := read()
	s.env.Cache.drop(s.id)
	s.fail("Bash", jsonStr(map[string]any{"command": "make vet"}), "exit status 2")
	if err := s.env.Cache.Flush(context.Background(), s.env.Store); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(read(), "\n"), "\n")
	if n := strings.Count(held, "\n"); n != 3 {
		t.Fatalf("turns.jsonl had %d lines before the reload, want the 3 flushed", n)
	}
	var cmds []string
	for _, l := range lines {
		var tr state.Turn
		if err := json.Unmarshal([]byte(l), &tr); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, tr.Summary)
	}
	if len(cmds) != 4 || !strings.Contains(cmds[2], "make") || !strings.Contains(cmds[3], "make vet") {
		t.Errorf("turns after the reload: %q, want 3 x make, make vet", cmds)
	}
}

// TestSessionCacheHeldOtherWriter: under HoldLocks the cache trusts its
// window without a stat only while it has held the lock since; once
// Release gave the lock up, a window.json another process wrote wins,
// as without HoldLocks.
func TestSessionCacheHeldOtherWriter(t *testing.T) {
	s := newSim(t)
	s.env.Cache = &SessionCache{HoldLocks: true}
	other := &Env{Store: &state.Store{Root: s.env.Store.Root, LockWait: time.Second, Now: s.env.Now}, Settings: s.env.Settings, Now: s.env.Now, Getenv: s.env.Getenv}
	call := func(env *Env) {
		t.Helper()
		s.calls++
		p := &Payload{HookEventName: PostToolUseFailure, SessionID: s.id, TranscriptPath: s.tpath, Cwd: s.project, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"make"}`), Error: "exit 2"}
		if _, err := Run(context.Background(), env, p); err != nil {
			t.Fatal(err)
		}
	}
	call(s.env)
	call(s.env)
	if err := s.env.Cache.Flush(context.Background(), s.env.Store); err != nil {
		t.Fatal(err)
	}
	call(s.env) // takes the lock again; the entry predates it: checked
	if err := s.env.Cache.Release(); err != nil {
		t.Fatal(err)
	}
	call(other) // reads the flushed window (2 calls) and writes 3
	call(s.env) // must start from the other process's window
	if err := s.env.Cache.Flush(context.Background(), s.env.Store); err == nil {
		// The cache's own third call was never written, so the disk is
		// the other process's: Flush must not have found it stale.
		if w := s.window(); w.ToolCalls != 4 {
			t.Errorf("after cached x3, other, cached: %d tool calls, want 4", w.ToolCalls)
		}
	} else {
		t.Fatal(err)
	}
}

// TestCursorRoundTrip: the meter's cursor a cached session keeps decoded
// (cursorRoundTrips) is exactly what json.Unmarshal gives for its
// encoding, over random cursors whose strings are sometimes not UTF-8; a
// cursor that would not come back the same is never kept.
func TestCursorRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	kept, refused := 0, 0
	for i := range 5000 {
		var c transcript.Cursor
		fill(r, reflect.ValueOf(&c).Elem(), 0)
		raw, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back transcript.Cursor
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		same := back == c
		if cursorRoundTrips(c) {
			kept++
			if !same {
				t.Fatalf("case %d: kept %+v, but its encoding %s decodes to %+v", i, c, raw, back)
			}
		} else {
			refused++
			if same {
				t.Errorf("case %d: refused %+v, which round-trips", i, c)
			}
		}
	}
	if kept < 500 || refused < 500 {
		t.Errorf("kept %d, refused %d of 5000: the cases do not cover both", kept, refused)
	}
}
