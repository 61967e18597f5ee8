package drift

import (
	"strings"
	"unicode"
)

// diagnosisStems are the stems of words that make a task the search for a
// failure's cause: an error, a bug, a crash, "why"; with "log" and "logs"
// as words ("add logging" builds something).
var diagnosisStems = WordSet("error bug crash broken debug except traceback fail failur why hang freez")

// Diagnostic reports whether a task asks to find what is wrong ("check the
// log for the error", "why does the build fail?", "it's not working"). The
// search for a cause follows the failure wherever it leads, into a
// framework's internals, its compiled output or its docs, whose words are
// not the task's: reading there, however long, is the diagnosis, not a
// detour (ext-casacolina, six drift advisories on reads of Next.js internals
// while diagnosing the error the user asked about, labelled false).
func Diagnostic(task string) bool {
	l := strings.ToLower(task)
	if strings.Contains(l, "not working") || strings.Contains(l, "doesn't work") || strings.Contains(l, "does not work") || strings.Contains(l, "isn't working") {
		return true
	}
	set := diagnosisStems()
	for _, w := range strings.FieldsFunc(l, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		if set[Stem(w)] || w == "log" || w == "logs" {
			return true
		}
	}
	return false
}
