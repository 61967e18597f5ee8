package hooks

import (
	"github.com/djinn-cc/djinn/engines/pagerank"
)

// topCalls ranks the session's last maxTurns tool calls (read from at most
// turns.jsonl's last maxBytes) by PageRank over the files they touched, as
// /djinn:rank does, and returns the files of the top n, best first. A log
// it cannot read gives none.
func (s *session) topCalls(maxTurns int, maxBytes int64, n int) [][]string {
	turns, _, err := s.env.Store.ReadLastTurns(s.path("turns.jsonl"), maxBytes, maxTurns)
	if err != nil {
		return nil
	}
	turns = turns[max(0, len(turns)-maxTurns):]
	files := make([][]string, len(turns))
	for i, t := range turns {
		files[i] = t.Files
	}
	res, err := pagerank.Rank(pagerank.BuildUtteranceGraph(files), pagerank.Options{})
	if err != nil {
		return nil
	}
	var out [][]string
	for _, i := range pagerank.Top(res.Ranks, n) {
		out = append(out, files[i])
	}
	return out
}
