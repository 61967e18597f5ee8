package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/djinn-cc/djinn/engines/risk"
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
	// ConfigProblems are the settings' problems (settings.Load): Run
	// reports them once per session and change, not on every hook.
	ConfigProblems []string
	// Gate, if set, is called once per hook after the session is loaded and
	// the context meter read, before the handler runs or anything is
	// written (bar moving a corrupt file aside, and finishing what an
	// interrupted hook committed in the window: its log lines and its
	// anchor); an error ends the hook
	// with nothing written, and Run returns it wrapped. The hook binary
	// uses it to learn, without waiting for it up front, whether it is
	// stale and must hand the payload to a rebuilt binary.
	Gate func() error
	// FSRoot is where the session's paths live when not at "/": replay's
	// scratch file system. "" for a live hook.
	FSRoot string
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
	// scanFrom is the boundary of the cursor the scan started from (-1
	// without one): the lines from there to scan.Cursor.Boundary were
	// written since the transcript was last read.
	scanFrom int64

	// userMessage is a systemMessage for the user, where the event allows.
	userMessage string
	// notices are notices for the person raised outside a handler's
	// response (tell); Run shows them with the response's.
	notices []Notice

	// resp is the tool response, decoded once; shell, a shell call's
	// output, read once; in, the tool input, decoded once (callInput).
	resp  *toolResp
	shell *shellOut
	in    *decodedInput

	// callFailed: the tool call being handled failed (an error, or a
	// failure its own output shows).
	callFailed bool
	// failText is the failed call's error, or the output that shows its
	// failure: its words are evidence of what the work is about.
	failText string
	// read is the call being handled as the risk catalogue reads it,
	// parsed once for drift, the catalogue and the instructions.
	read *readCall
}

// readCall is riskCallOf's answer for one payload.
type readCall struct {
	p  *Payload
	c  risk.Call
	in riskInput
	ok bool
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
	found, rep, err := env.Store.LoadRepaired(s.path("window.json"), state.KindWindow, &s.w)
	if err != nil {
		_ = lock.Unlock()
		return nil, nil, err
	}
	s.noteRepair(rep)
	if !found {
		s.w = state.NewWindow(id, s.now)
		// A window moved aside (or lost) counts on from the session's
		// log, so the count and turns.jsonl agree.
		s.w.ToolCalls = env.Store.LastTurnSeq(dir)
	}
	if found && s.w.PendingAnchor != nil {
		if err := s.finishAnchor(); err != nil {
			_ = lock.Unlock()
			return nil, nil, err
		}
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

// finishAnchor completes the anchor change the last hook committed in its
// window (Window.PendingAnchor): if anchor.json is not that anchor (the hook
// was killed, or failed, between the window's rename and the anchor's), it
// is written now, under the lock, before anything reads it. The anchor is
// this hook's from then on, and this hook's window goes without it. A
// pending anchor that is not a valid anchor (edited by hand) is dropped and
// reported, and so is an anchor.json that is there but invalid (moved
// aside: a hand edit, not a kill); a write that fails fails the hook, which leaves the window as
// it was for the next hook to try again.
func (s *session) finishAnchor() error {
	p := s.w.PendingAnchor
	s.w.PendingAnchor = nil
	if err := p.Validate(); err != nil {
		if s.env.Store.Notice != nil {
			s.env.Store.Notice(fmt.Sprintf("window.json: dropped an invalid pending anchor (%v)", err))
		}
		return nil
	}
	want, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_, statErr := os.Lstat(s.path("anchor.json"))
	var a state.Anchor
	found, rep, err := s.env.Store.LoadRepaired(s.path("anchor.json"), state.KindAnchor, &a)
	if err != nil {
		return err
	}
	s.noteRepair(rep)
	if !found && statErr == nil {
		// anchor.json was there but invalid, and Load moved it aside and
		// said so. Renames leave it old or new, never invalid: this is a
		// hand edit, not an interrupted hook, and the session goes on
		// without a goal, as after any quarantine.
		s.anchorLoaded = true
		return nil
	}
	if got, err := json.Marshal(&a); !found || err != nil || !bytes.Equal(got, want) {
		if err := s.env.Store.Save(s.path("anchor.json"), state.KindAnchor, p); err != nil {
			return fmt.Errorf("restore anchor: %w", err)
		}
		if s.env.Store.Notice != nil {
			s.env.Store.Notice(fmt.Sprintf("%s: restored the goal that the last hook committed in window.json but had not written (it was interrupted)", s.path("anchor.json")))
		}
	}
	s.anchor, s.anchorLoaded = p, true
	return nil
}

// noteRepair keeps the person's notice of a state file repaired field by
// field (nil: nothing repaired).
func (s *session) noteRepair(rep *state.Repair) {
	if rep != nil {
		s.tell(rep.Notice(), true)
	}
}

// loadAnchor returns the session's anchor, or nil when there is none yet.
func (s *session) loadAnchor() (*state.Anchor, error) {
	if s.anchorLoaded {
		return s.anchor, nil
	}
	var a state.Anchor
	found, rep, err := s.env.Store.LoadRepaired(s.path("anchor.json"), state.KindAnchor, &a)
	if err != nil {
		return nil, err
	}
	s.noteRepair(rep)
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
	// A changed anchor makes this a multi-file update: the window carries
	// the anchor too (Window.PendingAnchor) and is renamed first, so it
	// commits the whole change, and the next hook finishes what a kill
	// between the two renames left undone (finishAnchor). Both files are
	// written before either is renamed. A hook that changes only the
	// window (every PostToolUse) writes one file.
	s.w.PendingAnchor = nil
	docs := []state.Doc{{Path: s.path("window.json"), Kind: state.KindWindow, V: &s.w}}
	if s.anchorDirty && s.anchor != nil {
		s.w.PendingAnchor = s.anchor
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
