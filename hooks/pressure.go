package hooks

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"

	"github.com/djinn-cc/djinn/engines/pressure"
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/hooks/transcript"
	"github.com/djinn-cc/djinn/internal/sat"
	"github.com/djinn-cc/djinn/state"
)

// Context pressure (seed 004). The meter is the transcript's latest
// main-chain usage (input + cache creation + cache read tokens), read from
// the end of the file within a fixed byte budget; the window is
// pressure.limit, else the CLI's rule for the response's model, the
// session's model setting and the CLI's environment (engines/pressure's
// Window), unknown where that cannot tell until the context proves it
// larger. Each tier is announced once as it is crossed and re-armed
// once the context falls rearm_drop below it: the rules
// are engines/pressure's; this file reads the meter and keeps its state.

// measure reads the transcript once per hook (bounded), keeping the cursor.
func (s *session) measure(p *Payload) (transcript.Scan, bool) {
	if s.scanned {
		return s.scan, s.scanOK
	}
	s.scanned, s.scanFrom = true, -1
	path := p.TranscriptPath
	if path == "" {
		return s.scan, false
	}
	prev := s.meterCursor()
	if prev != nil {
		s.scanFrom = prev.Boundary
	}
	// The hot path needs the latest usage and the latest prose only; what
	// fills the context comes from turns.jsonl when a tier is crossed. The
	// recent text (2,000 runes, for the tier advisory's numbers) can mean
	// decoding every assistant line of the 1 MiB window, so it is read only
	// when this hook may announce a tier (20x less work per hook on the
	// corpus: BenchmarkMeasureHotPath).
	opt := transcript.HookOptions()
	if d := s.w.Drift; d != nil && p.HookEventName != Stop {
		// The drift signal has taken this message's text already (Stop's
		// stall check needs the text whatever the mark).
		opt.KnownMessage = d.TextMark
	}
	scan, err := transcript.Measure(path, prev, opt)
	if err == nil && s.mayAnnounce(scan.Reading) {
		opt.LastTextOnly = false
		scan, err = transcript.Measure(path, prev, opt)
	}
	if err != nil && scan.Reading.Source == transcript.SourceNone {
		return scan, false
	}
	s.scan, s.scanOK = scan, true
	if raw, err := json.Marshal(scan.Cursor); err == nil {
		s.pressureState().Cursor = raw
	}
	if p.AgentID == "" && s.scanFrom >= 0 {
		// What the person typed while the agent worked, among the lines
		// this reading passes: read here, so no reading passes it over.
		s.takeQueued(p, scan.Cursor.Boundary)
	}
	return scan, true
}

// meterCursor is the cursor the meter left at the last hook that read the
// transcript, or nil.
func (s *session) meterCursor() *transcript.Cursor {
	if s.w.Pressure == nil || len(s.w.Pressure.Cursor) == 0 {
		return nil
	}
	var c transcript.Cursor
	if json.Unmarshal(s.w.Pressure.Cursor, &c) != nil {
		return nil
	}
	return &c
}

// mayAnnounce reports whether this hook may announce a pressure tier: one
// is pending from an earlier hook, or the reading crosses one.
func (s *session) mayAnnounce(r transcript.Reading) bool {
	if s.w.Pressure != nil && s.w.Pressure.Pending != 0 {
		return true
	}
	if !r.Found {
		return false
	}
	m := s.meter()
	return m.Crosses(r.Tokens, r.Model, s.env.Settings.Pressure.Config, s.cliEnv())
}

func (s *session) pressureState() *state.Pressure {
	if s.w.Pressure == nil {
		s.w.Pressure = &state.Pressure{}
	}
	ps := s.w.Pressure
	if ps.Announced == nil || len(ps.Announced) != len(s.env.Settings.Pressure.Tiers) {
		m := s.meter()
		m.Fit(len(s.env.Settings.Pressure.Tiers))
		ps.Announced = m.Announced
	}
	return ps
}

// meter is the pressure engine's view of the window's pressure state (the
// Announced slice is shared); keepMeter writes it back.
func (s *session) meter() pressure.State {
	ps := s.w.Pressure
	if ps == nil {
		return pressure.State{}
	}
	return pressure.State{Tokens: ps.Tokens, Limit: ps.Limit, Why: ps.Window, Peak: ps.Peak, Model: ps.Model, Configured: ps.Configured,
		Stale: ps.Stale, Announced: ps.Announced, Pending: ps.Pending}
}

// cliEnv is what the CLI's environment, which hooks inherit, says about
// the window.
func (s *session) cliEnv() pressure.Env {
	if s.env.Getenv == nil {
		return pressure.EnvFrom(func(string) string { return "" })
	}
	return pressure.EnvFrom(s.env.Getenv)
}

func (s *session) keepMeter(m pressure.State) {
	ps := s.pressureState()
	ps.Tokens, ps.Limit, ps.Window, ps.Peak, ps.Stale, ps.Announced, ps.Pending = m.Tokens, m.Limit, m.Why, m.Peak, m.Stale, m.Announced, m.Pending
	ps.Model, ps.Configured = m.Model, m.Configured
}

// observe updates the meter from a token count (of a response from model,
// "" if not known) and returns the index of a tier newly crossed (-1 if
// none).
func (s *session) observe(tokens int64, model string) int {
	s.pressureState()
	m := s.meter()
	crossed := m.Observe(tokens, advice.Clean(model, 120), s.env.Settings.Pressure.Config, s.cliEnv())
	s.keepMeter(m)
	return crossed
}

// meterCompacted marks the meter stale after a compaction.
func (s *session) meterCompacted() {
	s.pressureState()
	m := s.meter()
	m.Compacted()
	s.keepMeter(m)
}

// meterEvent reads the meter at any hook that carries the transcript, so
// the reading always matches the transcript as it stands; a tier crossed at
// an event that cannot speak (Stop, PreCompact) waits for the next one that
// can.
func (s *session) meterEvent(p *Payload) {
	scan, ok := s.measure(p)
	if !ok {
		return
	}
	ps := s.pressureState()
	switch {
	case scan.Reading.Found:
		if tier := s.observe(scan.Reading.Tokens, scan.Reading.Model); tier >= 0 {
			ps.Pending = tier + 1
		}
	case scan.Reading.Stale:
		// A compact_boundary after the latest usage: the context was
		// compacted, whether or not PreCompact reached us.
		if ps.Stale {
			ps.Compacted = s.w.ToolCalls // the same compaction, still unread
		} else {
			ps.Stale = true
			s.compacted()
		}
	}
}

// compacted notes that the context was compacted at the current tool call:
// the outputs of the calls so far are gone from it (contextFill).
// PreCompact, SessionStart(compact) and a stale reading may each note the
// same compaction: one noted at the same tool call as the last is counted
// once.
func (s *session) compacted() {
	ps := s.pressureState()
	if ps.Compacted != s.w.ToolCalls || ps.Compactions == 0 {
		sat.Inc(&ps.Compactions)
	}
	ps.Compacted = s.w.ToolCalls
}

// pressureCheck announces a tier crossed since the last hook that could
// speak.
func (s *session) pressureCheck(p *Payload) []advice.Advisory {
	s.pressureState()
	m := s.meter()
	tier, ok := m.TakePending(s.env.Settings.Pressure.Config)
	s.keepMeter(m)
	if !ok {
		return nil // none, or re-armed meanwhile
	}
	scan, _ := s.measure(p)
	f := s.pressureFacts(tier, scan)
	if !advice.PressureWorthSaying(f, s.env.Settings.Pressure.MinOutputShare) {
		return nil // the tier stays announced: said or not, once
	}
	if f.Top {
		s.userMessage = advice.PressureUserMessage(f)
	}
	return []advice.Advisory{advice.Pressure(f)}
}

// pressureFacts gathers a tier crossing's facts, reading turns.jsonl (a
// rare event may read the session's logs, up to a bound) for what fills the
// context; at the top tier they carry a ready /compact line.
func (s *session) pressureFacts(tier int, scan transcript.Scan) advice.PressureFacts {
	ps := s.pressureState()
	set := s.env.Settings.Pressure
	w := s.meter().Window(set.Config, s.cliEnv())
	f := advice.PressureFacts{
		Tokens: ps.Tokens, Limit: w.Max, Share: float64(ps.Tokens) / float64(w.Max), Unknown: !w.Known(),
		Tier: tier + 1, Tiers: len(set.Tiers), TierShare: set.Tiers[tier], Top: tier == len(set.Tiers)-1,
	}
	f.ToolChars, f.TextChars, f.Biggest = s.contextFill(scan)
	if f.Top {
		f.Compact = s.compactLine()
	}
	return f
}

// contextFill sums what the session's recent tool outputs hold (from
// turns.jsonl, its last 256 KiB, about 1,000 calls) against the assistant text the
// transcript window shows, and names the biggest outputs. Only the main
// agent's calls since the last compaction count: a compaction removed the
// outputs before it from the context.
func (s *session) contextFill(scan transcript.Scan) (toolChars, textChars int, biggest []advice.Output) {
	since := s.pressureState().Compacted
	var turns []state.Turn
	_, _ = s.env.Store.ReadLines(s.path("turns.jsonl"), state.KindTurn, 256<<10, func(raw []byte) error {
		var t state.Turn
		if json.Unmarshal(raw, &t) == nil && t.AgentID == "" && t.Seq > since {
			turns = append(turns, t)
		}
		return nil
	})
	for _, t := range s.turns {
		if t.AgentID == "" && t.Seq > since {
			turns = append(turns, t)
		}
	}
	for _, t := range turns {
		toolChars += t.OutputChars
	}
	sort.SliceStable(turns, func(i, j int) bool { return turns[i].OutputChars > turns[j].OutputChars })
	for _, t := range turns {
		if len(biggest) == 3 || t.OutputChars == 0 {
			break
		}
		biggest = append(biggest, advice.Output{Call: t.Seq, Summary: t.Summary, Chars: t.OutputChars})
	}
	textChars = len([]rune(scan.RecentText))
	return toolChars, textChars, biggest
}

// compactLine builds the ready-to-paste /compact focus from the anchor, its
// constraint deltas and the load-bearing files.
func (s *session) compactLine() string {
	a, _ := s.loadAnchor()
	var goal string
	var deltas []string
	if a != nil {
		goal = currentTask(a).Text
		for _, d := range a.Deltas {
			// The prompt that is the task now is said once, as the goal
			// (ext-paymentkit #90 gave it as both).
			if d.Text != goal {
				deltas = append(deltas, d.Text)
			}
		}
	}
	files := s.loadBearingFiles(5)
	return advice.CompactLine(goal, deltas, files)
}

// loadBearingFiles runs /djinn:rank's PageRank over the session's calls and
// returns the files of the top-ranked ones.
func (s *session) loadBearingFiles(n int) []string {
	// Rare events may read the logs, up to a bound: the last 100 calls
	// (about 25 KB of turns.jsonl) are the work a context about to be
	// compacted still shows, and reading, checking and decoding them is
	// most of what PreCompact and SessionStart(compact) cost, which are on
	// the agent's path too.
	var out []string
	for _, files := range s.topCalls(100, 32<<10, 10) {
		for _, f := range files {
			if len(out) == n {
				return out
			}
			if f := filepath.ToSlash(f); f != "" && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// sessionModel keeps SessionStart's model (the session's model setting,
// which may carry the [1m] the transcript never shows).
func (s *session) sessionModel(p *Payload) {
	if p.Model == "" {
		return
	}
	ps := s.pressureState()
	ps.Configured = advice.Clean(p.Model, 120)
	if ps.Tokens > 0 {
		m := s.meter()
		w := m.Window(s.env.Settings.Pressure.Config, s.cliEnv())
		ps.Limit, ps.Window = w.Limit(), w.Why
	}
}

// resumeContext uses SessionStart(resume)'s context_tokens (which also
// count output tokens) when nothing better is known.
func (s *session) resumeContext(p *Payload) {
	if p.ContextTokens == nil || *p.ContextTokens <= 0 {
		return
	}
	ps := s.pressureState()
	if ps.Tokens == 0 || ps.Stale {
		if tier := s.observe(int64(*p.ContextTokens), ""); tier >= 0 {
			ps.Pending = tier + 1 // said at the next hook that can speak
		}
	}
}
