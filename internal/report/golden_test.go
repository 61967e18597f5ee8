package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/state"
)

var update = flag.Bool("update", false, "rewrite the golden report")

// goldenSession has every part of the timeline: drift scores and
// verdicts, main and subagent calls, failures, advisories told and
// observed in known lanes and an unknown kind's, prompts, a new goal, two
// compactions (one with no context reading after it), the window and its
// tiers.
func goldenSession() *Session {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	s := &Session{ID: "golden-1", Anchor: &state.Anchor{Text: "fix the flaky login test", PromptID: "p1",
		Task: &state.Task{Text: "now make the retry configurable", PromptID: "p2"}}}
	s.Window.ToolCalls = 24
	s.Window.Goals = 2
	s.Window.Drift = &state.Drift{Threshold: 0.7, ThresholdSource: "default"}
	s.Window.Pressure = &state.Pressure{Limit: 200_000, Peak: 150_000, Window: "model claude-sonnet-4-5", Compactions: 2}
	verdicts := []string{"on_task", "on_task", "tolerable_side_quest", "refocus_moment", "real_drift", "", "insufficient_data"}
	for i := 1; i <= 24; i++ {
		score := float64(i%10) / 10
		t := state.Turn{Seq: i, Time: t0.Add(time.Duration(i*37) * time.Second), Tool: "Bash", Summary: "go test ./...", PromptID: "p1",
			Score: &score, Verdict: verdicts[i%len(verdicts)], Context: int64(4000 * i), Goals: 1}
		switch {
		case i%5 == 0:
			t.Failed = true
		case i%7 == 0:
			t.AgentID, t.Tool, t.Summary = "a1b2c3", "Read", ""
		}
		if i > 12 {
			t.PromptID, t.Goals, t.Compactions = "p2", 2, 1
		}
		if i == 18 {
			t.Context = 0
		}
		s.Turns = append(s.Turns, t)
	}
	s.Advisories = []state.Advisory{
		{Kind: "fail-loop", Text: "[djinn:fail-loop] 3 calls failed", Seq: 15, Event: "PostToolUseFailure", Mode: "advise", Time: t0.Add(10 * time.Minute), Numbers: map[string]float64{"count": 3}},
		{Kind: "drift", Text: "[djinn:drift] off goal", Seq: 16, Event: "PostToolUse", Mode: "observe"},
		{Kind: "pressure", Text: "[djinn:pressure] 55%", Seq: 20, Event: "UserPromptSubmit", Mode: "observe", AgentID: "a1b2c3"},
		{Kind: "made-up-kind", Text: "[djinn:made-up-kind] x", Seq: 22, Event: "Stop"},
	}
	return s
}

// TestReportGolden: the report of goldenSession, byte for byte
// (go test ./internal/report -run Golden -update rewrites it).
func TestReportGolden(t *testing.T) {
	var b bytes.Buffer
	opt := HTMLOptions{Tiers: []float64{0.4, 0.55, 0.7}, Source: "golden", Generated: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	if err := WriteHTML(&b, goldenSession(), opt); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden-report.html")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("the report differs from %s (run with -update after checking the change)", path)
	}
}
