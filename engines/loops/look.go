package loops

import (
	"strings"
)

// EmptyLookRounds is how many rounds of looks at one file (Event.Look)
// that each printed nothing, with nothing written to it between, make a
// tool-loop (Finding.Looked): the file stays empty, and looking again,
// through another window, will not fill it. The shape is a background
// job's output file polled while the job holds its output back (a pipe
// to tail prints only when the job ends) or hangs: ext-hcrregistration
// #72-#81 and ext-paymentkit #126-#128, loops to the judges of the
// thirty-ninth and twenty-ninth sets, each look spelled another way.
const EmptyLookRounds = 3

// lookers are the programs that only show a file.
var lookers = map[string]bool{"cat": true, "head": true, "tail": true, "less": true, "more": true}

// LookOf is the one file a shell command only shows, from its ShellKey
// ("[tail] F" for tail -N F and cat F | tail -N; "cat F"; "[tail] cd D && F"),
// with an `|| echo …` or `|| true` fallback after it; "" for any other
// command, one of several files or a glob, and a follow (tail -f), which
// never ends on its own.
func LookOf(key string) string {
	key, windowed, ok := lookCommand(key)
	if !ok {
		return ""
	}
	words := strings.Fields(key)
	file := ""
	switch {
	case windowed && len(words) == 1:
		file = words[0]
	case !windowed && len(words) == 2 && lookers[words[0]]:
		file = words[1]
	}
	if file == "" || strings.HasPrefix(file, "-") || strings.ContainsAny(file, "*?;|&<>$`") || len(file) > MaxLook {
		return ""
	}
	return file
}

// lookCommand is a ShellKey without what a look may have around it: the
// window it shows (windowed), an `|| echo …` or `|| true` after it, a cd
// before it; not ok when what is around it does more.
func lookCommand(key string) (rest string, windowed, ok bool) {
	for _, p := range []string{"[tail] ", "[head] "} {
		if r, cut := strings.CutPrefix(key, p); cut {
			key, windowed = r, true
		}
	}
	if head, fallback, cut := strings.Cut(key, " || "); cut {
		if fallback != "true" && !strings.HasPrefix(fallback, "echo ") {
			return "", false, false
		}
		key = head
	}
	if before, after, cut := strings.Cut(key, " && "); cut {
		if !strings.HasPrefix(before, "cd ") || strings.Contains(after, " && ") {
			return "", false, false
		}
		key = after
	}
	return key, windowed, true
}

// MaxLook bounds Event.Look: a longer path is no look.
const MaxLook = 1024

// emptyLooks is tool-loop's fourth half: back from the newest event to the
// last user prompt, the looks at the newest event's file (Event.Look),
// each of which printed nothing. It holds at exactly EmptyLookRounds
// rounds, so one streak is said once. Calls between that do other things
// (ps, ls, a note written elsewhere) do not end it: what fills the file is
// not the agent's work but a job's. A look that printed something, or
// failed, or a write of the file, is a new start.
func emptyLooks(w []Event) (Finding, bool) {
	n := len(w)
	cur := &w[n-1]
	if cur.Look == "" || !cur.Empty || !ok(cur) {
		return Finding{}, false
	}
	idx := streakBack(w, func(e *Event) streakStep {
		switch {
		case e.Look == cur.Look && e.Empty && ok(e):
			return streakTake
		case e.Look == cur.Look || writesLook(e, cur.Look):
			return streakEnd
		}
		return streakSkip
	})
	if !closesRounds(w, idx, EmptyLookRounds) {
		return Finding{}, false
	}
	return withCalls(Finding{Tool: cur.Tool, Target: cur.Look, Count: len(idx), Cycle: 1, Empty: true, Looked: true}, w, idx), true
}

// writesLook tells an event that wrote file, or may have: a file tool's
// write of it, a shell command's whole write of it, a shell command that
// writes some file (Event.Edits: which one is not kept).
func writesLook(e *Event, file string) bool {
	if !ok(e) {
		return false
	}
	if KindOf(e.Tool) == KindWrite {
		return e.Target == file
	}
	return KindOf(e.Tool) == KindShell && (e.Wrote == file || e.Edits)
}
