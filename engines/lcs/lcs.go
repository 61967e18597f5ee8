// Package lcs is Djinn's D1 engine: the longest common subsequence (LCS) of
// two token sequences, by the algorithm of Hunt and Szymanski, and the two
// scores built on it.
//
// Reference: J. W. Hunt and T. G. Szymanski, "A fast algorithm for computing
// longest common subsequences", Communications of the ACM 20(5):350–353, 1977.
// The algorithm keeps, for every length k, the smallest position in b at
// which a common subsequence of length k can end (the "threshold"); each
// matching pair (i, j) updates one threshold, found by binary search. It runs
// in O((r + n) log n) time for r matching pairs, and O(n) space for the
// length alone.
//
// Scores, for an anchor A and a current text C (both normalized):
//
//	Ratio    = 2·|LCS(A, C)| / (|A| + |C|)   symmetric, in [0, 1]
//	Coverage =   |LCS(A, C)| / |A|            the share of the anchor still present
//
// Ratio is the seed's "preservation ratio". It is symmetric, so a long tool
// payload that contains the whole anchor still scores low; Coverage does not
// have that defect, which is why callers get both (and Match says which
// anchor tokens were covered).
//
// Corrections to the seed (seeds/003, D1):
//
//   - The seed says Python's difflib.SequenceMatcher "implements
//     Hunt–Szymanski directly". It does not: difflib is Ratcliff/Obershelp
//     (longest contiguous block, then recurse on both sides), which is not an
//     LCS. For a = [x y x], b = [y y z x] difflib's ratio is 2/7, the LCS
//     ratio ([y x]) is 4/7. This package follows the math: a true LCS.
//   - The seed says the stopword list has 12 words; the original code drops
//     14 (a an the and or of to in on for with is are be). We use the 14.
//
// Edge cases, chosen and fixed here: Ratio of two empty sequences is 1 (they
// are identical); Coverage of an empty anchor is 1 (vacuously every anchor
// token is present; the original also returned 1 for an empty anchor).
// Anchors shorter than MinAnchorTokens make both scores noisy; the seed
// answers `insufficient data` for them, and that gate is the caller's.
package lcs

import (
	"strings"
	"unicode"
)

// MinAnchorTokens is the seed's floor: an anchor with fewer normalized tokens
// than this gives `insufficient data` rather than a score.
const MinAnchorTokens = 5

// Normalize lowercases text, splits it into \w+ words and drops the 14
// stopwords.
//
// A word character is a letter, a number (Nd, Nl, No), a combining mark or
// '_', in the spirit of Python 3's Unicode-aware \w. Two deliberate
// differences from CPython: combining marks count as word characters (CPython
// splits "cafe\u0301" into "cafe" and nothing), and lowercasing is Go's simple
// per-rune case mapping (CPython's full mapping turns "İ" into "i\u0307" and
// a final "Σ" into "ς"). Invalid UTF-8 bytes separate words.
func Normalize(text string) []string {
	lower := strings.ToLower(text)
	var toks []string
	start := -1
	for i, r := range lower {
		if isWord(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			toks = appendToken(toks, lower[start:i])
			start = -1
		}
	}
	if start >= 0 {
		toks = appendToken(toks, lower[start:])
	}
	return toks
}

func appendToken(toks []string, w string) []string {
	if isStopword(w) {
		return toks
	}
	return append(toks, w)
}

func isWord(r rune) bool {
	if r < 0x80 {
		return r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || ('A' <= r && r <= 'Z')
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// isStopword is a switch rather than a map so that the list cannot be
// mutated and costs no allocation.
func isStopword(w string) bool {
	switch w {
	case "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "is", "are", "be":
		return true
	}
	return false
}

// Length returns the length of a longest common subsequence of a and b.
func Length[T comparable](a, b []T) int {
	a, b, pre, suf := trim(a, b)
	if len(a) == 0 || len(b) == 0 {
		return pre + suf
	}
	ml := newMatchLists(a, b)
	thresh := make([]int, 0, min(len(a), len(b)))
	for i := range a {
		hi := len(thresh)
		for _, j := range ml.at(i) {
			k := gallopGE(thresh[:hi], j)
			if k == len(thresh) {
				thresh = append(thresh, j)
			} else {
				thresh[k] = j
			}
			// Positions come in decreasing order, so the next one lands at
			// or below k: this row cannot chain onto its own matches.
			hi = k + 1
		}
	}
	return pre + len(thresh) + suf
}

// Match returns one longest common subsequence of a and b as two ascending
// index lists of equal length: a[aIdx[t]] == b[bIdx[t]] for every t, and
// len(aIdx) == Length(a, b). With a the anchor, aIdx lists the anchor tokens
// that are covered.
//
// Match keeps one back-pointer per threshold change: about 5 per token on
// prose, but up to len(a)·|LCS| on long inputs made of a handful of distinct
// tokens (35 MB for 2,000 × 2,000 tokens over two symbols), so callers
// comparing long, repetitive texts should bound their length.
func Match[T comparable](a, b []T) (aIdx, bIdx []int) {
	a0, b0 := a, b
	a, b, pre, suf := trim(a, b)
	var midA, midB []int
	if len(a) > 0 && len(b) > 0 {
		midA, midB = matchCore(a, b)
	}
	n := pre + len(midA) + suf
	aIdx = make([]int, 0, n)
	bIdx = make([]int, 0, n)
	for t := range pre {
		aIdx = append(aIdx, t)
		bIdx = append(bIdx, t)
	}
	for t := range midA {
		aIdx = append(aIdx, pre+midA[t])
		bIdx = append(bIdx, pre+midB[t])
	}
	for t := range suf {
		aIdx = append(aIdx, len(a0)-suf+t)
		bIdx = append(bIdx, len(b0)-suf+t)
	}
	return aIdx, bIdx
}

// node is one threshold update: a common subsequence of length k ending at
// (i, j), continuing the node prev (-1 at length 1).
type node struct {
	i, j, prev int
}

func matchCore[T comparable](a, b []T) (aIdx, bIdx []int) {
	ml := newMatchLists(a, b)
	limit := min(len(a), len(b))
	thresh := make([]int, 0, limit)
	link := make([]int, 0, limit) // link[k]: node holding thresh[k]
	var nodes []node
	for i := range a {
		hi := len(thresh)
		lastK := -1
		for _, j := range ml.at(i) {
			k := gallopGE(thresh[:hi], j)
			hi = k + 1
			if k < len(thresh) && thresh[k] == j {
				continue
			}
			// link[k-1] was set by an earlier row: this row only touches
			// thresholds at larger positions before it reaches k-1.
			prev := -1
			if k > 0 {
				prev = link[k-1]
			}
			// A later, smaller j at the same k in the same row replaces the
			// node just made, which nothing references yet. This keeps the
			// node count near one per (row, length) instead of one per match.
			if k == lastK {
				nodes[len(nodes)-1].j = j
			} else {
				nodes = append(nodes, node{i: i, j: j, prev: prev})
				lastK = k
			}
			id := len(nodes) - 1
			if k == len(thresh) {
				thresh = append(thresh, j)
				link = append(link, id)
			} else {
				thresh[k] = j
				link[k] = id
			}
		}
	}
	if len(thresh) == 0 {
		return nil, nil
	}
	aIdx = make([]int, len(thresh))
	bIdx = make([]int, len(thresh))
	for t, id := len(thresh)-1, link[len(thresh)-1]; id >= 0; t, id = t-1, nodes[id].prev {
		aIdx[t], bIdx[t] = nodes[id].i, nodes[id].j
	}
	return aIdx, bIdx
}

// Alignment is the full D1 result for an anchor and a current text.
type Alignment struct {
	Length   int     // |LCS|
	Ratio    float64 // 2|LCS| / (|A| + |C|)
	Coverage float64 // |LCS| / |A|
	Covered  []int   // ascending indices of the anchor tokens in the LCS
}

// Align computes the LCS of anchor and current once and derives every score
// from it.
func Align[T comparable](anchor, current []T) Alignment {
	aIdx, _ := Match(anchor, current)
	n := len(aIdx)
	return Alignment{
		Length:   n,
		Ratio:    ratio(n, len(anchor), len(current)),
		Coverage: coverage(n, len(anchor)),
		Covered:  aIdx,
	}
}

// Ratio is 2·|LCS(a, c)| / (|a| + |c|); 1 when both are empty.
func Ratio[T comparable](a, c []T) float64 {
	return ratio(Length(a, c), len(a), len(c))
}

// Coverage is |LCS(anchor, c)| / |anchor|; 1 when the anchor is empty.
func Coverage[T comparable](anchor, c []T) float64 {
	return coverage(Length(anchor, c), len(anchor))
}

func ratio(lcs, la, lc int) float64 {
	if la+lc == 0 {
		return 1
	}
	return 2 * float64(lcs) / float64(la+lc)
}

func coverage(lcs, la int) float64 {
	if la == 0 {
		return 1
	}
	return float64(lcs) / float64(la)
}

// trim strips the common prefix and suffix, which belong to every LCS, so
// that near-identical texts cost almost nothing.
func trim[T comparable](a, b []T) (ta, tb []T, pre, suf int) {
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	a, b = a[pre:], b[pre:]
	for suf < len(a) && suf < len(b) && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return a[:len(a)-suf], b[:len(b)-suf], pre, suf
}

// matchLists holds, for every position i of a, the positions in b holding
// a[i], in decreasing order (Hunt and Szymanski's MATCHLIST). Tokens are
// interned to dense ids so that one flat slice serves all lists.
type matchLists struct {
	aID []int // id of a[i], -1 if a[i] is not in b
	off []int // positions of id x are pos[off[x]:off[x+1]]
	pos []int
}

func newMatchLists[T comparable](a, b []T) matchLists {
	ids := make(map[T]int, len(b))
	bID := make([]int, len(b))
	for j, t := range b {
		id, ok := ids[t]
		if !ok {
			id = len(ids)
			ids[t] = id
		}
		bID[j] = id
	}
	off := make([]int, len(ids)+1)
	for _, id := range bID {
		off[id+1]++
	}
	for x := 1; x < len(off); x++ {
		off[x] += off[x-1]
	}
	pos := make([]int, len(b))
	fill := make([]int, len(ids))
	copy(fill, off[1:])
	// Walking b forwards and filling each list from its end leaves every
	// list in decreasing order.
	for j, id := range bID {
		fill[id]--
		pos[fill[id]] = j
	}
	aID := make([]int, len(a))
	for i, t := range a {
		id, ok := ids[t]
		if !ok {
			id = -1
		}
		aID[i] = id
	}
	return matchLists{aID: aID, off: off, pos: pos}
}

func (m matchLists) at(i int) []int {
	id := m.aID[i]
	if id < 0 {
		return nil
	}
	return m.pos[m.off[id]:m.off[id+1]]
}

// searchGE returns the smallest k with s[k] >= x, or len(s); s is strictly
// increasing.
func searchGE(s []int, x int) int {
	lo, hi := 0, len(s)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if s[mid] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// gallopGE is searchGE for an answer expected near the end of s: it probes
// backwards in doubling steps, then binary-searches the last step. Within a
// row the answers move down slowly, so this costs O(log distance) instead of
// O(log len(s)).
func gallopGE(s []int, x int) int {
	hi := len(s)
	for step := 1; ; step <<= 1 {
		i := len(s) - step
		if i < 0 {
			return searchGE(s[:hi], x)
		}
		if s[i] < x {
			return i + 1 + searchGE(s[i+1:hi], x)
		}
		hi = i
	}
}
