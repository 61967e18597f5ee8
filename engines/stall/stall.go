// Package stall detects a text stall in a finished assistant message: the
// model repeating itself, from "fofofofo" to a whole paragraph chanted over
// and over. It is the detector of seed 000 ("Entropy-Aware Context Rollback
// (LZ-CRF)"), with the corrections that real text requires.
//
// The seed's rules are kept and take part in the decision. A sliding window
// of N = 64 runes measures Shannon entropy H in O(1) per rune (package
// entropy; C. E. Shannon, "A Mathematical Theory of Communication", 1948);
// after a warm-up of min(N, 16) runes it triggers when H < 1.5 bits
// (entropy-absolute) or when dH = H_t − H_{t−8} < −0.3 (entropy-cliff).
//
// Corrections to the seed, and why (figures: docs/stall-eval.md):
//
//   - The seed claims 0 false positives. As written (DetectSeed), its rules
//     fire on 24 of the 40 Markdown files of the Go distribution (the cliff
//     rule on all 24, the absolute rule on 2) and on 6 of the 212 assistant
//     text blocks of the corpus. Most of those cliffs are ordinary prose:
//     over 8 runes, H wanders by 0.3 bits around 4 on its own. So a trigger
//     is only a proposal. It is confirmed only when the text since its run
//     began is periodic, with a unit of at most 8 runes that contains a
//     letter, over at least 48 runes, and outside inline code.
//   - Character entropy cannot see sentence-level chanting: a 100-character
//     sentence repeated has the entropy of prose (prior-art §0.4, §7). A
//     second rule, repetition, catches any unit of up to 512 runes repeated
//     back to back at least 4 times and over at least 192 runes. It is a
//     direct periodicity check in the spirit of Gemini CLI's chunk hashing
//     (prior-art §3): a rolling hash of the last 16 runes proposes the
//     distance to that chunk's previous occurrence as a period, the period
//     is verified rune by rune backwards, and then followed forwards with
//     one comparison per rune until it breaks.
//   - Markdown structure is not prose. As in Gemini CLI, code fences (``` and
//     ~~~), table rows, list items, headings, blockquotes and divider-only
//     lines reset both rules; so do indented code blocks and HTML block
//     lines. Inline code spans cannot confirm an entropy trigger, and a run
//     entirely inside one span does not count as repetition. Without this
//     gating the detector would fire on 100 of the 11,058 .go files of the
//     Go 1.26.8 distribution shown in a ```go fence; with it, on none.
//   - A hook sees the finished message, not a stream, so there is nothing to
//     roll back token by token. Detect still reads the text in order, rune by
//     rune, and reports the byte offset at which it would have fired; that
//     offset minus the start of the repetition is its detection lag: 48
//     runes for a confirmed entropy trigger, max(4 periods, 192 runes) for
//     repetition, within the bound of max(5 periods, 256).
//
// What it does not catch, by design: repetition inside lists, tables,
// quotes, headings and code (a long list must stay silent, and so does code
// with repetitive lines), and units longer than MaxPeriod.
//
// Costs: per rune, the entropy update, a rolling hash, one table probe and
// one comparison; when a new period is proposed, a backward verification
// bounded by the ring of recent runes (MaxPeriod + max(MinRepeats·MaxPeriod,
// MinRunes) runes). Memory is that ring and a hash table of 4·MaxPeriod
// slots, whatever the message length. Only the last MaxBytes (64 KiB) of a
// message are examined; the part before is scanned only for code fences, so
// that the tail starts in the right context, and a stall found at the
// tail's first byte is traced back to where it began. Each line's Markdown
// kind is decided from the whole line (and, for a table header, the next
// one), since the message is finished. Invalid UTF-8 bytes read as U+FFFD.
package stall

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/engines/entropy"
)

// Rule names, as reported in Result.Rule.
const (
	RuleEntropyAbsolute = "entropy-absolute" // H < MinEntropy, confirmed by a short-period run
	RuleEntropyCliff    = "entropy-cliff"    // dH < −DropThreshold, confirmed by a short-period run
	RuleRepetition      = "repetition"       // a unit repeated MinRepeats times over MinRunes runes
)

// Result is the detector's verdict. Offsets are byte offsets into the text.
type Result struct {
	Stalled bool   `json:"stalled"`
	Rule    string `json:"rule,omitempty"`
	// Start is where the repeated run began: the text before it is what
	// the agent should continue from.
	Start int `json:"start"`
	// FiredAt is the offset just past the rune at which the detector
	// fired, reading in order; FiredAt − Start is the detection lag.
	FiredAt int `json:"fired_at"`
	// End is where the run stops in the finished text.
	End     int    `json:"end"`
	Period  int    `json:"period,omitempty"`  // runes in the repeated unit
	Repeats int    `json:"repeats,omitempty"` // whole units between Start and End
	Unit    string `json:"unit,omitempty"`    // the unit, cut to MaxUnitRunes for quoting
	// H and DH are the entropy window's values when the detector fired.
	H  float64 `json:"h"`
	DH float64 `json:"dh"`
}

// MaxUnitRunes is the longest Unit reported; longer units end in "…".
const MaxUnitRunes = 80

// chunk is the number of runes hashed to propose a period. It only has to be
// long enough that prose rarely repeats it within MaxPeriod runes; a true
// period is verified rune by rune whatever the hash says.
const chunk = 16

const (
	hashBase = 0x100000001b3      // FNV-64 prime, odd: a polynomial base mod 2⁶⁴
	hashMix  = 0x9E3779B97F4A7C15 // Fibonacci hashing of the polynomial hash into the table
)

// Detect reads text as an assistant message and reports the first stall.
func Detect(text string, cfg Config) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	r, _ := detect(text, cfg, true)
	return r, nil
}

// nearness is how close a text came to firing, for the evaluation: the
// largest fraction of each rule's length threshold that a run reached.
type nearness struct {
	repetition float64 // run length / max(MinRepeats·period, MinRunes)
	confirm    float64 // run length / ConfirmMinRunes, for runs that met every other condition
	repAt      int     // byte offset where the nearest repetition run began
	confAt     int
}

// detect is Detect for a valid cfg; gate = false treats every line as prose,
// which the evaluation uses to measure what the Markdown gating is worth.
func detect(text string, cfg Config, gate bool) (Result, nearness) {
	s := newScanner(cfg, text)
	base := tailStart(text, cfg.MaxBytes)
	s.base = base
	md := markdown{started: base > 0, prev: lineBlank}
	md.fenceChar, md.fenceLen = fenceStateBefore(text[:base])
	var spans [][2]int
	for off := base; off < len(text); {
		rest := text[off:]
		line, next := rest, ""
		lineEnd := len(rest)
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			line, next, lineEnd = rest[:nl], rest[nl+1:], nl+1
			if j := strings.IndexByte(next, '\n'); j >= 0 {
				next = next[:j]
			}
		}
		kind := md.classify(strings.TrimSuffix(line, "\r"), strings.TrimSuffix(next, "\r"))
		if !gate {
			kind = lineProse
		}
		if !kind.detected() {
			s.reset()
			off += lineEnd
			continue
		}
		spans = spans[:0]
		if kind == lineProse {
			spans = codeSpans(line, spans)
		}
		si := 0
		for i := 0; i < lineEnd; {
			r, size := utf8.DecodeRuneInString(rest[i:])
			for si < len(spans) && i >= spans[si][1] {
				si++
			}
			inCode := si < len(spans) && i >= spans[si][0]
			if s.step(r, off+i, off+i+size, inCode) {
				return s.result, s.near
			}
			i += size
		}
		off += lineEnd
	}
	return Result{}, s.near
}

// DetectSeed applies seed 000's rules exactly as written: every rune of the
// text enters the window, and the first update after the warm-up with
// H < MinEntropy or dH < −DropThreshold fires. There is no Markdown gating
// and no confirmation. It exists to measure what the gating and the
// confirmation change; Start is the rune that fired.
func DetectSeed(text string, cfg Config) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	w, err := entropy.New(cfg.Window, cfg.K)
	if err != nil {
		return Result{}, err
	}
	for i, r := range text {
		smp := w.Push(r)
		if smp.Len < cfg.WarmUp {
			continue
		}
		rule := ""
		switch {
		case smp.H < cfg.MinEntropy:
			rule = RuleEntropyAbsolute
		case smp.HasDH && smp.DH < -cfg.DropThreshold:
			rule = RuleEntropyCliff
		default:
			continue
		}
		end := i + utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, n := utf8.DecodeRuneInString(text[i:])
			end = i + n
		}
		return Result{Stalled: true, Rule: rule, Start: i, FiredAt: end, End: end, H: smp.H, DH: smp.DH}, nil
	}
	return Result{}, nil
}

// scanner is the detector's state over one message. Rune positions are
// counted over the runes it has been fed (prose and blank lines only);
// seg is the position at which the current run of such lines began.
type scanner struct {
	cfg  Config
	text string
	base int // first byte examined
	ent  *entropy.Window
	smp  entropy.Sample

	ring  []rune // the last len(ring) runes fed, by position & rmask
	offs  []int  // their byte offsets
	rmask int
	x     int // position of the next rune
	seg   int // first position of the current segment

	h      uint64 // polynomial hash of the last chunk runes
	powC   uint64 // hashBase^chunk
	table  []int  // most recent position whose chunk hashed to each slot
	tshift uint

	period int // the period being followed, 0 for none
	rs     int // first position of the periodic run
	rsByte int // its byte offset

	lastAbs, lastCliff int // positions of the latest entropy triggers
	lastCode, codeFrom int // latest position inside an inline code span, and where that span began
	inCodePrev         bool

	result Result
	near   nearness
}

func newScanner(cfg Config, text string) *scanner {
	// The ring holds the longest backward verification needed: a period
	// plus enough runs to reach either firing threshold.
	need := cfg.MaxPeriod + max(cfg.MinRepeats*cfg.MaxPeriod, cfg.MinRunes, cfg.ConfirmMinRunes) + 1
	size := 64
	for size < need {
		size *= 2
	}
	tsize, tbits := 64, uint(6)
	for tsize < 4*cfg.MaxPeriod {
		tsize *= 2
		tbits++
	}
	ent, _ := entropy.New(cfg.Window, cfg.K) // sizes checked by Validate
	s := &scanner{
		cfg:    cfg,
		text:   text,
		ent:    ent,
		ring:   make([]rune, size),
		offs:   make([]int, size),
		rmask:  size - 1,
		table:  make([]int, tsize),
		tshift: 64 - tbits,
		powC:   1,
	}
	for range chunk {
		s.powC *= hashBase
	}
	s.reset()
	return s
}

// reset starts a new segment: nothing before it can be part of a run or
// feed the entropy window.
func (s *scanner) reset() {
	if s.x == s.seg && s.x > 0 {
		return // already reset, and nothing fed since
	}
	s.ent.Reset()
	s.seg = s.x
	s.h = 0
	s.period = 0
	s.lastAbs, s.lastCliff, s.lastCode = -1, -1, -1
	s.inCodePrev = false
}

// step feeds one rune at byte offset off (ending at end) and reports whether
// the detector fires on it, in which case s.result holds the verdict.
func (s *scanner) step(r rune, off, end int, inCode bool) bool {
	cfg := &s.cfg
	x := s.x
	s.ring[x&s.rmask] = r
	s.offs[x&s.rmask] = off

	s.smp = s.ent.Push(r)
	if s.smp.Len >= cfg.WarmUp {
		if s.smp.H < cfg.MinEntropy {
			s.lastAbs = x
		}
		if s.smp.HasDH && s.smp.DH < -cfg.DropThreshold {
			s.lastCliff = x
		}
	}
	if inCode {
		if !s.inCodePrev {
			s.codeFrom = x
		}
		s.lastCode = x
	}
	s.inCodePrev = inCode

	s.h = s.h*hashBase + uint64(uint32(r))
	if x-s.seg >= chunk {
		s.h -= uint64(uint32(s.ring[(x-chunk)&s.rmask])) * s.powC
	}
	full := x-s.seg >= chunk-1
	slot := (s.h * hashMix) >> s.tshift

	if s.period == 0 || s.ring[(x-s.period)&s.rmask] != r {
		s.period = 0
		if full {
			s.propose(slot)
		}
	}
	if full {
		s.table[slot] = x
	}
	s.x++
	if s.period == 0 {
		return false
	}

	runLen := x - s.rs + 1
	if s.period <= cfg.ConfirmMaxPeriod && s.lastCode < s.rs && (s.lastAbs >= s.rs || s.lastCliff >= s.rs) && s.unitHasLetter() {
		if f := float64(runLen) / float64(cfg.ConfirmMinRunes); f > s.near.confirm {
			s.near.confirm, s.near.confAt = f, s.rsByte
		}
	}
	need := max(cfg.MinRepeats*s.period, cfg.MinRunes)
	if f := float64(runLen) / float64(need); f > s.near.repetition && !(inCode && s.codeFrom <= s.rs) {
		s.near.repetition, s.near.repAt = f, s.rsByte
	}
	if s.period <= cfg.ConfirmMaxPeriod && runLen >= cfg.ConfirmMinRunes && s.lastCode < s.rs && s.unitHasLetter() {
		switch {
		case s.lastAbs >= s.rs:
			s.fire(RuleEntropyAbsolute, end)
			return true
		case s.lastCliff >= s.rs:
			s.fire(RuleEntropyCliff, end)
			return true
		}
	}
	if runLen >= need && !(inCode && s.codeFrom <= s.rs) {
		s.fire(RuleRepetition, end)
		return true
	}
	return false
}

// propose looks up the previous occurrence of the chunk ending at the current
// rune and, if the text since then really repeats with that distance over at
// least a chunk, follows it as the period.
func (s *scanner) propose(slot uint64) {
	x := s.x
	y := s.table[slot]
	d := x - y
	if y < s.seg+chunk-1 || d < 1 || d > s.cfg.MaxPeriod {
		return
	}
	lo := max(s.seg, x-len(s.ring)+1) // oldest position both fed in this segment and still in the ring
	c := 0
	for z := x; z-d >= lo && s.ring[z&s.rmask] == s.ring[(z-d)&s.rmask]; z-- {
		c++
	}
	if c < chunk {
		return // a hash collision, or a repeat shorter than a chunk
	}
	s.period = d
	s.rs = x - c + 1 - d
	s.rsByte = s.offs[s.rs&s.rmask]
}

// unitHasLetter reports whether the last period runes hold a letter. Runs of
// spaces, dots or dashes are layout, and runs of digits are numbers
// (0x0000…, 1000000…); such runs are left to the repetition rule, whose
// length threshold is six times higher.
func (s *scanner) unitHasLetter() bool {
	for z := s.x - s.period; z < s.x; z++ {
		if unicode.IsLetter(s.ring[z&s.rmask]) {
			return true
		}
	}
	return false
}

// fire fills s.result for the run being followed, reduced to its smallest
// period, and extends it to where it stops in the finished text.
func (s *scanner) fire(rule string, firedAt int) {
	last := s.x - 1
	lo := max(s.rs, s.x-len(s.ring)+1)
	p := s.period
	// The run is at least 2p long, so any smaller period q would make
	// gcd(p, q) a period too (Fine and Wilf): the smallest period divides p.
	for q := 1; q < p; q++ {
		if p%q != 0 {
			continue
		}
		ok := true
		for z := last; z-q >= lo; z-- {
			if s.ring[z&s.rmask] != s.ring[(z-q)&s.rmask] {
				ok = false
				break
			}
		}
		if ok {
			p = q
			break
		}
	}
	unitEnd := s.rsByte
	for range p {
		_, n := utf8.DecodeRuneInString(s.text[unitEnd:])
		unitEnd += n
	}
	start := s.rsByte
	ub := unitEnd - start
	if start == s.base {
		// The run reaches back to the examined tail's first byte: find where
		// it really began in the part that was not examined.
		for start > 0 && start-1+ub < len(s.text) && s.text[start-1] == s.text[start-1+ub] {
			start--
		}
		for start < s.rsByte && !utf8.RuneStart(s.text[start]) {
			start++
		}
	}
	unit := s.text[start : start+ub]
	end := firedAt
	for end < len(s.text) && s.text[end] == s.text[end-ub] {
		end++
	}
	for end > firedAt && end < len(s.text) && !utf8.RuneStart(s.text[end]) {
		end--
	}
	s.result = Result{
		Stalled: true,
		Rule:    rule,
		Start:   start,
		FiredAt: firedAt,
		End:     end,
		Period:  p,
		Repeats: (end - start) / ub,
		Unit:    quoteUnit(unit),
		H:       s.smp.H,
		DH:      s.smp.DH,
	}
}

func quoteUnit(unit string) string {
	if utf8.RuneCountInString(unit) <= MaxUnitRunes {
		return unit
	}
	r := []rune(unit)
	return string(r[:MaxUnitRunes-1]) + "…"
}
