package drift

import "testing"

// TestTaskKinds: the two readings of a task that keep drift quiet, each
// with tasks it holds for and tasks it does not. Diagnostic: a task that
// asks for a failure's cause, in the words people use for it, not one that
// builds or changes something. WholeRepo: the repository's bookkeeping
// only, not a task that builds something and then commits it.
func TestTaskKinds(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(string) bool
		task string
		want bool
	}{
		{"Diagnostic", Diagnostic, "are u able to check the log?", true},
		{"Diagnostic", Diagnostic, "i've started the dev site, i'm getting an error, check the log for error,", true},
		{"Diagnostic", Diagnostic, "why does the build fail on CI?", true},
		{"Diagnostic", Diagnostic, "the login page is not working", true},
		{"Diagnostic", Diagnostic, "the app crashes on startup", true},
		{"Diagnostic", Diagnostic, "tests are failing", true},
		{"Diagnostic", Diagnostic, "fix the bug in the parser", true},
		{"Diagnostic", Diagnostic, "the export hangs", true},
		{"Diagnostic", Diagnostic, "add connection pooling to db/pool.go", false},
		{"Diagnostic", Diagnostic, "write a landing page with analytics", false},
		{"Diagnostic", Diagnostic, "add logging to the handler", false},
		{"Diagnostic", Diagnostic, "proceed with the tasks and set up a database", false},
		{"WholeRepo", WholeRepo, "please reviw what we have done so far, then git add untracked files and then commit them accordingly", true},
		{"WholeRepo", WholeRepo, "commit and push", true},
		{"WholeRepo", WholeRepo, "add the build folder to .gitignore", false},
		{"WholeRepo", WholeRepo, "add dark mode to the settings page and commit it", false},
		{"WholeRepo", WholeRepo, "fix the failing test, then push", false},
		{"WholeRepo", WholeRepo, "review the parser for bugs", false},
	} {
		if got := tc.fn(tc.task); got != tc.want {
			t.Errorf("%s(%q) = %v, want %v", tc.name, tc.task, got, tc.want)
		}
	}
}
