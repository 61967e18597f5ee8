package loops

import (
	"iter"
	"slices"
	"strings"
)

// ok reports whether the call succeeded; an interruption is a failure.
func ok(e *Event) bool { return !e.Failed && !e.Interrupted }

// fileEvent reports whether e is a successful read or write of a file, the
// only events whose hashes say something about a file's content: a file
// tool's, or a shell command's that wrote a file whole (Event.Wrote).
func fileEvent(e *Event) (Kind, bool) {
	k := KindOf(e.Tool)
	if k == KindShell && e.Wrote != "" {
		return KindWrite, ok(e)
	}
	return k, (k == KindRead || k == KindWrite) && ok(e) && e.Target != ""
}

// fileOf is the file a file event is about: a file tool's target, or the
// file a shell command wrote whole.
func fileOf(e *Event) string {
	if KindOf(e.Tool) == KindShell {
		return e.Wrote
	}
	return e.Target
}

// isEdit tells a call that changed a file as fail-loop counts edits: a
// file tool's successful write, or a shell command that succeeded and
// writes a file (Event.Edits: a script rewritten by a heredoc is an edit
// too).
func isEdit(e *Event) bool {
	if k, isFile := fileEvent(e); isFile {
		return k == KindWrite
	}
	return KindOf(e.Tool) == KindShell && ok(e) && e.Edits
}

// fileEventsOn yields the index and kind of each file tool's event on
// target among w[:end], oldest first.
func fileEventsOn(w []Event, target string, end int) iter.Seq2[int, Kind] {
	return func(yield func(int, Kind) bool) {
		for i := range w[:end] {
			e := &w[i]
			if fileOf(e) != target {
				continue
			}
			if k, isFile := fileEvent(e); isFile && !yield(i, k) {
				return
			}
		}
	}
}

// readLoop: a successful Read of the same file and range for the
// ReadThreshold-th time since the file last changed, or since a write of it
// failed (which asks for the file to be read again).
type readLoop struct{}

func (readLoop) Name() string { return ReadLoop }

func (readLoop) Check(w []Event, cfg Config) (Finding, bool) {
	n := len(w)
	cur := &w[n-1]
	if k, isFile := fileEvent(cur); !isFile || k != KindRead {
		return Finding{}, false
	}
	start, since, changed, count := 0, 0, false, 0
	last := "" // the file's last known hash; "" when unknown
	// A refused write of the file ("File has not been read yet", "modified
	// since read", a string not found) asks for the file to be read again:
	// the reads before it do not count.
	refused := -1
	for i := range w[:n-1] {
		if e := &w[i]; e.Target == cur.Target && e.Failed && !e.Interrupted && KindOf(e.Tool) == KindWrite {
			refused = i
		}
	}
	for i, k := range fileEventsOn(w, cur.Target, n) {
		e := &w[i]
		moved, known := false, false
		for _, h := range [2]string{e.Before, e.After} {
			if h == "" {
				continue
			}
			if last == "" {
				// The first hash after a stretch of unknown content: the
				// reads before it may have seen other content, so they
				// are not counted (this keeps the ring from counting reads
				// across a change that happened before the window).
				known = true
			} else if h != last {
				moved = true
			}
			last = h
		}
		if k == KindWrite && e.After == "" {
			// A write with unknown result: assume it changed the file.
			moved, last = true, ""
		}
		if moved {
			start, since, changed, count = i, i, true, 0
		} else if known {
			start, count = i, 0
		}
		if k == KindRead && e.Range == cur.Range && i > refused {
			count++
		}
	}
	if count < cfg.ReadThreshold {
		return Finding{}, false
	}
	start = max(start, refused+1)
	f := Finding{Tool: cur.Tool, Target: cur.Target, Range: cur.Range, Count: count}
	if changed {
		f.Since = w[since].Seq
	}
	f.Events = make([]uint64, 0, count)
	for i := start; i < n; i++ {
		e := &w[i]
		if k, isFile := fileEvent(e); isFile && k == KindRead && e.Target == cur.Target && e.Range == cur.Range {
			f.Events = append(f.Events, e.Seq)
		}
	}
	return f, true
}

// editRevert: a successful write that leaves its file with a hash the file
// had earlier in the window (reads and pre-edit hashes included), different
// from the hash it had just before, undoing at least one of the agent's own
// writes. A read of part of a file (offset/limit, pages) says nothing about
// the whole file the agent saw, so it takes no part; and when no write of
// the agent's lies between the earlier hash and this write, the file was
// moved away from it by someone else (the user, a formatter, a command) and
// this write is the agent's first change, not a revert. When a user prompt
// came between the first write undone and the revert, the user most likely
// asked for it ("put it back"): the finding is Asked, recorded, no loop.
// The file's only revert in the window, made by a targeted edit, is Once:
// recorded, no loop (see Finding.Once). A revert to content no call failed
// on, after a call failed on the content it replaces, is a Rollback: the
// agent backing out a change that broke something, recorded, no loop.
type editRevert struct{}

// targetedEdit tells the file tools that change named text in a file, not
// the whole file.
func targetedEdit(tool string) bool {
	return tool == "Edit" || tool == "MultiEdit" || tool == "NotebookEdit"
}

func (editRevert) Name() string { return EditRevert }

// revertAt tells whether the write w[t] reverts its file within w[:t+1]:
// found is the index of the latest earlier event that showed w[t].After,
// viaBefore whether that was its Before hash, first the earliest hash of
// the file in the window, and undone how many of the agent's writes of the
// file the revert undoes; asked tells whether a user prompt came between
// the first of those writes and the revert.
func revertAt(w []Event, t int) (found int, viaBefore bool, first string, undone int, asked, reverted bool) {
	cur := &w[t]
	if k, isFile := fileEvent(cur); !isFile || k != KindWrite || cur.After == "" {
		return -1, false, "", 0, false, false
	}
	h := cur.After
	found = -1
	state := "" // the file's hash just before w[t]; "" when unknown
	// see takes in a known hash of the file at event i (before or after it).
	see := func(i int, hash string, before bool) {
		if first == "" {
			first = hash
		}
		if hash == h {
			found, viaBefore = i, before
		}
		state = hash
	}
	file := fileOf(cur)
	for i, k := range fileEventsOn(w, file, t+1) {
		e := &w[i]
		if k == KindRead && e.Range != "" {
			continue
		}
		if e.Before != "" {
			see(i, e.Before, true)
		}
		if i == t {
			break
		}
		if e.After != "" {
			see(i, e.After, false)
		} else if k == KindWrite {
			state = ""
		}
	}
	if found == t || state == "" || state == h || found < 0 {
		return -1, false, first, 0, false, false
	}
	firstUndone := -1
	if k, _ := fileEvent(&w[found]); viaBefore && k == KindWrite {
		undone++ // the write at found moved the file away from the hash
		firstUndone = found
	}
	for i, k := range fileEventsOn(w, file, t) {
		if i > found && k == KindWrite {
			undone++
			if firstUndone < 0 {
				firstUndone = i
			}
		}
	}
	if undone == 0 {
		return -1, false, first, 0, false, false
	}
	asked = cur.Prompt > w[firstUndone].Prompt
	return found, viaBefore, first, undone, asked, true
}

func (editRevert) Check(w []Event, cfg Config) (Finding, bool) {
	n := len(w)
	found, viaBefore, first, undone, asked, reverted := revertAt(w, n-1)
	if !reverted {
		return Finding{}, false
	}
	cur := &w[n-1]
	f := Finding{
		Tool:       cur.Tool,
		Target:     fileOf(cur),
		Events:     []uint64{w[found].Seq, cur.Seq},
		RevertTo:   w[found].Seq,
		FromBefore: viaBefore,
		Hash:       cur.After,
		Original:   cur.After == first,
		Undone:     undone,
		Asked:      asked,
	}
	// Count the reverts of the file in the window that were loops (all of
	// them, this one included, when this one was asked for).
	for i := range n {
		if fileOf(&w[i]) != fileOf(cur) {
			continue
		}
		if _, _, _, _, a, r := revertAt(w, i); r && (asked || !a) {
			f.Count++
		}
	}
	f.Once = !asked && f.Count == 1 && targetedEdit(cur.Tool)
	f.Rollback = !asked && rollback(w, n-1, found, viaBefore)
	return f, true
}

// rollback tells whether the revert w[t], which restores the content seen
// at w[found], puts back content that held: some call ran on it and none
// failed, while a call failed on the content the revert replaces (between
// the file's last write before t and t). Interruptions are the user's, not
// the content's, and count neither way.
func rollback(w []Event, t, found int, viaBefore bool) bool {
	file := fileOf(&w[t])
	writes := []int{}
	for i, k := range fileEventsOn(w, file, t) {
		if k == KindWrite {
			writes = append(writes, i)
		}
	}
	if len(writes) == 0 {
		return false
	}
	// The restored content was in place between two writes of the file
	// (start and end, exclusive): the write that made it, or the one
	// before the event that saw it, and the next.
	atWrite := slices.Contains(writes, found)
	start, end := -1, t
	for _, i := range writes {
		if i < found || i == found && atWrite && !viaBefore {
			start = i
		}
	}
	for _, i := range writes {
		if i > start && i < end {
			end = i
			break
		}
	}
	return ranClean(w, start+1, end, file) && failedIn(w, writes[len(writes)-1]+1, t)
}

// ranClean tells whether some call in w[from:to] other than a read or write
// of file ran, and none failed.
func ranClean(w []Event, from, to int, file string) bool {
	ran := false
	for i := from; i < to; i++ {
		e := &w[i]
		if e.Interrupted {
			continue
		}
		if e.Failed {
			return false
		}
		if _, isFile := fileEvent(e); !isFile || fileOf(e) != file {
			ran = true
		}
	}
	return ran
}

// failedIn tells whether a call in w[from:to] failed (not by an
// interruption).
func failedIn(w []Event, from, to int) bool {
	for i := from; i < to; i++ {
		if w[i].Failed && !w[i].Interrupted {
			return true
		}
	}
	return false
}

// failLoop: FailThreshold failures with one identity (see failIdentities)
// in a row, whichever tools or commands met them, counted by round: the
// failures of one batch (Event.Batch) are one round. Calls that bear on none
// of the failing calls do not count, nor does a failing call failing
// otherwise; a failing call that succeeds, an interruption of one, or a
// write of the failing file ends the streak. It holds when the streak
// reaches the threshold, not after: one streak is one loop, so a batch of
// identical failures is said once.
type failLoop struct{}

func (failLoop) Name() string { return FailLoop }

// failIdentities are what a failure is about: for a file tool, the file
// and the error (Edit, MultiEdit and Write failing alike on one file are
// one failure); else each of the failure's keys when its text names some
// (the port, the module, the user, the failing test); else the call and
// the error. ok is false for a call that neither failed nor reported a
// failure, and for an interruption.
func failIdentities(e *Event) (ids []string, file bool, ok bool) {
	if e.Interrupted {
		// The user stopping a call is the user steering, not a failure;
		// but the same foreground server stopped again is one
		// (InterruptKey).
		if strings.HasPrefix(e.Fail, InterruptKey) {
			return []string{"key\x00" + e.Fail}, false, true
		}
		return nil, false, false
	}
	if k := KindOf(e.Tool); e.Failed && (k == KindRead || k == KindWrite) && e.Target != "" {
		// The file and the error; and the failure's keys, so that a
		// command meeting the same failure on the file (a cat or chmod
		// refused after a Read was) joins the streak.
		ids := []string{"file\x00" + e.Target + "\x00" + e.Error}
		for _, k := range failKeys(e.Fail) {
			ids = append(ids, "key\x00"+k)
		}
		return ids, true, true
	}
	if e.Fail != "" {
		keys := failKeys(e.Fail)
		for i, k := range keys {
			keys[i] = "key\x00" + k
		}
		return keys, false, true
	}
	if e.Failed {
		ids := []string{"call\x00" + e.Tool + "\x00" + e.Target + "\x00" + e.Error}
		if len(e.Error) >= minSharedError && namesFailure(e.Error) {
			// The same long error text, whatever command met it: three
			// node -e probes of one module each dying in the same 10 KB
			// of its minified source (ext-gilasintents #119-#121, a loop
			// to both judges of the forty-fifth set).
			ids = append(ids, "err\x00"+e.Tool+"\x00"+e.Error)
		}
		return ids, false, true
	}
	return nil, false, false
}

// namesFailure tells an error fingerprint that says something failed, not
// only a warning every call of a kind prints (ssh's "** WARNING:
// connection is not using a post-quantum key exchange algorithm" above a
// grep that found nothing, mthis-router #9, #10, #16).
func namesFailure(fp string) bool {
	low := strings.ToLower(fp)
	for _, w := range []string{"error", "fail", "exception", "fatal", "panic", "denied", "refused", "cannot", "unable", "invalid", "abort", "not found", "no such", "traceback", "segmentation", "killed", "timed out", "timeout"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// byErrorText tells a failure identity that is the error's text (with or
// without the call that met it), not a class of failure.
func byErrorText(id string) bool {
	return strings.HasPrefix(id, "call\x00") || strings.HasPrefix(id, "err\x00")
}

// minSharedError is the shortest error fingerprint that identifies a
// failure by itself, whichever call met it: one ErrorFingerprint clipped,
// of a text at least that long, its head, tail and a hash of the whole; a
// short one ("Exit code 1", "command not found: x") is met by unrelated
// calls alike.
const minSharedError = MaxFingerprint

// chainMatch follows one failure identity back through a window: it
// reports whether an identity of an earlier event is the same failure,
// and keeps, for a failing test, the message the chain has shown so far,
// so that two runs whose messages differ are never counted together.
type chainMatch struct {
	id, msg string
}

func (c *chainMatch) match(ids []string) bool {
	for _, x := range ids {
		if x == c.id {
			return true
		}
		a, b := strings.TrimPrefix(c.id, "key\x00"), strings.TrimPrefix(x, "key\x00")
		if len(a) == len(c.id) || len(b) == len(x) || !sameFailureKey(a, b) {
			continue
		}
		_, m, _ := strings.Cut(b, testKeySep)
		if m != "" && c.msg != "" && m != c.msg {
			continue
		}
		if m != "" {
			c.msg = m
		}
		return true
	}
	return false
}

// Remembered is a failure the window has dropped, kept so that fail-loop
// sees the same failure met again across more calls than the window holds;
// Writes is how many successful writes had been recorded by then.
type Remembered struct {
	Event
	Writes uint64 `json:"writes,omitempty"`
}

// FailMemory is how many dropped failures State.Failures keeps.
const FailMemory = 8

func (l failLoop) Check(w []Event, cfg Config) (Finding, bool) {
	return l.CheckRemembering(nil, w, 0, cfg)
}

// CheckRemembering is fail-loop over the remembered failures (older than
// the window) and the window; writes is the number of successful writes
// recorded so far, which counts the edits made since a remembered failure.
func (failLoop) CheckRemembering(mem []Remembered, win []Event, writes uint64, cfg Config) (Finding, bool) {
	n := len(win)
	cur := &win[n-1]
	ids, file, isFail := failIdentities(cur)
	if !isFail {
		return Finding{}, false
	}
	for _, id := range ids {
		if f, ok := failChain(mem, win, writes, id, file && strings.HasPrefix(id, "file\x00"), cfg); ok {
			return f, true
		}
	}
	return Finding{}, false
}

// failChain counts the failures with identity id back from the newest
// event, through the window and then the remembered failures, stopping at
// a call of the chain that did not fail so, or (for a file) at a write or
// failed read of the file.
func failChain(mem []Remembered, win []Event, writes uint64, id string, file bool, cfg Config) (Finding, bool) {
	c := &streak{mem: mem, win: win}
	cur := &win[len(win)-1]
	// A message that names no error, only where it is ("Job for
	// wazuh-manager.service failed … See \"journalctl -xeu …\" for
	// details"), reads the same whatever an edit did: an edit ends its
	// streak (ext-wazuhsynthlog #160, the journal showing another rule
	// error after each edit, labelled false by both judges of the
	// thirty-seventh set).
	c.editEnds = byErrorText(id) && detailElsewhere(cur.Error)
	cm := c.collect(id, file, cur)
	if key, isKey := strings.CutPrefix(id, "key\x00"); isKey && strings.HasPrefix(key, TimeoutKey) &&
		!slices.ContainsFunc(c.idx, func(i int) bool { return strings.HasPrefix(c.at(i).Fail, TimeoutKey) }) {
		// Runs that each found their port taken, none killed by its
		// timeout, are retries on a busy port, not a server run the
		// wrong way (see CommandFailureKeys).
		return Finding{}, false
	}
	slices.Reverse(c.idx)
	rounds := roundStarts(c.idx, c.at)
	if rounds[len(rounds)-1] != c.idx[len(c.idx)-1] {
		return Finding{}, false // the newest is one more of a round already counted
	}
	span := uint64(0)
	if len(rounds) >= ShortThreshold {
		span = cur.Seq - c.at(rounds[len(rounds)-ShortThreshold]).Seq
	}
	threshold := failThreshold(id, span, cfg)
	if len(rounds) != threshold && !saidAgain(rounds, c.at, threshold) {
		return Finding{}, false
	}
	f := Finding{Tool: cur.Tool, Target: cur.Target, Count: len(c.idx), Fingerprint: cur.Error}
	if key, isKey := strings.CutPrefix(id, "key\x00"); isKey {
		f.Fingerprint, f.Key = keyShown(key), keyShown(key)
		if _, m, _ := strings.Cut(key, testKeySep); m != "" {
			f.Fingerprint = m
		} else if cm.msg != "" {
			f.Fingerprint = cm.msg
		}
	}
	if file && len(c.members) > 1 {
		f.Key = cur.Target
	}
	f.Events = make([]uint64, 0, len(c.idx))
	for _, i := range c.idx {
		f.Events = append(f.Events, c.at(i).Seq)
	}
	f.Edits = c.edits(writes)
	if len(c.members) > 1 {
		slices.Reverse(c.members)
		for _, m := range c.members {
			f.Steps = append(f.Steps, Step{Tool: m.tool, Target: m.target})
		}
	}
	return f, true
}

// detailElsewhere tells an error fingerprint that points to where the
// error is told ("See … for details", journalctl, "a complete log of this
// run") rather than telling it.
func detailElsewhere(fp string) bool {
	low := strings.ToLower(fp)
	for _, p := range []string{"for details", "for more details", "journalctl", "complete log of this run"} {
		if strings.Contains(low, p) {
			return true
		}
	}
	return false
}

// streak is one failure's chain through the remembered failures (mem)
// then the window (win), indexed as one sequence: idx are the chain's
// events and members the calls that met the failure, each once.
type streak struct {
	mem     []Remembered
	win     []Event
	idx     []int
	members []streakCall
	// editEnds: an edit between two failures ends the chain.
	editEnds bool
}

type streakCall struct{ tool, target string }

func (c *streak) at(i int) *Event {
	if i < len(c.mem) {
		return &c.mem[i].Event
	}
	return &c.win[i-len(c.mem)]
}

func (c *streak) isMember(e *Event) bool {
	return slices.Contains(c.members, streakCall{e.Tool, e.Target})
}

// collect walks back from the newest event and gathers the events that
// met failure id (idx, newest first): the same call failing otherwise
// does not end the chain, the same call succeeding does, and so does a
// write or failed read of the file when the failure is a file's.
func (c *streak) collect(id string, file bool, cur *Event) chainMatch {
	cm := chainMatch{id: id}
	if _, m, ok := strings.Cut(id, testKeySep); ok {
		cm.msg = m
	}
	for i := len(c.mem) + len(c.win) - 1; i >= 0; i-- {
		e := c.at(i)
		if eids, _, f := failIdentities(e); f && cm.match(eids) {
			c.idx = append(c.idx, i)
			if !c.isMember(e) {
				c.members = append(c.members, streakCall{e.Tool, e.Target})
			}
			continue
		}
		if c.isMember(e) {
			if e.Failed && !e.Interrupted {
				// The same call failing otherwise (fix, rerun, another
				// error) does not end the streak: the failure coming back
				// after it is going round in circles.
				continue
			}
			break
		}
		if k := KindOf(e.Tool); file && e.Target == cur.Target && (k == KindWrite || (k == KindRead && !ok(e))) {
			break
		}
		if c.editEnds && isEdit(e) {
			break
		}
	}
	return cm
}

// edits counts the writes made since the chain's first failure (idx
// oldest first), its own calls left out. Writes the window no longer
// holds are counted from the tally (writes, and each remembered failure's
// Writes at the time).
func (c *streak) edits(writes uint64) int {
	first := c.idx[0]
	n := 0
	if first < len(c.mem) {
		n = int(writes - c.mem[first].Writes)
		for _, i := range c.idx[1:] {
			if isEdit(c.at(i)) {
				n--
			}
		}
		return n
	}
	for i := first + 1; i < len(c.mem)+len(c.win); i++ {
		if e := c.at(i); !c.isMember(e) && isEdit(e) {
			n++
		}
	}
	return n
}

// roundStarts collapses a streak (idx, oldest first) into rounds: a
// failure issued in the same batch as the one before it (one assistant
// message) joins its round, as the agent saw neither result before issuing
// both. It returns the first failure of each round.
func roundStarts(idx []int, at func(int) *Event) []int {
	rounds := make([]int, 0, len(idx))
	for j, i := range idx {
		if j > 0 {
			if b := at(i).Batch; b != "" && b == at(idx[j-1]).Batch {
				continue
			}
		}
		rounds = append(rounds, i)
	}
	return rounds
}

// saidAgain tells a streak (idx, oldest first) that went on after the user
// spoke: FailThreshold more failures since the prompt that followed the
// one at which it was first said. One streak in one turn (a batch of
// identical failures) is said once; the same failure coming back after
// the user stepped in is said again.
func saidAgain(idx []int, at func(int) *Event, threshold int) bool {
	if threshold < 1 || len(idx) <= threshold {
		return false
	}
	first := at(idx[threshold-1]).Prompt
	after := 0
	for _, i := range idx[threshold:] {
		if at(i).Prompt > first {
			after++
		}
	}
	return after == threshold && at(idx[len(idx)-1]).Prompt > first
}

// toolLoop: the same call (tool, canonical input, outcome and result)
// ToolRepeats times running, or a cycle of CycleMin..CycleMax calls repeated
// ToolRepeats times running; a call that waits on background work by
// design (ExemptTools, ExemptCommands) only ExemptRepeats times running. The shortest period wins, so the reported
// cycle is primitive.
type toolLoop struct{}

func (toolLoop) Name() string { return ToolLoop }

// sameCall reports whether b repeats a: same tool, same input (for a shell
// command, the same ShellKey), same outcome, and a known, equal result:
// both printed nothing, or both show the same lines at the end of the
// output they window (Event.Shown), or equal result hashes. Interrupted
// calls repeat nothing.
func sameCall(a, b *Event) bool {
	if a.Tool != b.Tool || a.Input != b.Input || a.Input == "" || a.Interrupted || b.Interrupted || a.Failed != b.Failed {
		return false
	}
	if a.Failed {
		return a.Error == b.Error
	}
	if a.Empty || b.Empty {
		// Nothing printed is the same result whatever else the response
		// says (a shell's flags for how it ran).
		return a.Empty && b.Empty
	}
	if a.Shown != "" && b.Shown != "" {
		// Two windows onto one output (equal Input: the same command and
		// view) agree on the lines at the end they show.
		return a.Shown == b.Shown
	}
	return a.Result == b.Result && a.Result != ""
}

// claimed reports whether another enabled pattern owns loops of e: reads
// belong to read-loop, failures (and outputs that report one) to fail-loop, writes with a known result to
// edit-revert (the same write with the same result twice leaves the file as
// it was after the first, which is a revert).
func claimed(e *Event, cfg Config) bool {
	if e.Failed || e.Interrupted || e.Fail != "" {
		return cfg.On(FailLoop)
	}
	switch KindOf(e.Tool) {
	case KindRead:
		return cfg.On(ReadLoop)
	case KindWrite:
		return e.After != "" && cfg.On(EditRevert)
	}
	return false
}

// exempt reports whether e waits on background work by design. A shell
// command that waits and then looks at something (sleep 60 && tail log)
// is a poll, a call like any other: the same answer ToolRepeats times
// running, each after a wait as long as the agent chose, is what it waits
// for not moving (ext-musdbtrain #24-#26 and #30-#32, marked by both
// judges of the thirty-second set, where Djinn waited for ten). Only the
// bare wait (sleep 60) is exempt.
func exempt(e *Event, cfg Config) bool {
	if slices.Contains(cfg.ExemptTools, e.Tool) {
		return true
	}
	if KindOf(e.Tool) != KindShell {
		return false
	}
	word, _, _ := strings.Cut(e.Target, " ")
	return slices.Contains(cfg.ExemptCommands, word) && !polls(e, cfg)
}

// polls tells a shell command that runs an exempt command (sleep) first
// and then more: a poll that waits before it looks.
func polls(e *Event, cfg Config) bool {
	if KindOf(e.Tool) != KindShell || len(strings.Fields(e.Target)) <= 2 {
		return false
	}
	word, _, _ := strings.Cut(e.Target, " ")
	return slices.Contains(cfg.ExemptCommands, word)
}

// WaitRepeats is how many times running an exempt call that itself waits
// (a bare sleep, a TaskOutput that blocks until the task ends or times
// out) must return the same answer to be a tool-loop: each such call
// already waited, so the same answer is slower to mean nothing will
// change than for a quick poll (ExemptRepeats). A shell poll that sleeps
// and then looks (sleep 60 && tail log) is no exempt call (exempt).
const WaitRepeats = 10

// blocks tells an exempt call that waits before it answers: a shell
// command (sleep), an input with "block": true, or a TaskOutput, which
// blocks unless told not to.
func blocks(e *Event) bool {
	switch {
	case KindOf(e.Tool) == KindShell:
		return true
	case strings.Contains(e.Target, `"block":true`):
		return true
	case e.Tool == "TaskOutput":
		return !strings.Contains(e.Target, `"block":false`)
	}
	return false
}

func (toolLoop) Check(w []Event, cfg Config) (Finding, bool) {
	if f, ok := repeatLoop(w, cfg); ok {
		return f, true
	}
	if f, ok := sameOutput(w); ok {
		return f, true
	}
	if f, ok := rerun(w); ok {
		return f, true
	}
	return emptyLooks(w)
}

// repeatLoop is tool-loop's first half: the same call, or a cycle of calls,
// made ToolRepeats times running.
func repeatLoop(w []Event, cfg Config) (Finding, bool) {
	n := len(w)
	reps := cfg.ToolRepeats
	for k := 1; k <= cfg.CycleMax || k == 1; k++ {
		if k > 1 && k < cfg.CycleMin {
			continue
		}
		if reps*k > n {
			break
		}
		matched := true
		for i := n - reps*k; i < n-k; i++ {
			if !sameCall(&w[i], &w[i+k]) {
				matched = false
				break
			}
		}
		if !matched {
			continue
		}
		block := w[n-k:]
		owned, waiting, blocking := true, false, false
		for i := range block {
			if exempt(&block[i], cfg) {
				if k != 1 || cfg.ExemptRepeats == 0 {
					return Finding{}, false
				}
				waiting = true // polling: a loop only at ExemptRepeats
				blocking = blocks(&block[i])
			}
			if !claimed(&block[i], cfg) {
				owned = false
			}
		}
		if owned {
			return Finding{}, false
		}
		// Extend the run backwards as far as the window shows it.
		i := n - reps*k - 1
		for i >= 0 && sameCall(&w[i], &w[i+k]) {
			i--
		}
		runStart := n - (n-i-1)/k*k
		if askedEachTime(w[runStart:], k) {
			return Finding{}, false
		}
		cur := &w[n-1]
		f := Finding{Tool: cur.Tool, Target: cur.Target, Count: (n - runStart) / k, Cycle: k}
		if waiting && (f.Count < cfg.ExemptRepeats || blocking && f.Count < max(cfg.ExemptRepeats, WaitRepeats)) {
			return Finding{}, false
		}
		f.Events = make([]uint64, 0, n-runStart)
		for j := runStart; j < n; j++ {
			f.Events = append(f.Events, w[j].Seq)
		}
		f.Empty = k == 1
		for j := runStart; j < n; j++ {
			f.Empty = f.Empty && w[j].Empty
			f.Respelled = f.Respelled || j+k < n && w[j].Target != w[j+k].Target
		}
		f.Steps = make([]Step, k)
		for j := range block {
			f.Steps[j] = Step{Tool: block[j].Tool, Target: block[j].Target}
			f.Polled = f.Polled || polls(&block[j], cfg)
		}
		return f, true
	}
	return Finding{}, false
}

// askedEachTime tells a run of repeats (cycles of k calls) each of which
// came after a prompt of the user's: the user asked for every run ("try
// again"), so the repeats are theirs, not a loop (ext-chime #10-#12,
// terminal-notifier run again at each "try again", labelled useless).
func askedEachTime(run []Event, k int) bool {
	for j := k; j < len(run); j += k {
		if run[j].Prompt <= run[j-1].Prompt {
			return false
		}
	}
	return len(run) > k
}

// SameOutputRounds is how many rounds of different shell commands must
// print one output (Event.Printed) for a tool-loop: commands that ask
// different things and all get the same answer are not running what they
// ask (cmd /c from Git Bash printing only its banner, whatever follows it).
const SameOutputRounds = 3

// sameOutput finds, back from the newest event to the last write, the
// successful shell calls that printed what the newest printed. It holds
// when they are at least three different commands over exactly
// SameOutputRounds rounds (calls of one batch are one round, as for
// fail-loop), so one streak is said once; the same command printing the
// same output again is polling, tool-loop's other half.
func sameOutput(w []Event) (Finding, bool) {
	n := len(w)
	cur := &w[n-1]
	if cur.Printed == "" || !ok(cur) {
		return Finding{}, false
	}
	var idx []int
	for i := n - 1; i >= 0; i-- {
		e := &w[i]
		if isEdit(e) {
			break
		}
		if e.Printed == cur.Printed && ok(e) {
			idx = append(idx, i)
		}
	}
	slices.Reverse(idx)
	rounds := roundStarts(idx, func(i int) *Event { return &w[i] })
	if len(rounds) != SameOutputRounds || rounds[len(rounds)-1] != n-1 {
		return Finding{}, false
	}
	f := Finding{Tool: cur.Tool, Target: cur.Target, Count: len(idx), Cycle: 1, SameOutput: true}
	seen := map[string]bool{}
	for _, i := range idx {
		f.Events = append(f.Events, w[i].Seq)
		if !seen[w[i].Target] {
			seen[w[i].Target] = true
			f.Steps = append(f.Steps, Step{Tool: w[i].Tool, Target: w[i].Target})
		}
	}
	if len(f.Steps) < SameOutputRounds {
		return Finding{}, false
	}
	return f, true
}
