package loops

import (
	"slices"
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
	windowed := false
	for _, p := range []string{"[tail] ", "[head] "} {
		if rest, ok := strings.CutPrefix(key, p); ok {
			key, windowed = rest, true
		}
	}
	if head, fallback, ok := strings.Cut(key, " || "); ok {
		if fallback != "true" && !strings.HasPrefix(fallback, "echo ") {
			return ""
		}
		key = head
	}
	if before, after, ok := strings.Cut(key, " && "); ok {
		if !strings.HasPrefix(before, "cd ") || strings.Contains(after, " && ") {
			return ""
		}
		key = after
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
	var idx []int
	for i := n - 1; i >= 0; i-- {
		e := &w[i]
		if e.Prompt != cur.Prompt {
			break
		}
		if e.Look == cur.Look {
			if !e.Empty || !ok(e) {
				break
			}
			idx = append(idx, i)
			continue
		}
		if writesLook(e, cur.Look) {
			break
		}
	}
	slices.Reverse(idx)
	rounds := roundStarts(idx, func(i int) *Event { return &w[i] })
	if len(rounds) != EmptyLookRounds || rounds[len(rounds)-1] != n-1 {
		return Finding{}, false
	}
	f := Finding{Tool: cur.Tool, Target: cur.Look, Count: len(idx), Cycle: 1, Empty: true, Looked: true}
	for _, i := range idx {
		f.Events = append(f.Events, w[i].Seq)
		f.Steps = append(f.Steps, Step{Tool: w[i].Tool, Target: w[i].Target})
	}
	return f, true
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
