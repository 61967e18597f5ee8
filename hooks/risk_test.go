package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/djinn-cc/djinn/settings"
)

// riskLogged returns the risk advisories in advisories.jsonl.
func (s *sim) riskLogged() []string {
	s.t.Helper()
	dir, _ := s.env.Store.SessionDir(s.id)
	b, err := os.ReadFile(filepath.Join(dir, "advisories.jsonl"))
	if err != nil && !os.IsNotExist(err) {
		s.t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"kind":"risk"`) {
			out = append(out, l)
		}
	}
	return out
}

// TestRiskObserved: a force push nobody asked for is recorded as a risk
// advisory and, in observe mode, not told to the model; the same step
// after a prompt asking for it stays quiet.
func TestRiskObserved(t *testing.T) {
	s := newSim(t)
	s.env.Settings.Advisories.Risk = settings.Observe // its default
	s.userPrompt("fix the flaky login test in the auth package and push the branch")
	resp := s.tool("Bash", `{"command":"git push --force origin main"}`, map[string]any{"stdout": "", "stderr": ""})
	for _, c := range resp.Context {
		if strings.Contains(c, "[djinn:risk]") {
			t.Errorf("an observed kind was told to the model: %q", c)
		}
	}
	logged := s.riskLogged()
	if len(logged) != 1 || !strings.Contains(logged[0], "git-push-force") {
		t.Fatalf("risk advisories logged = %q, want one for git-push-force", logged)
	}

	s2 := newSim(t)
	s2.env.Settings.Advisories.Risk = settings.Observe
	s2.userPrompt("the remote has a broken commit; force push my local main over it")
	s2.tool("Bash", `{"command":"git push --force origin main"}`, map[string]any{"stdout": "", "stderr": ""})
	if logged := s2.riskLogged(); len(logged) != 0 {
		t.Errorf("a force push the user asked for was advised: %q", logged)
	}
	if w := s2.window(); w.Risk == nil || len(w.Risk.Prompts) != 1 {
		t.Errorf("window risk state = %+v, want the one prompt", w.Risk)
	}
}
