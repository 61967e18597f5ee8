package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/djinn-cc/djinn/engines/drift"
	"github.com/djinn-cc/djinn/engines/posterior"
	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/state"
)

// Learning (D5): at SessionEnd, the session's mean drift score goes into
// learnings.jsonl and, unless the session was pivot-heavy, into the
// developer's posterior for the session's intent type. Later sessions of
// the same developer and intent type use the posterior's p10 as their
// on-task threshold once it has MinSessions sessions.

// developerKey is a hash of who is working, never a name in clear:
// $DJINN_DEVELOPER, else $USER, else "unknown".
func (e *Env) developerKey() string {
	who := e.getenv("DJINN_DEVELOPER")
	if who == "" {
		who = e.getenv("USER")
	}
	if who == "" {
		who = "unknown"
	}
	sum := sha256.Sum256([]byte("djinn-developer:" + who))
	return hex.EncodeToString(sum[:])[:16]
}

func posteriorKey(intent, dev string) string { return intent + "::" + dev }

// loadPosteriors reads posteriors.json; a missing or quarantined file is an
// empty set.
func (e *Env) loadPosteriors() (*state.Posteriors, error) {
	var ps state.Posteriors
	found, err := e.Store.Load(filepath.Join(e.Store.Root, "posteriors.json"), state.KindPosteriors, &ps)
	if err != nil {
		return nil, err
	}
	if !found || ps.Entries == nil {
		ps = state.Posteriors{SchemaVersion: state.SchemaVersion, Entries: map[string]*state.Posterior{}}
	}
	return &ps, nil
}

// threshold returns the on-task cutoff for an intent type (the engine's
// choice between the setting and the developer's posterior), where it came
// from, and the posterior's session count.
func (s *session) threshold(intent string) (float64, string, int) {
	set := s.env.Settings.Drift
	ps, err := s.env.loadPosteriors()
	if err != nil {
		return drift.Threshold(set.Config, nil)
	}
	p, ok := ps.Entries[posteriorKey(intent, s.env.developerKey())]
	if !ok {
		return drift.Threshold(set.Config, nil)
	}
	return drift.Threshold(set.Config, &drift.Prior{Mu: p.Mu, Var: p.Var, N: p.N, MeanLen: p.MeanLen})
}

// learnSession records a finished session once: one line to
// learnings.jsonl and, unless excluded, the posterior update. It runs at
// SessionEnd (whose budget is 1.5 s for all hooks; this is a few small
// files) under the global lock, taken after the session lock.
//
// posteriors.json commits the learning: it records the session's id
// (Posteriors.Learned) and its learnings.jsonl line (Posteriors.Logged) in
// the same atomic write as the update, and the line is appended after. A
// SessionEnd killed or failing at any step and then retried finds its
// session there and counts it no further, and whichever learning comes
// next appends the line if the log lacks it: each session is counted once
// in both files, however often SessionEnd is retried.
func (s *session) learnSession(ctx context.Context) error {
	d := s.w.Drift
	if d == nil || d.Reservoir == nil || len(d.Reservoir.Items) == 0 || d.Insufficient {
		return nil
	}
	a, err := s.loadAnchor()
	if err != nil || a == nil {
		return err
	}
	set := s.env.Settings.Drift
	excl := posterior.Exclusion{MaxPivots: 0, MaxDeltas: set.MaxDeltas}
	counts := excl.Counts(a.Pivots+a.Reorients, a.DeltaCount)
	dev := s.env.developerKey()
	l := state.Learning{
		SchemaVersion: state.SchemaVersion, Time: s.now, SessionID: s.id, IntentType: a.IntentType,
		Developer: dev, MeanScore: fit.Round3(drift.Mean(scores(d.Reservoir.Items))), Samples: len(d.Reservoir.Items),
		SessionLen: int(d.Reservoir.NSeen), Excluded: !counts,
	}
	if !counts {
		l.Reason = "pivot-heavy: pivots or re-orientations, or more than max_deltas constraint deltas"
	}
	lock, err := s.env.Store.LockGlobal(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = lock.Unlock() }()
	ps, err := s.env.loadPosteriors()
	if err != nil {
		return err
	}
	learnings := filepath.Join(s.env.Store.Root, "learnings.jsonl")
	if err := s.env.finishLearning(ps, learnings); err != nil {
		return err
	}
	if slices.Contains(ps.Learned, s.id) {
		return nil
	}
	if counts {
		key := posteriorKey(a.IntentType, dev)
		prev := posterior.Posterior{Alpha: set.Alpha}
		if p, ok := ps.Entries[key]; ok {
			prev = posterior.Posterior{Alpha: set.Alpha, Mu: p.Mu, Var: p.Var, N: p.N, MeanLen: p.MeanLen}
		}
		next, err := prev.Update(l.MeanScore, float64(l.SessionLen))
		if err != nil {
			return err
		}
		ps.Entries[key] = &state.Posterior{
			IntentType: a.IntentType, Developer: dev, Mu: next.Mu, Var: next.Var, P10: next.P10(),
			N: next.N, MeanLen: next.MeanLen, UpdatedAt: s.now,
		}
	}
	ps.Learned = append(ps.Learned, s.id)
	if n := len(ps.Learned); n > state.MaxLearned {
		ps.Learned = append(ps.Learned[:0], ps.Learned[n-state.MaxLearned:]...)
	}
	ps.Logged = &l
	if err := s.env.Store.Save(filepath.Join(s.env.Store.Root, "posteriors.json"), state.KindPosteriors, ps); err != nil {
		return err
	}
	return s.env.Store.Append(learnings, state.KindLearning, l)
}

// finishLearning appends the learnings.jsonl line of the last session
// learned (Posteriors.Logged) if the log lacks it: that SessionEnd was
// killed, or failed, after committing posteriors.json. A line that fails
// its check (edited by hand) is reported and left out; a failed append
// fails the learning, so the session is not marked learned before its line
// is in the log. The caller holds the global lock.
func (e *Env) finishLearning(ps *state.Posteriors, learnings string) error {
	if ps.Logged == nil {
		return nil
	}
	if err := ps.Logged.Validate(); err != nil {
		if e.Store.Notice != nil {
			e.Store.Notice(fmt.Sprintf("posteriors.json: left out an invalid pending learning (%v)", err))
		}
		return nil
	}
	if _, err := e.Store.ReconcileFrom(learnings, state.KindLearning, []any{ps.Logged}, "posteriors.json"); err != nil {
		return fmt.Errorf("restore the last learning's line: %w", err)
	}
	return nil
}
