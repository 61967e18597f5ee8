package report_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/internal/report"
	"github.com/djinn-cc/djinn/state"
)

// call is one turns.jsonl line of a test session.
type call struct {
	tool, summary string
	files         []string
	failed        bool
}

// rankSession writes the calls (numbered from 1) and one loop advisory per
// entry of loops, then ranks the session.
func rankSession(t *testing.T, calls []call, loops ...[]int) *report.Ranking {
	t.Helper()
	st, dir := newSession(t)
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for i, c := range calls {
		tr := state.Turn{SchemaVersion: state.SchemaVersion, Seq: i + 1, Time: at, Tool: c.tool, Summary: c.summary, Files: c.files, Failed: c.failed}
		if err := st.Append(filepath.Join(dir, "turns.jsonl"), state.KindTurn, tr); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range loops {
		a := state.Advisory{SchemaVersion: state.SchemaVersion, Time: at, Event: "PostToolUse", Kind: "read-loop", Severity: "soft", Text: "[djinn:read-loop] x", Seq: l[len(l)-1], Mode: "observe", Loop: l}
		if err := st.Append(filepath.Join(dir, "advisories.jsonl"), state.KindAdvisory, a); err != nil {
			t.Fatal(err)
		}
	}
	r, err := report.Rank(st, "s-1", 100, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func seqs(us []report.Utterance) []int {
	var out []int
	for _, u := range us {
		out = append(out, u.Seq)
	}
	return out
}

func TestRank(t *testing.T) {
	read := func(f string) call { return call{tool: "Read", summary: "Read " + f, files: []string{f}} }
	edit := func(f string) call { return call{tool: "Edit", summary: "Edit " + f, files: []string{f}} }
	bash := func(cmd string, failed bool) call { return call{tool: "Bash", summary: "Bash " + cmd, failed: failed} }
	for _, tc := range []struct {
		name   string
		calls  []call
		loops  [][]int
		top    []int
		latest []int
		// verified is the check run of each latest edit (0: none).
		verified []int
		looping  []int
		noise    []int
	}{
		{
			name:  "calls nothing builds on are not listed as load-bearing",
			calls: []call{bash("ls", false), bash("pwd", false)},
			noise: []int{1, 2},
		},
		{
			name:    "a failed edit is no file's latest content",
			calls:   []call{read("a.go"), {tool: "Edit", summary: "Edit a.go", files: []string{"a.go"}, failed: true}, read("a.go")},
			top:     []int{1},
			noise:   []int{2, 3},
			looping: nil,
		},
		{
			name:    "flagged re-reads are never load-bearing",
			calls:   []call{read("a.go"), read("a.go"), read("a.go"), edit("a.go")},
			loops:   [][]int{{1, 2, 3}},
			looping: []int{1, 2, 3},
			latest:  []int{4}, verified: []int{0},
		},
		{
			name:    "a file whose last write is flagged has no latest edit",
			calls:   []call{edit("a.go"), edit("a.go"), edit("a.go")},
			loops:   [][]int{{1, 3}},
			top:     nil,
			latest:  nil,
			looping: []int{1, 3},
			// #2 is no file's last edit, and nothing builds on it.
			noise: []int{2},
		},
		{
			name:     "the last edit and the passing run after it are not noise",
			calls:    []call{read("a.go"), edit("a.go"), bash("go test ./...", true), bash("go test ./...", false), bash("ls", false)},
			top:      []int{1},
			latest:   []int{2},
			verified: []int{4},
			noise:    []int{3, 5},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rankSession(t, tc.calls, tc.loops...)
			if got := seqs(r.Top); !slices.Equal(got, tc.top) {
				t.Errorf("top = %v, want %v", got, tc.top)
			}
			var latest, verified []int
			for _, l := range r.Latest {
				latest, verified = append(latest, l.Seq), append(verified, l.VerifiedBy)
			}
			if !slices.Equal(latest, tc.latest) || !slices.Equal(verified, tc.verified) {
				t.Errorf("latest = %v verified by %v, want %v verified by %v", latest, verified, tc.latest, tc.verified)
			}
			if got := seqs(r.Looping); !slices.Equal(got, tc.looping) {
				t.Errorf("looping = %v, want %v", got, tc.looping)
			}
			if !slices.Equal(r.Noise, tc.noise) || r.NoiseCount != len(tc.noise) {
				t.Errorf("noise = %v (%d), want %v", r.Noise, r.NoiseCount, tc.noise)
			}
			for _, u := range r.Top {
				if u.InLinks == 0 {
					t.Errorf("top holds call #%d, which nothing builds on", u.Seq)
				}
			}
		})
	}
}
