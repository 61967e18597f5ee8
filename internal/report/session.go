package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/renameio/v2"

	"github.com/djinn-cc/djinn/state"
)

// Bounds of what the session report reads: the newest maxReportTurns tool
// calls of at most maxReportBytes of turns.jsonl, and as much of
// advisories.jsonl.
const (
	maxReportTurns = 5000
	maxReportBytes = 64 << 20
)

// Session is what the session report is drawn from: a session's files as
// the hooks left them, read without changing them.
type Session struct {
	ID     string
	Window state.Window
	// Anchor is the current goal (nil before the first), Archived the
	// goals it replaced, oldest first.
	Anchor   *state.Anchor
	Archived []state.Anchor
	Turns    []state.Turn
	// Advisories are advisories.jsonl's lines, oldest first.
	Advisories []state.Advisory
	// Truncated is set when only the newest turns were read.
	Truncated bool
}

// LoadSession reads session id's window, goal, turns and advisories.
func LoadSession(st *state.Store, id string) (*Session, error) {
	dir, err := st.SessionDir(id)
	if err != nil {
		return nil, err
	}
	s := &Session{ID: id}
	found, err := st.Peek(filepath.Join(dir, "window.json"), state.KindWindow, &s.Window)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("session %s: no state under %s", id, st.Root)
	}
	var a state.Anchor
	hasAnchor, err := st.Peek(filepath.Join(dir, "anchor.json"), state.KindAnchor, &a)
	if err != nil {
		return nil, err
	}
	// A hook killed between its two renames left the new goal in the
	// window only.
	if s.Window.PendingAnchor != nil {
		a, hasAnchor = *s.Window.PendingAnchor, true
	}
	if hasAnchor {
		s.Anchor = &a
	}
	s.Archived = readArchivedAnchors(st, filepath.Join(dir, "archive"))
	turns, stats, err := st.ReadLastTurns(filepath.Join(dir, "turns.jsonl"), maxReportBytes, maxReportTurns)
	if err != nil {
		return nil, err
	}
	s.Turns, s.Truncated = turns, stats.Truncated
	if len(s.Turns) > maxReportTurns {
		s.Turns, s.Truncated = s.Turns[len(s.Turns)-maxReportTurns:], true
	}
	s.Advisories, err = readAdvisories(st, filepath.Join(dir, "advisories.jsonl"))
	if err != nil {
		return nil, err
	}
	return s, nil
}

// readAdvisories reads advisories.jsonl's valid lines, oldest first (an
// invalid or torn line is skipped, as every reader of the log does).
func readAdvisories(st *state.Store, path string) ([]state.Advisory, error) {
	var out []state.Advisory
	_, err := st.ReadLines(path, state.KindAdvisory, maxReportBytes, func(raw []byte) error {
		var a state.Advisory
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil // valid by its schema, so this does not happen
		}
		out = append(out, a)
		return nil
	})
	return out, err
}

// readArchivedAnchors reads the goals /djinn:reorient and pivots replaced
// (archive/anchor-<time>-<hash>.json), oldest first; an unreadable one is
// left out: they only name the goals on the timeline.
func readArchivedAnchors(st *state.Store, dir string) []state.Anchor {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, "anchor-") && strings.HasSuffix(n, ".json") {
			names = append(names, n)
		}
	}
	sort.Strings(names) // the time in the name orders them
	var out []state.Anchor
	for _, n := range names {
		var a state.Anchor
		if ok, err := st.Peek(filepath.Join(dir, n), state.KindAnchor, &a); ok && err == nil {
			out = append(out, a)
		}
	}
	return out
}

// ReportName is the session report's file name in the session's directory.
const ReportName = "report.html"

// WriteFile writes session id's report to path (the session's
// ReportName when empty), replacing it atomically, and returns the path.
func WriteFile(st *state.Store, id, path string, opt HTMLOptions) (string, error) {
	s, err := LoadSession(st, id)
	if err != nil {
		return "", err
	}
	if path == "" {
		dir, err := st.SessionDir(id)
		if err != nil {
			return "", err
		}
		path = filepath.Join(dir, ReportName)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, s, opt); err != nil {
		return "", err
	}
	if err := renameio.WriteFile(path, b.Bytes(), 0o600); err != nil {
		return "", err
	}
	return path, nil
}
