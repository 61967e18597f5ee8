package state

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStateImportsNoEngine: state owns its types and imports no engine
// (data flows payload → state → engines → advice), so the engines' types
// it stores are its own copies, converted by hooks.
func TestStateImportsNoEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 || !strings.HasSuffix(deps[len(deps)-1], "/state") {
		t.Fatalf("go list -deps gave %q: not state's dependencies", deps)
	}
	for _, dep := range deps {
		if strings.Contains(dep, "/djinn/engines/") || strings.Contains(dep, "/djinn/hooks") {
			t.Errorf("state imports %s", dep)
		}
	}
}
