package compress

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/internal/thousands"
)

// Kind names a kind of cut.
type Kind string

// The kinds of cut, in the order the rules run.
const (
	KindDataURI  Kind = "data_uri"  // a data:…;base64, URI
	KindBase64   Kind = "base64"    // a bare base64 run
	KindScript   Kind = "script"    // an HTML <script> block
	KindStyle    Kind = "style"     // an HTML <style> block
	KindSnapshot Kind = "snapshot"  // the middle of a page snapshot
	KindTruncate Kind = "truncated" // the end of an output over the cap
)

// Cut totals the cuts of one kind.
type Cut struct {
	Kind  Kind `json:"kind"`
	Count int  `json:"count"` // how many places were cut
	Chars int  `json:"chars"` // characters removed, markers not subtracted
}

// Report says what Compress did.
type Report struct {
	Changed bool  `json:"changed"`
	Before  int   `json:"before"` // characters in
	After   int   `json:"after"`  // characters out, markers included
	Cuts    []Cut `json:"cuts,omitempty"`
	// Fields lists the changed string fields, as paths like
	// "$.content[0].text"; only CompressToolResponse sets it.
	Fields []string `json:"fields,omitempty"`
}

// CutChars is the number of characters removed, over all kinds.
func (r Report) CutChars() int {
	n := 0
	for _, c := range r.Cuts {
		n += c.Chars
	}
	return n
}

// String is a one-line account of the cuts, for logs and advisories, such
// as "250,000 → 199,924 characters: truncated 50,076".
func (r Report) String() string {
	if !r.Changed {
		return "unchanged"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s → %s characters", thousands.Group(r.Before), thousands.Group(r.After))
	for i, c := range r.Cuts {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", c.Kind, thousands.Group(c.Chars))
		if c.Count > 1 {
			fmt.Fprintf(&b, " in %d places", c.Count)
		}
	}
	return b.String()
}

func (r *Report) add(k Kind, chars int) {
	for i := range r.Cuts {
		if r.Cuts[i].Kind == k {
			r.Cuts[i].Count++
			r.Cuts[i].Chars += chars
			return
		}
	}
	r.Cuts = append(r.Cuts, Cut{Kind: k, Count: 1, Chars: chars})
}

func (r *Report) merge(o Report) {
	for _, c := range o.Cuts {
		found := false
		for i := range r.Cuts {
			if r.Cuts[i].Kind == c.Kind {
				r.Cuts[i].Count += c.Count
				r.Cuts[i].Chars += c.Chars
				found = true
				break
			}
		}
		if !found {
			r.Cuts = append(r.Cuts, c)
		}
	}
}

// Compress shortens text if it is oversized (see the package comment) and
// returns it with a report. Text that is not oversized comes back unchanged.
// Invalid settings in cfg are replaced by their defaults (a cap below MinCap
// by MinCap).
//
// When the input is over the cap, the output has at most cfg.Cap characters.
// The output is valid UTF-8 when the input is, and compressing it again
// returns it unchanged.
func Compress(text string, cfg Config) (string, Report) {
	cfg = cfg.sanitized()
	return compress(text, cfg, cfg.Cap)
}

// compress is Compress with the cap given separately, so that
// CompressToolResponse can share one cap among several fields; limit may be
// below MinCap, and when it is shorter than a marker the output is that
// marker.
func compress(text string, cfg Config, limit int) (string, Report) {
	n := utf8.RuneCountInString(text)
	rep := Report{Before: n, After: n}
	if n <= limit && n <= cfg.SnapshotThreshold {
		return text, rep
	}
	// Text over the limit is cleaned whatever it is; only text under it
	// needs the snapshot test to know whether to go on.
	if n <= limit && !isSnapshot(text) {
		return text, rep
	}
	out := clean(text, cfg, &rep)
	m := n
	if len(rep.Cuts) > 0 {
		m = utf8.RuneCountInString(out)
	}
	if m > cfg.SnapshotThreshold && isSnapshot(out) {
		if s, ok := headTail(out, m, cfg, limit, &rep); ok {
			out = s
			m = utf8.RuneCountInString(out)
		}
	}
	if m > limit {
		out = truncate(out, m, limit, &rep)
		m = utf8.RuneCountInString(out)
	}
	rep.After = m
	rep.Changed = len(rep.Cuts) > 0
	return out, rep
}

func markerDataURI(chars int, mime string) string {
	return "[djinn: cut " + thousands.Group(chars) + " characters of base64 " + mime + " data]"
}

func markerBase64(chars int) string {
	return "[djinn: cut " + thousands.Group(chars) + " characters of base64 data]"
}

func markerBlock(chars int, k Kind) string {
	return "[djinn: cut " + thousands.Group(chars) + " characters of an HTML " + string(k) + " block]"
}

func markerSnapshotHeader(total int) string {
	return "[djinn: page snapshot of " + thousands.Group(total) + " characters shortened to its head and tail]"
}

func markerSnapshotMiddle(chars int) string {
	return "[djinn: cut " + thousands.Group(chars) + " characters from the middle of the page snapshot]"
}

func markerTruncate(chars, limit int) string {
	return "[djinn: cut " + thousands.Group(chars) + " characters at the end (over the " + thousands.Group(limit) + "-character cap)]"
}
