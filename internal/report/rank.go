package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/djinn-cc/djinn/engines/loops"
	"github.com/djinn-cc/djinn/engines/pagerank"
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/state"
)

// Utterance is one ranked tool call.
type Utterance struct {
	Seq     int      `json:"seq"`
	Score   float64  `json:"score"`
	Tool    string   `json:"tool"`
	Agent   string   `json:"agent_id,omitempty"`
	Files   []string `json:"files"`
	Summary string   `json:"summary"`
	InLinks int      `json:"in_links"`
}

// Ranking is /djinn:rank's result: PageRank (D4) over the session's
// utterance graph, in which each tool call links to the most recent earlier
// call that produced the content of a file it touched, so later work builds
// on earlier work. Calls Djinn flagged as a loop take no part in the graph
// (nothing builds on a redundant re-read or a retried failure), and a failed
// call produced nothing later calls can build on.
type Ranking struct {
	Session    string `json:"session"`
	N          int    `json:"n"`
	Edges      int    `json:"edges"`
	Iterations int    `json:"iterations"`
	// Average is 1/N, the score of a call in a session where no call built
	// on another: what a score is measured against.
	Average float64 `json:"average"`
	// Top are the calls later calls build on, highest score first (at most
	// 10; fewer when fewer calls are built on).
	Top []Utterance `json:"top"`
	// Latest are the last edits of each file that nothing has built on yet:
	// where the files now stand, each with the passing test or build run
	// after it, if there was one.
	Latest []Latest `json:"latest"`
	// Looping are the calls Djinn flagged as a loop (advisories.jsonl):
	// never ranked load-bearing.
	Looping []Utterance `json:"looping"`
	// Noise are the other calls nothing links to; they share the lowest
	// rank, Floor. NoiseCount counts them all, Noise lists the latest.
	NoiseCount int     `json:"noise_count"`
	Noise      []int   `json:"noise"`
	Floor      float64 `json:"floor"`
	Truncated  bool    `json:"truncated"`
}

// Latest is a file's last edit and the check run that verified it.
type Latest struct {
	Utterance
	// VerifiedBy is the first passing test or build run after the edit (0:
	// none), VerifiedSummary what it ran.
	VerifiedBy      int    `json:"verified_by,omitempty"`
	VerifiedSummary string `json:"verified_summary,omitempty"`
}

// Rank ranks a session's tool calls from turns.jsonl: its last maxTurns
// calls at most, read from at most the file's last maxBytes.
func Rank(st *state.Store, id string, maxTurns int, maxBytes int64) (*Ranking, error) {
	dir, err := st.SessionDir(id)
	if err != nil {
		return nil, err
	}
	turns, stats, err := st.ReadLastTurns(dir+"/turns.jsonl", maxBytes, maxTurns)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("session %s: no state under %s", id, st.Root)
	}
	looping, err := loopCalls(st, dir)
	if err != nil {
		return nil, err
	}
	rep := &Ranking{Session: id, Truncated: stats.Truncated, Top: []Utterance{}, Latest: []Latest{}, Looping: []Utterance{}}
	if len(turns) > maxTurns {
		turns = turns[len(turns)-maxTurns:]
		rep.Truncated = true
	}
	rep.N = len(turns)
	if rep.N == 0 {
		return rep, nil
	}
	rep.Average = 1 / float64(rep.N)
	flagged := make([]bool, len(turns))
	for i, t := range turns {
		flagged[i] = looping[t.Seq]
	}
	calls := make([]pagerank.Call, len(turns))
	for i, t := range turns {
		calls[i] = pagerank.Call{Files: t.Files, Skip: flagged[i], Failed: t.Failed}
	}
	g := pagerank.BuildCallGraph(calls)
	res, err := pagerank.Rank(g, pagerank.Options{})
	if err != nil {
		return nil, err
	}
	rep.Edges, rep.Iterations = g.NumEdges(), res.Iterations
	in := g.InDegrees()
	utter := func(i int) Utterance {
		t := turns[i]
		return Utterance{Seq: t.Seq, Score: res.Ranks[i], Tool: t.Tool, Agent: t.AgentID, Files: t.Files, Summary: t.Summary, InLinks: in[i]}
	}
	for i := range turns {
		if flagged[i] {
			rep.Looping = append(rep.Looping, utter(i))
		}
	}
	for _, i := range pagerank.Top(res.Ranks, len(res.Ranks)) {
		if len(rep.Top) == 10 {
			break
		}
		if in[i] > 0 && !flagged[i] {
			rep.Top = append(rep.Top, utter(i))
		}
	}
	// The last edit of each file, and the first passing check run after
	// it. A file whose last edit is flagged (an edit-revert) is shown with
	// the loop.
	final := map[int]bool{}
	lastEdit := map[string]int{}
	for i, t := range turns {
		if !t.Failed && loops.KindOf(t.Tool) == loops.KindWrite {
			for _, f := range t.Files {
				lastEdit[f] = i
			}
		}
	}
	for _, i := range lastEdit {
		final[i] = !flagged[i]
	}
	verifier := map[int]bool{}
	for i := range turns {
		if !final[i] {
			continue
		}
		l := Latest{Utterance: utter(i)}
		for j := i + 1; j < len(turns); j++ {
			if t := turns[j]; !flagged[j] && checkRun(t) {
				l.VerifiedBy, l.VerifiedSummary = t.Seq, t.Summary
				verifier[j] = true
				break
			}
		}
		if in[i] == 0 {
			rep.Latest = append(rep.Latest, l)
		}
	}
	// Calls nothing links to share the lowest rank: the teleport share
	// (1−d)/N plus the dangling mass every node receives.
	for i := range turns {
		if in[i] > 0 {
			continue
		}
		rep.Floor = res.Ranks[i]
		if flagged[i] || final[i] || verifier[i] {
			continue
		}
		rep.NoiseCount++
		rep.Noise = append(rep.Noise, turns[i].Seq)
	}
	rep.Noise = rep.Noise[max(0, len(rep.Noise)-20):]
	return rep, nil
}

// checkRun reports whether a call is a shell command that passed and tests
// or builds the project.
func checkRun(t state.Turn) bool {
	if t.Failed || loops.KindOf(t.Tool) != loops.KindShell {
		return false
	}
	return isCheckRun(strings.TrimPrefix(t.Summary, t.Tool+" "))
}

// loopCalls are the calls the session's loop advisories name as their loop.
func loopCalls(st *state.Store, dir string) (map[int]bool, error) {
	out := map[int]bool{}
	_, err := st.ReadLines(filepath.Join(dir, "advisories.jsonl"), state.KindAdvisory, logMaxBytes, func(raw []byte) error {
		var a state.Advisory
		if json.Unmarshal(raw, &a) == nil {
			for _, n := range a.Loop {
				out[n] = true
			}
		}
		return nil
	})
	return out, err
}

// Write renders the report for people (and for the skill, verbatim).
func (r *Ranking) Write(w io.Writer) {
	fmt.Fprintf(w, "djinn rank: session %s, N=%d tool calls, %d links (PageRank d=0.85, %d iterations)\n", r.Session, r.N, r.Edges, r.Iterations)
	if r.N == 0 {
		fmt.Fprintln(w, "  no tool calls recorded yet")
		return
	}
	fmt.Fprintln(w, "score: how much of the later work rests on a call. Each call links to the earlier calls whose files it used, and")
	fmt.Fprintf(w, "  rank flows along the links: many later calls building on a call, directly or through others, score it high.\n  Scores add up to 1; with no links every call would score 1/N = %.4f.\n", r.Average)
	if r.N < 10 {
		fmt.Fprintf(w, "  note: only %d calls; with few calls the ranking is close to uniform\n", r.N)
	}
	if len(r.Top) == 0 {
		fmt.Fprintln(w, "load-bearing calls: none (no call was built on by a later one)")
	} else {
		fmt.Fprintln(w, "load-bearing calls (later calls build on them, most built upon first):")
	}
	for i, u := range r.Top {
		builds := fmt.Sprintf("%d later calls build on it", u.InLinks)
		if u.InLinks == 1 {
			builds = "1 later call builds on it"
		}
		fmt.Fprintf(w, "  %2d. %.4f  call #%d  %s  (%s)\n", i+1, u.Score, u.Seq, u.describe(), builds)
	}
	if len(r.Latest) > 0 {
		fmt.Fprintln(w, "latest edits (nothing builds on them yet: each is where its file now stands):")
		for _, l := range r.Latest[max(0, len(r.Latest)-10):] {
			check := "no passing test or build run after it"
			if l.VerifiedBy > 0 {
				check = fmt.Sprintf("verified by call #%d %s, which passed", l.VerifiedBy, advice.Clean(l.VerifiedSummary, 80))
			}
			fmt.Fprintf(w, "      call #%d  %s  (%s)\n", l.Seq, l.describe(), check)
		}
		if n := len(r.Latest) - 10; n > 0 {
			fmt.Fprintf(w, "      and %d earlier ones\n", n)
		}
	}
	if len(r.Looping) > 0 {
		fmt.Fprintf(w, "looping: %d calls Djinn flagged as a loop (djinn log), never ranked load-bearing:\n", len(r.Looping))
		for _, u := range r.Looping[max(0, len(r.Looping)-10):] {
			fmt.Fprintf(w, "      call #%d  %s\n", u.Seq, u.describe())
		}
		if n := len(r.Looping) - 10; n > 0 {
			fmt.Fprintf(w, "      and %d earlier ones\n", n)
		}
	}
	fmt.Fprintf(w, "noise: %d of %d calls are built on by nothing (they share the lowest rank, %.4f)", r.NoiseCount, r.N, r.Floor)
	if len(r.Noise) > 0 {
		fmt.Fprintf(w, "; latest: %s", callIDs(r.Noise))
	}
	fmt.Fprintln(w)
	if r.Truncated {
		fmt.Fprintln(w, "  (only the most recent calls were ranked)")
	}
}

// describe is a ranked call's summary, agent and files, for Write.
func (u Utterance) describe() string {
	who := ""
	if u.Agent != "" {
		who = " [subagent " + advice.Clean(u.Agent, 40) + "]"
	}
	q := make([]string, len(u.Files))
	for i, f := range u.Files {
		q[i] = advice.Clean(f, 200)
	}
	files := strings.Join(q, ", ")
	if files == "" {
		files = "-"
	}
	return advice.Clean(u.Summary, 100) + who + "  files: " + files
}
