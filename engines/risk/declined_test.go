package risk

import (
	"strings"
	"testing"
)

// TestStepsOf: the steps of a declined command that a No holds on, each
// with only the options that change what it does.
func TestStepsOf(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"git push origin develop", "git push origin develop"},
		{"git push -u origin develop", "git push origin develop"},
		{"git -C /repo push --force-with-lease origin main", "git push --force origin main"},
		{"git checkout master", "git checkout master"},
		{"git switch -c fix", "git checkout fix"},
		{"git checkout", ""},
		{"git init -b main && git add -A && git status --short | head -30", "git add -A"},
		{"git add .", "git add -A"},
		{"git add src/a.go", ""},
		{"git commit -m 'Co-Authored-By: x'", ""},
		{"git reset --hard origin/main", "git reset --hard origin/main"},
		{"git reset HEAD", ""},
		{"npm install --save-dev @vitest/coverage-v8", "npm install @vitest/coverage-v8"},
		{"brew install fswatch", "brew install fswatch"},
		{"docker-compose up -d dashboard", ""},
		{"rm -rf build", ""},
	} {
		got := strings.Join(StepsOf(Call{Tool: "Bash", Command: tc.cmd}), "|")
		if got != tc.want {
			t.Errorf("StepsOf(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
	if got := StepsOf(Call{Tool: "Write", FilePath: "/p/a"}); got != nil {
		t.Errorf("a Write has steps: %q", got)
	}
}
