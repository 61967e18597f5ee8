package stall

import (
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

// chantCase is a synthetic stall: natural prose, then a unit repeated to the
// end of the message (as a model stuck until max tokens), sometimes followed
// by more prose.
type chantCase struct {
	period    int    // runes in the unit
	style     string // how the unit was built
	placement string // "start", "mid-sentence" or "after-paragraph"
	unit      string
	text      string
	start     int // byte offset at which the chant begins
}

// lagLimit is the bound on detection lag: 5 periods or 256
// characters, whichever is longer.
func lagLimit(period int) int { return max(5*period, 256) }

// proseSource supplies natural paragraphs and words for synthetic chants.
type proseSource struct {
	paragraphs []string // prose-only paragraphs, 80..1500 bytes
	words      []string // alphabetic words, letters only
}

// newProseSource collects prose paragraphs (every line classified prose, no
// backtick) and their words from natural texts.
func newProseSource(texts []string) *proseSource {
	ps := &proseSource{}
	seen := map[string]bool{}
	for _, t := range texts {
		for _, p := range strings.Split(t, "\n\n") {
			p = strings.TrimSpace(p)
			if len(p) < 80 || len(p) > 1500 || strings.ContainsAny(p, "`|<>#*[]") {
				continue
			}
			var md markdown
			prose := true
			for _, l := range strings.Split(p, "\n") {
				if md.classify(l, "") != lineProse {
					prose = false
					break
				}
			}
			if !prose {
				continue
			}
			ps.paragraphs = append(ps.paragraphs, p)
			for _, w := range strings.Fields(p) {
				w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
				ok := w != "" && utf8.RuneCountInString(w) <= 12
				for _, r := range w {
					ok = ok && unicode.IsLetter(r)
				}
				if ok && !seen[w] {
					seen[w] = true
					ps.words = append(ps.words, w)
				}
			}
		}
	}
	return ps
}

// cutRunes returns the first n runes of s.
func cutRunes(s string, n int) string {
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// wordsOf joins random words until there are at least n runes, and cuts to n.
func (ps *proseSource) wordsOf(rng *rand.Rand, n int) string {
	var b strings.Builder
	for utf8.RuneCountInString(b.String()) < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(ps.words[rng.IntN(len(ps.words))])
	}
	return cutRunes(b.String(), n)
}

// unitStyles are the shapes of a repeated unit; all start with a letter, so
// that a unit at the start of a line is prose, not Markdown structure.
var unitStyles = []string{"words", "sentence", "line", "clause"}

// makeUnit builds a natural-looking unit of exactly p runes.
func (ps *proseSource) makeUnit(rng *rand.Rand, p int, style string) string {
	if p == 1 {
		return string(rune('a' + rng.IntN(26)))
	}
	var u string
	switch {
	case style == "sentence" && p >= 4:
		s := []rune(ps.wordsOf(rng, p-2))
		s[0] = unicode.ToUpper(s[0])
		u = string(s) + ". "
	case style == "line" && p >= 3:
		u = ps.wordsOf(rng, p-1) + "\n"
	case style == "clause" && p >= 3:
		u = ps.wordsOf(rng, p-2) + ", "
	default:
		u = ps.wordsOf(rng, p-1) + " "
	}
	return u
}

// makeChant places a chant of the given unit after natural prose.
func (ps *proseSource) makeChant(rng *rand.Rand, unit, placement string) chantCase {
	p := utf8.RuneCountInString(unit)
	para := ps.paragraphs[rng.IntN(len(ps.paragraphs))]
	var prefix string
	switch placement {
	case "mid-sentence":
		words := strings.Fields(para)
		prefix = strings.Join(words[:1+rng.IntN(len(words))], " ") + " "
	case "after-paragraph":
		prefix = para + "\n\n"
	}
	// Long enough to pass the lag limit by a period or two, cut mid-unit as
	// max tokens would cut it.
	n := lagLimit(p) + p + rng.IntN(p+1)
	chant := cutRunes(strings.Repeat(unit, n/p+1), n)
	text := prefix + chant
	if rng.IntN(3) == 0 {
		text += "\n\n" + ps.paragraphs[rng.IntN(len(ps.paragraphs))] + "\n"
	}
	return chantCase{period: p, placement: placement, unit: unit, text: text, start: len(prefix)}
}

var placements = []string{"start", "mid-sentence", "after-paragraph"}

// chantCases builds, for each period, one chant per unit style and placement
// (styles cycle when units < len(unitStyles)).
func (ps *proseSource) chantCases(rng *rand.Rand, periods []int, units int) []chantCase {
	var out []chantCase
	for _, p := range periods {
		for u := range units {
			style := unitStyles[u%len(unitStyles)]
			unit := ps.makeUnit(rng, p, style)
			for _, pl := range placements {
				c := ps.makeChant(rng, unit, pl)
				c.style = style
				out = append(out, c)
			}
		}
	}
	return out
}
