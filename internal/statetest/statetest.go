// Package statetest reads a state root the way the crash and kill tests of
// several packages check it: how many learnings.jsonl lines each session
// has, and how many sessions posteriors.json counts.
package statetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/djinn-cc/djinn/state"
)

// LearningLines counts learnings.jsonl's lines per session; a line that
// does not decode (a torn one) is not counted, nor is a missing file.
func LearningLines(tb testing.TB, root string) map[string]int {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "learnings.jsonl"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		tb.Fatal(err)
	}
	n := map[string]int{}
	for _, l := range bytes.Split(raw, []byte("\n")) {
		var x state.Learning
		if json.Unmarshal(l, &x) == nil && x.SessionID != "" {
			n[x.SessionID]++
		}
	}
	return n
}

// PosteriorSessions sums the sessions posteriors.json counts (0 without
// the file).
func PosteriorSessions(tb testing.TB, root string) int {
	tb.Helper()
	var ps state.Posteriors
	st := &state.Store{Root: root}
	found, err := st.Peek(filepath.Join(root, "posteriors.json"), state.KindPosteriors, &ps)
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	if found {
		for _, e := range ps.Entries {
			n += e.N
		}
	}
	return n
}

// Learnings reads learnings.jsonl under root: its text, and each of its
// lines decoded (a line that does not decode fails the test).
func Learnings(tb testing.TB, root string) (raw []byte, ls []state.Learning) {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "learnings.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	for _, l := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var x state.Learning
		if err := json.Unmarshal(l, &x); err != nil {
			tb.Fatalf("learnings.jsonl: %v: %s", err, l)
		}
		ls = append(ls, x)
	}
	return raw, ls
}
