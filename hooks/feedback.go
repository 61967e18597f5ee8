package hooks

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// Feedback that changes Djinn. The user judges an advisory wrong or right
// (/djinn:wrong [note] in a session, djinn feedback from a shell); the
// judgement is kept in the session's window and teaches the developer's
// profile (profile.json, per advisory kind and developer, the developer key
// being D5's). A kind's level is its wrong marks less its right marks, kept
// within 0..3. At level L > 0 a soft advisory of the kind is held back when
//
//   - the kind was given fewer than L × its cooldown tool calls ago (the
//     cooldown being loops.cooldown for the loop kinds, drift.cooldown for
//     drift and 5 for the others), so its cooldown is at most 4 times as
//     long; or
//   - it is a loop whose pattern EMA is under α + L·(hard_ema − α)/3 (0.37,
//     0.43 and 0.5 with the defaults: a one-off finding, EMA α, is held from
//     level 1; the bar never passes hard_ema); or a drift advisory whose
//     score is above its threshold less 0.05·L.
//
// A hard advisory (a chronic loop, real drift, a block) is never held: the
// profile quiets a kind, it never hides a loop that keeps coming back.

// feedbackDefaultCooldown is the cooldown, in tool calls, of the kinds
// whose detector has none of its own.
const feedbackDefaultCooldown = 5

// driftMarginStep is how much stricter the drift threshold gets per level.
const driftMarginStep = 0.05

// DeveloperKey is the developer key of this environment (D5's).
func (e *Env) DeveloperKey() string { return e.developerKey() }

// loadProfile reads profile.json. A missing file, or one that is invalid
// (moved aside, as every state file), is the empty profile: every kind at
// level 0.
func (e *Env) loadProfile() (*state.Profile, error) {
	p := state.NewProfile()
	found, err := e.Store.Load(filepath.Join(e.Store.Root, state.ProfileFile), state.KindProfile, &p)
	if err != nil {
		d := state.NewProfile()
		return &d, err
	}
	if !found || p.Entries == nil {
		p = state.NewProfile()
	}
	return &p, nil
}

// Adjust is what a feedback level does to one kind.
type Adjust struct {
	Level int
	// Cooldown is the extra tool calls after the kind's last advisory
	// during which a soft one is held.
	Cooldown int
	// MinEMA is the pattern EMA a soft loop advisory needs (0: none).
	MinEMA float64
	// DriftMargin is how far under its threshold a soft drift score must
	// be (0: none).
	DriftMargin float64
}

// AdjustFor is the adjustment of kind at a level under the settings.
func AdjustFor(set settings.Settings, kind string, level int) Adjust {
	level = min(max(level, 0), state.MaxFeedbackLevel)
	a := Adjust{Level: level}
	if level == 0 {
		return a
	}
	base := feedbackDefaultCooldown
	switch {
	case loopKind(kind):
		base = set.Loops.Cooldown
		alpha, hard := set.Loops.Alpha, set.Loops.HardEMA
		if !(alpha > 0 && alpha <= 1) || !(hard >= 0 && hard <= 1) || hard < alpha {
			alpha, hard = 0.3, 0.5
		}
		a.MinEMA = alpha + float64(level)*(hard-alpha)/state.MaxFeedbackLevel
	case kind == advice.KindDrift:
		base = set.Drift.Cooldown
		a.DriftMargin = driftMarginStep * float64(level)
	}
	a.Cooldown = level * min(max(base, 1), 1000)
	return a
}

// Describe words an adjustment for status and config.
func (a Adjust) Describe(kind string) string {
	s := fmt.Sprintf("%s: level %d of %d: a soft advisory waits %d more tool calls after the last", kind, a.Level, state.MaxFeedbackLevel, a.Cooldown)
	switch {
	case a.MinEMA > 0:
		s += fmt.Sprintf(", and needs pattern EMA ≥ %.2f", a.MinEMA)
	case a.DriftMargin > 0:
		s += fmt.Sprintf(", and needs a score %.2f under the threshold", a.DriftMargin)
	}
	return s + "; hard ones are never held"
}

func loopKind(kind string) bool {
	switch kind {
	case advice.KindReadLoop, advice.KindEditRevert, advice.KindFailLoop, advice.KindToolLoop:
		return true
	}
	return false
}

// held reports whether the developer's profile holds a back (see the top
// of this file).
func (s *session) held(a advice.Advisory, prof *state.Profile, dev string) bool {
	if a.Severity == advice.Hard || a.Severity == advice.Block || a.Kind == advice.KindReanchor {
		return false
	}
	adj := AdjustFor(s.env.Settings, a.Kind, prof.Level(a.Kind, dev))
	if adj.Level == 0 {
		return false
	}
	if f := s.w.Feedback; f != nil {
		if last, ok := f.Given[a.Kind]; ok && last <= s.w.ToolCalls && s.w.ToolCalls-last <= adj.Cooldown {
			return true
		}
	}
	if ema, ok := a.Numbers["ema"]; ok && adj.MinEMA > 0 && ema < adj.MinEMA-1e-9 {
		return true
	}
	if score, ok := a.Numbers["score"]; ok && adj.DriftMargin > 0 {
		if th, ok := a.Numbers["threshold"]; ok && score > th-adj.DriftMargin {
			return true
		}
	}
	return false
}

// feedback returns the window's feedback record, made on first use.
func (s *session) feedback() *state.Feedback {
	if s.w.Feedback == nil {
		s.w.Feedback = &state.Feedback{}
	}
	return s.w.Feedback
}

// hold drops from advs those the developer's profile holds back, counting
// them in the window, and notes when each kind given was given. The
// profile is read only when there is an advisory to weigh.
func (s *session) hold(advs []advice.Advisory) []advice.Advisory {
	var prof *state.Profile
	dev := ""
	out := advs[:0:0]
	for _, a := range advs {
		if a.Kind == advice.KindReanchor {
			out = append(out, a)
			continue
		}
		if prof == nil {
			// An unreadable profile is the empty one: feedback never stops
			// an advisory by failing.
			prof, _ = s.env.loadProfile()
			dev = s.env.developerKey()
		}
		if s.held(a, prof, dev) {
			f := s.feedback()
			if f.Held == nil {
				f.Held = map[string]int{}
			}
			if len(f.Held) < 16 || f.Held[a.Kind] > 0 {
				f.Held[a.Kind]++
			}
			continue
		}
		out = append(out, a)
	}
	for _, a := range out {
		if a.Kind == advice.KindReanchor {
			continue
		}
		f := s.feedback()
		if f.Given == nil {
			f.Given = map[string]int{}
		}
		if len(f.Given) < 16 || f.Given[a.Kind] > 0 {
			f.Given[a.Kind] = s.w.ToolCalls
		}
	}
	return out
}

// Judgement is the outcome of one judgement.
type Judgement struct {
	ID, Kind, Verdict, Note string
	Seq                     int
	// Changed is false when the advisory had already been judged so.
	Changed bool
	// Entry is the kind's profile entry after the judgement.
	Entry state.ProfileEntry
}

// Line words a judgement for the person.
func (j Judgement) Line(set settings.Settings) string {
	what := fmt.Sprintf("the %s advisory %s (tool call #%d)", j.Kind, j.ID, j.Seq)
	if !j.Changed {
		return fmt.Sprintf("%s was already marked %s; nothing changed. %s.", what, j.Verdict, AdjustFor(set, j.Kind, j.Entry.Level).Describe(j.Kind))
	}
	note := ""
	if j.Note != "" {
		note = " (" + advice.Quote(j.Note, 200) + ")"
	}
	lvl := AdjustFor(set, j.Kind, j.Entry.Level)
	if lvl.Level == 0 {
		return fmt.Sprintf("marked %s %s%s. %s is back to its defaults for this developer.", what, j.Verdict, note, j.Kind)
	}
	return fmt.Sprintf("marked %s %s%s. For this developer, %s.", what, j.Verdict, note, lvl.Describe(j.Kind))
}

// judge records a judgement of one advisory of this session: in the window
// (the mark with its note, and for wrong the notice the agent is told
// once), then in the developer's profile under the global lock (taken after
// the session lock the hook holds, the order SessionEnd's learning uses).
// The profile is written first: a judgement that could not teach it is
// not recorded as made.
func (s *session) judge(ctx context.Context, id, kind string, seq int, verdict, note string) (Judgement, error) {
	note = fit.Runes(strings.TrimSpace(note), 500)
	j := Judgement{ID: id, Kind: kind, Verdict: verdict, Note: note, Seq: seq}
	e, changed, err := s.env.teachProfile(ctx, kind, id, verdict, s.now)
	if err != nil {
		return j, err
	}
	j.Entry, j.Changed = e, changed
	f := s.feedback()
	f.Marks = append(f.Marks, state.Mark{ID: id, Kind: kind, Verdict: verdict, Note: note, Time: s.now, Seq: seq})
	if n := len(f.Marks); n > state.MaxSessionMarks {
		f.Marks = append([]state.Mark(nil), f.Marks[n-state.MaxSessionMarks:]...)
	}
	switch verdict {
	case state.VerdictWrong:
		why := ""
		if note != "" {
			why = " Their note: " + advice.Quote(note, 200) + "."
		}
		f.Notice = fit.Runes(fmt.Sprintf("%s The user judged Djinn's %s advisory from tool call #%d wrong.%s Do not act on that advisory; carry on with the task as the user asked.",
			advice.Tag("feedback"), kind, seq, why), 2000)
	case state.VerdictRight:
		f.Notice = ""
	}
	return j, nil
}

// teachProfile applies a judgement to profile.json under the global lock.
func (e *Env) teachProfile(ctx context.Context, kind, id, verdict string, now time.Time) (state.ProfileEntry, bool, error) {
	lock, err := e.Store.LockGlobal(ctx)
	if err != nil {
		return state.ProfileEntry{}, false, err
	}
	defer func() { _ = lock.Unlock() }()
	prof, err := e.loadProfile()
	if err != nil {
		return state.ProfileEntry{}, false, err
	}
	entry, changed := prof.Judge(kind, e.developerKey(), id, verdict, now)
	if !changed {
		return entry, false, nil
	}
	if err := e.Store.Save(filepath.Join(e.Store.Root, state.ProfileFile), state.KindProfile, prof); err != nil {
		return entry, false, fmt.Errorf("save profile: %w", err)
	}
	return entry, true, nil
}

// wrongRe matches the /djinn:wrong skill as Claude Code passes it to
// UserPromptSubmit: the raw line, with the user's note after the command.
var wrongRe = lazyRegexp(`(?s)^/(?:djinn:)?wrong(?:\s+(.*))?$`)

// promptWrong applies /djinn:wrong [note]: the session's most recent
// advisory is marked wrong with the note, under the session lock the hook
// holds. The skill cannot pass user text on a command line, so the hook
// takes the note from the raw prompt. ok is false for any other prompt. The
// result goes to the person (a system message) and to the model, after
// the notice not to act on the advisory (say, the one assembly point).
func (s *session) promptWrong(ctx context.Context, p *Payload) (resp Response, ok bool, err error) {
	if p.HookEventName != UserPromptSubmit {
		return Response{}, false, nil
	}
	m := wrongRe().FindStringSubmatch(strings.TrimSpace(p.Prompt))
	if m == nil {
		return Response{}, false, nil
	}
	var last *state.Recent
	for i := len(s.w.Recent) - 1; i >= 0; i-- {
		if s.w.Recent[i].ID != "" {
			last = &s.w.Recent[i]
			break
		}
	}
	if last == nil {
		// A window written before advisory ids: the log names them.
		last = s.lastLogged()
	}
	if last == nil {
		text := "djinn wrong: this session has no advisory to mark yet. Nothing changed."
		return Response{Context: []string{text}, SystemMessage: text}, true, nil
	}
	j, err := s.judge(ctx, last.ID, last.Kind, last.Seq, state.VerdictWrong, m[1])
	if err != nil {
		return Response{}, true, err
	}
	text := "djinn wrong: " + j.Line(s.env.Settings)
	resp = Response{Context: []string{text}, SystemMessage: text}
	s.say(p, nil, &resp)
	return resp, true, nil
}

// lastLogged is the newest advisory in the session's advisories.jsonl that
// can be judged (not a reanchor), as a recent entry with its id.
func (s *session) lastLogged() *state.Recent {
	var last *state.Recent
	_, _ = s.env.Store.ReadLastLines(s.path("advisories.jsonl"), state.KindAdvisory, 1<<20, 16, func(raw []byte) error {
		var a state.Advisory
		if state.DecodeStrict(raw, &a) == nil && a.Kind != advice.KindReanchor {
			last = &state.Recent{Seq: a.Seq, Kind: a.Kind, ID: state.AdvisoryID(s.id, a)}
		}
		return nil
	})
	return last
}
