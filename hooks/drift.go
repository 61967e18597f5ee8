package hooks

import (
	"math/rand/v2"
	"slices"

	"github.com/djinn-cc/djinn/engines/hmm"
	"github.com/djinn-cc/djinn/engines/reservoir"
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/internal/sat"
	"github.com/djinn-cc/djinn/state"
)

// Drift detection (seed 003, with the original's defects fixed).
//
// The score. What the agent authors and touches on each tool call (see
// signal.go) is compared with the effective anchor: the goal's words, the
// words of the constraint deltas the user added, and the vocabulary and
// files the session itself taught it. A call is anchored when it touches a
// file the on-task work touched, or when its words meet the anchor's (two
// points: a word of the user's own counts two, a learned word one); it is
// neutral when it has no words or files at all. The drift score is the
// share of anchored calls among the last signal_window (8) non-neutral
// calls, so the seed's numbers keep a plain meaning: 0.7 is "seven calls in
// ten are visibly about the goal", 0.4 "fewer than half are".
//
// How the anchor learns. The first learn_calls (12) main-agent calls after an
// anchor is set are the agent finding its way into the task: their words
// and files are learned at once. After that a call is learned only once it is
// confirmDelay (4) calls old and the window is still on task, so a gradual
// widening of the work is absorbed but an abrupt switch to other work is not
// (its calls never see an on-task window). A user prompt confirms the recent
// work too: whatever the user saw and let continue is learned.
//
// The HMM (D2) sees each call as "<tool class>|<topic>", where the topic is
// anchored, unanchored or neutral: file membership and word overlap, never
// the drift score itself (the original fed D2 with D1's score, which made it
// circular). Its emission table is fixed and informed (an unanchored call is
// likelier when lost than on task): the seed's re-estimation of B from a
// uniform start can never label a step LOST, and re-estimating an informed
// table washes its meaning out (engines/hmm's tests show both).
//
// The reservoir (D3) samples the window score of every main-agent call since
// the anchor; its bootstrap CI is the "honest numbers" of every verdict, and
// its mean is what SessionEnd teaches the developer's posterior (D5).

const (
	topicAnchored   = "anchored"
	topicUnanchored = "unanchored"
	topicConflict   = "conflict"
	topicNeutral    = "neutral"

	maxVocab = 1024
	// minLearnedWords: an anchor too short to measure against becomes
	// measurable once the session has taught it this many words.
	minLearnedWords = 10
	maxKnown        = 256
	maxRecent       = 16
	confirmDelay    = 4
)

// emission is P(topic | state) for ON_TASK, SIDEQUEST, LOST.
var emission = map[string][hmm.NumStates]float64{
	topicAnchored:   {0.75, 0.40, 0.10},
	topicUnanchored: {0.15, 0.45, 0.75},
	topicNeutral:    {0.10, 0.15, 0.15},
	// A call on a sibling ticket of the goal's: about another task.
	topicConflict: {0.02, 0.10, 0.50},
}

// toolClass groups tools for the HMM's observations.
func toolClass(tool string) string {
	switch tool {
	case "Read", "NotebookRead", "Grep", "Glob", "LS":
		return "read"
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return "edit"
	case "Bash", "PowerShell", "BashOutput", "TaskOutput", "KillShell":
		return "run"
	case "WebFetch", "WebSearch":
		return "web"
	case "TodoWrite", "Task", "Agent", "ExitPlanMode", "AskUserQuestion":
		return "plan"
	}
	return "other"
}

// rebaseDriftKeep rebases on a refined anchor (the same goal, said more
// fully): what the session learned is kept.
func (s *session) rebaseDriftKeep(a *state.Anchor) {
	if s.w.Drift != nil {
		s.w.Drift.AnchorHash = a.Hash
	}
	s.rebaseDrift(a)
}

// rebaseDrift starts the drift state of a new anchor, keeping the
// session's learned vocabulary only if the anchor is the same goal.
func (s *session) rebaseDrift(a *state.Anchor) {
	set := s.env.Settings.Drift
	old := s.w.Drift
	toks := words(a.Text)
	for _, d := range a.Deltas {
		toks = appendNew(toks, words(d.Text)...)
	}
	d := &state.Drift{
		AnchorHash:   a.Hash,
		AnchorTokens: capStrings(toks, 512),
		Intent:       a.IntentType,
		Insufficient: len(a.Tokens) < set.MinAnchorTokens || len(toks) < 2,
		Idents:       identStrings(idents(anchorText(a))),
		Vocab:        []string{},
		Files:        []string{},
		Recent:       []state.CallSignal{},
		Obs:          []string{},
		Reservoir:    (*state.Samples)(reservoir.New[state.Sample](set.ReservoirK)),
	}
	d.Threshold, d.ThresholdSource, d.PosteriorN = s.threshold(a.IntentType)
	if old != nil && old.AnchorHash == a.Hash {
		// Same goal (a delta was added): keep what was learned.
		d.Calls, d.Vocab, d.Files, d.Recent, d.Obs = old.Calls, old.Vocab, old.Files, old.Recent, old.Obs
		d.Reservoir, d.Verdict, d.LastAdvised, d.Advised, d.TextMark = old.Reservoir, old.Verdict, old.LastAdvised, old.Advised, old.TextMark
		d.Switched = old.Switched
	}
	s.w.Drift = d
}

// driftCall folds one main-agent tool call into the drift state and returns
// the drift advisory, if one is due.
func (s *session) driftCall(tool string, cs callSig) []advice.Advisory {
	d := s.w.Drift
	if d == nil {
		return nil
	}
	set := s.env.Settings.Drift
	sat.Inc(&d.Calls)
	known := map[string]bool{}
	for _, f := range d.Files {
		known[f] = true
	}
	toks := capStrings(appendNew(append([]string{}, cs.Object...), cs.Narrative...), maxCallTokens)
	sig := state.CallSignal{Seq: s.w.ToolCalls, Tokens: toks, Files: cs.Files}
	learning := d.Calls <= set.LearnCalls
	hit, conflict := identVerdict(parseIdents(d.Idents), cs.Acts)
	switch {
	case hit:
		d.Switched = ""
	case conflict && !learning:
		d.Switched = clip(firstSibling(parseIdents(d.Idents), cs.Acts), 128)
	}
	switch {
	case d.Switched != "":
		sig.Topic = topicConflict
	case len(toks) == 0 && len(cs.Files) == 0:
		sig.Topic = topicNeutral
	case hit:
		sig.Topic = topicAnchored
	case learning:
		// While the session is still teaching the anchor its vocabulary,
		// any overlap counts, and no overlap is not yet evidence.
		sig.Topic = topicNeutral
		if anchorPoints(d, toks, cs.Files, known) >= 1 {
			sig.Topic = topicAnchored
		}
	case anchorPoints(d, toks, cs.Files, known) >= 2:
		sig.Topic = topicAnchored
	case len(cs.Object) == 0 && len(cs.Files) == 0:
		// Only narrative words, none about the goal: no evidence either way.
		sig.Topic = topicNeutral
	default:
		sig.Topic = topicUnanchored
	}
	d.Recent = append(d.Recent, sig)
	if len(d.Recent) > maxRecent {
		d.Recent = d.Recent[len(d.Recent)-maxRecent:]
	}
	if learning {
		learn(d, len(d.Recent)-1)
	}
	score := windowScore(d.Recent, set.SignalWindow)
	if !learning && score >= d.Threshold && len(d.Recent) > confirmDelay {
		learn(d, len(d.Recent)-1-confirmDelay)
	}

	rng := rand.New(rand.NewPCG(seedOf(s.id, d.AnchorHash), uint64(d.Reservoir.NSeen)))
	sampler(d.Reservoir).Add(state.Sample{Seq: s.w.ToolCalls, Score: round3(score), Tool: clip(tool, 256)}, rng)

	d.Obs = append(d.Obs, toolClass(tool)+"|"+sig.Topic)
	if w := max(set.HMMWindow, hmm.TailLength); len(d.Obs) > w {
		d.Obs = d.Obs[len(d.Obs)-w:]
	}
	v := s.verdict(score)
	d.Verdict = &v
	if v.Kind == "refocus_moment" {
		d.RefocusStreak++
	} else {
		d.RefocusStreak = 0
	}
	facts := advice.DriftFacts{
		Verdict:       v,
		SinceAdvised:  sinceAdvised(d.LastAdvised, s.w.ToolCalls),
		RefocusStreak: d.RefocusStreak,
		Cooldown:      set.Cooldown,
		StreakNeeded:  set.RefocusStreak,
		Advised:       d.Advised,
	}
	if !advice.DriftDue(facts) {
		return nil
	}
	s.fillCI(&v)
	d.Verdict = &v
	facts.Verdict = v
	facts.AnchorText, facts.AnchorHash, facts.Recent = s.anchorText(), d.AnchorHash, recentWork(d.Recent, 4)
	adv := advice.DriftText(facts)
	d.LastAdvised = s.w.ToolCalls
	sat.Inc(&d.Advised)
	return []advice.Advisory{adv}
}

func sinceAdvised(last, now int) int {
	if last == 0 {
		return -1
	}
	return now - last
}

// anchorPoints scores how visibly a call is about the goal: a file the
// on-task work touched settles it (2), a word of the user's own counts two,
// a learned word one.
func anchorPoints(d *state.Drift, toks, files []string, known map[string]bool) int {
	for _, f := range files {
		if known[f] {
			return 2
		}
	}
	points := 0
	for _, t := range toks {
		switch {
		case slices.Contains(d.AnchorTokens, t):
			points += 2
		case slices.Contains(d.Vocab, t):
			points++
		}
		if points >= 2 {
			return points
		}
	}
	return points
}

// learn adds the words and files of the signal at index i to the anchor's
// vocabulary, once.
func learn(d *state.Drift, i int) {
	if i < 0 || i >= len(d.Recent) || d.Recent[i].Learned {
		return
	}
	sig := &d.Recent[i]
	sig.Learned = true
	for _, t := range sig.Tokens {
		if !slices.Contains(d.AnchorTokens, t) {
			d.Vocab = appendNew(d.Vocab, t)
		}
	}
	d.Files = appendNew(d.Files, sig.Files...)
	if len(d.Vocab) > maxVocab {
		d.Vocab = d.Vocab[len(d.Vocab)-maxVocab:]
	}
	if len(d.Files) > maxKnown {
		d.Files = d.Files[len(d.Files)-maxKnown:]
	}
}

// learnRecent confirms every recent call (a user prompt saw them).
func learnRecent(d *state.Drift) {
	for i := range d.Recent {
		learn(d, i)
	}
}

// windowScore is the share of anchored calls among the last n non-neutral
// signals; 1 when there are none (nothing says the work has left the goal).
func windowScore(recent []state.CallSignal, n int) float64 {
	anchored, total := 0, 0
	for i := len(recent) - 1; i >= 0 && total < n; i-- {
		switch recent[i].Topic {
		case topicAnchored:
			anchored++
			total++
		case topicUnanchored, topicConflict:
			total++
		}
	}
	if total == 0 {
		return 1
	}
	return float64(anchored) / float64(total)
}

// verdict maps the score, the reservoir and the HMM tail to a verdict, as
// the design says: N < min_samples → insufficient_data; score ≥ threshold →
// on_task; below it the HMM tail decides (lost → real_drift, side quest →
// tolerable_side_quest, otherwise refocus_moment).
func (s *session) verdict(score float64) state.Verdict {
	d := s.w.Drift
	set := s.env.Settings.Drift
	v := state.Verdict{Score: round3(score), N: len(d.Reservoir.Items), Threshold: d.Threshold, ThresholdSource: d.ThresholdSource, Call: s.w.ToolCalls}
	v.Mean = round3(meanScore(d.Reservoir.Items))
	switch {
	case d.Insufficient && len(d.Vocab) < minLearnedWords, v.N < set.MinSamples:
		v.Kind = "insufficient_data"
		return v
	case score >= d.Threshold:
		v.Kind = "on_task"
		return v
	}
	res, err := hmm.Infer(hmm.Seed(), d.Obs, hmm.Options[string]{Emission: emissionFor(d.Obs), FixedEmission: true})
	if err != nil || len(res.Labels) == 0 {
		v.Kind = "refocus_moment"
		return v
	}
	tail := res.Labels[max(0, len(res.Labels)-hmm.TailLength):]
	for _, l := range tail {
		switch l {
		case hmm.Lost:
			v.Lost++
		case hmm.SideQuest:
			v.Side++
		}
	}
	v.Tail = string(hmm.Tail(res.Labels))
	switch hmm.Tail(res.Labels) {
	case hmm.DriftLost:
		v.Kind = "real_drift"
	case hmm.DriftSideQuest:
		v.Kind = "tolerable_side_quest"
	default:
		v.Kind = "refocus_moment"
	}
	return v
}

// emissionFor builds the informed table for the symbols present.
func emissionFor(obs []string) map[string][hmm.NumStates]float64 {
	m := make(map[string][hmm.NumStates]float64, 8)
	for _, o := range obs {
		if _, ok := m[o]; ok {
			continue
		}
		topic := o
		for i := len(o) - 1; i >= 0; i-- {
			if o[i] == '|' {
				topic = o[i+1:]
				break
			}
		}
		if e, ok := emission[topic]; ok {
			m[o] = e
		}
	}
	return m
}

// fillCI adds the reservoir's bootstrap interval to a verdict (1,000
// seeded resamples: only computed when a verdict is shown).
func (s *session) fillCI(v *state.Verdict) {
	d := s.w.Drift
	xs := make([]float64, len(d.Reservoir.Items))
	for i, it := range d.Reservoir.Items {
		xs[i] = it.Score
	}
	rng := rand.New(rand.NewPCG(seedOf(s.id, d.AnchorHash), uint64(d.Reservoir.NSeen)+1))
	ci := reservoir.Bootstrap(xs, s.env.Settings.Drift.BootstrapResamples, rng)
	v.Mean, v.CILo, v.CIHi = round3(ci.Mean), round3(ci.Lo), round3(ci.Hi)
}

func meanScore(items []state.Sample) float64 {
	if len(items) == 0 {
		return 0
	}
	sum := 0.0
	for _, it := range items {
		sum += it.Score
	}
	return sum / float64(len(items))
}

// seedOf derives a reproducible RNG seed from the session and anchor.
func seedOf(parts ...string) uint64 { return reservoir.Seed(parts...) }

func (s *session) anchorText() string {
	if a, err := s.loadAnchor(); err == nil && a != nil {
		return a.Text
	}
	return ""
}

// anchorText is the goal with its constraint deltas.
func anchorText(a *state.Anchor) string {
	t := a.Text
	for _, d := range a.Deltas {
		t += "\n" + d.Text
	}
	return t
}

// firstSibling names the first sibling identifier of the goal's in text.
func firstSibling(goal []Ident, text string) string {
	for _, id := range idents(text) {
		for _, g := range goal {
			if id.Family == g.Family && id.Code != g.Code {
				return id.Family + "-" + id.Code
			}
		}
	}
	return ""
}

// recentWork lists what the last calls touched, for an advisory.
func recentWork(recent []state.CallSignal, n int) []string {
	var out []string
	for i := len(recent) - 1; i >= 0 && len(out) < n; i-- {
		r := recent[i]
		if r.Topic != topicUnanchored && r.Topic != topicConflict {
			continue
		}
		switch {
		case len(r.Files) > 0:
			out = append(out, r.Files[0])
		case len(r.Tokens) > 0:
			out = append(out, joinN(r.Tokens, 4))
		}
	}
	return out
}

func joinN(t []string, n int) string {
	if len(t) > n {
		t = t[:n]
	}
	out := ""
	for i, x := range t {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

func appendNew(dst []string, xs ...string) []string {
	for _, x := range xs {
		if x != "" && !slices.Contains(dst, x) {
			dst = append(dst, x)
		}
	}
	return dst
}

func capStrings(t []string, n int) []string {
	if len(t) > n {
		t = t[:n]
	}
	out := make([]string, len(t))
	for i, x := range t {
		out[i] = clip(x, 256)
	}
	return out
}
