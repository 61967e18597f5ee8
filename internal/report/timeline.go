package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/internal/thousands"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// The session report: one self-contained HTML file (inline SVG and CSS, no
// script, nothing fetched) with the session's timeline of tool calls, drawn
// from turns.jsonl, advisories.jsonl, window.json and the goals.

//go:embed timeline.html.tmpl
var timelineHTML string

var timelineTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"sub":  func(a, b float64) float64 { return a - b },
	"half": func(a, b float64) float64 { return (a + b) / 2 },
}).Parse(timelineHTML))

// HTMLOptions are the report's settings.
type HTMLOptions struct {
	// Tiers are the context-pressure tiers, shares of the window.
	Tiers []float64
	// Source says where the session comes from ("" for a live session, the
	// transcript's name for a replay).
	Source string
	// Generated is the time the report is written.
	Generated time.Time
}

// Geometry of the chart, in the SVG's own units (it scales to the page).
const (
	chartW     = 1000.0
	plotL      = 130.0
	plotR      = 985.0
	driftH     = 100.0
	bandH      = 12.0
	callsH     = 12.0
	laneH      = 18.0
	contextH   = 130.0
	gap        = 8.0
	activeGap  = 10 * time.Minute // a longer pause between calls is not work time
	maxTitle   = 600              // runes of an advisory's text in its marker's tooltip
	maxRowText = 6000             // runes of an advisory's text in the table
)

// lane is one row of advisory markers: the kinds it holds.
type laneDef struct {
	Label string
	Kinds []string
	// Always: drawn even when empty (the detectors that watch every call).
	Always bool
}

var lanes = []laneDef{
	{"drift", []string{advice.KindDrift}, true},
	{"loops", []string{advice.KindReadLoop, advice.KindEditRevert, advice.KindFailLoop, advice.KindToolLoop}, true},
	{"stalls", []string{advice.KindStall}, true},
	{"pressure", []string{advice.KindPressure, advice.KindCompacted, advice.KindReanchor}, true},
	{"risk", []string{advice.KindRisk, kindInstruction}, false},
	{"complaints", []string{advice.KindRepeatComplaint}, false},
}

// kindInstruction is [djinn:instruction]'s kind (a call against an
// instruction the user gave), drawn in the risk lane.
const kindInstruction = advice.KindInstruction

// kindColor gives each advisory kind its marker's colour.
var kindColor = map[string]string{
	advice.KindDrift:           "#d62728",
	advice.KindReadLoop:        "#9467bd",
	advice.KindEditRevert:      "#8c564b",
	advice.KindFailLoop:        "#e377c2",
	advice.KindToolLoop:        "#7f7f7f",
	advice.KindStall:           "#bcbd22",
	advice.KindPressure:        "#ff7f0e",
	advice.KindCompacted:       "#1f77b4",
	advice.KindReanchor:        "#17becf",
	advice.KindRisk:            "#111111",
	kindInstruction:            "#6b21a8",
	advice.KindRepeatComplaint: "#2ca02c",
}

// verdictColor colours the task-state band.
var verdictColor = map[string]string{
	"on_task":              "#9bd39b",
	"tolerable_side_quest": "#9ec5ec",
	"refocus_moment":       "#f5d97a",
	"real_drift":           "#f08a8a",
	"insufficient_data":    "#dddddd",
}

var verdictOrder = []string{"on_task", "tolerable_side_quest", "refocus_moment", "real_drift", "insufficient_data"}

type (
	view struct {
		Title     string
		Session   string
		Source    string
		Generated string
		Summary   summaryView
		Chart     chartView
		Rows      []advRow
		Kinds     []legend
		Verdicts  []legend
		Truncated bool
	}
	summaryView struct {
		Goal, Task       string
		Calls            int
		Failed, Subagent int
		Prompts, Goals   int
		Compactions      int
		Span, Active     string
		OnTask           string
		Verdict          string
		Threshold        string
		Peak             string
		Window           string
		ByKind           []kindCount
		TotalAdvisories  int
		Observed         int
	}
	kindCount struct {
		Kind, Color    string
		Told, Observed int
	}
	legend struct{ Name, Color string }
	advRow struct {
		I                 int
		Seq               int
		Time, Kind, Color string
		Mode, Event       string
		Agent             string
		Text              string
		Numbers           string
	}
	chartView struct {
		W, H       float64
		L, R       float64
		Ticks      []tick
		Panels     []panel
		Score      []string
		Threshold  *hline
		Band       []rect
		Calls      []rect
		Lanes      []panel
		Markers    []marker
		Context    []string
		CtxUnknown []point
		Tiers      []hline
		Rules      []vrule
		Axis       []label
		Empty      bool
	}
	tick struct {
		X, Y1, Y2, TY float64
		Label         string
	}
	panel struct {
		Label    string
		Y, H, LY float64
	}
	hline struct {
		Y, LX, LY    float64
		Label, Class string
	}
	rect struct {
		X, Y, W, H         float64
		Fill, Class, Title string
		Seq                int
	}
	point struct {
		X, Y  float64
		Title string
	}
	label struct {
		X, Y float64
		Text string
	}
	vrule struct {
		X, Y1, Y2    float64
		Class, Title string
	}
	marker struct {
		I, Seq       int
		X, Y         float64
		Kind, Mode   string
		Fill, Stroke string
		Title        string
	}
)

// WriteHTML writes the session report of s.
func WriteHTML(w io.Writer, s *Session, opt HTMLOptions) error {
	return timelineTmpl.Execute(w, build(s, opt))
}

// build lays the report out: the chart's panels top to bottom, then the
// summary, the advisory rows and the legends.
func build(s *Session, opt HTMLOptions) *view {
	v := &view{Session: s.ID, Source: opt.Source, Truncated: s.Truncated}
	v.Title = "Djinn report: session " + advice.Clean(s.ID, 128)
	if !opt.Generated.IsZero() {
		v.Generated = opt.Generated.UTC().Format("2006-01-02 15:04 UTC")
	}
	l := newLayout(s, &v.Chart)
	l.driftPanel()
	verdicts := l.statePanel()
	l.callsPanel()
	present := l.advisoryLanes()
	limit, peak, why := l.contextPanel(opt.Tiers)
	l.rules(promptTexts(s))
	l.callAxis()

	v.Summary = summarize(s, verdicts, limit, peak, why)
	for i, a := range s.Advisories {
		r := advRow{I: i + 1, Seq: a.Seq, Kind: a.Kind, Color: colorOr(kindColor, a.Kind), Mode: modeOf(a.Mode), Event: a.Event, Agent: advice.Clean(a.AgentID, 60), Text: clipRunes(a.Text, maxRowText), Numbers: numbers(a.Numbers)}
		if !a.Time.IsZero() {
			r.Time = a.Time.UTC().Format("15:04:05")
		}
		v.Rows = append(v.Rows, r)
	}
	for _, k := range sortedKinds(present) {
		v.Kinds = append(v.Kinds, legend{k, colorOr(kindColor, k)})
	}
	for _, k := range verdictOrder {
		v.Verdicts = append(v.Verdicts, legend{k, verdictColor[k]})
	}
	return v
}

// layout places a session on the chart: calls lo+1 to hi across the plot,
// panels stacked down from top, y the top of the next one.
type layout struct {
	s      *Session
	c      *chartView
	turns  []state.Turn
	lo, hi int
	step   float64
	top, y float64
	bottom float64
}

func newLayout(s *Session, c *chartView) *layout {
	turns := s.Turns
	// x maps a call number to the chart: call k occupies (k-1, k].
	lo, hi := 0, 1
	if len(turns) > 0 {
		lo, hi = max(turns[0].Seq-1, 0), max(turns[len(turns)-1].Seq, turns[0].Seq)
	}
	for _, a := range s.Advisories {
		if !s.Truncated && a.Seq > hi {
			hi = a.Seq
		}
	}
	if hi <= lo {
		hi = lo + 1
	}
	c.W, c.L, c.R = chartW, plotL, plotR
	c.Empty = len(turns) == 0
	return &layout{s: s, c: c, turns: turns, lo: lo, hi: hi, step: (plotR - plotL) / float64(hi-lo), top: 28, y: 28}
}

// x is the right edge of call seq's slot.
func (l *layout) x(seq int) float64 {
	return plotL + float64(min(max(seq, l.lo), l.hi)-l.lo)*l.step
}

// cx is the middle of call seq's slot.
func (l *layout) cx(seq int) float64 {
	if seq <= l.lo {
		return plotL + min(l.step/2, 3)
	}
	return l.x(seq) - l.step/2
}

// driftPanel draws the drift score and its threshold.
func (l *layout) driftPanel() {
	c, y := l.c, l.y
	c.Panels = append(c.Panels, panel{Label: "drift score", Y: y, H: driftH, LY: y + driftH/2})
	sy := func(score float64) float64 { return y + (1-score)*driftH }
	var pts []string
	for _, t := range l.turns {
		if t.Score != nil {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", l.cx(t.Seq), sy(*t.Score)))
		}
	}
	if len(pts) > 0 {
		c.Score = []string{strings.Join(pts, " ")}
	}
	c.Axis = append(c.Axis, label{X: plotL - 3, Y: sy(1) + 3, Text: "1"}, label{X: plotL - 3, Y: sy(0), Text: "0"})
	if d := l.s.Window.Drift; d != nil && d.Threshold > 0 {
		c.Threshold = &hline{Y: sy(d.Threshold), LX: plotR - 4, LY: sy(d.Threshold) - 3, Label: fmt.Sprintf("threshold %.2f (%s)", d.Threshold, advice.Clean(d.ThresholdSource, 40)), Class: "threshold"}
	}
	l.y += driftH + 6
}

// statePanel draws the task-state band: the drift verdict after each call
// (the task-state model's reading when the score is under the threshold),
// carried over calls that were not scored. It returns the verdicts.
func (l *layout) statePanel() []string {
	c, y, turns := l.c, l.y, l.turns
	c.Panels = append(c.Panels, panel{Label: "task state", Y: y, H: bandH, LY: y + bandH/2})
	verdicts := make([]string, len(turns))
	cur := ""
	for i, t := range turns {
		if t.Verdict != "" {
			cur = t.Verdict
		}
		verdicts[i] = cur
	}
	for i := 0; i < len(turns); {
		j := i
		for j+1 < len(turns) && verdicts[j+1] == verdicts[i] {
			j++
		}
		if k := verdicts[i]; k != "" {
			title := fmt.Sprintf("%s: calls #%d–#%d", k, turns[i].Seq, turns[j].Seq)
			c.Band = append(c.Band, rect{X: l.x(turns[i].Seq - 1), Y: y, W: l.x(turns[j].Seq) - l.x(turns[i].Seq-1), H: bandH, Fill: colorOr(verdictColor, k), Class: "state", Title: title})
		}
		i = j + 1
	}
	l.y += bandH + 4
	return verdicts
}

// callsPanel draws one tick per tool call: failed ones red, a subagent's
// lighter.
func (l *layout) callsPanel() {
	c, y, step := l.c, l.y, l.step
	c.Panels = append(c.Panels, panel{Label: "tool calls", Y: y, H: callsH, LY: y + callsH/2})
	w := max(step-0.4, 0.5)
	if step > 6 {
		w = step - 2
	}
	for _, t := range l.turns {
		cls, fill := "call", "#6b7a8f"
		if t.AgentID != "" {
			cls, fill = "call subagent", "#b7c0cc"
		}
		if t.Failed {
			cls, fill = cls+" failed", "#d62728"
		}
		title := fmt.Sprintf("#%d %s", t.Seq, advice.Clean(t.Summary, 200))
		if t.Summary == "" {
			title = fmt.Sprintf("#%d %s", t.Seq, advice.Clean(t.Tool, 80))
		}
		if t.AgentID != "" {
			title += " (subagent " + advice.Clean(t.AgentID, 40) + ")"
		}
		if t.Failed {
			title += " — failed"
		}
		c.Calls = append(c.Calls, rect{X: l.x(t.Seq-1) + (step-w)/2, Y: y, W: w, H: callsH, Fill: fill, Class: cls, Title: title, Seq: t.Seq})
	}
	l.y += callsH + gap
}

// advisoryLanes draws a lane per kind of advisory the session has (and
// those always shown), one marker per advisory, and returns the kinds
// present.
func (l *layout) advisoryLanes() map[string]bool {
	c, y, s := l.c, l.y, l.s
	laneOf := map[string]int{}
	var shown []laneDef
	present := map[string]bool{}
	for _, a := range s.Advisories {
		present[a.Kind] = true
	}
	for _, ld := range lanes {
		has := ld.Always
		for _, k := range ld.Kinds {
			has = has || present[k]
		}
		if has {
			for _, k := range ld.Kinds {
				laneOf[k] = len(shown)
			}
			shown = append(shown, ld)
		}
	}
	other := -1
	for k := range present {
		if _, ok := laneOf[k]; !ok {
			other = len(shown)
			shown = append(shown, laneDef{Label: "other"})
			break
		}
	}
	for i, ld := range shown {
		c.Lanes = append(c.Lanes, panel{Label: ld.Label, Y: y + float64(i)*laneH, H: laneH, LY: y + float64(i)*laneH + laneH/2})
	}
	for i, a := range s.Advisories {
		if s.Truncated && a.Seq < l.lo {
			continue
		}
		li, ok := laneOf[a.Kind]
		if !ok {
			li = other
		}
		col := colorOr(kindColor, a.Kind)
		// An advisory of a tool call sits on its call; one of another
		// event (a prompt, a stop, a compaction) after the call it follows.
		ax := l.cx(a.Seq)
		if a.Event != "PostToolUse" && a.Event != "PostToolUseFailure" && a.Seq > l.lo {
			ax = l.x(a.Seq)
		}
		m := marker{I: i + 1, Seq: a.Seq, X: ax, Y: y + float64(li)*laneH + laneH/2, Kind: a.Kind, Mode: modeOf(a.Mode), Fill: col, Stroke: col}
		if m.Mode == string(settings.Observe) {
			m.Fill = "#ffffff"
		}
		m.Title = markerTitle(i+1, a.Seq, a.Kind, m.Mode, a.Text, a.Numbers)
		c.Markers = append(c.Markers, m)
	}
	l.y += float64(len(shown))*laneH + gap
	return present
}

// contextPanel draws the context curve (broken at each compaction and
// where the reading is unknown), the tiers and the window, and returns
// the window, the peak and where the window came from.
func (l *layout) contextPanel(tiers []float64) (limit, peak int64, why string) {
	c, y := l.c, l.y
	c.Panels = append(c.Panels, panel{Label: "context", Y: y, H: contextH, LY: y + contextH/2})
	if ps := l.s.Window.Pressure; ps != nil {
		limit, peak, why = ps.Limit, ps.Peak, ps.Window
	}
	for _, t := range l.turns {
		peak = max(peak, t.Context)
	}
	scale := float64(max(limit, peak))
	if limit == 0 {
		scale = float64(max(peak, 200_000))
	}
	scale *= 1.08
	ty := func(tokens float64) float64 { return y + contextH - tokens/scale*contextH }
	c.Axis = append(c.Axis, label{X: plotL - 3, Y: y + 8, Text: kilo(scale)}, label{X: plotL - 3, Y: y + contextH, Text: "0"})
	base := 200_000.0
	if limit > 0 {
		base = float64(limit)
		c.Tiers = append(c.Tiers, hline{Y: ty(base), LX: plotR - 4, LY: ty(base) - 3, Label: fmt.Sprintf("window %s", thousands.Group(limit)), Class: "window"})
	}
	for _, tier := range tiers {
		label := fmt.Sprintf("tier %.0f%%", tier*100)
		cls := "tier"
		if limit == 0 {
			label += " of 200,000 (window unknown)"
			cls = "tier unknown"
		}
		c.Tiers = append(c.Tiers, hline{Y: ty(tier * base), LX: plotR - 4, LY: ty(tier*base) - 3, Label: label, Class: cls})
	}
	var seg []string
	prevComp := 0
	if len(l.turns) > 0 {
		prevComp = l.turns[0].Compactions
	}
	flush := func() {
		if len(seg) > 0 {
			c.Context = append(c.Context, strings.Join(seg, " "))
			seg = nil
		}
	}
	for _, t := range l.turns {
		if t.Compactions != prevComp {
			flush()
			prevComp = t.Compactions
		}
		if t.Context <= 0 {
			flush()
			c.CtxUnknown = append(c.CtxUnknown, point{X: l.cx(t.Seq), Y: y + contextH - 2, Title: fmt.Sprintf("#%d: context unknown (no reading since the compaction)", t.Seq)})
			continue
		}
		seg = append(seg, fmt.Sprintf("%.1f,%.1f", l.cx(t.Seq), ty(float64(t.Context))))
	}
	flush()
	l.y += contextH
	l.bottom = l.y
	return limit, peak, why
}

// rules draws the vertical rules across the panels: user prompts, new
// goals, compactions.
func (l *layout) rules(texts texts) {
	c, turns, top, bottom := l.c, l.turns, l.top, l.bottom
	prevPrompt, prevGoals, prevComps := "", 0, 0
	if len(turns) > 0 && turns[0].Seq > 1 {
		// Read from the middle of the log: what came before is unknown.
		prevPrompt, prevGoals, prevComps = turns[0].PromptID, turns[0].Goals, turns[0].Compactions
	}
	for _, t := range turns {
		rx := l.x(t.Seq - 1)
		if t.Compactions > prevComps {
			n := t.Compactions - prevComps
			title := fmt.Sprintf("compaction before call #%d", t.Seq)
			if n > 1 {
				title = fmt.Sprintf("%d compactions before call #%d", n, t.Seq)
			}
			c.Rules = append(c.Rules, vrule{X: rx, Y1: top, Y2: bottom, Class: "compaction", Title: title})
		}
		if t.Goals > prevGoals {
			title := fmt.Sprintf("new goal before call #%d", t.Seq)
			if g := texts.goal[t.PromptID]; g != "" {
				title += ": " + advice.Clean(g, 300)
			}
			c.Rules = append(c.Rules, vrule{X: rx, Y1: top, Y2: bottom, Class: "goal", Title: title})
		}
		if t.PromptID != "" && t.PromptID != prevPrompt {
			title := fmt.Sprintf("user prompt before call #%d", t.Seq)
			if p := texts.prompt[t.PromptID]; p != "" {
				title += ": " + advice.Clean(p, 300)
			}
			c.Rules = append(c.Rules, vrule{X: rx, Y1: top, Y2: bottom, Class: "prompt", Title: title})
		}
		prevPrompt, prevGoals, prevComps = t.PromptID, t.Goals, t.Compactions
	}
	if ps := l.s.Window.Pressure; ps != nil && ps.Compactions > prevComps && len(turns) > 0 {
		c.Rules = append(c.Rules, vrule{X: plotR, Y1: top, Y2: bottom, Class: "compaction", Title: "compaction after the last call"})
	}
}

// callAxis draws the call numbers along the top and sets the chart's
// height.
func (l *layout) callAxis() {
	ts := tickStep(l.hi - l.lo)
	for k := (l.lo/ts + 1) * ts; k <= l.hi; k += ts {
		l.c.Ticks = append(l.c.Ticks, tick{X: l.cx(k), Y1: l.top - 4, Y2: l.bottom, TY: l.top - 8, Label: fmt.Sprintf("#%d", k)})
	}
	l.c.H = l.bottom + 12
}

// summarize is the report's head: goal, calls, advisories by kind, time.
func summarize(s *Session, verdicts []string, limit, peak int64, why string) summaryView {
	sum := summaryView{Goal: "none recorded", Calls: len(s.Turns), Goals: s.Window.Goals}
	if a := s.Anchor; a != nil {
		sum.Goal = advice.Clean(a.Text, 1000)
		if a.Task != nil && a.Task.Text != "" && a.Task.Text != a.Text {
			sum.Task = advice.Clean(a.Task.Text, 1000)
		}
	}
	if s.Truncated {
		sum.Calls = s.Window.ToolCalls
	}
	if ps := s.Window.Pressure; ps != nil {
		sum.Compactions = ps.Compactions
	}
	prompts := map[string]bool{}
	var onTask, active time.Duration
	for i, t := range s.Turns {
		if t.Failed {
			sum.Failed++
		}
		if t.AgentID != "" {
			sum.Subagent++
		}
		if t.PromptID != "" {
			prompts[t.PromptID] = true
		}
		if i+1 < len(s.Turns) {
			if d := s.Turns[i+1].Time.Sub(t.Time); d > 0 && d <= activeGap {
				active += d
				if verdicts[i] == "on_task" {
					onTask += d
				}
			}
		}
	}
	sum.Prompts = len(prompts)
	if n := len(s.Turns); n > 1 {
		sum.Span = duration(s.Turns[n-1].Time.Sub(s.Turns[0].Time))
		sum.Active = duration(active)
		sum.OnTask = duration(onTask)
	}
	if d := s.Window.Drift; d != nil {
		sum.Threshold = fmt.Sprintf("%.2f (%s)", d.Threshold, advice.Clean(d.ThresholdSource, 40))
		if v := d.Verdict; v != nil {
			sum.Verdict = fmt.Sprintf("%s, score %.2f", advice.Clean(v.Kind, 40), v.Score)
		}
	}
	if peak > 0 {
		sum.Peak = thousands.Group(peak) + " tokens"
	}
	switch {
	case limit > 0:
		sum.Window = thousands.Group(limit) + " tokens"
	default:
		sum.Window = "unknown"
	}
	if why != "" {
		sum.Window += " (" + advice.Clean(why, 200) + ")"
	}
	counts := map[string]*kindCount{}
	for _, a := range s.Advisories {
		kc := counts[a.Kind]
		if kc == nil {
			kc = &kindCount{Kind: a.Kind, Color: colorOr(kindColor, a.Kind)}
			counts[a.Kind] = kc
		}
		if modeOf(a.Mode) == string(settings.Observe) {
			kc.Observed++
			sum.Observed++
		} else {
			kc.Told++
		}
		sum.TotalAdvisories++
	}
	kinds := map[string]bool{}
	for k := range counts {
		kinds[k] = true
	}
	for _, k := range sortedKinds(kinds) {
		sum.ByKind = append(sum.ByKind, *counts[k])
	}
	return sum
}

// texts are the words of the prompts the goals know, by prompt id.
type texts struct{ prompt, goal map[string]string }

func promptTexts(s *Session) texts {
	t := texts{prompt: map[string]string{}, goal: map[string]string{}}
	add := func(id, text string) {
		if id != "" && text != "" {
			if _, ok := t.prompt[id]; !ok {
				t.prompt[id] = text
			}
		}
	}
	for i := range len(s.Archived) + 1 {
		a := s.Anchor
		if i < len(s.Archived) {
			a = &s.Archived[i]
		}
		if a == nil {
			continue
		}
		t.goal[a.PromptID] = a.Text
		add(a.PromptID, a.Text)
		if a.Task != nil {
			add(a.Task.PromptID, a.Task.Text)
		}
		for _, d := range a.Instructions {
			add(d.PromptID, d.Text)
		}
		for _, d := range a.Deltas {
			add(d.PromptID, d.Text)
		}
	}
	return t
}

func markerTitle(i, seq int, kind, mode, text string, nums map[string]float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "advisory %d, call #%d: %s", i, seq, kind)
	if mode == string(settings.Observe) {
		b.WriteString(" (observed, not told to the agent)")
	}
	b.WriteString("\n")
	b.WriteString(clipRunes(strings.TrimSpace(strings.TrimPrefix(text, advice.Tag(kind))), maxTitle))
	if n := numbers(nums); n != "" {
		b.WriteString("\n" + n)
	}
	return b.String()
}

// numbers prints an advisory's figures, sorted by name.
func numbers(m map[string]float64) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%s", k, trimFloat(m[k]))
	}
	return strings.Join(parts, " ")
}

func trimFloat(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.3g", f)
}

func modeOf(m string) string {
	if m == "" {
		return string(settings.Advise)
	}
	return m
}

func colorOr(m map[string]string, k string) string {
	if c, ok := m[k]; ok {
		return c
	}
	return "#555555"
}

// sortedKinds orders kinds as the lanes do, unknown ones last.
func sortedKinds(set map[string]bool) []string {
	rank := map[string]int{}
	n := 0
	for _, l := range lanes {
		for _, k := range l.Kinds {
			rank[k] = n
			n++
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		ri, oki := rank[out[i]]
		rj, okj := rank[out[j]]
		switch {
		case oki && okj:
			return ri < rj
		case oki != okj:
			return oki
		}
		return out[i] < out[j]
	})
	return out
}

// tickStep is a round step giving about ten ticks over n calls.
func tickStep(n int) int {
	for _, s := range []int{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000} {
		if n/s <= 12 {
			return s
		}
	}
	return 10000
}

// kilo writes a token count in thousands ("180k").
func kilo(f float64) string { return fmt.Sprintf("%.0fk", f/1000) }

func duration(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh %02dm", h, m)
	case m > 0:
		return fmt.Sprintf("%dm %02ds", m, s)
	}
	return fmt.Sprintf("%ds", s)
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
