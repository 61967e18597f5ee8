package stall

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// This file is the evaluation the issue asks for: zero firings on natural
// text no one here wrote, and detection of synthetic chants of every period
// from 1 to 300 within max(5 periods, 256 characters). A quick subset runs in
// every `go test`; the whole of it runs with -stall.full (scripts/stall-eval),
// which also writes the figures to -stall.report.

// naturalFigures are the results over one source of natural text.
type naturalFigures struct {
	Source    string
	Texts     int
	Bytes     int
	Fired     []string // names of texts on which Detect fired (must be empty)
	FiredAll  []string // the same with MaxBytes = 0 (whole messages)
	Seed      int      // texts on which the seed's rules as written fire
	SeedAbs   int      // ... the absolute rule alone
	SeedCliff int      // ... the cliff rule alone
	SeedGated int      // texts on which the seed's rules fire on prose lines only (gating, no confirmation)
	Ungated   int      // texts on which Detect fires with the Markdown gating off
	NearRep   float64  // closest approach to the repetition threshold
	NearConf  float64  // closest approach to the confirmation threshold
	NearName  string   // text of NearRep
}

// seedOnly returns cfg with one of the seed's two rules switched off.
func seedOnly(cfg Config, rule string) Config {
	if rule == RuleEntropyAbsolute {
		cfg.DropThreshold = math.Inf(1)
	} else {
		cfg.MinEntropy = 0
	}
	return cfg
}

// seedGated applies the seed's rules as written to the lines Detect
// examines (prose and blank lines, the window reset at every other line),
// without confirmation: what Markdown gating alone would achieve.
func seedGated(text string, cfg Config) bool {
	var md markdown
	s := newScanner(cfg, text)
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		next := ""
		if i+1 < len(lines) {
			next = strings.TrimSuffix(lines[i+1], "\n")
		}
		if !md.classify(strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r"), next).detected() {
			s.ent.Reset()
			continue
		}
		for _, r := range l {
			smp := s.ent.Push(r)
			if smp.Len >= cfg.WarmUp && (smp.H < cfg.MinEntropy || smp.HasDH && smp.DH < -cfg.DropThreshold) {
				return true
			}
		}
	}
	return false
}

func evalNatural(t *testing.T, source string, msgs []message, cfg Config) naturalFigures {
	t.Helper()
	f := naturalFigures{Source: source, Texts: len(msgs)}
	whole := cfg
	whole.MaxBytes = 0
	for _, m := range msgs {
		f.Bytes += len(m.text)
		r, err := Detect(m.text, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if r.Stalled {
			f.Fired = append(f.Fired, m.name)
			t.Errorf("false positive on %s (%s): %s at %d, period %d, unit %q, context %q",
				source, m.name, r.Rule, r.Start, r.Period, r.Unit, m.text[r.Start:min(len(m.text), r.FiredAt)])
		}
		rw, near := detect(m.text, whole, true)
		if rw.Stalled {
			f.FiredAll = append(f.FiredAll, m.name)
			t.Errorf("false positive on the whole of %s (%s): %s at %d", source, m.name, rw.Rule, rw.Start)
		}
		if near.repetition > f.NearRep {
			f.NearRep, f.NearName = near.repetition, m.name
		}
		f.NearConf = max(f.NearConf, near.confirm)
		if r, _ := DetectSeed(m.text, cfg); r.Stalled {
			f.Seed++
		}
		if r, _ := DetectSeed(m.text, seedOnly(cfg, RuleEntropyAbsolute)); r.Stalled {
			f.SeedAbs++
		}
		if r, _ := DetectSeed(m.text, seedOnly(cfg, RuleEntropyCliff)); r.Stalled {
			f.SeedCliff++
		}
		if seedGated(m.text, cfg) {
			f.SeedGated++
		}
		if r, _ := detect(m.text, whole, false); r.Stalled {
			f.Ungated++
		}
	}
	return f
}

// chantFigures are the results over the synthetic chants.
type chantFigures struct {
	Total, Detected int
	Failures        []string
	ByRule          map[string]int
	Ratios          []float64 // lag / limit per detected chant
	Bands           []band
	SeedCaught      int // chants the seed's rules as written catch within the limit
	NoEntropy       int // chants caught within the limit with the entropy rules off
	EntropyFirst    int // chants on which an entropy rule fired first
	LagWith         int // summed lag over EntropyFirst chants
	LagWithout      int // the same chants with the entropy rules off
}

type band struct {
	Lo, Hi   int
	N        int
	MaxRatio float64
	MaxLag   int
}

var noEntropy = func() Config {
	c := DefaultConfig()
	c.MinEntropy, c.DropThreshold = 0, math.Inf(1)
	return c
}()

func evalChants(t *testing.T, cases []chantCase, cfg Config) chantFigures {
	t.Helper()
	f := chantFigures{ByRule: map[string]int{}}
	f.Bands = []band{{Lo: 1, Hi: 8}, {Lo: 9, Hi: 51}, {Lo: 52, Hi: 150}, {Lo: 151, Hi: 300}}
	fail := func(c chantCase, format string, args ...any) {
		msg := fmt.Sprintf("period %d (%s, %s, unit %q): ", c.period, c.style, c.placement, cutRunes(c.unit, min(40, c.period))) + fmt.Sprintf(format, args...)
		f.Failures = append(f.Failures, msg)
		t.Error(msg)
	}
	lagOf := func(c chantCase, r Result) (int, bool) {
		if !r.Stalled || r.FiredAt <= c.start {
			return 0, false
		}
		lag := utf8.RuneCountInString(c.text[c.start:r.FiredAt])
		return lag, lag <= lagLimit(c.period)
	}
	for _, c := range cases {
		f.Total++
		r, err := Detect(c.text, cfg)
		if err != nil {
			t.Fatal(err)
		}
		limit := lagLimit(c.period)
		switch {
		case !r.Stalled:
			fail(c, "not detected")
			continue
		case r.FiredAt <= c.start:
			fail(c, "fired in the prose before the chant: %s at %d, context %q", r.Rule, r.Start, c.text[r.Start:r.FiredAt])
			continue
		}
		lag, _ := lagOf(c, r)
		if lag > limit {
			fail(c, "detected after %d runes, limit %d", lag, limit)
			continue
		}
		f.Detected++
		f.ByRule[r.Rule]++
		ratio := float64(lag) / float64(limit)
		f.Ratios = append(f.Ratios, ratio)
		for i := range f.Bands {
			b := &f.Bands[i]
			if c.period >= b.Lo && c.period <= b.Hi {
				b.N++
				b.MaxRatio = max(b.MaxRatio, ratio)
				b.MaxLag = max(b.MaxLag, lag)
			}
		}
		if rs, _ := DetectSeed(c.text, cfg); true {
			if _, ok := lagOf(c, rs); ok {
				f.SeedCaught++
			}
		}
		rn, _ := Detect(c.text, noEntropy)
		lagN, okN := lagOf(c, rn)
		if okN {
			f.NoEntropy++
		}
		if r.Rule != RuleRepetition {
			f.EntropyFirst++
			f.LagWith += lag
			if okN {
				f.LagWithout += lagN
			} else {
				f.LagWithout += limit
			}
		}
	}
	slices.Sort(f.Ratios)
	return f
}

func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// evalSources loads the natural corpus. Missing sources are skipped with a
// note, so that the quick test runs wherever the repository is checked out.
type evalSources struct {
	md, code, msgs, blocks, testdata []message
	goRoot, corpus                   string
	goFiles                          int // .go files under goRoot (code may hold a sample)
	transcripts                      int // *.jsonl files in corpus
	notes                            []string
}

// naturalSet is one source of the natural corpus: its short name (the quick
// test's subtest) and how the report names it.
type naturalSet struct {
	name, label string
	msgs        []message
}

// sets are the sources of the natural corpus, in the report's order.
func (s *evalSources) sets() []naturalSet {
	return []naturalSet{
		{"go-md", "Go `.md` files, as they are", s.md},
		{"go-code-sample", "Go `.go` files, each in a Go code fence", s.code},
		{"transcripts", "transcript assistant messages (text blocks joined per message id)", s.msgs},
		{"transcript-blocks", "transcript assistant text blocks, one by one", s.blocks},
		{"testdata-natural", "near misses in testdata/natural", s.testdata},
	}
}

// loadSources reads every source; of the Go files it reads all when
// codeSample is 0, a seeded sample of that many when it is positive, and none
// when it is negative.
func loadSources(t *testing.T, codeSample int) *evalSources {
	t.Helper()
	s := &evalSources{goRoot: goRoot(), corpus: corpusDir()}
	if s.goRoot != "" {
		md, err := goMarkdown(s.goRoot)
		if err != nil {
			t.Fatal(err)
		}
		s.md = md
		paths, err := goFiles(s.goRoot, ".go")
		if err != nil {
			t.Fatal(err)
		}
		s.goFiles = len(paths)
		if codeSample > 0 && codeSample < len(paths) {
			rng := rand.New(rand.NewPCG(11, 12))
			rng.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
			paths = paths[:codeSample]
			slices.Sort(paths)
		}
		if codeSample < 0 {
			paths = nil
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(s.goRoot, p)
			s.code = append(s.code, message{source: "go-code", name: rel, text: fenceGo(filepath.Base(p), string(b))})
		}
	} else {
		s.notes = append(s.notes, "no Go installation found: its .md and .go files were skipped")
	}
	msgs, blocks, err := assistantMessages(s.corpus)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.notes = append(s.notes, "no transcripts in "+s.corpus+": skipped")
	case err != nil:
		t.Fatal(err)
	}
	s.msgs, s.blocks = msgs, blocks
	if paths, _ := filepath.Glob(filepath.Join(s.corpus, "*.jsonl")); len(paths) > 0 {
		s.transcripts = len(paths)
	}
	s.testdata = readTestdata(t, "natural")
	return s
}

func readTestdata(t *testing.T, dir string) []message {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.md"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no testdata/%s/*.md: %v", dir, err)
	}
	var out []message
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, message{source: dir, name: filepath.Base(p), text: string(b)})
	}
	return out
}

// proseFor gathers the natural paragraphs that surround synthetic chants:
// the corpus's when present, and this package's own ordinary answer.
func (s *evalSources) proseFor() *proseSource {
	var texts []string
	for _, set := range [][]message{s.testdata, s.md, s.msgs} {
		for _, m := range set {
			texts = append(texts, m.text)
		}
	}
	return newProseSource(texts)
}

// lastElems returns the last n elements of a path, to name a directory in the
// report without the machine's own prefix.
func lastElems(path string, n int) string {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(path)), "/")
	return strings.Join(parts[max(0, len(parts)-n):], "/")
}

func allPeriods() []int {
	out := make([]int, 300)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// quickPeriods samples every band, including the edges of the lag limit
// (51/52, where 5·period overtakes 256) and of the confirmation (8/9).
var quickPeriods = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 23, 32, 47, 48, 51, 52, 53, 64, 97, 100, 128, 150, 199, 256, 299, 300}

// TestNaturalCorpusQuiet is the fast subset of the evaluation's first half:
// no firing on the corpus transcripts, the Go distribution's Markdown, a
// sample of its Go files in fences, and this package's near misses.
func TestNaturalCorpusQuiet(t *testing.T) {
	s := loadSources(t, 200)
	for _, n := range s.notes {
		t.Log(n)
	}
	cfg := DefaultConfig()
	for _, set := range s.sets() {
		t.Run(set.name, func(t *testing.T) {
			if len(set.msgs) == 0 {
				t.Skip("source not available here")
			}
			f := evalNatural(t, set.name, set.msgs, cfg)
			t.Logf("%d texts, %d bytes: %d firings (seed as written: %d)", f.Texts, f.Bytes, len(f.Fired), f.Seed)
		})
	}
}

// TestSyntheticChantsQuick is the fast subset of the second half: a sample of
// periods, each in every placement, detected within the limit.
func TestSyntheticChantsQuick(t *testing.T) {
	s := loadSources(t, -1)
	ps := s.proseFor()
	rng := rand.New(rand.NewPCG(21, 22))
	cases := ps.chantCases(rng, quickPeriods, 2)
	f := evalChants(t, cases, DefaultConfig())
	t.Logf("%d/%d chants detected; max lag ratio %.3f", f.Detected, f.Total, percentile(f.Ratios, 1))
}

// TestStallEval is the whole evaluation (scripts/stall-eval): every .md and
// every .go file of the Go installation, every transcript message, and four
// units in three placements for every period from 1 to 300.
func TestStallEval(t *testing.T) {
	if !*flagFull {
		t.Skip("the full evaluation runs with -stall.full (scripts/stall-eval)")
	}
	s := loadSources(t, 0)
	if s.goRoot == "" || len(s.msgs) == 0 {
		t.Fatalf("the full evaluation needs the Go installation and the transcripts: %v", s.notes)
	}
	cfg := DefaultConfig()
	var nat []naturalFigures
	for _, set := range s.sets() {
		nat = append(nat, evalNatural(t, set.label, set.msgs, cfg))
	}
	rng := rand.New(rand.NewPCG(31, 32))
	ch := evalChants(t, s.proseFor().chantCases(rng, allPeriods(), len(unitStyles)), cfg)
	if *flagReport != "" {
		if err := os.WriteFile(*flagReport, []byte(report(s, cfg, nat, ch)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func report(s *evalSources, cfg Config, nat []naturalFigures, ch chantFigures) string {
	var b strings.Builder
	pf := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	cj, _ := json.MarshalIndent(cfg, "", "  ")
	firings := 0
	for _, f := range nat {
		firings += len(f.Fired) + len(f.FiredAll)
	}
	pf("# Stall detector evaluation\n\n")
	pf("Generated by `scripts/stall-eval` (the test `TestStallEval` in `engines/stall`, run with `-stall.full`);\n")
	pf("do not edit by hand. %s, %s/%s; Go installation `%s`; transcripts `…/%s` (%d files).\n\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, s.goRoot, lastElems(s.corpus, 3), s.transcripts)
	pf("**Result: %d firings on natural text; %d of %d synthetic chants detected within max(5 periods, 256 characters).**\n\n", firings, ch.Detected, ch.Total)
	pf("Configuration (`DefaultConfig()`, the settings keys):\n\n```json\n%s\n```\n\n", cj)

	pf("## Natural text: no firing\n\n")
	pf("Each text is fed to `Detect` as one finished assistant message. \"Detect\" uses the default configuration, which examines the last %d bytes of a message; \"whole\" sets `max_bytes` to 0 and examines all of it. The seed's rules as written (`DetectSeed`: every rune, no Markdown gating, no confirmation) are shown for comparison, in total and rule by rule; \"seed, gated\" applies them to the lines `Detect` examines, without confirmation (what gating alone achieves); \"Detect, ungated\" is this detector with its Markdown gating switched off (confirmation and repetition rule still on, whole messages).\n\n", cfg.MaxBytes)
	pf("| source | texts | bytes | Detect | whole | seed as written | seed H < %.1f | seed dH < −%.1f | seed, gated | Detect, ungated |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n", cfg.MinEntropy, cfg.DropThreshold)
	for _, f := range nat {
		pf("| %s | %d | %d | **%d** | **%d** | %d | %d | %d | %d | %d |\n", f.Source, f.Texts, f.Bytes, len(f.Fired), len(f.FiredAll), f.Seed, f.SeedAbs, f.SeedCliff, f.SeedGated, f.Ungated)
	}
	pf("\nThe Go installation holds %d `.go` files (regular files only: `src/go/parser/testdata/issue42951/not_a_file.go` is a directory).\n\n", s.goFiles)
	pf("Baseline: the issue measured the seed's rules as written firing on 24 of the 40 `.md` files (the derivative rule; the absolute rule on 2) and on 6 of 212 real assistant messages (text blocks). `DetectSeed` gives %d of %d `.md` files (dH rule %d, H rule %d) and %d of %d text blocks: the baseline is confirmed. Gating alone does not fix it (\"seed, gated\"): most of the seed's cliffs are in plain prose, where H wanders by 0.3 bits over 8 runes around 4 bits. The confirmation does.\n\n",
		nat[0].Seed, nat[0].Texts, nat[0].SeedCliff, nat[0].SeedAbs, nat[3].Seed, nat[3].Texts)
	pf("How close natural text came to firing, as the largest fraction of a rule's length threshold that any run reached (1.0 would fire):\n\n")
	pf("| source | repetition rule | confirmed entropy trigger | nearest text (repetition) |\n|---|--:|--:|---|\n")
	for _, f := range nat {
		name := "—"
		if f.NearName != "" {
			name = "`" + f.NearName + "`"
		}
		pf("| %s | %.2f | %.2f | %s |\n", f.Source, f.NearRep, f.NearConf, name)
	}

	pf("\n## Synthetic chants: detection lag\n\n")
	pf("For every period p from 1 to 300: %d units of exactly p runes built from natural words (styles: %s), each placed at the start of a message, in the middle of a sentence, and after a paragraph of natural prose (paragraphs and words from the sources above), repeated over max(5p, 256) + p to max(5p, 256) + 2p runes and cut mid-unit, as max tokens would cut a stuck model; a third of them are followed by another paragraph. The lag is the number of runes from the chant's first rune to the rune at which `Detect` fires (`FiredAt`); the limit is max(5p, 256).\n\n", len(unitStyles), strings.Join(unitStyles, ", "))
	pf("| chants | detected within the limit | max lag / limit | p95 lag / limit | median lag / limit |\n|--:|--:|--:|--:|--:|\n")
	pf("| %d | **%d** | %.3f | %.3f | %.3f |\n\n", ch.Total, ch.Detected, percentile(ch.Ratios, 1), percentile(ch.Ratios, 0.95), percentile(ch.Ratios, 0.5))
	pf("| periods | chants | max lag (runes) | max lag / limit |\n|---|--:|--:|--:|\n")
	for _, bd := range ch.Bands {
		pf("| %d–%d | %d | %d | %.3f |\n", bd.Lo, bd.Hi, bd.N, bd.MaxLag, bd.MaxRatio)
	}
	rules := slices.Sorted(maps.Keys(ch.ByRule))
	counts := make([]string, len(rules))
	for i, r := range rules {
		counts[i] = fmt.Sprintf("%s %d", r, ch.ByRule[r])
	}
	pf("\nRule that fired first: %s.", strings.Join(counts, ", "))
	pf("\n\n## What each part contributes\n\n")
	pf("- The seed's rules as written catch %d of the %d chants within the limit (and fire on the natural text above).\n", ch.SeedCaught, ch.Total)
	pf("- With the entropy rules switched off, the repetition rule alone still catches %d of %d within the limit.\n", ch.NoEntropy, ch.Total)
	if ch.EntropyFirst > 0 {
		pf("- A confirmed entropy trigger fired first on %d chants (short periods); on those the mean lag is %.1f runes, against %.1f with the entropy rules off.\n",
			ch.EntropyFirst, float64(ch.LagWith)/float64(ch.EntropyFirst), float64(ch.LagWithout)/float64(ch.EntropyFirst))
	}
	if len(ch.Failures) > 0 {
		pf("\n## Failures\n\n")
		for _, m := range ch.Failures {
			pf("- %s\n", m)
		}
	}
	for _, n := range s.notes {
		pf("\nNote: %s\n", n)
	}
	return b.String()
}
