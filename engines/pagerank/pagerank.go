// Package pagerank ranks a session's utterances by how much later work
// built on them: engine D4 of seed 003.
//
// Algorithm: PageRank by sparse power iteration, from S. Brin and L. Page,
// "The anatomy of a large-scale hypertextual Web search engine", Computer
// Networks and ISDN Systems 30(1–7):107–117 (WWW7, 1998):
//
//	PR(p) = (1−d)/N + d·( Σ_{q→p} PR(q)/L(q) + D/N )
//
// with damping d = 0.85, L(q) the out-degree of q and D the total rank of
// the dangling nodes (no out-edges), spread uniformly over all nodes, as in
// the original Djinn. Iteration starts from the uniform vector and stops
// when the L1 change of one step falls below ε = 1e-6, or after 100 steps.
// Since the iteration is a contraction with factor d in L1, stopping at a
// step change below ε leaves the result within d/(1−d)·ε (≈ 5.7e-6 in L1)
// of the exact solution; the ranks are renormalised to sum to 1.
//
// The original had no graph: its /rank skill described edges between
// utterances that touched the same file, which nothing built.
// [BuildUtteranceGraph] builds one: each utterance links to the most recent
// earlier utterance that touched each of its files (later builds on
// earlier), so the graph has at most Σ|files| edges, grows linearly with
// the session, and is acyclic. Rank flows from later utterances to the
// ones they built on; the oldest utterance of a long chain of work on a
// file ranks highest. The seed's "every pair sharing a file" would be
// quadratic and symmetric, which gives rank for being in a busy file rather
// than for being built on. [BuildCallGraph] is the same graph over calls
// that may be skipped (a repeat flagged as a loop: isolated, later calls
// link past it) or have failed (it produced nothing: it links back, but
// nothing links to it).
//
// The seed calls the bottom utterances, "below (1−d)/N", conversational
// noise. That set is empty by construction: every node gets at least the
// teleport share (1−d)/N. Here noise is [Noise]: the utterances nothing
// links to. They all share the lowest rank, (1−d)/N + d·D/N, and every
// other node ranks strictly above it.
package pagerank

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Seed defaults.
const (
	DefaultDamping = 0.85
	DefaultEpsilon = 1e-6
	DefaultMaxIter = 100
)

// Graph is a directed graph over the node ids 0..Len()-1, stored as
// compressed sparse rows. Each node's out-list is sorted and free of
// duplicates. A Graph is immutable; the zero value is the empty graph.
type Graph struct {
	off []int // out-list of node i is dst[off[i]:off[i+1]]
	dst []int
}

// Edge is a directed edge From → To.
type Edge struct{ From, To int }

var errNegative = errors.New("negative node id")

// NewGraph returns the graph with nodes 0..n-1 and the given edges,
// duplicates dropped. Nodes that appear in an edge but not below n
// (destination-only nodes included) are added: the graph has
// max(n, largest id + 1) nodes.
func NewGraph(n int, edges []Edge) (Graph, error) {
	if n < 0 {
		return Graph{}, fmt.Errorf("pagerank: graph of %d nodes: %w", n, errNegative)
	}
	for _, e := range edges {
		if e.From < 0 || e.To < 0 {
			return Graph{}, fmt.Errorf("pagerank: edge %d→%d: %w", e.From, e.To, errNegative)
		}
		n = max(n, e.From+1, e.To+1)
	}
	off := make([]int, n+1)
	for _, e := range edges {
		off[e.From+1]++
	}
	for i := range n {
		off[i+1] += off[i]
	}
	dst := make([]int, len(edges))
	next := slices.Clone(off[:n])
	for _, e := range edges {
		dst[next[e.From]] = e.To
		next[e.From]++
	}
	// Sort and deduplicate each out-list, compacting in place.
	w := 0
	for i := range n {
		list := dst[off[i]:off[i+1]]
		slices.Sort(list)
		list = slices.Compact(list)
		off[i] = w
		w += copy(dst[w:], list)
	}
	off[n] = w
	return Graph{off: off, dst: dst[:w:w]}, nil
}

// Len returns the number of nodes.
func (g Graph) Len() int {
	if len(g.off) == 0 {
		return 0
	}
	return len(g.off) - 1
}

// NumEdges returns the number of distinct edges.
func (g Graph) NumEdges() int { return len(g.dst) }

// Out returns node i's successors in increasing order. The slice belongs to
// the graph: do not modify it.
func (g Graph) Out(i int) []int { return g.dst[g.off[i]:g.off[i+1]:g.off[i+1]] }

// InDegrees returns the number of edges into each node.
func (g Graph) InDegrees() []int {
	in := make([]int, g.Len())
	for _, j := range g.dst {
		in[j]++
	}
	return in
}

// Options tunes [Rank]. Zero fields take the seed's defaults, so d = 0 and
// an iteration cap of 0 cannot be asked for (neither ranks anything).
type Options struct {
	Damping float64 // d, in (0, 1); 0 means DefaultDamping
	Epsilon float64 // L1 change at which iteration stops; 0 means DefaultEpsilon
	MaxIter int     // iteration cap; 0 means DefaultMaxIter
}

// Result is the outcome of [Rank].
type Result struct {
	Ranks      []float64 // Ranks[i] is node i's PageRank; they sum to 1
	Iterations int       // power-iteration steps taken
	Converged  bool      // the last step changed the ranks by less than ε in L1
}

// Rank computes the PageRank of every node of g.
func Rank(g Graph, opts Options) (Result, error) {
	d, eps, maxIter := opts.Damping, opts.Epsilon, opts.MaxIter
	if d == 0 {
		d = DefaultDamping
	}
	if eps == 0 {
		eps = DefaultEpsilon
	}
	if maxIter == 0 {
		maxIter = DefaultMaxIter
	}
	if !(d > 0 && d < 1) {
		return Result{}, fmt.Errorf("pagerank: damping %v not in (0, 1)", d)
	}
	if !(eps > 0) || math.IsInf(eps, 1) {
		return Result{}, fmt.Errorf("pagerank: epsilon %v must be positive and finite", eps)
	}
	if maxIter < 0 {
		return Result{}, fmt.Errorf("pagerank: iteration cap %d is negative", maxIter)
	}
	n := g.Len()
	if n == 0 {
		return Result{Ranks: []float64{}, Converged: true}, nil
	}
	if n > math.MaxInt32 {
		return Result{}, fmt.Errorf("pagerank: %d nodes is more than this implementation indexes", n)
	}

	// Pull form: node j sums over its in-list, so writes are sequential and
	// each iteration reads the share vector once.
	inOff := make([]int, n+1)
	for _, j := range g.dst {
		inOff[j+1]++
	}
	for j := range n {
		inOff[j+1] += inOff[j]
	}
	inSrc := make([]int32, len(g.dst))
	next := slices.Clone(inOff[:n])
	for i := range n {
		for _, j := range g.Out(i) {
			inSrc[next[j]] = int32(i)
			next[j]++
		}
	}
	invOut := make([]float64, n) // 1/L(i), 0 for dangling nodes
	for i := range n {
		if deg := g.off[i+1] - g.off[i]; deg > 0 {
			invOut[i] = 1 / float64(deg)
		}
	}

	x := make([]float64, n)
	nx := make([]float64, n)
	share := make([]float64, n)
	for i := range x {
		x[i] = 1 / float64(n)
	}
	res := Result{}
	for res.Iterations < maxIter {
		res.Iterations++
		dangling := 0.0
		for i, r := range x {
			if invOut[i] == 0 {
				dangling += r
			}
			share[i] = r * invOut[i]
		}
		base := (1-d)/float64(n) + d*dangling/float64(n)
		delta := 0.0
		for j := range n {
			s := 0.0
			for _, i := range inSrc[inOff[j]:inOff[j+1]] {
				s += share[i]
			}
			v := base + d*s
			delta += math.Abs(v - x[j])
			nx[j] = v
		}
		x, nx = nx, x
		if delta < eps {
			res.Converged = true
			break
		}
	}
	sum := 0.0
	for _, r := range x {
		sum += r
	}
	for i := range x {
		x[i] /= sum
	}
	res.Ranks = x
	return res, nil
}

// BuildUtteranceGraph builds the utterance graph: node i is utterance i,
// and it gets an edge to the most recent earlier utterance that touched
// each of its files (files[i]; empty names are ignored). Every edge points
// to an earlier node, so the graph is acyclic, and it has at most
// Σ_i |files[i]| edges.
func BuildUtteranceGraph(files [][]string) Graph {
	calls := make([]Call, len(files))
	for i, fs := range files {
		calls[i].Files = fs
	}
	return BuildCallGraph(calls)
}

// Call is one utterance as [BuildCallGraph] sees it.
type Call struct {
	// Files are the files the call touched ("" is ignored).
	Files []string
	// Skip leaves the call out of the graph: no edge to or from it, and
	// later calls link past it (a redundant repeat, such as a re-read of
	// an unchanged file).
	Skip bool
	// Failed marks a call that produced nothing: it links to the calls it
	// used, but later calls link past it to the last call that did.
	Failed bool
}

// BuildCallGraph is [BuildUtteranceGraph] over calls that may be skipped or
// have failed: each call that is not skipped gets an edge to the most
// recent earlier call, neither skipped nor failed, that touched each of its
// files. The graph stays acyclic with at most Σ_i |calls[i].Files| edges; a
// skipped call is an isolated node, and nothing links to a failed one.
func BuildCallGraph(calls []Call) Graph {
	n := len(calls)
	off := make([]int, n+1)
	var dst []int
	last := make(map[string]int)
	var targets []int
	for i, c := range calls {
		off[i+1] = len(dst)
		if c.Skip {
			continue
		}
		targets = targets[:0]
		for _, f := range c.Files {
			if j, ok := last[f]; ok && f != "" {
				targets = append(targets, j)
			}
		}
		slices.Sort(targets)
		dst = append(dst, slices.Compact(targets)...)
		off[i+1] = len(dst)
		if c.Failed {
			continue
		}
		// Only after all of i's files: a file listed twice must not make i
		// link to itself.
		for _, f := range c.Files {
			if f != "" {
				last[f] = i
			}
		}
	}
	return Graph{off: off, dst: dst}
}

// Noise returns, in increasing order, the nodes nothing links to: the
// utterances no later work built on. They share the lowest rank (see the
// package doc).
func Noise(g Graph) []int {
	var out []int
	for j, d := range g.InDegrees() {
		if d == 0 {
			out = append(out, j)
		}
	}
	return out
}

// Top returns the indices of the n highest ranks, highest first, ties
// broken by the lower index. n is clamped to [0, len(ranks)]; ranks must not
// hold NaN.
func Top(ranks []float64, n int) []int {
	n = max(0, min(n, len(ranks)))
	idx := make([]int, len(ranks))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case ranks[a] > ranks[b]:
			return -1
		case ranks[a] < ranks[b]:
			return 1
		}
		return a - b
	})
	return idx[:n:n]
}
