package report_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/internal/report"
	"github.com/djinn-cc/djinn/internal/synth"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// syntheticReport runs a synthetic session of n tool calls through the
// hooks (internal/synth), adds an advisory of the longest length every five
// calls, kinds in turn, and writes its report into dir.
func syntheticReport(tb testing.TB, dir string, n int) string {
	tb.Helper()
	s, err := synth.New(dir, filepath.Join(dir, "state"), "synthetic-1000", func(string) string { return "" })
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	if err := s.Grow(n, nil); err != nil {
		tb.Fatal(err)
	}
	st := s.Env.Store
	sdir, err := st.SessionDir(s.ID)
	if err != nil {
		tb.Fatal(err)
	}
	kinds := []string{advice.KindDrift, advice.KindReadLoop, advice.KindEditRevert, advice.KindFailLoop, advice.KindToolLoop, advice.KindStall, advice.KindPressure, advice.KindRisk}
	t0 := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	for i := 5; i <= n; i += 5 {
		k := kinds[(i/5)%len(kinds)]
		text := advice.Tag(k) + " " + strings.Repeat(fmt.Sprintf("call %d: the agent keeps doing the same thing <again> & again. ", i), 40)
		a := state.Advisory{SchemaVersion: state.SchemaVersion, Time: t0.Add(time.Duration(i) * 7 * time.Second), Event: "PostToolUse",
			PromptID: fmt.Sprintf("prompt-%d", i/25), Kind: k, Severity: "soft", Text: text[:advice.MaxChars],
			Numbers: map[string]float64{"count": 3, "ema": 0.41, "event": float64(i)}, Seq: i, Mode: "advise"}
		if err := st.Append(filepath.Join(sdir, "advisories.jsonl"), state.KindAdvisory, &a); err != nil {
			tb.Fatal(err)
		}
	}
	path, err := report.WriteFile(st, s.ID, filepath.Join(dir, "report.html"), report.HTMLOptions{Tiers: settings.Default().Pressure.Tiers})
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// TestReportSize1000Calls: the report of a 1,000-call session with an
// advisory every five calls, each of the longest text, stays under 2 MB,
// and still draws every call and every advisory.
func TestReportSize1000Calls(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 1,000 hooks")
	}
	path := syntheticReport(t, t.TempDir(), 1000)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	html := string(raw)
	t.Logf("report of 1,000 calls and 200 advisories: %d bytes", len(raw))
	if len(raw) >= 2<<20 {
		t.Errorf("report is %d bytes, want under 2 MB", len(raw))
	}
	if n := strings.Count(html, `<circle class="marker"`); n < 200 {
		t.Errorf("%d markers, want at least the 200 added", n)
	}
	if n := strings.Count(html, `<rect class="call`); n != 1000 {
		t.Errorf("%d call ticks, want 1000", n)
	}
}
