package hooks

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/djinn-cc/djinn/hooks/transcript"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// Env is everything a hook takes from outside the payload.
type Env struct {
	Store    *state.Store
	Settings settings.Settings
	// Now is the clock.
	Now func() time.Time
	// Getenv reads the environment (the developer key, the project dir).
	Getenv func(string) string
	// Gate, if set, is called once per hook after the session is loaded and
	// the context meter read, before the handler runs or anything is
	// written (bar moving a corrupt file aside and restoring the log lines
	// an interrupted hook left in the window); an error ends the hook
	// with nothing written, and Run returns it wrapped. The hook binary
	// uses it to learn, without waiting for it up front, whether it is
	// stale and must hand the payload to a rebuilt binary.
	Gate func() error
}

func (e *Env) now() time.Time {
	if e.Now != nil {
		return e.Now().UTC()
	}
	return time.Now().UTC()
}

func (e *Env) getenv(k string) string {
	if e.Getenv != nil {
		return e.Getenv(k)
	}
	return ""
}

// session is one locked session's state for the length of one hook: loaded
// lazily, changed in memory, and written back only when the handler
// succeeded.
type session struct {
	env *Env
	id  string
	dir string
	now time.Time

	w state.Window

	anchor       *state.Anchor
	anchorLoaded bool
	anchorDirty  bool

	turns []state.Turn
	advs  []state.Advisory

	// The transcript is read at most once per hook.
	scanned bool
	scanOK  bool
	scan    transcript.Scan

	// userMessage is a systemMessage for the user, where the event allows.
	userMessage string

	// resp is the tool response, decoded once.
	resp *toolResp
}

func (s *session) path(name string) string { return filepath.Join(s.dir, name) }

// openSession validates the id, takes the session lock and loads
// window.json. The caller must call unlock.
func openSession(ctx context.Context, env *Env, id string) (*session, *state.Lock, error) {
	dir, err := env.Store.SessionDir(id)
	if err != nil {
		return nil, nil, err
	}
	lock, err := env.Store.LockSession(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	s := &session{env: env, id: id, dir: dir, now: env.now()}
	found, err := env.Store.Load(s.path("window.json"), state.KindWindow, &s.w)
	if err != nil {
		_ = lock.Unlock()
		return nil, nil, err
	}
	if !found {
		s.w = state.Window{SchemaVersion: state.SchemaVersion, SessionID: id, CreatedAt: s.now, Events: map[string]int{}}
	}
	if found && s.w.Logged != nil {
		s.reconcileLogs()
	}
	if s.w.Events == nil {
		s.w.Events = map[string]int{}
	}
	return s, lock, nil
}

// reconcileLogs appends the lines the last hook logged in the window but
// the logs lack (it was killed between its window's rename and its
// appends). Restored lines and failures are reported, not fatal: the hook
// goes on.
func (s *session) reconcileLogs() {
	turns := make([]any, len(s.w.Logged.Turns))
	for i := range s.w.Logged.Turns {
		turns[i] = &s.w.Logged.Turns[i]
	}
	advs := make([]any, len(s.w.Logged.Advisories))
	for i := range s.w.Logged.Advisories {
		advs[i] = &s.w.Logged.Advisories[i]
	}
	for _, l := range []struct {
		name   string
		kind   state.Kind
		values []any
	}{{"turns.jsonl", state.KindTurn, turns}, {"advisories.jsonl", state.KindAdvisory, advs}} {
		if _, err := s.env.Store.Reconcile(s.path(l.name), l.kind, l.values); err != nil && s.env.Store.Notice != nil {
			s.env.Store.Notice(fmt.Sprintf("could not restore the last hook's lines: %v", err))
		}
	}
}

// loadAnchor returns the session's anchor, or nil when there is none yet.
func (s *session) loadAnchor() (*state.Anchor, error) {
	if s.anchorLoaded {
		return s.anchor, nil
	}
	var a state.Anchor
	found, err := s.env.Store.Load(s.path("anchor.json"), state.KindAnchor, &a)
	if err != nil {
		return nil, err
	}
	s.anchorLoaded = true
	if found {
		s.anchor = &a
	}
	return s.anchor, nil
}

func (s *session) setAnchor(a *state.Anchor) {
	s.anchor, s.anchorLoaded, s.anchorDirty = a, true, true
}

// save writes everything that changed: window.json first (if the disk is
// full or the directory unwritable, it fails before anything else is
// written, leaving the state as it was), then the other documents, then the
// log lines.
func (s *session) save() error {
	st := s.env.Store
	s.w.UpdatedAt = s.now
	// The log lines go into the window first (Window.Logged): should this
	// process die between the window's rename and the appends, the next
	// hook appends what the logs lack.
	s.w.Logged = nil
	if len(s.turns)+len(s.advs) > 0 {
		s.w.Logged = &state.Logged{Turns: slices.Clone(s.turns), Advisories: slices.Clone(s.advs)}
	}
	// The window and a changed anchor are written together: both are
	// written before either is renamed (window first).
	docs := []state.Doc{{Path: s.path("window.json"), Kind: state.KindWindow, V: &s.w}}
	if s.anchorDirty && s.anchor != nil {
		docs = append(docs, state.Doc{Path: s.path("anchor.json"), Kind: state.KindAnchor, V: s.anchor})
	}
	if err := st.SaveAll(docs...); err != nil {
		return fmt.Errorf("save window: %w", err)
	}
	for _, t := range s.turns {
		if err := st.Append(s.path("turns.jsonl"), state.KindTurn, t); err != nil {
			return err
		}
	}
	for _, a := range s.advs {
		if err := st.Append(s.path("advisories.jsonl"), state.KindAdvisory, a); err != nil {
			return err
		}
	}
	return nil
}

// disabled reports whether a detector is off for this session or globally.
func (s *session) disabled(detector string) bool {
	for _, d := range s.w.Disabled {
		if d == "all" || d == detector {
			return true
		}
	}
	return false
}
