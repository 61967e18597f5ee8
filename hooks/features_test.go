package hooks

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/djinn-cc/djinn/internal/statetest"
	"github.com/djinn-cc/djinn/state"
)

// TestPressureTiers: each tier is announced once as it is crossed (0.39
// silent, 0.41 announces tier 1, a repeat at 0.45 is silent), a drop of
// more than 0.05 below a tier re-arms it, and compaction re-arms all.
func TestPressureTiers(t *testing.T) {
	s := newSim(t)
	s.env.Settings.Pressure.MinOutputShare = 0 // every tier; TestPressureNeedsAnOutput holds the gate
	step := func(tokens int64) Response {
		s.assistant("working", tokens)
		return s.tool("Bash", jsonStr(map[string]any{"command": "true"}), map[string]any{"stdout": ""})
	}
	tier := func(r Response) string {
		for _, c := range r.Context {
			if strings.HasPrefix(c, "[djinn:pressure]") {
				return c
			}
		}
		return ""
	}
	if got := tier(step(78_000)); got != "" {
		t.Fatalf("0.39: %s", got)
	}
	got := tier(step(82_000))
	if !strings.Contains(got, "41% of the 200,000-token window") || !strings.Contains(got, "tier 1 of 3") {
		t.Fatalf("0.41: %q", got)
	}
	if got := tier(step(90_000)); got != "" {
		t.Fatalf("0.45 repeated tier 1: %s", got)
	}
	if got := tier(step(72_000)); got != "" { // 0.36: within 0.05 of the tier, stays armed off
		t.Fatalf("0.36: %s", got)
	}
	if got := tier(step(82_000)); got != "" {
		t.Fatalf("0.41 without a drop of 0.05: %s", got)
	}
	if got := tier(step(68_000)); got != "" { // 0.34: more than 0.05 below, re-arms
		t.Fatalf("0.34: %s", got)
	}
	if got := tier(step(81_000)); !strings.Contains(got, "tier 1 of 3") {
		t.Fatalf("0.405 after re-arming: %q", got)
	}
	// Top tier: a ready /compact line and a message to the user.
	r := step(150_000)
	got = tier(r)
	if !strings.Contains(got, "tier 3 of 3") || !strings.Contains(got, "/compact ") || !strings.Contains(r.SystemMessage, "/compact ") {
		t.Fatalf("0.75: context %q, systemMessage %q", got, r.SystemMessage)
	}
	// After a compaction the meter is unknown until the next response. A
	// compaction that leaves the context as full says nothing new (a session
	// that compacts after every call would hear the top tier at each); one
	// that brings it down re-arms the tiers, said again when crossed.
	compact := func() {
		s.line(map[string]any{"type": "system", "subtype": "compact_boundary", "compactMetadata": map[string]any{"trigger": "auto", "preTokens": 150000}})
		s.run(&Payload{HookEventName: SessionStart, Source: "compact"})
		if ps := s.window().Pressure; !ps.Stale {
			t.Fatalf("after compaction: %+v", ps)
		}
	}
	compact()
	if got := tier(step(150_000)); got != "" {
		t.Fatalf("0.75 after a compaction that left it at 0.75: %q", got)
	}
	compact()
	if got := tier(step(40_000)); got != "" {
		t.Fatalf("0.20 after compaction: %q", got)
	}
	if got := tier(step(150_000)); !strings.Contains(got, "tier 3 of 3") {
		t.Fatalf("0.75 after a compaction brought it to 0.20: %q", got)
	}
}

// TestPressureNeedsAnOutput: below the top tier a crossing is said only
// when one tool output in the context holds min_output_share of the window
// (2 % of 200,000 tokens: 16,000 characters); the top tier is said whatever
// fills the context. A tier crossed quietly stays announced.
func TestPressureNeedsAnOutput(t *testing.T) {
	cases := []struct {
		name     string
		output   int   // characters of the call before the crossing
		tokens   int64 // the context at the crossing
		wantTier string
	}{
		{"tier 1, small outputs: quiet", 2_000, 82_000, ""},
		{"tier 1, an output just under the share: quiet", 15_000, 82_000, ""},
		{"tier 1, an output of the share: said", 16_000, 82_000, "tier 1 of 3"},
		{"tier 2, a big output: said", 25_000, 112_000, "tier 2 of 3"},
		{"top tier, small outputs: said", 2_000, 150_000, "tier 3 of 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSim(t)
			s.assistant("working", 60_000)
			s.tool("Bash", jsonStr(map[string]any{"command": "cat build.log"}), map[string]any{"stdout": strings.Repeat("x", c.output)})
			s.assistant("working", c.tokens)
			r := s.tool("Bash", jsonStr(map[string]any{"command": "true"}), map[string]any{"stdout": "ok"})
			got := ""
			for _, a := range r.Context {
				if strings.HasPrefix(a, "[djinn:pressure]") {
					got = a
				}
			}
			switch {
			case c.wantTier == "" && got != "":
				t.Fatalf("said: %s", got)
			case c.wantTier != "" && !strings.Contains(got, c.wantTier):
				t.Fatalf("want %q, got %q", c.wantTier, got)
			}
		})
	}
	// A tier crossed quietly is not said later in the same tier, even when
	// a big output arrives: it is said, or not, once.
	s := newSim(t)
	s.assistant("working", 82_000)
	s.tool("Bash", jsonStr(map[string]any{"command": "true"}), map[string]any{"stdout": "ok"})
	s.assistant("working", 90_000)
	s.tool("Bash", jsonStr(map[string]any{"command": "cat build.log"}), map[string]any{"stdout": strings.Repeat("x", 25_000)})
	s.assistant("working", 100_000)
	r := s.tool("Bash", jsonStr(map[string]any{"command": "true"}), map[string]any{"stdout": "ok"})
	for _, a := range r.Context {
		if strings.HasPrefix(a, "[djinn:pressure]") {
			t.Fatalf("tier 1 said after it was crossed quietly: %s", a)
		}
	}
}

// TestPressureLargeWindow: past 200,000 tokens the window is taken to be
// 1,000,000 (model names do not say which is on).
func TestPressureLargeWindow(t *testing.T) {
	s := newSim(t)
	s.assistant("big", 250_000)
	s.tool("Bash", jsonStr(map[string]any{"command": "true"}), map[string]any{"stdout": ""})
	if ps := s.window().Pressure; ps.Limit != 1_000_000 || ps.Tokens != 250_000 {
		t.Fatalf("pressure %+v", ps)
	}
}

// TestCompactionHandOff: PreCompact prints the XML snapshot (plain text,
// for the compactor) and SessionStart(compact) restates it as
// [djinn:reanchor]; both within 6,000 characters.
func TestCompactionHandOff(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Add dark-mode support with a11y keyboard-trap tests")
	s.userPrompt("Use CSS custom properties only")
	f := s.file("src/theme/dark.ts", "x")
	for i := 0; i < 3; i++ {
		s.fail("Bash", jsonStr(map[string]any{"command": "npm test"}), "Error: expected dark got light")
	}
	s.tool("Read", jsonStr(map[string]any{"file_path": f}), map[string]any{})
	r := s.run(&Payload{HookEventName: PreCompact, Trigger: "manual"})
	out, err := Encode(PreCompact, r)
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{"<djinn_state", "<goal", "dark-mode", "<constraint>Use CSS custom properties only</constraint>", "<open_failures>", "npm test", "</djinn_state>"} {
		if !strings.Contains(text, want) {
			t.Errorf("snapshot lacks %q:\n%s", want, text)
		}
	}
	if strings.HasPrefix(strings.TrimSpace(text), "{") || len([]rune(text)) > 6500 {
		t.Errorf("PreCompact output must be plain text under the cap, got %d chars", len([]rune(text)))
	}
	r = s.compactNext("")
	if len(r.Context) != 1 || !strings.HasPrefix(r.Context[0], "[djinn:reanchor]") || !strings.Contains(r.Context[0], "dark-mode") {
		t.Fatalf("reanchor: %+v", r)
	}
	if n := len([]rune(r.Context[0])); n > maxSnapshot+300 {
		t.Errorf("reanchor is %d characters", n)
	}
}

// TestSnapshotBounded: a huge goal and many advisories still give a
// snapshot under 6,000 characters.
func TestSnapshotBounded(t *testing.T) {
	s := newSim(t)
	s.userPrompt(strings.Repeat("Add a very long goal with many words about dark mode and focus traps. ", 60))
	for i := 0; i < 20; i++ {
		s.userPrompt(fmt.Sprintf("Constraint %d: %s", i, strings.Repeat("keep it small and accessible ", 12)))
	}
	r := s.run(&Payload{HookEventName: PreCompact, Trigger: "auto"})
	if n := len([]rune(r.Plain)); n > maxSnapshot+300 || n == 0 {
		t.Fatalf("snapshot of %d characters", n)
	}
}

// TestLearning: SessionEnd writes one learnings.jsonl line and updates the
// posterior (developer key hashed); after 3 sessions the posterior's p10
// becomes the threshold; pivot-heavy sessions are recorded but left out.
func TestLearning(t *testing.T) {
	dir := t.TempDir()
	session := func(id string, pivot bool) *sim {
		s := newSim(t)
		s.id = id
		s.env.Store.Root = filepath.Join(dir, "state")
		s.env.Getenv = func(k string) string {
			switch k {
			case "USER":
				return "alice"
			case "CLAUDE_PROJECT_DIR":
				return s.project
			}
			return ""
		}
		s.darkModeEdits(pivot)
		s.run(&Payload{HookEventName: SessionEnd, Reason: "other"})
		s.run(&Payload{HookEventName: SessionEnd, Reason: "other"}) // learned once
		return s
	}
	for i := 0; i < 3; i++ {
		session(fmt.Sprintf("s%d", i), false)
	}
	session("pivoting", true)
	root := filepath.Join(dir, "state")
	raw, learned := statetest.Learnings(t, root)
	if len(learned) != 4 {
		t.Fatalf("%d learnings, want 4:\n%s", len(learned), raw)
	}
	if strings.Contains(string(raw), "alice") {
		t.Fatal("developer name stored in clear")
	}
	last := learned[3]
	if !last.Excluded || last.SessionID != "pivoting" {
		t.Fatalf("pivot-heavy session not excluded: %+v", last)
	}
	st := &state.Store{Root: root}
	var ps state.Posteriors
	if found, err := st.Load(filepath.Join(root, "posteriors.json"), state.KindPosteriors, &ps); !found || err != nil {
		t.Fatalf("posteriors: %v %v", found, err)
	}
	if len(ps.Entries) != 1 {
		t.Fatalf("entries %v", ps.Entries)
	}
	for key, p := range ps.Entries {
		if !strings.HasPrefix(key, "feature::") || p.N != 3 || strings.Contains(key, "alice") {
			t.Fatalf("posterior %s: %+v", key, p)
		}
	}
	// The next session of the same developer and intent uses the p10.
	next := newSim(t)
	next.env.Store.Root = root
	next.env.Getenv = func(k string) string {
		if k == "USER" {
			return "alice"
		}
		return ""
	}
	next.userPrompt("Add keyboard shortcuts to the settings page")
	if d := next.window().Drift; d.ThresholdSource != "posterior_p10" || d.PosteriorN != 3 {
		t.Fatalf("threshold %v from %s (n=%d)", d.Threshold, d.ThresholdSource, d.PosteriorN)
	}
}
