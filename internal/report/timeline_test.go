package report

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/state"
)

// tagRe finds the report's tags; the template's own are the only ones,
// with only its own attributes: text from the session never becomes markup.
var (
	tagRe  = regexp.MustCompile(`<[^>]*>`)
	nameRe = regexp.MustCompile(`^</?([a-zA-Z0-9!]+)`)
	attrRe = regexp.MustCompile(`\s([a-zA-Z-]+)=`)
	quoted = regexp.MustCompile(`"[^"]*"`)
)

var allowedTags = strings.Fields("!DOCTYPE html head meta title style body h1 h2 p dl dt dd span i div svg rect text line g polyline circle a table thead tbody tr th td pre")
var allowedAttrs = strings.Fields("lang charset name content http-equiv class id data-calls data-kind data-count data-mode data-seq style viewBox role aria-label x y width height text-anchor dominant-baseline x1 x2 y1 y2 fill stroke points cx cy r href")

// markupProblem returns the first tag or attribute the template does not
// write, "" when there is none.
func markupProblem(html string) string {
	for _, tag := range tagRe.FindAllString(html, -1) {
		m := nameRe.FindStringSubmatch(tag)
		if m == nil || !slices.Contains(allowedTags, m[1]) {
			return tag
		}
		for _, a := range attrRe.FindAllStringSubmatch(quoted.ReplaceAllString(tag, `""`), -1) {
			if !slices.Contains(allowedAttrs, a[1]) {
				return tag
			}
		}
	}
	return ""
}

// FuzzWriteHTML: whatever the session's files hold (they quote tool output
// and prompts), the report renders, holds one marker per advisory and one
// call tick per turn, and the text never becomes markup.
func FuzzWriteHTML(f *testing.F) {
	f.Add("Edit", "a.go </title><script>alert(1)</script>", "drift", "[djinn:drift] <img src=x onerror=alert(1)>", "p1", 3, 0.5, int64(1000))
	f.Add("", "", "", "", "", 0, 0.0, int64(0))
	f.Fuzz(func(t *testing.T, tool, summary, kind, text, prompt string, seq int, score float64, ctx int64) {
		seq = max(0, seq%1000)
		sc := score
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		s := &Session{ID: "s1", Anchor: &state.Anchor{Text: text, PromptID: prompt}}
		s.Window.Drift = &state.Drift{Threshold: 0.7, ThresholdSource: summary}
		s.Window.Pressure = &state.Pressure{Limit: max(0, ctx), Window: summary, Compactions: 2}
		for i := 1; i <= 3; i++ {
			s.Turns = append(s.Turns, state.Turn{Seq: seq + i, Time: t0.Add(time.Duration(i) * time.Minute), Tool: tool, Summary: summary, PromptID: prompt, Score: &sc, Verdict: kind, Context: ctx, Compactions: i - 1, Goals: i, Failed: i == 2, AgentID: summary})
		}
		s.Advisories = []state.Advisory{{Kind: kind, Text: text, Seq: seq, Mode: prompt, Numbers: map[string]float64{summary: score}}, {Kind: "drift", Text: text, Seq: seq + 2}}
		var b bytes.Buffer
		if err := WriteHTML(&b, s, HTMLOptions{Tiers: []float64{0.4, 0.7}, Source: summary}); err != nil {
			t.Fatal(err)
		}
		html := b.String()
		if m := markupProblem(html); m != "" {
			t.Fatalf("the report holds markup the template does not write: %q", m)
		}
		if n := strings.Count(html, `<circle class="marker"`); n != 2 {
			t.Errorf("%d markers, want 2", n)
		}
		if n := strings.Count(html, `<rect class="call`); n != 3 {
			t.Errorf("%d call ticks, want 3", n)
		}
	})
}

// TestEmptySession: a session without tool calls or advisories renders,
// and says so.
func TestEmptySession(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, &Session{ID: "s0"}, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"no tool calls recorded yet", "goal</dt><dd class=\"goal\" id=\"goal\">none recorded", "<p>None.</p>"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report of an empty session lacks %q", want)
		}
	}
}

// TestTruncatedSession: read from the middle of a long log, the timeline
// starts at the first turn read, draws no rule for what came before it, and
// leaves out the advisories of calls it does not show.
func TestTruncatedSession(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &Session{ID: "s1", Truncated: true}
	s.Window.ToolCalls = 9000
	for i := 8001; i <= 9000; i++ {
		s.Turns = append(s.Turns, state.Turn{Seq: i, Time: t0.Add(time.Duration(i) * time.Second), Tool: "Read", PromptID: "p9", Goals: 4, Compactions: 3, Context: 1000})
	}
	s.Advisories = []state.Advisory{{Kind: "drift", Seq: 10}, {Kind: "drift", Seq: 8500}}
	var b bytes.Buffer
	if err := WriteHTML(&b, s, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for what, n := range map[string]int{`<circle class="marker"`: 1, `class="rule `: 0, `<rect class="call`: 1000, `data-calls="9000"`: 1, "Only the newest tool calls were read": 1} {
		if got := strings.Count(html, what); got != n {
			t.Errorf("%d of %s, want %d", got, what, n)
		}
	}
}
