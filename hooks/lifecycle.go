package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func handleSessionStart(ctx context.Context, s *session, p *Payload) (Response, error) {
	switch p.Source {
	case "compact":
		s.rearmAll()
		if s.w.Drift != nil {
			// The compacted context no longer shows the recent calls the
			// model would be judged by; start the window afresh.
			s.w.Drift.Recent = s.w.Drift.Recent[:0]
			s.w.Drift.Obs = s.w.Drift.Obs[:0]
		}
		ctxs := s.reanchor(ctx)
		if len(ctxs) > 0 {
			s.recordText(p, "reanchor", ctxs[0])
		}
		return Response{Context: ctxs}, nil
	case "resume":
		s.resumeContext(p)
	}
	s.sweepTemp()
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

// recordText logs an advisory given as plain text.
func (s *session) recordText(p *Payload, kind, text string) {
	s.advs = append(s.advs, stateAdvisory(s, p, kind, "info", text))
}

// sweepTemp removes temporary files of writes that a crash interrupted
// (renameio's ".<name><digits>"), older than a minute.
func (s *session) sweepTemp() {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, ".") || e.IsDir() {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute {
			_ = os.Remove(filepath.Join(s.dir, n))
		}
	}
}
