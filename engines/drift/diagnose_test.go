package drift

import "testing"

// TestDiagnostic: a task that asks for a failure's cause, in the words
// people use for it, and tasks that build or change something.
func TestDiagnostic(t *testing.T) {
	for _, tc := range []struct {
		task string
		want bool
	}{
		{"are u able to check the log?", true},
		{"i've started the dev site, i'm getting an error, check the log for error,", true},
		{"why does the build fail on CI?", true},
		{"the login page is not working", true},
		{"the app crashes on startup", true},
		{"tests are failing", true},
		{"fix the bug in the parser", true},
		{"the export hangs", true},
		{"add connection pooling to db/pool.go", false},
		{"write a landing page with analytics", false},
		{"add logging to the handler", false},
		{"proceed with the tasks and set up a database", false},
	} {
		if got := Diagnostic(tc.task); got != tc.want {
			t.Errorf("Diagnostic(%q) = %v, want %v", tc.task, got, tc.want)
		}
	}
}

// TestWholeRepo: a task of the repository's bookkeeping only, not one that
// builds something and then commits it.
func TestWholeRepo(t *testing.T) {
	for _, tc := range []struct {
		task string
		want bool
	}{
		{"please reviw what we have done so far, then git add untracked files and then commit them accordingly", true},
		{"commit and push", true},
		{"add the build folder to .gitignore", false},
		{"add dark mode to the settings page and commit it", false},
		{"fix the failing test, then push", false},
		{"review the parser for bugs", false},
	} {
		if got := WholeRepo(tc.task); got != tc.want {
			t.Errorf("WholeRepo(%q) = %v, want %v", tc.task, got, tc.want)
		}
	}
}
