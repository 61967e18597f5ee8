package drift

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/djinn-cc/djinn/engines/reservoir"
)

func TestWindowScore(t *testing.T) {
	sig := func(topics ...string) []Signal {
		out := make([]Signal, len(topics))
		for i, tp := range topics {
			out[i] = Signal{Topic: tp}
		}
		return out
	}
	cases := []struct {
		recent []Signal
		n      int
		want   float64
	}{
		{nil, 8, 1},
		{sig(TopicNeutral, TopicNeutral), 8, 1},
		{sig(TopicAnchored, TopicUnanchored), 8, 0.5},
		{sig(TopicAnchored, TopicConflict, TopicNeutral, TopicUnanchored), 8, 1.0 / 3},
		// Only the last n non-neutral signals count.
		{sig(TopicUnanchored, TopicUnanchored, TopicAnchored, TopicNeutral, TopicAnchored), 2, 1},
	}
	for i, c := range cases {
		if got := WindowScore(c.recent, c.n); got != c.want {
			t.Errorf("case %d: WindowScore = %v, want %v", i, got, c.want)
		}
	}
}

func TestThresholdFallbackAndPosterior(t *testing.T) {
	c := DefaultConfig()
	if th, src, n := Threshold(c, nil); th != 0.7 || src != "fallback" || n != 0 {
		t.Fatalf("no prior: %v %s %d", th, src, n)
	}
	if th, src, n := Threshold(c, &Prior{Mu: 0.9, Var: 0.001, N: 2, MeanLen: 40}); th != 0.7 || src != "fallback" || n != 2 {
		t.Fatalf("too few sessions: %v %s %d", th, src, n)
	}
	th, src, n := Threshold(c, &Prior{Mu: 0.9, Var: 0.001, N: 5, MeanLen: 40})
	if src != "posterior_p10" || n != 5 || th <= 0.8 || th >= 0.9 {
		t.Fatalf("enough sessions: %v %s %d, want the p10 just below 0.9", th, src, n)
	}
}

func TestNewAnchor(t *testing.T) {
	a := NewAnchor("Implement spotter-gqc: darkTheme toggle", []string{"also keep the settings_page"}, 5, DefaultConfig())
	for _, w := range []string{"spotter", "gqc", "dark", "theme", "toggle", "settings", "page"} {
		if !slices.Contains(a.Tokens, w) {
			t.Errorf("anchor words %v lack %q", a.Tokens, w)
		}
	}
	if !slices.Equal(a.Idents, []string{"spotter-gqc"}) || a.Insufficient {
		t.Fatalf("anchor = %+v", a)
	}
	if short := NewAnchor("fix it", nil, 2, DefaultConfig()); !short.Insufficient {
		t.Fatalf("a two-word goal is measurable: %+v", short)
	}
}

func TestIdentVerdict(t *testing.T) {
	goal := parseIdents([]string{"spotter-gqc"})
	for _, c := range []struct {
		text          string
		hit, conflict bool
	}{
		{"bd show spotter-gqc", true, false},
		{"bd show spotter-gqc.1", true, false},
		{"bd show spotter-dov", false, true},
		{"bd show spotter-dov spotter-gqc", true, false},
		{"go test ./...", false, false},
	} {
		if hit, conflict := identVerdict(goal, c.text); hit != c.hit || conflict != c.conflict {
			t.Errorf("identVerdict(%q) = %v, %v; want %v, %v", c.text, hit, conflict, c.hit, c.conflict)
		}
	}
}

func TestExtractUsesWhatTheAgentAuthors(t *testing.T) {
	in, _ := json.Marshal(map[string]string{"command": "cd /p && git push origin feature/darkMode", "description": "Push the dark mode branch"})
	sig := Extract("Bash", in, "/p")
	if !slices.Contains(sig.Object, "dark") || slices.Contains(sig.Object, "push") || slices.Contains(sig.Object, "git") {
		t.Fatalf("object words %v", sig.Object)
	}
	if !slices.Contains(sig.Narrative, "dark") || sig.Acts == "" {
		t.Fatalf("narrative %v, acts %q", sig.Narrative, sig.Acts)
	}
	in, _ = json.Marshal(map[string]string{"file_path": "/p/src/theme/dark.ts"})
	if sig := Extract("Read", in, "/p"); !slices.Equal(sig.Files, []string{"src/theme/dark.ts"}) {
		t.Fatalf("files %v", sig.Files)
	}
}

// TestStepLearnsThenDetects: calls on the goal's work teach the anchor;
// later unrelated calls pull the score below the threshold, and the verdict
// leaves on_task once the reservoir has MinSamples samples. The evidence
// names each off-goal file once.
func TestStepLearnsThenDetects(t *testing.T) {
	c := DefaultConfig()
	an := NewAnchor("Add dark-mode support with a11y keyboard-trap tests", nil, 8, c)
	st := State{AnchorHash: "h", AnchorTokens: an.Stems, Idents: an.Idents, Threshold: c.Threshold, ThresholdSource: "fallback",
		Reservoir: reservoir.New[Sample](c.ReservoirK)}
	read := func(path string) CallSig {
		in, _ := json.Marshal(map[string]string{"file_path": path})
		return Extract("Read", in, "/p")
	}
	seq := 0
	var v Verdict
	for i := 0; i < c.LearnCalls; i++ {
		seq++
		v = st.Step(c, "s", Call{Tool: "Read", Sig: read("/p/src/theme/dark.ts"), Seq: seq})
	}
	if v.Kind != OnTask || !slices.Contains(st.Files, "src/theme/dark.ts") {
		t.Fatalf("after learning: %+v, files %v", v, st.Files)
	}
	for i := 0; i < 10; i++ {
		seq++
		v = st.Step(c, "s", Call{Tool: "Read", Sig: read("/p/billing/invoice_ledger.go"), Seq: seq})
	}
	if v.Kind == OnTask || v.Score >= c.Threshold || v.N < c.MinSamples {
		t.Fatalf("after unrelated work: %+v", v)
	}
	if slices.Contains(st.Files, "billing/invoice_ledger.go") {
		t.Fatal("unrelated work was learned")
	}
	if got := OffGoal(st.Recent, 4); !slices.Equal(got, []string{"billing/invoice_ledger.go"}) {
		t.Fatalf("OffGoal = %v", got)
	}
	st.LearnRecent()
	if !slices.Contains(st.Files, "billing/invoice_ledger.go") {
		t.Fatal("LearnRecent did not confirm the recent work")
	}
}

func TestWithCIIsReproducible(t *testing.T) {
	xs := []float64{0.2, 0.5, 0.9, 1, 0.4, 0.7}
	a := WithCI(Verdict{}, xs, "s", "h", 6, 1000)
	b := WithCI(Verdict{}, xs, "s", "h", 6, 1000)
	if a != b || !(a.CILo <= a.Mean && a.Mean <= a.CIHi) {
		t.Fatalf("WithCI = %+v, then %+v", a, b)
	}
}
