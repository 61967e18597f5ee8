package drift

import (
	"regexp"
	"slices"
	"sync"
)

// failureLine matches a line by which a command's output shows that
// something failed although the command exited 0 (a test runner piped
// into tail, a script that catches its error): a test runner's FAIL line
// or failed count, an exception or error with its message, a panic.
var failureLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*(?:FAIL(?:ED)?\b|--- FAIL|npm ERR!|panic:|Traceback \(most recent call last\)|error(?:\[\w+\])?:|ERROR\b)` +
		`|\b[1-9]\d* (?:failed|failing|failures?|errors?)\b` +
		`|\b[A-Z]\w*(?:Error|Exception):\s`)
})

// ShowsFailure reports whether a command's output shows a failure.
func ShowsFailure(out string) bool {
	return out != "" && failureLine().MatchString(out)
}

// failedPath matches a file path in a failure's output: at least one
// directory, or ./ before it, and a file name with an extension, with any
// :line:col after it ("./main.go:9:6: main redeclared").
var failedPath = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s"'(\[❯@])((?:(?:/|\./|\.\./)?(?:[\w.@+-]+/)+|\./)[\w.@+-]*[A-Za-z_][\w@+-]*\.[A-Za-z][A-Za-z0-9]{0,4})(?::\d+)*`)
})

// FailedFiles returns up to n files a failure's output names (a failing
// test, the source line of an exception), relative to the project where
// they are under it: what the task's own run says the work must reach next.
func FailedFiles(out, project string, n int) []string {
	var files []string
	for _, m := range failedPath().FindAllStringSubmatch(out, -1) {
		f := RelPath(m[1], project)
		if !slices.Contains(files, f) {
			files = append(files, f)
		}
		if len(files) == n {
			break
		}
	}
	return files
}
