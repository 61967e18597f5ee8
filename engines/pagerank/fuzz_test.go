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
