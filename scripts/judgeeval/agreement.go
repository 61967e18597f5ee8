package main

import (
	"fmt"
	"io"
	"sort"
)

// Agreement is how far two judges' labels of the same advisories agree:
// percent agreement and Cohen's kappa (agreement beyond what the judges'
// own label frequencies would give by chance).
type Agreement struct {
	N, Agree int
	Kappa    float64
	// Differ lists the advisories the judges labelled differently.
	Differ []string
}

// labelKey names one advisory across judges' files.
type labelKey struct {
	s, k, prefix string
	c            int
}

// labelAgreement compares the labels of the advisories both a and b
// labelled, matched by session, kind, tool call and text prefix.
func labelAgreement(a, b []Label) Agreement {
	byKey := map[labelKey]string{}
	for _, l := range a {
		byKey[labelKey{l.Session, l.Kind, l.TextPrefix, l.ToolCall}] = l.Label
	}
	var ag Agreement
	countA, countB := map[string]int{}, map[string]int{}
	for _, l := range b {
		la, ok := byKey[labelKey{l.Session, l.Kind, l.TextPrefix, l.ToolCall}]
		if !ok {
			continue
		}
		ag.N++
		countA[la]++
		countB[l.Label]++
		if la == l.Label {
			ag.Agree++
		} else {
			ag.Differ = append(ag.Differ, fmt.Sprintf("%s %s #%d: %s / %s", l.Session, l.Kind, l.ToolCall, la, l.Label))
		}
	}
	ag.Kappa = kappa(ag.N, ag.Agree, countA, countB)
	return ag
}

// kappa is Cohen's kappa, (po - pe) / (1 - pe), for n items of which agree
// got the same label, with each judge's count per label. When chance
// agreement is already total (both judges used one and the same label
// throughout) kappa is 1 if they agree on everything.
func kappa(n, agree int, countA, countB map[string]int) float64 {
	if n == 0 {
		return 0
	}
	po := float64(agree) / float64(n)
	var pe float64
	for lab, ca := range countA {
		pe += float64(ca) / float64(n) * float64(countB[lab]) / float64(n)
	}
	if pe >= 1 {
		if po == 1 {
			return 1
		}
		return 0
	}
	return (po - pe) / (1 - pe)
}

// MissAgreement counts the moments both judges marked (same session,
// overlapping call ranges, compatible kind) and those only one marked.
type MissAgreement struct {
	Both, OnlyA, OnlyB int
}

// missAgreement matches each of a's misses with at most one of b's.
func missAgreement(a, b []Miss) MissAgreement {
	used := make([]bool, len(b))
	var ma MissAgreement
	for _, x := range a {
		found := false
		for i, y := range b {
			if used[i] || x.Session != y.Session || !(kindsMatch(x.Kind, y.Kind) || kindsMatch(y.Kind, x.Kind)) {
				continue
			}
			if x.StartCall <= y.EvidentCall && y.StartCall <= x.EvidentCall {
				used[i], found = true, true
				break
			}
		}
		if found {
			ma.Both++
		} else {
			ma.OnlyA++
		}
	}
	for _, u := range used {
		if !u {
			ma.OnlyB++
		}
	}
	return ma
}

// renderAgreement writes the agreement of each pair of judges who labelled
// the same sessions independently (judgePairs), when both labelled.
func renderAgreement(w io.Writer, labels []Label, misses []Miss) {
	for _, p := range judgePairs {
		renderPair(w, labels, misses, p[0], p[1])
	}
}

// byJudge keeps the labels and the misses of judge j.
func byJudge(labels []Label, misses []Miss, j string) ([]Label, []Miss) {
	var ls []Label
	var ms []Miss
	for _, l := range labels {
		if l.Judge == j {
			ls = append(ls, l)
		}
	}
	for _, m := range misses {
		if m.Judge == j {
			ms = append(ms, m)
		}
	}
	return ls, ms
}

func renderPair(w io.Writer, labels []Label, misses []Miss, ja, jb string) {
	la, ma := byJudge(labels, misses, ja)
	lb, mb := byJudge(labels, misses, jb)
	if len(la)+len(ma) == 0 || len(lb)+len(mb) == 0 {
		return
	}
	ag := labelAgreement(la, lb)
	mg := missAgreement(ma, mb)
	fmt.Fprintf(w, "## Agreement between judges %s and %s\n\n", ja, jb)
	if ag.N > 0 {
		fmt.Fprintf(w, "- Advisory labels: both labelled %d; agreed on %d (%.0f %%); Cohen's kappa %.2f.\n", ag.N, ag.Agree, 100*float64(ag.Agree)/float64(ag.N), ag.Kappa)
	}
	sort.Strings(ag.Differ)
	for _, d := range ag.Differ {
		fmt.Fprintf(w, "  - differ: %s\n", d)
	}
	fmt.Fprintf(w, "- Misses: %d marked by both, %d by %s only, %d by %s only (matched by session, overlapping calls and compatible kind).\n", mg.Both, mg.OnlyA, ja, mg.OnlyB, jb)
	fmt.Fprintf(w, "- Each disagreement was settled by reading the transcript again; the settled labels and misses are `labels-settled.jsonl` and `misses-settled.jsonl`.\n\n")
}
