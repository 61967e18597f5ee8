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
