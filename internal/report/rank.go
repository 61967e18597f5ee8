package report

import (
	"fmt"
	"io"
	"os"
	"strings"

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
// call that touched the same file, so later work builds on earlier work.
type Ranking struct {
	Session    string      `json:"session"`
	N          int         `json:"n"`
	Edges      int         `json:"edges"`
	Iterations int         `json:"iterations"`
	Top        []Utterance `json:"top"`
	// Noise are the calls nothing links to; they share the lowest rank,
	// Floor. NoiseCount counts them all, Noise lists the latest.
	NoiseCount int     `json:"noise_count"`
	Noise      []int   `json:"noise"`
	Floor      float64 `json:"floor"`
	Truncated  bool    `json:"truncated"`
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
	rep := &Ranking{Session: id, Truncated: stats.Truncated}
	if len(turns) > maxTurns {
		turns = turns[len(turns)-maxTurns:]
		rep.Truncated = true
	}
	rep.N = len(turns)
	if rep.N == 0 {
		return rep, nil
	}
	files := make([][]string, len(turns))
	for i, t := range turns {
		files[i] = t.Files
	}
	g := pagerank.BuildUtteranceGraph(files)
	res, err := pagerank.Rank(g, pagerank.Options{})
	if err != nil {
		return nil, err
	}
	rep.Edges, rep.Iterations = g.NumEdges(), res.Iterations
	in := g.InDegrees()
	for _, i := range pagerank.Top(res.Ranks, 10) {
		t := turns[i]
		rep.Top = append(rep.Top, Utterance{Seq: t.Seq, Score: res.Ranks[i], Tool: t.Tool, Agent: t.AgentID, Files: t.Files, Summary: t.Summary, InLinks: in[i]})
	}
	noise := pagerank.Noise(g)
	rep.NoiseCount = len(noise)
	// Calls nothing links to share the lowest rank: the teleport share
	// (1−d)/N plus the dangling mass every node receives.
	if len(noise) > 0 {
		rep.Floor = res.Ranks[noise[0]]
	}
	for _, i := range noise[max(0, len(noise)-20):] {
		rep.Noise = append(rep.Noise, turns[i].Seq)
	}
	return rep, nil
}

// Write renders the report for people (and for the skill, verbatim).
func (r *Ranking) Write(w io.Writer) {
	fmt.Fprintf(w, "djinn rank: session %s, N=%d tool calls, %d links (PageRank d=0.85, %d iterations)\n", r.Session, r.N, r.Edges, r.Iterations)
	if r.N == 0 {
		fmt.Fprintln(w, "  no tool calls recorded yet")
		return
	}
	if r.N < 10 {
		fmt.Fprintf(w, "  note: only %d calls; with few calls the ranking is close to uniform\n", r.N)
	}
	fmt.Fprintln(w, "load-bearing calls (most built upon):")
	for i, u := range r.Top {
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
		builds := fmt.Sprintf("%d later calls build on it", u.InLinks)
		if u.InLinks == 1 {
			builds = "1 later call builds on it"
		}
		fmt.Fprintf(w, "  %2d. %.4f  call #%d  %s%s  files: %s  (%s)\n", i+1, u.Score, u.Seq, advice.Clean(u.Summary, 100), who, files, builds)
	}
	ids := make([]string, len(r.Noise))
	for i, n := range r.Noise {
		ids[i] = fmt.Sprintf("#%d", n)
	}
	fmt.Fprintf(w, "noise: %d of %d calls are built on by nothing (they share the lowest rank, %.4f)", r.NoiseCount, r.N, r.Floor)
	if len(ids) > 0 {
		fmt.Fprintf(w, "; latest: %s", strings.Join(ids, " "))
	}
	fmt.Fprintln(w)
	if r.Truncated {
		fmt.Fprintln(w, "  (only the most recent calls were ranked)")
	}
}
