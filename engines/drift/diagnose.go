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

// repoStems are the stems of words that make a task the repository's
// bookkeeping: commit, push, stage, untracked, gitignore; buildStems those
// of work that makes something ("add", but for "git add").
var (
	repoStems  = WordSet("commit push stage untrack gitignor")
	buildStems = WordSet("add implement build creat write fix refactor develop featur migrat design")
)

// WholeRepo reports whether a task is only the repository's bookkeeping
// ("review what we have done, then git add the untracked files and commit
// them"): every file of the repository is its subject, so no work on one
// is a detour from it (ext-callcentercommit #15: the untracked files
// reviewed before the commit the user asked for, called off-goal; false to
// both judges of the forty-fifth set). A task that also builds something
// ("add dark mode and commit it") is not.
func WholeRepo(task string) bool {
	repo, build := repoStems(), buildStems()
	ws := strings.FieldsFunc(strings.ToLower(task), func(r rune) bool { return !unicode.IsLetter(r) })
	found := false
	for i, w := range ws {
		st := Stem(w)
		switch {
		case build[st] && !(st == "add" && i > 0 && ws[i-1] == "git"):
			return false
		case repo[st]:
			found = true
		}
	}
	return found
}
