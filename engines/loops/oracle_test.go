package loops

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The oracle recomputes every pattern from its definition, from scratch,
// over a whole event history (not the ring), in the plainest way: lists of
// observations, filters and block comparisons, quadratic where that is
// simplest. It shares no code with the engine.

var (
	oracleReads  = map[string]bool{"Read": true, "NotebookRead": true}
	oracleWrites = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}
	oracleShells = map[string]bool{"Bash": true, "PowerShell": true}
)

func oSucceeded(e Event) bool { return !e.Failed && !e.Interrupted }

func oFileRead(e Event) bool { return oracleReads[e.Tool] && oSucceeded(e) && e.Target != "" }

// oFileWrite: a file tool's successful write, or a shell command's that
// wrote a file whole (Wrote).
func oFileWrite(e Event) bool {
	if oracleShells[e.Tool] {
		return e.Wrote != "" && oSucceeded(e)
	}
	return oracleWrites[e.Tool] && oSucceeded(e) && e.Target != ""
}

// oFile is the file an event reads or writes: a shell command's whole
// write, else the target.
func oFile(e Event) string {
	if oracleShells[e.Tool] {
		return e.Wrote
	}
	return e.Target
}

// oEdit is a change of a file as fail-loop counts edits between failures:
// a file write, or a shell command that succeeded and writes a file.
func oEdit(e Event) bool {
	return oFileWrite(e) || e.Tool == "Bash" && oSucceeded(e) && e.Edits
}

// obs is one thing the history says about a file's content: a hash seen
// before (Before) or after an event, or "?" after a write of unknown result.
type obs struct {
	idx    int
	hash   string
	before bool
}

// oObservations lists what events 0..upto say about file, in order; of
// event upto only its Before is taken when withLastAfter is false, and
// reads of part of the file only when partialReads is true.
func oObservations(h []Event, file string, upto int, withLastAfter, partialReads bool) []obs {
	var out []obs
	for idx := 0; idx <= upto; idx++ {
		e := h[idx]
		if oFile(e) != file || !(oFileRead(e) || oFileWrite(e)) {
			continue
		}
		if oFileRead(e) && e.Range != "" && !partialReads {
			continue // a partial read tells nothing of the whole file
		}
		if e.Before != "" {
			out = append(out, obs{idx, e.Before, true})
		}
		if idx == upto && !withLastAfter {
			break
		}
		switch {
		case e.After != "":
			out = append(out, obs{idx, e.After, false})
		case oFileWrite(e):
			out = append(out, obs{idx, "?", false})
		}
	}
	return out
}

func oracleReadLoop(h []Event, cfg Config) (Finding, bool) {
	t := len(h) - 1
	cur := h[t]
	if !oFileRead(cur) {
		return Finding{}, false
	}
	ob := oObservations(h, cur.Target, t, true, true)
	// Reads count from the last change, or from the first hash seen after
	// content was unknown (at the start, or after a write of unknown
	// result), whichever is later.
	changed, from := -1, 0
	for j, o := range ob {
		switch {
		case o.hash == "?":
			changed, from = o.idx, o.idx
		case j == 0 || ob[j-1].hash == "?":
			from = o.idx
		case o.hash != ob[j-1].hash:
			changed, from = o.idx, o.idx
		}
	}
	// A failed write of the file asks for it to be read again: reads
	// count from the last one.
	for idx := from; idx < t; idx++ {
		if e := h[idx]; e.Failed && !e.Interrupted && oracleWrites[e.Tool] && e.Target == cur.Target {
			from = idx
		}
	}
	var reads []uint64
	for idx := from; idx <= t; idx++ {
		e := h[idx]
		if oFileRead(e) && e.Target == cur.Target && e.Range == cur.Range {
			reads = append(reads, e.Seq)
		}
	}
	if len(reads) < cfg.ReadThreshold {
		return Finding{}, false
	}
	f := Finding{Tool: cur.Tool, Target: cur.Target, Range: cur.Range, Count: len(reads), Events: reads}
	if changed >= 0 {
		f.Since = h[changed].Seq
	}
	return f, true
}

func oracleEditRevert(h []Event, cfg Config) (Finding, bool) {
	f, ok := oracleRevert(h)
	if !ok {
		return Finding{}, false
	}
	t := len(h) - 1
	for idx := 0; idx <= t; idx++ {
		if oFile(h[idx]) != oFile(h[t]) {
			continue
		}
		// The reverts that were loops; all of them when this one was asked for.
		if r, ok := oracleRevert(h[:idx+1]); ok && (f.Asked || !r.Asked) {
			f.Count++
		}
	}
	// A lone revert by a targeted edit, not asked for, is recorded, no loop.
	f.Once = !f.Asked && f.Count == 1 && (h[t].Tool == "Edit" || h[t].Tool == "MultiEdit" || h[t].Tool == "NotebookEdit")
	f.Rollback = !f.Asked && oracleRollback(h, f)
	return f, true
}

// oracleRollback cuts the calls before the revert into stretches at the
// file's writes (a write belongs to no stretch) and asks of two of them:
// the last, where the content the revert replaces was in place, must hold
// a failure; the one where the restored content was seen must hold a call
// that is not this file's read or write and no failure. Interruptions
// count neither way.
func oracleRollback(h []Event, f Finding) bool {
	t := len(h) - 1
	file := oFile(h[t])
	stretch := make([]int, t) // stretch number of each call, -1 for the file's writes
	n := 0
	at := -1
	for i := range t {
		if h[i].Seq == f.RevertTo {
			at = i
		}
		if oFileWrite(h[i]) && oFile(h[i]) == file {
			stretch[i] = -1
			n++
			continue
		}
		stretch[i] = n
	}
	if n == 0 || at < 0 {
		return false
	}
	restored := stretch[at]
	if restored < 0 { // seen at a write: after it, or before it when FromBefore
		restored = 0
		for i := range at {
			if stretch[i] == -1 {
				restored++
			}
		}
		if !f.FromBefore {
			restored++
		}
	}
	failed, clean, ran := false, true, false
	for i := range t {
		e := h[i]
		if stretch[i] < 0 || e.Interrupted {
			continue
		}
		bad := e.Failed
		if stretch[i] == n && bad {
			failed = true
		}
		if stretch[i] == restored {
			clean = clean && !bad
			ran = ran || oFile(e) != file || !(oracleReads[e.Tool] || oracleWrites[e.Tool] || oracleShells[e.Tool] && e.Wrote != "")
		}
	}
	return failed && clean && ran
}

// oracleRevert is edit-revert's predicate and facts but Count.
func oracleRevert(h []Event) (Finding, bool) {
	t := len(h) - 1
	cur := h[t]
	if !oFileWrite(cur) || cur.After == "" {
		return Finding{}, false
	}
	ob := oObservations(h, oFile(cur), t, false, false)
	if len(ob) == 0 {
		return Finding{}, false
	}
	state := ob[len(ob)-1].hash
	if state == "?" || state == cur.After {
		return Finding{}, false
	}
	found := -1
	for j, o := range ob {
		if o.hash == cur.After {
			found = j
		}
	}
	if found < 0 {
		return Finding{}, false
	}
	at := ob[found]
	first := ""
	for _, o := range ob {
		if o.hash != "?" {
			first = o.hash
			break
		}
	}
	f := Finding{
		Tool:       cur.Tool,
		Target:     oFile(cur),
		Events:     []uint64{h[at.idx].Seq, cur.Seq},
		RevertTo:   h[at.idx].Seq,
		FromBefore: at.before,
		Hash:       cur.After,
		Original:   cur.After == first,
	}
	firstUndone := -1
	for idx := at.idx; idx < t; idx++ {
		e := h[idx]
		if !oFileWrite(e) || oFile(e) != oFile(cur) {
			continue
		}
		if idx > at.idx || at.before {
			f.Undone++
			if firstUndone < 0 {
				firstUndone = idx
			}
		}
	}
	if f.Undone == 0 {
		return Finding{}, false // someone else moved the file away; no write of the agent's is undone
	}
	// The user spoke after the undone work began: the revert was asked for.
	f.Asked = cur.Prompt > h[firstUndone].Prompt
	return f, true
}

// oFailWhats says what a failure is about (see fail-loop in doc.go): the
// file and error for a file tool, each failure key, or the call and error.
func oFailWhats(e Event) (whats []string, onFile bool, failing bool) {
	switch {
	case e.Interrupted:
		return nil, false, false
	case e.Failed && (oracleReads[e.Tool] || oracleWrites[e.Tool]) && e.Target != "":
		whats = []string{fmt.Sprintf("file %q %q", e.Target, e.Error)}
		if e.Fail != "" {
			for _, k := range strings.Split(e.Fail, "\n") {
				whats = append(whats, "key "+k)
			}
		}
		return whats, true, true
	case e.Fail != "":
		for _, k := range strings.Split(e.Fail, "\n") {
			whats = append(whats, "key "+k)
		}
		return whats, false, true
	case e.Failed:
		return []string{fmt.Sprintf("call %q %q %q", e.Tool, e.Target, e.Error)}, false, true
	}
	return nil, false, false
}

// oSamePathKey: two keys of a path class whose paths, made absolute against
// one imagined directory, name one file when one is relative.
func oSamePathKey(a, b string) bool {
	for _, class := range []string{"key permission denied ", "key no such file "} {
		pa, okA := strings.CutPrefix(a, class)
		pb, okB := strings.CutPrefix(b, class)
		if !okA || !okB {
			continue
		}
		if pa == pb || path.Clean(pa) == path.Clean(pb) {
			return true
		}
		rel, other := path.Clean(pa), path.Clean(pb)
		if path.IsAbs(rel) || len(other) < len(rel) && !path.IsAbs(other) {
			rel, other = other, rel
		}
		if path.IsAbs(rel) || !strings.Contains(rel, "/") {
			return false
		}
		// Some directory d, where the shorter was named from, with
		// d/rel = the other.
		for d := path.Dir(other); d != "." && d != "/"; d = path.Dir(d) {
			if path.Join(d, rel) == other {
				return true
			}
		}
		return path.IsAbs(other) && path.Join("/", rel) == other
	}
	return false
}

// oTest splits a failing test's key into its test and message.
func oTest(what string) (test, msg string, ok bool) {
	k, isKey := strings.CutPrefix(what, "key ")
	if !isKey || !strings.HasPrefix(k, "test failed ") {
		return "", "", false
	}
	test, msg, _ = strings.Cut(k, "\x1f")
	return test, msg, true
}

// oFailStreak lists, oldest first, the failures like what (one of the last
// event's) that no event bearing on them separates from it: the same key,
// or the same failing test with no two messages that differ.
func oFailStreak(h []Event, what string, onFile bool) (streak []int, calls []string, msgs []string) {
	t := len(h) - 1
	called := map[string]bool{}
	test, _, isTest := oTest(what)
	seen := map[string]bool{}
	for idx := t; idx >= 0; idx-- {
		e := h[idx]
		c := e.Tool + "|" + e.Target
		ws, _, f := oFailWhats(e)
		same := false
		for _, w := range ws {
			if w == what || oSamePathKey(w, what) {
				same = true
				break
			}
			if tt, m, ok := oTest(w); ok && isTest && tt == test {
				msgsIf := maps.Clone(seen)
				if m != "" {
					msgsIf[m] = true
				}
				if len(msgsIf) <= 1 {
					same = true
					break
				}
			}
		}
		if f && same {
			for _, w := range ws {
				if tt, m, ok := oTest(w); ok && isTest && tt == test && m != "" && (len(seen) == 0 || seen[m]) {
					seen[m] = true
					break
				}
			}
			streak = append([]int{idx}, streak...)
			if !called[c] {
				called[c] = true
				calls = append([]string{c}, calls...)
			}
			continue
		}
		if called[c] {
			if e.Failed && !e.Interrupted {
				continue // the same call failing otherwise: the streak goes on
			}
			break // the same call succeeded, or was interrupted
		}
		if onFile && e.Target == h[t].Target && (oracleWrites[e.Tool] || (oracleReads[e.Tool] && !oSucceeded(e))) {
			break // the file was written, or failed otherwise
		}
		if strings.HasPrefix(what, "call ") && oPointsElsewhere(h[t].Error) && oEdit(e) {
			break // a message that only says where the error is, after an edit
		}
	}
	for m := range seen {
		msgs = append(msgs, m)
	}
	return streak, calls, msgs
}

// oAnyStreak is the first of the last event's failures whose streak has
// reached the threshold, else the longest streak seen.
func oAnyStreak(h []Event, cfg Config) (what string, streak []int, calls, msgs []string) {
	whats, onFile, failing := oFailWhats(h[len(h)-1])
	if !failing {
		return "", nil, nil, nil
	}
	for _, w := range whats {
		in, c, m := oFailStreak(h, w, onFile && strings.HasPrefix(w, "file "))
		if strings.HasPrefix(w, "key killed by its timeout: ") && !oTimedOut(h, in) {
			// Port-taken runs alone: no streak of a server run the
			// wrong way.
			continue
		}
		if oFires(h, in, oThresholdFor(h, in, w, cfg)) {
			return w, in, c, m
		}
		if len(in) > len(streak) {
			what, streak, calls, msgs = w, in, c, m
		}
	}
	return what, streak, calls, msgs
}

// oTimedOut: some failure of the streak was a run killed by its timeout
// (its first key says so), not only a run that found its port taken.
func oTimedOut(h []Event, in []int) bool {
	for _, i := range in {
		if keys := strings.Split(h[i].Fail, "\n"); keys[0] != "" && strings.HasPrefix(keys[0], "killed by its timeout: ") {
			return true
		}
	}
	return false
}

// oRounds are the rounds of a streak (in, oldest first): a failure with
// the same non-empty Batch as the streak's failure before it joins that
// one's round. Each round is given by its first failure.
func oRounds(h []Event, in []int) []int {
	var r []int
	for j, i := range in {
		if j == 0 || h[i].Batch == "" || h[i].Batch != h[in[j-1]].Batch {
			r = append(r, i)
		}
	}
	return r
}

// oFires: the streak's newest failure opens a round, and the rounds reach
// the threshold, or go on after the user spoke (oSaidAgain).
func oFires(h []Event, in []int, th int) bool {
	if len(in) == 0 {
		return false
	}
	r := oRounds(h, in)
	if r[len(r)-1] != in[len(in)-1] {
		return false
	}
	return len(r) == th || oSaidAgain(h, r, th)
}

// oSaidAgain: a streak (in, oldest first) that went on after the user
// spoke, by exactly th failures under later prompts than the th-th one's,
// the last of them the newest, is said again.
func oSaidAgain(h []Event, in []int, th int) bool {
	if th < 1 || len(in) <= th {
		return false
	}
	said := h[in[th-1]].Prompt
	later := 0
	for _, i := range in {
		if h[i].Prompt > said {
			later++
		}
	}
	return later == th && h[in[len(in)-1]].Prompt > said
}

// oThreshold: a command killed by its timeout twice is a loop (a server
// run in the foreground), and so is a failure no retry changes (sudo with
// no terminal, an ignored path, a push the remote's rules refuse); any
// other failure, FailThreshold times.
func oThreshold(what string, cfg Config) int {
	short := strings.HasPrefix(what, "key killed by its timeout: ")
	for _, k := range []string{"sudo cannot ask for the password", "git add refused: the path is ignored by .gitignore", "push refused by the repository's rules", "the page is too long for WebFetch", "a path with an escaped space was split in two", "brew has no newer version to upgrade to", "TaskOutput finds no task by a subagent's id", "npm finds no such script in the package.json where it runs"} {
		short = short || what == "key "+k
	}
	if short && cfg.FailThreshold > 2 {
		return 2
	}
	return cfg.FailThreshold
}

// oThresholdFor is oThreshold for the streak in of h, except that two
// rounds of a short-threshold failure a window or more apart (by event
// number) need the usual threshold.
func oThresholdFor(h []Event, in []int, what string, cfg Config) int {
	th := oThreshold(what, cfg)
	if th == cfg.FailThreshold || len(in) == 0 {
		return th
	}
	r := oRounds(h, in)
	if len(r) >= th && h[in[len(in)-1]].Seq-h[r[len(r)-th]].Seq >= uint64(cfg.Window) {
		return cfg.FailThreshold
	}
	return th
}

// oracleFailLoop checks fail-loop on h.
func oracleFailLoop(h []Event, cfg Config) (Finding, bool) {
	return oracleFailLoopEdits(h, cfg, nil)
}

func oracleFailLoopEdits(h []Event, cfg Config, writesSince func(seq uint64, chain map[uint64]bool) (int, bool)) (Finding, bool) {
	t := len(h) - 1
	cur := h[t]
	what, in, calls, msgs := oAnyStreak(h, cfg)
	if !oFires(h, in, oThresholdFor(h, in, what, cfg)) {
		return Finding{}, false
	}
	onFile := strings.HasPrefix(what, "file ")
	f := Finding{Tool: cur.Tool, Target: cur.Target, Count: len(in), Fingerprint: cur.Error}
	if k, isKey := strings.CutPrefix(what, "key "); isKey {
		id, _, _ := strings.Cut(k, "\x1f")
		f.Fingerprint, f.Key = id, id
		if len(msgs) == 1 {
			f.Fingerprint = msgs[0]
		}
	}
	if onFile && len(calls) > 1 {
		f.Key = cur.Target
	}
	for _, idx := range in {
		f.Events = append(f.Events, h[idx].Seq)
	}
	isCall := map[string]bool{}
	for _, c := range calls {
		isCall[c] = true
	}
	n, inMemory := 0, false
	if writesSince != nil {
		chain := map[uint64]bool{}
		for _, idx := range in {
			chain[h[idx].Seq] = true
		}
		n, inMemory = writesSince(h[in[0]].Seq, chain)
	}
	if inMemory {
		f.Edits = n
	} else {
		for idx := in[0] + 1; idx < t; idx++ {
			e := h[idx]
			if oEdit(e) && !isCall[e.Tool+"|"+e.Target] {
				f.Edits++
			}
		}
	}
	if len(calls) > 1 {
		for _, c := range calls {
			tool, target, _ := strings.Cut(c, "|")
			f.Steps = append(f.Steps, Step{Tool: tool, Target: target})
		}
	}
	return f, true
}

// oPointsElsewhere: the spec's messages that say where the error is
// rather than what it is; an edit ends their streak.
func oPointsElsewhere(msg string) bool {
	for _, w := range []string{"for details", "for more details", "journalctl", "complete log of this run"} {
		if strings.Contains(strings.ToLower(msg), w) {
			return true
		}
	}
	return false
}

// oRemembered is what fail-loop still knows of the events before the
// window, h: each failure in turn joins the list (the oldest leaves past
// FailMemory), and any other event strikes out the failures of its own
// call, and a write those of file tools on its file.
func oRemembered(h []Event) []Event {
	var list []Event
	for _, d := range h {
		if _, _, failing := oFailWhats(d); failing {
			list = append(list, Event{Seq: d.Seq, Tool: d.Tool, Target: d.Target, Failed: d.Failed, Error: d.Error, Fail: d.Fail, Call: d.Call, Prompt: d.Prompt, Edits: d.Edits, Batch: d.Batch})
			if len(list) > FailMemory {
				list = list[1:]
			}
			continue
		}
		var keep []Event
		for _, r := range list {
			sameCall := r.Tool == d.Tool && r.Target == d.Target
			fileWrite := oFileWrite(d) && r.Failed && (oracleReads[r.Tool] || oracleWrites[r.Tool]) && r.Target == oFile(d)
			if !sameCall && !fileWrite {
				keep = append(keep, r)
			}
		}
		list = keep
	}
	return list
}

func oSameCall(a, b Event) bool {
	switch {
	case a.Interrupted || b.Interrupted:
		return false
	case a.Tool != b.Tool || a.Input != b.Input || a.Input == "":
		return false
	case a.Failed != b.Failed:
		return false
	case a.Failed:
		return a.Error == b.Error
	case a.Empty || b.Empty:
		// Printing nothing is one result, whatever the rest of the
		// response held.
		return a.Empty && b.Empty
	default:
		return a.Result != "" && a.Result == b.Result
	}
}

// oracleToolLoop is the same call or cycle repeated, else different
// commands printing one output.
func oracleToolLoop(h []Event, cfg Config) (Finding, bool) {
	if f, ok := oracleRepeatLoop(h, cfg); ok {
		return f, true
	}
	if f, ok := oracleSameOutput(h); ok {
		return f, true
	}
	if f, ok := oracleRerun(h); ok {
		return f, true
	}
	return oracleEmptyLooks(h)
}

// oracleEmptyLooks: the newest call is a successful look at a file (Look)
// that printed nothing; the looks at that file since the last boundary (a
// call in another prompt, a look at it that printed something or failed,
// a write of it or a command that writes some file) fall into exactly
// three rounds, the newest opening the third.
func oracleEmptyLooks(h []Event) (Finding, bool) {
	n := len(h)
	last := h[n-1]
	if last.Look == "" || !last.Empty || !oSucceeded(last) {
		return Finding{}, false
	}
	look := func(e Event) bool { return e.Look == last.Look }
	in := oSince(h, func(e Event) bool {
		writes := oSucceeded(e) && (oracleWrites[e.Tool] && e.Target == last.Look || oracleShells[e.Tool] && (e.Wrote == last.Look || e.Edits))
		return e.Prompt != last.Prompt || look(e) && (!e.Empty || !oSucceeded(e)) || !look(e) && writes
	}, look)
	if !oThreeRounds(h, in) {
		return Finding{}, false
	}
	f := Finding{Tool: last.Tool, Target: last.Look, Count: len(in), Cycle: 1, Empty: true, Looked: true}
	for _, i := range in {
		f.Events = append(f.Events, h[i].Seq)
		f.Steps = append(f.Steps, Step{Tool: h[i].Tool, Target: h[i].Target})
	}
	return f, true
}

// oRunsSinceBoundary lists the runs of the newest call's script (Run)
// after the last boundary: a call in another prompt, a failed run of the
// script, or any other call that edits, hands work to a subagent or
// installs packages.
// oInstalls: the command holds a package manager followed by an install
// word, written out from the words of the rule rather than its tables.
func oInstalls(cmd string) bool {
	return regexp.MustCompile(`(^|[\s/])(npm|pnpm|yarn|bun|pip3?|uv|poetry|pipenv|conda|bundle|gem|cargo|go|composer|dotnet|mix)\s+(mod\s+)?(install|i|ci|add|remove|uninstall|update|upgrade|sync|get|tidy|restore|deps\.get|download)(\s|$)`).MatchString(cmd)
}

func oRunsSinceBoundary(h []Event) []int {
	last := h[len(h)-1]
	run := func(e Event) bool { return e.Run == last.Run }
	return oSince(h, func(e Event) bool {
		return e.Prompt != last.Prompt || run(e) && !oSucceeded(e) || !run(e) && (oEdit(e) || e.Tool == "Task" || e.Tool == "Agent" || e.Tool == "Bash" && oInstalls(e.Target))
	}, run)
}

// oSince lists, oldest first, the calls of h after the last boundary (the
// newest call for which boundary holds) for which member holds.
func oSince(h []Event, boundary, member func(Event) bool) []int {
	from := 0
	for i, e := range h {
		if boundary(e) {
			from = i + 1
		}
	}
	var in []int
	for i := from; i < len(h); i++ {
		if member(h[i]) {
			in = append(in, i)
		}
	}
	return in
}

// oThreeRounds: the calls in of h fall into exactly three rounds, the
// newest call of h opening the third.
func oThreeRounds(h []Event, in []int) bool {
	r := oRounds(h, in)
	return len(r) == 3 && r[2] == len(h)-1
}

// oracleRerun: the newest call is a successful run of a script, not an
// install; its runs since the last boundary fall into exactly three rounds,
// the newest opening the third, and are not all one command (Input).
func oracleRerun(h []Event) (Finding, bool) {
	n := len(h)
	last := h[n-1]
	if last.Tool != "Bash" || last.Run == "" || !oSucceeded(last) || oInstalls(last.Target) {
		return Finding{}, false
	}
	in := oRunsSinceBoundary(h)
	if !oThreeRounds(h, in) {
		return Finding{}, false
	}
	f := Finding{Tool: last.Tool, Target: last.Run, Count: len(in), Cycle: 1, Rerun: true}
	var inputs []string
	for _, i := range in {
		f.Events = append(f.Events, h[i].Seq)
		f.Steps = append(f.Steps, Step{Tool: h[i].Tool, Target: h[i].Target})
		if !slices.Contains(inputs, h[i].Input) {
			inputs = append(inputs, h[i].Input)
		}
	}
	if len(inputs) < 2 {
		return Finding{}, false
	}
	return f, true
}

// oracleSameOutput: the newest call succeeded and printed P; of the calls
// since the last edit, those that succeeded and printed P fall into
// exactly three rounds, the newest opening the third, and name at least
// three different commands.
func oracleSameOutput(h []Event) (Finding, bool) {
	n := len(h)
	last := h[n-1]
	if last.Printed == "" || !oSucceeded(last) {
		return Finding{}, false
	}
	in := oPrintedSinceEdit(h)
	if !oThreeRounds(h, in) {
		return Finding{}, false
	}
	f := Finding{Tool: last.Tool, Target: last.Target, Count: len(in), Cycle: 1, SameOutput: true}
	var cmds []string
	for _, i := range in {
		f.Events = append(f.Events, h[i].Seq)
		if !slices.Contains(cmds, h[i].Target) {
			cmds = append(cmds, h[i].Target)
			f.Steps = append(f.Steps, Step{Tool: h[i].Tool, Target: h[i].Target})
		}
	}
	if len(cmds) < 3 {
		return Finding{}, false
	}
	return f, true
}

func oracleRepeatLoop(h []Event, cfg Config) (Finding, bool) {
	n := len(h)
	ks := []int{1}
	for k := max(cfg.CycleMin, 2); k <= cfg.CycleMax; k++ {
		ks = append(ks, k)
	}
	// blocksEqual tells whether the last m blocks of length k are all the
	// same calls as the last one.
	blocksEqual := func(k, m int) bool {
		if m*k > n {
			return false
		}
		last := h[n-k:]
		for r := 1; r < m; r++ {
			block := h[n-(r+1)*k : n-r*k]
			for j := range k {
				if !oSameCall(block[j], last[j]) {
					return false
				}
			}
		}
		return true
	}
	for _, k := range ks {
		if !blocksEqual(k, cfg.ToolRepeats) {
			continue
		}
		last := h[n-k:]
		allClaimed, waiting, waits := true, false, false
		for _, e := range last {
			exempt := false
			for _, x := range cfg.ExemptTools {
				if e.Tool == x {
					exempt = true
				}
			}
			// A shell command exempt by its first word, unless it does
			// more after it (sleep 60 && tail log: a poll, a call like
			// any other).
			if oracleShells[e.Tool] && len(strings.Fields(e.Target)) <= 2 {
				first := strings.SplitN(e.Target, " ", 2)[0]
				for _, x := range cfg.ExemptCommands {
					if first == x {
						exempt = true
					}
				}
			}
			if exempt && (k != 1 || cfg.ExemptRepeats == 0) {
				return Finding{}, false
			}
			if exempt {
				waiting = true
				// A call that itself waits: a shell command, an input
				// asking to block, a TaskOutput not told otherwise.
				var in map[string]any
				_ = json.Unmarshal([]byte(e.Target), &in)
				b, hasBlock := in["block"].(bool)
				waits = oracleShells[e.Tool] || hasBlock && b || e.Tool == "TaskOutput" && !(hasBlock && !b)
			}
			var claimed bool
			switch {
			case e.Failed || e.Interrupted || e.Fail != "":
				claimed = cfg.On(FailLoop)
			case oracleReads[e.Tool]:
				claimed = cfg.On(ReadLoop)
			case oracleWrites[e.Tool]:
				claimed = cfg.On(EditRevert) && e.After != ""
			}
			allClaimed = allClaimed && claimed
		}
		if allClaimed {
			return Finding{}, false
		}
		m := cfg.ToolRepeats
		for blocksEqual(k, m+1) {
			m++
		}
		// The user spoke before every repeat: each run was asked for.
		asked := true
		for r := 1; r < m; r++ {
			prev, cur := h[n-(m-r+1)*k:n-(m-r)*k], h[n-(m-r)*k:n-(m-r-1)*k]
			hi, lo := uint64(0), ^uint64(0)
			for _, e := range prev {
				hi = max(hi, e.Prompt)
			}
			for _, e := range cur {
				lo = min(lo, e.Prompt)
			}
			asked = asked && lo > hi
		}
		if asked {
			return Finding{}, false
		}
		if waiting && m < cfg.ExemptRepeats {
			return Finding{}, false // polling, not yet long enough to be a loop
		}
		if waits && m < 10 && m < max(cfg.ExemptRepeats, 10) {
			return Finding{}, false // each call waited: ten the same before it is a loop
		}
		f := Finding{Tool: h[n-1].Tool, Target: h[n-1].Target, Count: m, Cycle: k, Empty: k == 1}
		for _, e := range h[n-m*k:] {
			f.Events = append(f.Events, e.Seq)
			f.Empty = f.Empty && e.Empty
		}
		for _, e := range last {
			f.Steps = append(f.Steps, Step{Tool: e.Tool, Target: e.Target})
		}
		return f, true
	}
	return Finding{}, false
}

var oraclePatterns = []struct {
	name  string
	check func([]Event, Config) (Finding, bool)
}{
	{ReadLoop, oracleReadLoop},
	{EditRevert, oracleEditRevert},
	{FailLoop, oracleFailLoop},
	{ToolLoop, oracleToolLoop},
}

// oracleAlerts replays a history through seed 002's decision rule, with the
// oracle predicates evaluated on the last Window events.
func oracleAlerts(events []Event, cfg Config) [][]Finding {
	ema := map[string]float64{}
	last := map[string]int{}
	lastHard := map[string]bool{}
	out := make([][]Finding, len(events))
	for t := range events {
		win := events[max(0, t+1-cfg.Window) : t+1]
		var hard, soft, noLoop []Finding
		for _, p := range oraclePatterns {
			if !cfg.On(p.name) {
				continue
			}
			var f Finding
			var hit bool
			if p.name == FailLoop {
				start := max(0, t+1-cfg.Window)
				h := append(oRemembered(events[:start]), win...)
				// Edits since a remembered failure: every successful write
				// after it but the streak's own calls.
				writesSince := func(seq uint64, chain map[uint64]bool) (int, bool) {
					if seq >= events[start].Seq {
						return 0, false
					}
					n := 0
					for _, e := range events[:t] {
						if e.Seq > seq && oEdit(e) && !chain[e.Seq] {
							n++
						}
					}
					return n, true
				}
				f, hit = oracleFailLoopEdits(h, cfg, writesSince)
			} else {
				f, hit = p.check(win, cfg)
			}
			if hit && (f.Asked || f.Rollback) {
				// Asked for, or a rollback: no loop, reported with the pattern's memory
				// as it was, and the predicate counts as not holding.
				f.Pattern, f.Seq, f.EMA, f.Severity = p.name, uint64(t+1), ema[p.name], Soft
				noLoop = append(noLoop, f)
				hit = false
			}
			x := 0.0
			if hit {
				x = 1
			}
			ema[p.name] = cfg.Alpha*x + (1-cfg.Alpha)*ema[p.name]
			if hit && f.Once {
				// No loop: the predicate held (the EMA counts it), but it
				// is reported after the alerts, soft, with no alert.
				f.Pattern, f.Seq, f.EMA, f.Severity = p.name, uint64(t+1), ema[p.name], Soft
				noLoop = append(noLoop, f)
				continue
			}
			if !hit {
				continue
			}
			cd := cfg.Cooldown
			if lastHard[p.name] && ema[p.name] >= cfg.HardEMA {
				cd *= cfg.CooldownStretch
			}
			if last[p.name] != 0 && t+1-last[p.name] <= cd {
				continue
			}
			last[p.name] = t + 1
			f.Pattern, f.Seq, f.EMA = p.name, uint64(t+1), ema[p.name]
			if ema[p.name] >= cfg.HardEMA {
				f.Severity = Hard
				hard = append(hard, f)
			} else {
				f.Severity = Soft
				soft = append(soft, f)
			}
			lastHard[p.name] = f.Severity == Hard
		}
		out[t] = append(append(hard, soft...), noLoop...)
	}
	return out
}

// history generators over small alphabets, so that repeats are common.

var (
	genFiles   = []string{"/p/a.go", "/p/b.go", "/p/c.go"}
	genRanges  = []string{"", "", "lines 1-50"}
	genCmds    = []string{"make", "go test ./...", "sleep 5", "cat > s.py << 'EOF' x EOF", "make 2>&1 >/dev/null", "sed -i s/a/b/ x.go"}
	genHashes  = []string{"h0", "h1", "h2"}
	genErrors  = []string{"E1", "E1", "E2", "E3 See journalctl for details"}
	genResults = []string{"r1", "r1", "r2"}
	genFails   = []string{"address in use :3000", "address in use :3000", "missing x",
		"test failed a.test.ts > t\x1fexpected 1", "test failed a.test.ts > t\x1fexpected 2", "test failed a.test.ts > t",
		"missing x\ntest failed a.test.ts > t", "test failed b.test.ts > u\ntest failed a.test.ts > t\x1fexpected 1",
		// One file named absolute and relative, and another file.
		"permission denied /p/w/a.yml", "permission denied ./w/a.yml", "permission denied w/a.yml", "permission denied x/w/a.yml", "permission denied /q/b.yml",
		// A server killed by its timeout: a loop at the second round.
		"killed by its timeout: mix", "killed by its timeout: mix", "killed by its timeout: npm",
		// A server run again in the foreground whose port is taken:
		// one with a run killed by its timeout, not on its own.
		"address in use :3000\nkilled by its timeout: mix", "address in use :3001\nkilled by its timeout: mix",
		// Failures no retry changes: a loop at the second round too.
		"sudo cannot ask for the password", "push refused by the repository's rules", "the page is too long for WebFetch",
		"a path with an escaped space was split in two", "brew has no newer version to upgrade to", "TaskOutput finds no task by a subagent's id",
		"npm finds no such script in the package.json where it runs"}
)

// genWrites are the generated commands that write a file (NewEventIn's
// Edits, which TestEventEdits holds to the parsed command).
var genWrites = map[string]bool{"cat > s.py << 'EOF' x EOF": true, "sed -i s/a/b/ x.go": true}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// randomHistory draws every field independently: impossible sequences too
// (reads with Before hashes, writes that start from a hash the file never
// had), which both implementations must still agree on.
func randomHistory(r *rand.Rand, n int) []Event {
	h := make([]Event, n)
	tools := []string{"Read", "Read", "Edit", "Write", "Bash", "Bash", "Grep", "mcp__s__poll", "TaskOutput", "Task"}
	for i := range h {
		e := Event{Tool: pick(r, tools)}
		switch e.Tool {
		case "Read", "Edit", "Write":
			e.Target = pick(r, genFiles)
		case "Bash":
			e.Target = pick(r, genCmds)
			e.Edits = genWrites[e.Target]
			if e.Edits && r.IntN(2) == 0 {
				e.Wrote = pick(r, genFiles) // a heredoc that wrote a file whole
			}
		default:
			e.Target = "q" + fmt.Sprint(r.IntN(2))
		}
		if e.Tool == "Read" {
			e.Range = pick(r, genRanges)
		}
		e.Input = e.Tool + e.Target + e.Range + fmt.Sprint(r.IntN(2))
		if r.IntN(20) == 0 {
			e.Input = ""
		}
		e.Failed = r.IntN(4) == 0
		e.Interrupted = r.IntN(30) == 0
		if e.Failed {
			e.Error = pick(r, genErrors)
		}
		if r.IntN(6) == 0 {
			e.Fail = pick(r, genFails)
		}
		e.Batch = pick(r, []string{"", "", "m1", "m2"})
		if r.IntN(4) != 0 {
			e.Result = pick(r, genResults)
		}
		if e.Tool == "Bash" && r.IntN(4) != 0 {
			e.Printed = pick(r, []string{"p1", "p1", "p1", "p2"})
		}
		if e.Tool == "Bash" && r.IntN(2) == 0 {
			e.Run = pick(r, []string{"npm test", "npm test", "go test"})
		}
		if e.Tool == "Bash" && r.IntN(3) == 0 {
			e.Look, e.Empty = pick(r, []string{"out.log", "out.log", "b.txt"}), r.IntN(4) != 0
		}
		if r.IntN(2) == 0 {
			e.Before = pick(r, append(genHashes, ""))
		}
		e.After = pick(r, append(genHashes, ""))
		h[i] = e
	}
	return h
}

// realisticHistory keeps a file system: reads see the current content,
// edits start from it, commands sometimes change a file unseen, and agents
// re-read, revert, retry and poll.
func realisticHistory(r *rand.Rand, n int) []Event {
	state := map[string]string{}
	for _, f := range genFiles {
		state[f] = pick(r, genHashes)
	}
	h := make([]Event, 0, n)
	for len(h) < n {
		var e Event
		switch r.IntN(14) {
		case 13: // a wrapper that runs nothing: other commands, one banner
			c := pick(r, genCmds)
			e = Event{Tool: "Bash", Target: c, Input: "bash" + c, Result: "banner-result", Printed: "banner"}
			e.Batch = pick(r, []string{"", "", "b1"})
		case 0, 1, 2, 3: // read, sometimes a page, sometimes a missing file
			f := pick(r, genFiles)
			e = Event{Tool: "Read", Target: f, Range: pick(r, genRanges)}
			e.Input = "read" + f + e.Range
			if r.IntN(10) == 0 {
				e.Failed, e.Error = true, "E-missing"
				break
			}
			if r.IntN(10) != 0 {
				e.After = state[f]
			}
			e.Result = "content-" + state[f] + e.Range
		case 4, 5: // edit: from the current content to another
			f := pick(r, genFiles)
			to := pick(r, genHashes)
			e = Event{Tool: pick(r, []string{"Edit", "Write"}), Target: f, Before: state[f], After: to}
			e.Input = "edit" + f + to
			if r.IntN(8) == 0 {
				e.Failed, e.Error = true, "E-nomatch"
				e.Before, e.After = "", ""
				break
			}
			if r.IntN(10) == 0 {
				e.Before = ""
			}
			e.Result = "edited" + state[f] + to
			if r.IntN(10) == 0 {
				e.After = "" // the hook could not hash it
			}
			state[f] = to
		case 6, 7: // a command that fails, mostly with the same error
			c := pick(r, genCmds)
			e = Event{Tool: "Bash", Target: c, Input: "bash" + c}
			if r.IntN(2) == 0 { // a test run, its output cut one way or another
				e.Run = "npm test"
				e.Input += pick(r, []string{" | tail", " | grep", ""})
			}
			if r.IntN(3) != 0 {
				e.Failed, e.Error = true, pick(r, genErrors)
			} else {
				e.Result = pick(r, genResults)
				if r.IntN(2) == 0 { // it printed what the others did: a banner
					e.Printed = "banner"
				}
			}
			if e.Run != "" && e.Failed && r.IntN(3) != 0 { // test runs mostly pass
				e.Failed, e.Error, e.Result = false, "", pick(r, genResults)
			}
			if r.IntN(4) == 0 { // the output names the failure: a port, a module
				e.Fail = pick(r, genFails)
			}
			if r.IntN(25) == 0 {
				e.Failed, e.Interrupted, e.Error, e.Result = true, true, "", ""
			}
			if r.IntN(6) == 0 { // it rewrote a file behind our back
				state[pick(r, genFiles)] = pick(r, genHashes)
			}
			if !e.Failed && r.IntN(6) == 0 { // a heredoc that wrote a file whole, its content known
				f := pick(r, genFiles)
				e.Edits, e.Wrote, e.After = true, f, pick(r, genHashes)
				state[f] = e.After
			}
		case 8: // search or poll, or a look at a job's output file
			e = Event{Tool: pick(r, []string{"Grep", "mcp__s__poll"}), Target: "q"}
			e.Input = e.Tool + "q"
			e.Result = pick(r, genResults)
			if r.IntN(2) == 0 {
				view := pick(r, []string{"cat", "tail", "head"})
				e = Event{Tool: "Bash", Target: view + " out.log", Input: "bash" + view, Look: "out.log", Empty: r.IntN(5) != 0}
				e.Result = pick(r, genResults)
				e.Batch = pick(r, []string{"", "", "b2"})
			}
		case 9, 10, 11, 12: // replay the last few calls, to make cycles
			k := 1 + r.IntN(4)
			if k > len(h) {
				continue
			}
			for _, p := range h[len(h)-k:] {
				if len(h) < n {
					p.Seq = 0
					h = append(h, p)
				}
			}
			continue
		}
		h = append(h, e)
	}
	return h
}

// withPrompts numbers the user prompts a history's calls ran under: now
// and then the user speaks between two calls.
func withPrompts(r *rand.Rand, h []Event) []Event {
	p := uint64(r.IntN(2))
	for i := range h {
		if r.IntN(8) == 0 {
			p++
		}
		h[i].Prompt = p
	}
	return h
}

func randomConfig(r *rand.Rand) Config {
	c := DefaultConfig()
	c.Window = 8 + r.IntN(20)
	c.Cooldown = r.IntN(7)
	c.CooldownStretch = 1 + r.IntN(3)
	c.HardEMA = []float64{0.3, 0.5, 0.8}[r.IntN(3)]
	c.Alpha = []float64{0.2, 0.3, 0.6}[r.IntN(3)]
	c.ReadThreshold = 2 + r.IntN(3)
	c.FailThreshold = 2 + r.IntN(3)
	c.ToolRepeats = 2 + r.IntN(2)
	c.CycleMin = 2 + r.IntN(2)
	c.CycleMax = min(c.CycleMin-1+r.IntN(4), c.Window/c.ToolRepeats)
	for _, name := range []string{ReadLoop, EditRevert, FailLoop, ToolLoop} {
		c.Enabled[name] = r.IntN(5) != 0
	}
	if r.IntN(2) == 0 {
		c.ExemptCommands = nil
	}
	return c
}

func numbered(h []Event) []Event {
	out := make([]Event, len(h))
	for i, e := range h {
		e.Seq = uint64(i + 1)
		out[i] = e
	}
	return out
}

func sameFinding(a, b Finding) bool {
	if math.Abs(a.EMA-b.EMA) > 1e-12 {
		return false
	}
	a.EMA, b.EMA = 0, 0
	return reflect.DeepEqual(a, b)
}

func dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestPatternsMatchOracle checks each pattern's verdict and facts at every
// step: exactly equal to the oracle's over the whole history while the
// history fits the window, and implied by it afterwards (the ring only
// forgets, so whatever it sees, the full history shows too).
func TestPatternsMatchOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	cfg := DefaultConfig()
	fits, beyond, hits := 0, 0, map[string]int{}
	for iter := range 4000 {
		var h []Event
		if iter%2 == 0 {
			h = randomHistory(r, 1+r.IntN(45))
		} else {
			h = realisticHistory(r, 1+r.IntN(45))
		}
		h = numbered(withPrompts(r, h))
		var s State
		for i, e := range h {
			e.Seq = 0
			s.Record(e, cfg)
			full := h[:i+1]
			for j, p := range Builtin() {
				got, hit := p.Check(s.Events, cfg)
				want, wantHit := oraclePatterns[j].check(full, cfg)
				if wantHit {
					hits[p.Name()]++
					if want.SameOutput {
						hits["same-output"]++
					}
					if want.Rerun {
						hits["rerun"]++
					}
				}
				if len(full) <= cfg.Window {
					fits++
					if hit != wantHit || (hit && !sameFinding(got, want)) {
						t.Fatalf("%s at event %d of %s:\nengine %v %s\noracle %v %s", p.Name(), i+1, dump(full), hit, dump(got), wantHit, dump(want))
					}
				} else {
					beyond++
					if p.Name() == FailLoop && hit {
						// A fail-loop holds when its streak reaches the
						// threshold; the full history may hold a longer
						// streak, of which the window sees the end.
						if w, in, _, _ := oAnyStreak(full, cfg); len(in) < oThresholdFor(full, in, w, cfg) {
							t.Fatalf("fail-loop at event %d: the window fires and the full history holds no streak: %s", i+1, dump(full))
						}
					} else if hit && got.Rerun {
						// Three rounds in the window may be the end of
						// more in the full history.
						if len(oRounds(full, oRunsSinceBoundary(full))) < 3 {
							t.Fatalf("rerun at event %d: the window fires and the full history holds no three rounds: %s", i+1, dump(full))
						}
					} else if hit && got.SameOutput {
						// Three rounds in the window may be the end of
						// more in the full history.
						if !oPrintedRounds(full, 3) {
							t.Fatalf("same-output at event %d: the window fires and the full history holds no three rounds: %s", i+1, dump(full))
						}
					} else if hit && !wantHit {
						t.Fatalf("%s at event %d: the window fires and the full history does not: %s", p.Name(), i+1, dump(full))
					}
				}
			}
		}
	}
	if hits["same-output"] < 50 {
		t.Errorf("same-output held only %d times: the generators do not exercise it", hits["same-output"])
	}
	if hits["rerun"] < 50 {
		t.Errorf("rerun held only %d times: the generators do not exercise it", hits["rerun"])
	}
	for _, name := range []string{ReadLoop, EditRevert, FailLoop, ToolLoop} {
		if hits[name] < 200 {
			t.Errorf("%s held only %d times: the generators do not exercise it", name, hits[name])
		}
	}
	t.Logf("exact comparisons %d, beyond the window %d, oracle hits %v", fits, beyond, hits)
}

// TestRecordMatchesOracle replays random histories under random configs
// and compares every alert (pattern, severity, EMA and facts) with the
// oracle's replay of seed 002's decision rule.
func TestRecordMatchesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	alerts := map[Severity]int{}
	for iter := range 3000 {
		cfg := DefaultConfig()
		if iter%3 != 0 {
			cfg = randomConfig(r)
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("random config: %v", err)
		}
		var h []Event
		if iter%2 == 0 {
			h = randomHistory(r, 1+r.IntN(60))
		} else {
			h = realisticHistory(r, 1+r.IntN(60))
		}
		h = withPrompts(r, h)
		want := oracleAlerts(numbered(h), cfg)
		var s State
		for i, e := range h {
			got := s.Record(e, cfg)
			if len(got) != len(want[i]) {
				t.Fatalf("config %s, event %d of %s:\nengine %s\noracle %s", dump(cfg), i+1, dump(numbered(h[:i+1])), dump(got), dump(want[i]))
			}
			for j := range got {
				alerts[got[j].Severity]++
				if !sameFinding(got[j], want[i][j]) {
					t.Fatalf("config %s, event %d of %s:\nengine %s\noracle %s", dump(cfg), i+1, dump(numbered(h[:i+1])), dump(got[j]), dump(want[i][j]))
				}
			}
			if len(s.Events) > cfg.Window {
				t.Fatalf("window holds %d events, limit %d", len(s.Events), cfg.Window)
			}
		}
	}
	if alerts[Soft] < 500 || alerts[Hard] < 500 {
		t.Errorf("alerts %v: too few of a kind to test escalation", alerts)
	}
	t.Logf("alerts %v", alerts)
}

// oPrintedRounds: the newest call's output was printed, since the last
// edit, in at least k rounds of successful calls.
func oPrintedRounds(h []Event, k int) bool {
	return h[len(h)-1].Printed != "" && len(oRounds(h, oPrintedSinceEdit(h))) >= k
}

// oPrintedSinceEdit lists the successful calls after the last edit that
// printed what the newest call printed.
func oPrintedSinceEdit(h []Event) []int {
	last := h[len(h)-1]
	return oSince(h, oEdit, func(e Event) bool { return e.Printed == last.Printed && oSucceeded(e) })
}
