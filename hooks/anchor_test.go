package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClassifyPrompt(t *testing.T) {
	for _, tc := range []struct {
		prompt, source string
		want           promptKind
	}{
		{"Add dark-mode support with a11y keyboard-trap tests", "", promptGoal},
		{"continue", "", promptIgnored},
		{"yes", "", promptIgnored},
		{"go ahead", "", promptIgnored},
		{"Sounds good, thanks!", "", promptIgnored},
		{"fix login", "", promptGoal},
		{"/clear", "", promptIgnored},
		{"/djinn:rank", "", promptIgnored},
		{"/djinn:reorient build the exporter instead", "", promptReorient},
		{"/reorient build the exporter instead", "", promptReorient},
		{"<task-notification><task-id>b1</task-id></task-notification>", "", promptIgnored},
		{"[Request interrupted by user]", "", promptIgnored},
		{"Fix the login redirect loop", "loop_wakeup", promptIgnored},
		{"New task: write the release notes for 2.0", "", promptPivot},
		{"Great. Now let's add pagination to the API", "", promptPivot},
		{"forget that, the CSV export matters more", "", promptPivot},
		{"ok, switch to the billing bug", "", promptPivot},
		{"Make sure the tests for the new endpoint cover errors", "", promptGoal},
		{"let's not forget the edge cases", "", promptGoal},
		// Replies that pick from the agent's proposal (mthis-netdiag before
		// #139, tenbox before #15): the task is in the agent's message.
		{"start with option 4, 5", "", promptIgnored},
		{"Ok, go ahead, keep the ultrathink activated", "", promptIgnored},
		{"do 1 and 3", "", promptIgnored},
		{"the second approach", "", promptIgnored},
		{"start with the options parser", "", promptGoal},
		// A sentence without spaces is no "ok" (ext-paymentkit before #85);
		// a short acknowledgement in such a script still is.
		{"嗯，你反思总结吧", "", promptGoal},
		{"好的", "", promptIgnored},
		{"继续吧", "", promptIgnored},
		{"fix step 2 of the migration", "", promptGoal},
		{"option 2, but keep the old API", "", promptGoal},
		// A spaced script with no Latin letters is not "ok" unless it says
		// yes (ext-weeklysalesqc before #59: a new topic in Korean).
		{"이번주에 사이잘룩러그 아이보리색상이 출시되었어 그 기억나", "", promptGoal},
		{"오케이 업로드완료 분석시작", "", promptIgnored},
		{"네 진행해주세요", "", promptIgnored},
		{"давай сделаем новый экран настроек", "", promptGoal},
	} {
		if got := classifyPrompt(tc.prompt, tc.source); got != tc.want {
			t.Errorf("classifyPrompt(%q, %q) = %v, want %v", tc.prompt, tc.source, got, tc.want)
		}
	}
}

func TestClassifyIntent(t *testing.T) {
	for text, want := range map[string]string{
		"Add dark-mode support with tests":         "feature",
		"Fix the broken login redirect":            "bugfix",
		"Refactor the parser and rename the types": "refactor",
		"Investigate why the tests are slow":       "research",
		"Document the config keys in the README":   "docs",
		"hello there":                              "unknown",
	} {
		if got := classifyIntent(lcsNormalize(text)); got != want {
			t.Errorf("classifyIntent(%q) = %s, want %s", text, got, want)
		}
	}
}

func TestAnchorRules(t *testing.T) {
	s := newSim(t)
	s.userPrompt("continue")
	if s.anchor() != nil {
		t.Fatal("a one-word reply became the anchor")
	}
	s.userPrompt("/djinn:status")
	s.userPrompt("<task-notification>done</task-notification>")
	if s.anchor() != nil {
		t.Fatal("a slash command or an injected prompt became the anchor")
	}
	s.userPrompt("Add dark-mode support with a11y keyboard-trap tests")
	a := s.anchor()
	if a == nil || a.IntentType != "feature" || a.Source != "prompt" || len(a.Hash) != 12 {
		t.Fatalf("anchor = %+v", a)
	}
	// A prompt restating the goal is not a delta.
	s.userPrompt("Add the dark-mode support and keyboard-trap tests")
	if a := s.anchor(); a.DeltaCount != 0 {
		t.Fatalf("restatement recorded as a delta: %+v", a.Deltas)
	}
	// A prompt with ratio < 0.5 to the anchor is a constraint delta.
	s.userPrompt("Use CSS custom properties, no new dependencies")
	a = s.anchor()
	if a.DeltaCount != 1 || !strings.Contains(a.Deltas[0].Text, "CSS custom properties") || a.Deltas[0].Ratio >= 0.5 {
		t.Fatalf("deltas = %+v", a.Deltas)
	}
	// An explicit pivot starts a new anchor and archives the old one.
	old := a.Hash
	s.userPrompt("New task: write the release notes for version 2.0")
	a = s.anchor()
	if a.Hash == old || a.Source != "pivot" || a.Pivots != 1 || a.IntentType == "" {
		t.Fatalf("after pivot: %+v", a)
	}
	dir, _ := s.env.Store.SessionDir(s.id)
	archived, _ := filepath.Glob(filepath.Join(dir, "archive", "anchor-*-"+old+".json"))
	if len(archived) != 1 {
		t.Fatalf("old anchor not archived: %v", archived)
	}
	raw, _ := os.ReadFile(archived[0])
	if !strings.Contains(string(raw), "Add dark-mode support with a11y keyboard-trap tests") {
		t.Fatalf("archived anchor is not verbatim: %s", raw)
	}
}

func TestShortAnchorIsRefined(t *testing.T) {
	s := newSim(t)
	s.userPrompt("fix the bug")
	s.userPrompt("The login page crashes when the password contains a quote character")
	a := s.anchor()
	if a.DeltaCount != 0 || !strings.Contains(a.Text, "fix the bug") || !strings.Contains(a.Text, "password contains a quote") {
		t.Fatalf("a short anchor should be refined by the next prompt, got %+v", a)
	}
}

func TestReorient(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Add dark-mode support with a11y keyboard-trap tests")
	old := s.anchor().Hash
	for i := 0; i < 6; i++ {
		s.tool("Bash", jsonStr(map[string]any{"command": "npx vitest run src/theme/dark.test.ts"}), map[string]any{"stdout": "ok"})
	}
	// A restatement with an extra condition is recorded as a constraint.
	s.userPrompt("/djinn:reorient Add dark-mode support with a11y keyboard-trap tests, and keep the bundle small")
	w := s.window()
	if w.Reorient == nil || w.Reorient.Outcome != "constraint" || s.anchor().Hash != old || s.anchor().DeltaCount != 1 {
		t.Fatalf("restating reorient: %+v, anchor %+v", w.Reorient, s.anchor())
	}
	// A new intent replaces the goal, archives it and restarts the sample.
	s.userPrompt("/djinn:reorient Write the CSV export for the reports page")
	w = s.window()
	a := s.anchor()
	if w.Reorient.Outcome != "replaced" || w.Reorient.OldHash != old || w.Reorient.NewHash != a.Hash || a.Reorients != 1 {
		t.Fatalf("reorient: %+v, anchor %+v", w.Reorient, a)
	}
	for _, want := range []string{old, a.Hash, "of their wording"} {
		if !strings.Contains(w.Reorient.Text, want) {
			t.Errorf("reorient report lacks %q: %s", want, w.Reorient.Text)
		}
	}
	if w.Drift.Reservoir.NSeen != 0 {
		t.Fatalf("reservoir not reset: n_seen %d", w.Drift.Reservoir.NSeen)
	}
	dir, _ := s.env.Store.SessionDir(s.id)
	if m, _ := filepath.Glob(filepath.Join(dir, "archive", "reservoir-*.json")); len(m) != 1 {
		t.Fatalf("reservoir not archived: %v", m)
	}
	// --force replaces even a restatement.
	s.userPrompt("/djinn:reorient --force Write the CSV export for the reports page, as UTF-8")
	if w := s.window(); w.Reorient.Outcome != "replaced" {
		t.Fatalf("--force: %+v", w.Reorient)
	}
	// An empty intent says how to use it.
	s.userPrompt("/djinn:reorient")
	if w := s.window(); w.Reorient.Outcome != "empty" || !strings.Contains(w.Reorient.Text, "Usage") {
		t.Fatalf("empty reorient: %+v", w.Reorient)
	}
}

// TestShortAnchorAfterWorkIsKept: once the work has taught a short anchor
// its vocabulary, a later prompt is a delta, not a refinement that would
// start the drift state afresh.
func TestShortAnchorAfterWorkIsKept(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Implement spotter-gqc")
	f := s.file("lib/review.ex", "")
	for i := 0; i < 14; i++ {
		s.tool("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "a", "new_string": "b"}), map[string]any{})
	}
	before := s.anchor().Hash
	s.userPrompt("did you push the branch?")
	if a := s.anchor(); a.Hash != before || a.DeltaCount != 1 {
		t.Fatalf("anchor %+v", a)
	}
	if d := s.window().Drift; d.Calls != 14 || len(d.Files) == 0 {
		t.Fatalf("drift state restarted: calls %d, files %v", d.Calls, d.Files)
	}
}
