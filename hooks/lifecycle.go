package hooks

import (
	"context"
	"fmt"
	"time"

	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

func handleSessionStart(ctx context.Context, s *session, p *Payload) (Response, error) {
	s.sessionModel(p)
	s.limitsFromProject(s.w.ProjectDir)
	switch p.Source {
	case "compact":
		s.meterCompacted()
		s.compacted()
		if s.w.Drift != nil {
			// The compacted context no longer shows the recent calls the
			// model would be judged by; start the window afresh.
			s.w.Drift.Recent = s.w.Drift.Recent[:0]
			s.w.Drift.Obs = s.w.Drift.Obs[:0]
		}
		// The re-anchor waits for PostCompact, which gets the summary
		// (here the transcript holds neither it nor the boundary yet:
		// e2e TestCompactionSummaryReachesOnlyPostCompact), and is said at
		// the next hook that can give the agent context.
		s.w.PendingReanchor, s.w.ReanchorAfter = "", ""
		if ctxs := s.reanchor(ctx); len(ctxs) > 0 {
			s.w.PendingReanchor = fit.Runes(ctxs[0], maxPendingReanchor)
			s.w.ReanchorAfter = s.lastMainResponse()
		}
		return Response{}, nil
	case "resume":
		s.resumeContext(p)
	}
	s.sweepTemp()
	s.pruneOld(ctx)
	return Response{}, nil
}

func handleSessionEnd(ctx context.Context, s *session, p *Payload) (Response, error) {
	if d := s.w.Drift; d != nil && !d.Learned {
		if err := s.learnSession(ctx); err != nil {
			return Response{}, err
		}
		d.Learned = true
	}
	return Response{}, nil
}

// recordText logs an advisory given as plain text whatever its kind's
// mode: /djinn:reorient's confirmation, which answers the user's own
// command.
func (s *session) recordText(p *Payload, kind, text string) {
	adv := stateAdvisory(s, p, kind, "info", text)
	adv.Mode = string(settings.Advise)
	s.advs = append(s.advs, adv)
}

// sweepTemp removes temporary files of writes that a crash interrupted
// (renameio's ".<name><digits>"), older than a minute: only Djinn's own,
// never through a link (Store.SweepTemp).
func (s *session) sweepTemp() {
	s.env.Store.SweepTemp(s.dir, time.Minute)
}

// Bounds of the retention pass each SessionStart makes, so a start after
// months away does not stall: the rest goes at the next start.
const (
	pruneMaxDirs = 64
	pruneBudget  = 100 * time.Millisecond
)

// pruneOld removes sessions untouched for longer than retention_days
// (Store.Prune), bounded per start. Failures are reported, not fatal.
func (s *session) pruneOld(ctx context.Context) {
	days := s.env.Settings.RetentionDays
	if days <= 0 {
		return
	}
	_, err := s.env.Store.Prune(ctx, state.PruneOptions{
		MaxAge: time.Duration(days) * 24 * time.Hour, Keep: s.id,
		MaxDirs: pruneMaxDirs, Budget: pruneBudget,
	})
	if err != nil && s.env.Store.Notice != nil {
		s.env.Store.Notice(fmt.Sprintf("could not prune old sessions: %v", err))
	}
}
