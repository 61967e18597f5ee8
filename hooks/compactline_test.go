package hooks

import (
	"strings"
	"testing"
)

// TestCompactLineSaysTheTaskOnce: the follow-up that is the task now is the
// paste's goal and not a constraint too (ext-paymentkit #90 gave it as
// both); the earlier follow-up stays a constraint.
func TestCompactLineSaysTheTaskOnce(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Fix the login redirect loop in the session middleware and add a regression test")
	s.tool("Bash", jsonStr(map[string]any{"command": "go test ./middleware"}), bashOut("ok"))
	s.userPrompt("Keep the cookie names as they are in the session middleware")
	s.tool("Bash", jsonStr(map[string]any{"command": "go test ./middleware"}), bashOut("ok"))
	task := "Also rate-limit the login endpoint in the auth handler, five tries a minute"
	s.userPrompt(task)
	s.assistant("working", 150_000)
	s.tool("Bash", jsonStr(map[string]any{"command": "go test ./auth"}), bashOut("ok"))
	line := ""
	for _, a := range append(append([]string(nil), s.said...), s.observed...) {
		if strings.HasPrefix(a, "[djinn:pressure]") {
			line = a
		}
	}
	if !strings.Contains(line, "/compact Keep the goal") {
		t.Fatalf("no paste in %q (said %q, observed %q)", line, s.said, s.observed)
	}
	if n := strings.Count(line, "rate-limit the login endpoint"); n != 1 {
		t.Errorf("the task is said %d times in %q", n, line)
	}
	if !strings.Contains(line, "Keep the cookie names") {
		t.Errorf("the earlier follow-up is no constraint in %q", line)
	}
}
