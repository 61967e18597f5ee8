package hooks

import (
	"context"

	"github.com/djinn-cc/djinn/state"
)

// Session is one session's state loaded under the session's lock outside a
// hook, for a command that changes it the way a hook would (djinn reorient,
// djinn feedback, in their own packages). It offers the same steps the
// hooks take, so a command and a prompt cannot drift apart.
type Session struct {
	s    *session
	lock *state.Lock
}

// OpenSession validates id, takes the session's lock and loads its window,
// as a hook does. Close releases the lock; Save writes what changed.
func OpenSession(ctx context.Context, env *Env, id string) (*Session, error) {
	s, lock, err := openSession(ctx, env, id)
	if err != nil {
		return nil, err
	}
	return &Session{s: s, lock: lock}, nil
}

// Close releases the session's lock.
func (o *Session) Close() error { return o.lock.Unlock() }

// Save writes the window (and the anchor, when it changed) and appends the
// session's logs, as a hook does at its end.
func (o *Session) Save() error { return o.s.save() }

// Reorient re-orients the session to intent as /djinn:reorient does, and
// records the result in the window for `djinn reorient --last`.
func (o *Session) Reorient(intent string, force bool) (*state.ReorientResult, error) {
	res, err := o.s.reorient(intent, force, "")
	if err != nil {
		return nil, err
	}
	o.s.w.Reorient = res
	return res, nil
}

// Judge records the user's verdict on advisory a of this session, with its
// note, in the window and in the developer's profile, as /djinn:wrong does.
func (o *Session) Judge(ctx context.Context, a state.Advisory, verdict, note string) (Judgement, error) {
	return o.s.judge(ctx, state.AdvisoryID(o.s.id, a), a.Kind, a.Seq, verdict, note)
}
