package drift

import (
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"

	"github.com/djinn-cc/djinn/engines/hmm"
	"github.com/djinn-cc/djinn/engines/posterior"
	"github.com/djinn-cc/djinn/engines/reservoir"
	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/internal/sat"
)

// Topics of a call: what it says about the goal.
const (
	TopicAnchored   = "anchored"
	TopicUnanchored = "unanchored"
	TopicConflict   = "conflict"
	TopicNeutral    = "neutral"
)

// Verdict kinds.
const (
	InsufficientData   = "insufficient_data"
	OnTask             = "on_task"
	RealDrift          = "real_drift"
	TolerableSideQuest = "tolerable_side_quest"
	RefocusMoment      = "refocus_moment"
)

const (
	maxVocab = 1024
	// minLearnedWords: an anchor too short to measure against becomes
	// measurable once it has this many words (State.measurable).
	minLearnedWords = 10
	maxKnown        = 256
	maxRecent       = 16
	// ConfirmDelay is how old a call must be, in calls, before an on-task
	// window confirms it into the anchor's vocabulary.
	ConfirmDelay = 4
)

// emission is P(topic | state) for ON_TASK, SIDEQUEST, LOST. It is never
// written: emissionFor copies from it.
var emission = map[string][hmm.NumStates]float64{
	TopicAnchored:   {0.75, 0.40, 0.10},
	TopicUnanchored: {0.15, 0.45, 0.75},
	TopicNeutral:    {0.10, 0.15, 0.15},
	// A call on a sibling ticket of the goal's: about another task.
	TopicConflict: {0.02, 0.10, 0.50},
}

// Signal is what one tool call said about its topic, as the detector keeps
// it among the recent calls.
type Signal struct {
	Seq    int
	Tokens []string
	Files  []string
	// Topic is anchored, unanchored, conflict or neutral.
	Topic   string
	Learned bool
	// Narr is how many of the last Tokens are narrative words (the agent's
	// prose): they can show a call is about the goal, but are too general
	// to teach the anchor.
	Narr int
}

// Sample is one window score in the reservoir.
type Sample struct {
	Seq   int
	Score float64
	Tool  string
}

// Verdict is the drift verdict with the honest numbers behind it.
type Verdict struct {
	Kind            string
	Score           float64
	Mean            float64
	CILo            float64
	CIHi            float64
	N               int
	Threshold       float64
	ThresholdSource string
	Tail            string
	Lost            int
	Side            int
	Call            int
}

// State is the detector's memory of one anchor.
type State struct {
	AnchorHash string
	// AnchorTokens are the stems of the goal's words.
	AnchorTokens []string
	// Insufficient marks an anchor too short or generic to measure against.
	Insufficient    bool
	Threshold       float64
	ThresholdSource string
	// Idents are the goal's ticket identifiers ("family-code"); Switched is a
	// sibling identifier the agent moved to, until it names the goal's again.
	Idents   []string
	Switched string
	// Calls counts main-agent tool calls since the anchor was set.
	Calls int
	// Vocab (stems) and Files are what the session taught the anchor; Files
	// starts with the files the goal names.
	Vocab  []string
	Files  []string
	Recent []Signal
	// Obs are the HMM observations of the last calls.
	Obs       []string
	Reservoir *reservoir.Reservoir[Sample]
	// RefocusStreak counts consecutive refocus_moment verdicts.
	RefocusStreak int
	// OffGoal counts the off-goal calls since an on-goal call last found
	// the work on task.
	OffGoal int
}

// Anchor is what the detector measures against, made from a goal: its
// words as written, their stems (what calls are compared with), the files
// it names, and its ticket identifiers.
type Anchor struct {
	Tokens       []string
	Stems        []string
	Files        []string
	Idents       []string
	Insufficient bool
}

// AddWords adds words of the goal that its text, as kept, lacks (the rest
// of a long prompt: Words of the whole of it), up to the anchor's bound.
func (a *Anchor) AddWords(words []string) {
	a.Tokens = capStrings(appendNew(a.Tokens, words...), MaxAnchorWords)
	a.Stems = Stems(a.Tokens)
}

// minGoalWords is how many words of a topic (Words: not the function
// words, narration verbs and names every project shares) and files a goal
// needs to be measured against: "can you fix my website so i can preview it" has
// two, website and preview, which no file of the website's code names.
const minGoalWords = 3

// MaxAnchorWords bounds an anchor's words and stems (window.json's
// anchor_tokens, anchor.json's words).
const MaxAnchorWords = 512

// NewAnchor makes the anchor of a goal: text is the goal, deltas its
// constraint deltas, normalized the number of its normalized tokens.
func NewAnchor(text string, deltas []string, normalized int, c Config) Anchor {
	toks := Words(text)
	for _, d := range deltas {
		toks = appendNew(toks, Words(d)...)
	}
	all := strings.Join(append([]string{text}, deltas...), "\n")
	toks = capStrings(toks, MaxAnchorWords)
	files := capStrings(NamedFiles(all), 64)
	return Anchor{
		Tokens:       toks,
		Stems:        Stems(toks),
		Files:        files,
		Idents:       identStrings(idents(all)),
		Insufficient: normalized < c.MinAnchorTokens || len(toks)+len(files) < minGoalWords || Unsegmented(all),
	}
}

// unsegmentedScripts are the scripts written without spaces between words
// (Chinese, Japanese, Thai, Lao, Khmer, Myanmar): Words takes a run of them
// for one word, a whole clause, which no call's words can ever match.
var unsegmentedScripts = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar}

// Unsegmented reports whether most of text's letters are in a script
// written without spaces between words. A goal in one says nothing drift
// can compare the work's words with: like a goal too short, it is taught
// by the first calls' work (ext-cutesticky #97, a Chinese prompt whose
// clauses were the anchor's "words", false to judges BC and BD).
func Unsegmented(text string) bool {
	unseg, letters := unsegmentedLetters(text)
	return letters > 0 && 2*unseg > letters
}

// UnsegmentedLetters counts text's letters in a script written without
// spaces between words.
func UnsegmentedLetters(text string) int {
	n, _ := unsegmentedLetters(text)
	return n
}

// unsegmentedLetters counts text's letters in a script written without
// spaces between words, and all its letters.
func unsegmentedLetters(text string) (unseg, letters int) {
	for _, r := range text {
		if !unicode.IsLetter(r) {
			continue
		}
		letters++
		if unicode.In(r, unsegmentedScripts...) {
			unseg++
		}
	}
	return unseg, letters
}

// Call is one main-agent tool call.
type Call struct {
	Tool string
	Sig  CallSig
	// Seq is the session's tool-call count at this call.
	Seq int
}

// AddNarrative adds narrative words (the agent's prose) to a call's signal.
func (cs *CallSig) AddNarrative(words []string) {
	cs.Narrative = capStrings(appendNew(cs.Narrative, words...), MaxCallTokens)
}

// Step folds one call into the state and returns its verdict. session is
// the session's id: with the anchor's hash it seeds the reservoir's random
// choices, so a replayed session samples the same calls.
//
// Only what connects to the goal is learned at once: an anchored call's
// words and files join the anchor's. Other calls are learned when the user
// lets the work go on (LearnRecent) or, ConfirmDelay calls later, when the
// window is still on task (a gradual widening of the work); an abrupt
// switch never sees an on-task window, wherever it starts. Only a goal too
// short to say what it is about is taught by its first learn_calls calls,
// whatever they are.
func (st *State) Step(c Config, session string, call Call) Verdict {
	sat.Inc(&st.Calls)
	cs := call.Sig
	toks := capStrings(appendNew(append([]string{}, cs.Object...), cs.Narrative...), MaxCallTokens)
	sig := Signal{Seq: call.Seq, Tokens: toks, Files: cs.Files, Narr: len(toks) - min(len(cs.Object), len(toks))}
	early := st.Calls <= c.LearnCalls
	teach := early && st.Insufficient
	hit, conflict := identVerdict(parseIdents(st.Idents), cs.Acts)
	switch {
	case hit:
		st.Switched = ""
	case conflict && !early:
		st.Switched = fit.Bytes(firstSibling(parseIdents(st.Idents), cs.Acts), 128)
	}
	points := 0
	none := NoEvidence(call.Tool, cs)
	if !none && (len(toks) > 0 || len(cs.Files) > 0) {
		points = st.anchorPoints(Stems(toks), cs.Files)
	}
	switch {
	case none:
		sig.Tokens, sig.Files, sig.Topic = []string{}, nil, TopicNeutral
	case st.Switched != "":
		sig.Topic = TopicConflict
	case len(toks) == 0 && len(cs.Files) == 0:
		sig.Topic = TopicNeutral
	case hit, points >= 2:
		sig.Topic = TopicAnchored
	case early && points >= 1:
		// While the anchor's vocabulary is still small, one shared word
		// connects a call to the goal.
		sig.Topic = TopicAnchored
	case early && ToolClass(call.Tool) == "read":
		// Reading the project before the work starts is how an agent
		// finds its way in: no evidence yet, and not learned unless the
		// work comes back to the goal after it.
		sig.Topic = TopicNeutral
	case teach, len(cs.Object) == 0 && len(cs.Files) == 0:
		// A goal too short to measure against, or only narrative words
		// none about the goal: no evidence either way.
		sig.Topic = TopicNeutral
	default:
		sig.Topic = TopicUnanchored
	}
	st.Recent = append(st.Recent, sig)
	if len(st.Recent) > maxRecent {
		st.Recent = st.Recent[len(st.Recent)-maxRecent:]
	}
	if sig.Topic == TopicAnchored || teach {
		st.learn(len(st.Recent) - 1)
	}
	score := WindowScore(st.Recent, c.SignalWindow)
	if i := len(st.Recent) - 1 - ConfirmDelay; i >= 0 && score >= st.Threshold && cameBack(st.Recent[i+1:]) {
		st.learn(i)
	}

	rng := rand.New(rand.NewPCG(reservoir.Seed(session, st.AnchorHash), uint64(st.Reservoir.NSeen)))
	st.Reservoir.Add(Sample{Seq: call.Seq, Score: fit.Round3(score), Tool: fit.Bytes(call.Tool, 256)}, rng)

	st.Obs = append(st.Obs, ToolClass(call.Tool)+"|"+sig.Topic)
	if w := max(c.HMMWindow, hmm.TailLength); len(st.Obs) > w {
		st.Obs = st.Obs[len(st.Obs)-w:]
	}
	v := st.verdict(c, score, call.Seq)
	// The refocus streak rule: only consecutive refocus moments count.
	if v.Kind == RefocusMoment {
		st.RefocusStreak++
	} else {
		st.RefocusStreak = 0
	}
	switch {
	case sig.Topic == TopicUnanchored || sig.Topic == TopicConflict:
		sat.Inc(&st.OffGoal)
	case sig.Topic == TopicAnchored && v.Kind == OnTask:
		// The work is back on the goal: the stretch of off-goal work ends.
		st.OffGoal = 0
	}
	return v
}

// ToolClass groups tools for the HMM's observations.
func ToolClass(tool string) string {
	switch tool {
	case "Read", "NotebookRead", "Grep", "Glob", "LS":
		return "read"
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return "edit"
	case "Bash", "PowerShell", "BashOutput", "TaskOutput", "KillShell":
		return "run"
	case "WebFetch", "WebSearch":
		return "web"
	case "TodoWrite", "TodoRead", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet", "Task", "Agent", "ExitPlanMode", "exit_plan_mode", "EnterPlanMode", "AskUserQuestion":
		return "plan"
	}
	return "other"
}

// anchorPoints scores how visibly a call is about the goal from the stems
// of its words and its files: a file the goal names or the on-task work
// touched, or one beside or named like it, settles it (2); a stem of the
// user's own counts two, a learned one one.
func (st *State) anchorPoints(stems, files []string) int {
	if relatedFile(files, st.Files) {
		return 2
	}
	points := 0
	for _, t := range stems {
		switch {
		case slices.Contains(st.AnchorTokens, t):
			points += 2
		case slices.Contains(st.Vocab, t):
			points++
		}
		if points >= 2 {
			return points
		}
	}
	return points
}

// cameBack reports whether the work returned to the goal in later: a call
// is confirmed by the window only when the work came back to the goal after
// it, so a side step within the goal's work is learned and the first calls
// of a switch are not, however many of the goal's calls the window still
// holds.
func cameBack(later []Signal) bool {
	for _, r := range later {
		if r.Topic == TopicAnchored {
			return true
		}
	}
	return false
}

// learn adds the words and files of the signal at index i to the anchor's
// vocabulary, once.
func (st *State) learn(i int) {
	if i < 0 || i >= len(st.Recent) || st.Recent[i].Learned {
		return
	}
	sig := &st.Recent[i]
	sig.Learned = true
	for _, t := range Stems(sig.Tokens[:len(sig.Tokens)-min(max(sig.Narr, 0), len(sig.Tokens))]) {
		if !slices.Contains(st.AnchorTokens, t) {
			st.Vocab = appendNew(st.Vocab, t)
		}
	}
	st.Files = appendNew(st.Files, sig.Files...)
	if len(st.Vocab) > maxVocab {
		st.Vocab = st.Vocab[len(st.Vocab)-maxVocab:]
	}
	if len(st.Files) > maxKnown {
		st.Files = st.Files[len(st.Files)-maxKnown:]
	}
}

// LearnRecent confirms every recent call (a user prompt saw them and let
// the work go on): their words and files are learned, and the calls count
// as on the goal from now on, so the stretch of off-goal work ends.
func (st *State) LearnRecent() {
	for i := range st.Recent {
		st.learn(i)
		if st.Recent[i].Topic == TopicUnanchored {
			st.Recent[i].Topic = TopicAnchored
			if j := len(st.Obs) - len(st.Recent) + i; j >= 0 && j < len(st.Obs) {
				if class, topic, ok := strings.Cut(st.Obs[j], "|"); ok && topic == TopicUnanchored {
					st.Obs[j] = class + "|" + TopicAnchored
				}
			}
		}
	}
	st.OffGoal = 0
}

// WindowScore is the share of anchored calls among the last n non-neutral
// signals; 1 when there are none (nothing says the work has left the goal).
func WindowScore(recent []Signal, n int) float64 {
	anchored, total := 0, 0
	for i := len(recent) - 1; i >= 0 && total < n; i-- {
		switch recent[i].Topic {
		case TopicAnchored:
			anchored++
			total++
		case TopicUnanchored, TopicConflict:
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
// measurable tells whether the goal says enough to measure the work
// against. A goal of enough words does. A goal too short to say what it
// is about does once a document has taught it the words it lacks (a work
// order fetched, a plan approved, the to-do list of the request), or, when
// it points at a ticket by its identifier ("Implement spotter-gqc"), once
// its first calls, which read the ticket and start on it, have taught it
// minLearnedWords words. A vague goal taught only by the first calls'
// work ("can you fix my website so i can preview it", "are u able to
// check the log?") is a guess at the task: every drift advisory measured
// against one on the blind sets was false (ext-pegasus, ext-casacolina,
// ext-omega, ext-bytebridges).
func (st *State) measurable() bool {
	switch {
	case !st.Insufficient, len(st.AnchorTokens) >= minLearnedWords:
		return true
	case len(st.Idents) > 0:
		return len(st.Vocab) >= minLearnedWords
	}
	return false
}

func (st *State) verdict(c Config, score float64, call int) Verdict {
	v := Verdict{Score: fit.Round3(score), N: len(st.Reservoir.Items), Threshold: st.Threshold, ThresholdSource: st.ThresholdSource, Call: call}
	v.Mean = fit.Round3(Mean(scoresOf(st.Reservoir.Items)))
	switch {
	case !st.measurable(), v.N < c.MinSamples:
		v.Kind = InsufficientData
		return v
	case score >= st.Threshold:
		v.Kind = OnTask
		return v
	}
	res, err := hmm.Infer(hmm.Seed(), st.Obs, hmm.Options[string]{Emission: emissionFor(st.Obs), FixedEmission: true})
	if err != nil || len(res.Labels) == 0 {
		v.Kind = RefocusMoment
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
		v.Kind = RealDrift
	case hmm.DriftSideQuest:
		v.Kind = TolerableSideQuest
	default:
		v.Kind = RefocusMoment
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

// WithCI adds the reservoir's bootstrap interval to a verdict: resamples
// seeded resamples of scores, drawn from the session and the anchor's hash
// and the reservoir's count, so every reader of the same reservoir (the
// advisory, status) gets the same numbers. It is only computed when a
// verdict is shown.
func WithCI(v Verdict, scores []float64, session, anchorHash string, nSeen int64, resamples int) Verdict {
	rng := rand.New(rand.NewPCG(reservoir.Seed(session, anchorHash), uint64(nSeen)+1))
	ci := reservoir.Bootstrap(scores, resamples, rng)
	v.Mean, v.CILo, v.CIHi = fit.Round3(ci.Mean), fit.Round3(ci.Lo), fit.Round3(ci.Hi)
	return v
}

// Mean is the mean of window scores (0 for none).
func Mean(scores []float64) float64 {
	if len(scores) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range scores {
		sum += x
	}
	return sum / float64(len(scores))
}

func scoresOf(items []Sample) []float64 {
	xs := make([]float64, len(items))
	for i, it := range items {
		xs[i] = it.Score
	}
	return xs
}

// Prior is the developer's posterior for an intent type, as posteriors.json
// keeps it.
type Prior struct {
	Mu, Var float64
	N       int
	MeanLen float64
}

// Threshold returns the on-task cutoff for a session, where it came from,
// and the number of sessions behind it: the posterior's p10 once prior has
// MinSessions sessions, else c.Threshold (the fallback, also when there is
// no prior).
func Threshold(c Config, prior *Prior) (float64, string, int) {
	if prior == nil {
		return c.Threshold, string(posterior.SourceFallback), 0
	}
	post := posterior.Posterior{Alpha: c.Alpha, Mu: prior.Mu, Var: prior.Var, N: prior.N, MeanLen: prior.MeanLen}
	t, src := posterior.Threshold(post, c.MinSessions, c.Threshold)
	t = min(max(t, 0), 1)
	return fit.Round3(t), string(src), prior.N
}

// OffGoal lists what the last off-goal calls touched (a file, else their
// first words), newest first, each once, at most n: the evidence of an
// advisory.
func OffGoal(recent []Signal, n int) []string {
	var out []string
	for i := len(recent) - 1; i >= 0 && len(out) < n; i-- {
		r := recent[i]
		if r.Topic != TopicUnanchored && r.Topic != TopicConflict {
			continue
		}
		switch {
		case len(r.Files) > 0:
			out = appendNew(out, r.Files[0])
		case len(r.Tokens) > 0:
			out = appendNew(out, joinN(r.Tokens, 4))
		}
	}
	return out
}

// firstSibling names the first sibling identifier of the goal's in text.
func firstSibling(goal []ident, text string) string {
	for _, id := range idents(text) {
		for _, g := range goal {
			if id.Family == g.Family && id.Code != g.Code {
				return id.Family + "-" + id.Code
			}
		}
	}
	return ""
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
		out[i] = fit.Bytes(x, 256)
	}
	return out
}
