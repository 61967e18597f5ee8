// Package feedback is the backend of `djinn feedback` and of the feedback
// lines of `djinn status` and `djinn config`: it finds an advisory by its
// id, records the user's verdict on it from outside a hook, and says what
// the developer's profile changes. What a verdict does to a session and to
// the profile, and how the profile holds advisories back, is the hooks'
// (hooks.Session.Judge, /djinn:wrong), so a command and a prompt judge
// alike.
package feedback

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/state"
)

// ErrNoAdvisory is returned by FindAdvisory for an id no advisory has.
var ErrNoAdvisory = errors.New("no advisory with that id")

// FindAdvisory finds the advisory called id in advisories.jsonl: of one
// session, or of every session (newest first) when session is "". Lines
// written before ids are named by state.AdvisoryID.
func FindAdvisory(st *state.Store, session, id string) (string, state.Advisory, error) {
	ids := []string{session}
	if session == "" {
		all, err := st.Sessions()
		if err != nil {
			return "", state.Advisory{}, err
		}
		ids = ids[:0]
		for _, si := range all {
			ids = append(ids, si.ID)
		}
	}
	for _, sid := range ids {
		dir, err := st.SessionDir(sid)
		if err != nil {
			return "", state.Advisory{}, err
		}
		var found *state.Advisory
		_, err = st.ReadLines(filepath.Join(dir, "advisories.jsonl"), state.KindAdvisory, 0, func(raw []byte) error {
			var a state.Advisory
			if state.DecodeStrict(raw, &a) == nil && state.AdvisoryID(sid, a) == id {
				found = &a
			}
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", state.Advisory{}, err
		}
		if found != nil {
			return sid, *found, nil
		}
	}
	return "", state.Advisory{}, fmt.Errorf("%w: %s", ErrNoAdvisory, id)
}

// Judge records a judgement of advisory a of a session from outside a
// hook (djinn feedback): under the session's lock, the window's record and
// then the developer's profile, as /djinn:wrong does.
func Judge(ctx context.Context, env *hooks.Env, session string, a state.Advisory, verdict, note string) (hooks.Judgement, error) {
	if verdict != state.VerdictWrong && verdict != state.VerdictRight {
		return hooks.Judgement{}, fmt.Errorf("verdict %q: want wrong or right", verdict)
	}
	if a.Kind == advice.KindReanchor {
		return hooks.Judgement{}, fmt.Errorf("a reanchor restates the goal; it cannot be judged")
	}
	s, err := hooks.OpenSession(ctx, env, session)
	if err != nil {
		return hooks.Judgement{}, err
	}
	defer func() { _ = s.Close() }()
	j, err := s.Judge(ctx, a, verdict, note)
	if err != nil {
		return j, err
	}
	return j, s.Save()
}

// ProfileLines describe, one line a kind, what the developer's feedback
// changed for this environment's developer: none when nothing was judged
// or every kind is back at level 0.
func ProfileLines(env *hooks.Env, prof *state.Profile) []string {
	dev := env.DeveloperKey()
	var out []string
	for _, e := range prof.Entries {
		if e == nil || e.Developer != dev || e.Level == 0 {
			continue
		}
		adj := hooks.AdjustFor(env.Settings, e.Kind, e.Level)
		out = append(out, fmt.Sprintf("%s (marked wrong %d×, right %d×)", adj.Describe(e.Kind), e.Wrong, e.Right))
	}
	slices.Sort(out)
	return out
}

// PeekProfile reads profile.json without moving anything (for status and
// config): a missing file is the empty profile, an invalid one an error.
func PeekProfile(st *state.Store) (*state.Profile, error) {
	p := state.NewProfile()
	found, err := st.Peek(filepath.Join(st.Root, state.ProfileFile), state.KindProfile, &p)
	if err != nil {
		return nil, err
	}
	if !found || p.Entries == nil {
		p = state.NewProfile()
	}
	return &p, nil
}

// WriteProfile prints what the developer's feedback changed, for status
// and config: a heading and one line a kind, or nothing when every kind is
// at its defaults.
func WriteProfile(w io.Writer, env *hooks.Env) error {
	prof, err := PeekProfile(env.Store)
	if err != nil {
		_, err = fmt.Fprintf(w, "developer feedback: %v\n", err)
		return err
	}
	lines := ProfileLines(env, prof)
	if len(lines) == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(w, "developer feedback in force (djinn feedback <id> right undoes it):"); err != nil {
		return err
	}
	for _, l := range lines {
		if _, err := fmt.Fprintf(w, "  - %s\n", l); err != nil {
			return err
		}
	}
	return nil
}
