package drift

import (
	"slices"
	"testing"
)

func TestShowsFailure(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want bool
	}{
		{" FAIL  test/performance/regression.test.ts > CRUD\nAssertionError: expected undefined to be defined", true},
		{"      Tests  3 failed | 652 passed", true},
		{"--- FAIL: TestPage (0.00s)\nFAIL\tpager 0.01s", true},
		{"Traceback (most recent call last):\n  File \"x.py\", line 1", true},
		{"error[E0425]: cannot find value `x` in this scope", true},
		{"fail password authentication failed for user", false},
		{"npm ERR! code ELIFECYCLE", true},
		{"TypeError: Cannot read properties of undefined", true},
		{"panic: runtime error: index out of range", true},
		// Passing output, and words about failures that are not failures.
		{"      Tests  0 failed | 652 passed", false},
		{"ok  \tgithub.com/x/pager\t0.01s\nPASS", false},
		{"Test Files  50 passed (50)", false},
		{"handles the error case; see errors.go", false},
		{"", false},
	} {
		if got := ShowsFailure(tc.out); got != tc.want {
			t.Errorf("ShowsFailure(%q) = %v, want %v", tc.out, got, tc.want)
		}
	}
}

func TestFailedFiles(t *testing.T) {
	out := " FAIL  test/performance/regression.test.ts > CRUD\n ❯ /p/src/handlers/tool-configs/limiter.ts:41:7\n  at Object.<anonymous> (src/x.js:3:1)\nsee https://example.com/docs/page.html and version 1.2.3 and e.g. foo.bar"
	got := FailedFiles(out, "/p", 16)
	want := []string{"test/performance/regression.test.ts", "src/handlers/tool-configs/limiter.ts", "src/x.js"}
	if !slices.Equal(got, want) {
		t.Errorf("FailedFiles = %q, want %q (no URL, no version, no bare name)", got, want)
	}
	// A linter's ./file.go:line:col at the project's root (templar-lint
	// #1: the files its errors name are the lint task's).
	lint := "./main.go:9:6: main redeclared in this block\n\t./analyze_deps.go:14:6: other declaration of main\n./test_simple_templ.go:92:66: undefined: fmt\nmain.go is fine"
	if got, want := FailedFiles(lint, "/p", 16), []string{"main.go", "analyze_deps.go", "test_simple_templ.go"}; !slices.Equal(got, want) {
		t.Errorf("FailedFiles of a linter's output = %q, want %q", got, want)
	}
}
