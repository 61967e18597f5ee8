package pagerank

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// FuzzUtteranceRank feeds arbitrary file lists (one utterance a line,
// files separated by commas, as a transcript might yield them) through the
// builder, Rank, Noise and Top, and checks what the package promises.
func FuzzUtteranceRank(f *testing.F) {
	f.Add("a.go\na.go,b.go\nb.go\n\nc.go,a.go")
	f.Add("x,x,x\nx\n,\n")
	f.Add("")
	f.Add("README.md\nmain.go\nmain.go\nmain.go,go.mod\ngo.mod")
	f.Fuzz(func(t *testing.T, session string) {
		var files [][]string
		if session != "" {
			for _, line := range strings.Split(session, "\n") {
				files = append(files, strings.Split(line, ","))
			}
		}
		g := BuildUtteranceGraph(files)
		n := g.Len()
		if n != len(files) {
			t.Fatalf("%d nodes for %d utterances", n, len(files))
		}
		touches := 0
		for i := range n {
			touches += len(files[i])
			out := g.Out(i)
			if !slices.IsSorted(out) || len(slices.Compact(slices.Clone(out))) != len(out) {
				t.Fatalf("out-list of %d = %v", i, out)
			}
			for _, j := range out {
				if j >= i {
					t.Fatalf("edge %d→%d does not point back", i, j)
				}
			}
		}
		if g.NumEdges() > touches {
			t.Fatalf("%d edges from %d file touches", g.NumEdges(), touches)
		}
		res, err := Rank(g, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if !res.Converged || res.Iterations > DefaultMaxIter {
			t.Fatalf("not converged: %+v", res)
		}
		sum := 0.0
		floor := (1 - DefaultDamping) / float64(n)
		for _, r := range res.Ranks {
			if math.IsNaN(r) || r < floor*(1-1e-12) {
				t.Fatalf("rank %v below the floor %v", r, floor)
			}
			sum += r
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("ranks sum to %v", sum)
		}
		low := slices.Min(res.Ranks)
		for _, j := range Noise(g) {
			if res.Ranks[j] != low {
				t.Fatalf("noise node %d at %v, lowest %v", j, res.Ranks[j], low)
			}
		}
		top := Top(res.Ranks, 10)
		for k := 1; k < len(top); k++ {
			a, b := res.Ranks[top[k-1]], res.Ranks[top[k]]
			if a < b || (a == b && top[k-1] > top[k]) {
				t.Fatalf("Top out of order: %v", top)
			}
		}
	})
}

// FuzzCallGraph: a session of calls (one a line, files separated by
// commas; a line starting with "!" is skipped, with "?" failed) gives an
// acyclic graph with at most one edge per file touch, skipped calls
// isolated and no edge into a failed call.
func FuzzCallGraph(f *testing.F) {
	f.Add("a.go\n!a.go\n!a.go\na.go,b.go\n?b.go\nb.go")
	f.Add("?x\n!x\nx")
	f.Fuzz(func(t *testing.T, session string) {
		var calls []Call
		if session != "" {
			for _, line := range strings.Split(session, "\n") {
				var c Call
				switch {
				case strings.HasPrefix(line, "!"):
					c.Skip, line = true, line[1:]
				case strings.HasPrefix(line, "?"):
					c.Failed, line = true, line[1:]
				}
				c.Files = strings.Split(line, ",")
				calls = append(calls, c)
			}
		}
		g := BuildCallGraph(calls)
		if g.Len() != len(calls) {
			t.Fatalf("%d nodes for %d calls", g.Len(), len(calls))
		}
		in := g.InDegrees()
		touches := 0
		for i, c := range calls {
			touches += len(c.Files)
			out := g.Out(i)
			if c.Skip && (len(out) > 0 || in[i] > 0) {
				t.Fatalf("skipped call %d has edges: out %v, in %d", i, out, in[i])
			}
			if c.Failed && in[i] > 0 {
				t.Fatalf("failed call %d has %d in-links", i, in[i])
			}
			for _, j := range out {
				if j >= i {
					t.Fatalf("edge %d→%d does not point back", i, j)
				}
			}
		}
		if g.NumEdges() > touches {
			t.Fatalf("%d edges from %d file touches", g.NumEdges(), touches)
		}
		if _, err := Rank(g, Options{}); err != nil {
			t.Fatal(err)
		}
	})
}
