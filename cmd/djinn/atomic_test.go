package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/internal/statetest"
	"github.com/djinn-cc/djinn/state"
)

// restoredAnchorRE is the notice of a hook that wrote anchor.json from the
// goal an interrupted hook had committed in window.json.
var restoredAnchorRE = regexp.MustCompile(`^djinn: .*anchor\.json: restored the goal that the last hook committed in window\.json but had not written \(it was interrupted\)$`)

// restoredLearningRE is the notice of a SessionEnd that appended the
// learnings.jsonl line an interrupted one had committed in posteriors.json.
var restoredLearningRE = regexp.MustCompile(`^djinn: .*learnings\.jsonl: restored 1 line\(s\) that the last hook logged in posteriors\.json but had not appended \(it was interrupted\)(; its torn last line was cut off)?$`)

// onlyNotices fails unless every stderr line matches one of res.
func onlyNotices(t *testing.T, what string, stderr []byte, res ...*regexp.Regexp) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(string(stderr)), "\n") {
		ok := l == ""
		for _, re := range res {
			ok = ok || re.MatchString(l)
		}
		if !ok {
			t.Fatalf("%s said %q", what, stderr)
		}
	}
}

// killAfter runs the hook binary for event with stdin and sends sig after
// delay; it reports whether the process was killed.
func killAfter(t *testing.T, dir, root, event string, stdin []byte, delay time.Duration, sig syscall.Signal) bool {
	t.Helper()
	cmd := exec.Command(hookBinary(t), "hook", event)
	cmd.Dir = dir
	cmd.Env = hookEnv(dir, root)
	cmd.Stdin = bytes.NewReader(stdin)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(delay, func() { _ = cmd.Process.Signal(sig) })
	err := cmd.Wait()
	timer.Stop()
	return err != nil
}

func promptPayload(id, prompt, project string) []byte {
	b, _ := json.Marshal(map[string]any{"session_id": id, "hook_event_name": "UserPromptSubmit", "cwd": project, "prompt": prompt})
	return b
}

func loadAnchorFile(t *testing.T, root, id string) *state.Anchor {
	a := peekDoc[state.Anchor](t, root, id, "anchor.json", state.KindAnchor)
	return &a
}

// killSpan is the median of how long a hook took here: kills at random
// moments within it land all over the hook's life.
func killSpan(took []time.Duration) time.Duration {
	slices.Sort(took)
	return took[len(took)/2]
}

// TestPivotKillTrials kills a pivot's UserPromptSubmit (SIGKILL or SIGTERM,
// alternately) at random moments and checks window.json and anchor.json
// together after each: the goal they commit to (window.json's pending
// anchor, else anchor.json) is the goal window.json measures against, old
// or new; every file is valid; and after the next hook anchor.json itself
// is the window's goal. Before the window committed the anchor, a kill
// between the two renames left them on different goals (40 of 300).
func TestPivotKillTrials(t *testing.T) {
	trials, rng := killTrials(11)
	dir, root, project := scratch(t)
	id := "pivot-session"
	checkHookContract(t, "prompt", runHook(t, dir, root, "UserPromptSubmit", promptPayload(id, "Fix the invoice rounding in internal/billing so that tax is rounded per line", project)))
	next := 0
	var took []time.Duration
	for i := 0; i < 5; i++ {
		checkHookContract(t, "call", runHook(t, dir, root, "PostToolUse", toolPayload(id, next, project)))
		next++
		r := runHook(t, dir, root, "UserPromptSubmit", promptPayload(id, fmt.Sprintf("New task: warm-up goal %d, export the quarterly reports as CSV", i), project))
		checkHookContract(t, "warm-up pivot", r)
		took = append(took, r.took)
	}
	span := killSpan(took)
	outcomes := map[string]int{}
	for trial := 0; trial < trials; trial++ {
		before := loadWindow(t, root, id).Drift.AnchorHash
		sig := syscall.SIGKILL
		if trial%2 == 1 {
			sig = syscall.SIGTERM
		}
		goal := fmt.Sprintf("New task: goal %d, stream the audit log of tenant %d to the archive bucket", trial, trial)
		killed := killAfter(t, dir, root, "UserPromptSubmit", promptPayload(id, goal, project), time.Duration(rng.Int64N(int64(span))), sig)
		checkState(t, root)
		w := loadWindow(t, root, id)
		committed := loadAnchorFile(t, root, id).Hash
		if w.PendingAnchor != nil {
			committed = w.PendingAnchor.Hash
		}
		if committed != w.Drift.AnchorHash {
			t.Fatalf("trial %d (%v): the files commit to goal %s, window.json measures against %s", trial, sig, committed, w.Drift.AnchorHash)
		}
		onDisk := loadAnchorFile(t, root, id).Hash
		switch {
		case !killed:
			outcomes["finished before the kill"]++
		case w.Drift.AnchorHash == before:
			outcomes["killed before window.json committed the pivot"]++
		case onDisk != w.Drift.AnchorHash:
			outcomes["killed between window.json and anchor.json (the next hook writes the anchor)"]++
		default:
			outcomes["killed after both renames"]++
		}
		r := runHook(t, dir, root, "PostToolUse", toolPayload(id, next, project))
		next++
		checkHookContract(t, "hook after a kill", r)
		onlyNotices(t, fmt.Sprintf("trial %d: the hook after the kill", trial), r.stderr, restoredAnchorRE, restoredRE)
		w = loadWindow(t, root, id)
		a := loadAnchorFile(t, root, id)
		if w.PendingAnchor != nil || a.Hash != w.Drift.AnchorHash || a.Hash != committed {
			t.Fatalf("trial %d: after the next hook anchor.json is %s, window.json on %s (pending %v), committed %s", trial, a.Hash, w.Drift.AnchorHash, w.PendingAnchor != nil, committed)
		}
		if a.Hash != before && !strings.Contains(a.Text, fmt.Sprintf("goal %d,", trial)) {
			t.Fatalf("trial %d: anchor.json holds neither the old goal nor the new one: %q", trial, a.Text)
		}
	}
	t.Logf("%d pivot kill trials (SIGKILL and SIGTERM within %v), outcomes: %v", trials, span, outcomes)
}

func editPayload(id string, i int, project string) []byte {
	f := filepath.Join(project, "src", "theme", "dark.ts")
	b, _ := json.Marshal(map[string]any{
		"session_id": id, "hook_event_name": "PostToolUse", "cwd": project,
		"tool_name": "Edit", "tool_use_id": fmt.Sprintf("toolu_%d", i),
		"tool_input":    map[string]any{"file_path": f, "old_string": "a", "new_string": fmt.Sprint(i)},
		"tool_response": map[string]any{},
	})
	return b
}

// TestSessionEndKillTrials kills SessionEnd at random moments, then
// resumes the session and ends it again, as a user would: each session is
// counted exactly once in posteriors.json and has exactly one
// learnings.jsonl line, and every file is valid. Before posteriors.json
// committed the learning, 29 of 100 sessions were counted twice.
func TestSessionEndKillTrials(t *testing.T) {
	trials, rng := killTrials(13)
	trials = max(trials/3, 10)
	dir, root, project := scratch(t)
	if err := os.MkdirAll(filepath.Join(project, "src", "theme"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "src", "theme", "dark.ts"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	session := func(id string) {
		checkHookContract(t, "prompt", runHook(t, dir, root, "UserPromptSubmit", promptPayload(id, "Add dark-mode support with a11y keyboard-trap tests", project)))
		for i := 0; i < 8; i++ {
			checkHookContract(t, "edit", runHook(t, dir, root, "PostToolUse", editPayload(id, i, project)))
		}
	}
	end := []byte(`{"session_id":"%s","hook_event_name":"SessionEnd","reason":"other"}`)
	endOf := func(id string) []byte { return []byte(fmt.Sprintf(string(end), id)) }
	var took []time.Duration
	for i := 0; i < 3; i++ {
		id := fmt.Sprintf("warm-%d", i)
		session(id)
		r := runHook(t, dir, root, "SessionEnd", endOf(id))
		checkHookContract(t, "SessionEnd", r)
		took = append(took, r.took)
	}
	if n := statetest.PosteriorSessions(t, root); n != 3 {
		t.Fatalf("the warm-up counted %d sessions, want 3 (is the session learnable?)", n)
	}
	span := killSpan(took)
	outcomes := map[string]int{}
	for trial := 0; trial < trials; trial++ {
		id := fmt.Sprintf("end-%d", trial)
		session(id)
		beforeN := statetest.PosteriorSessions(t, root)
		sig := syscall.SIGKILL
		if trial%2 == 1 {
			sig = syscall.SIGTERM
		}
		killed := killAfter(t, dir, root, "SessionEnd", endOf(id), time.Duration(rng.Int64N(int64(span))), sig)
		checkState(t, root)
		afterN, lines := statetest.PosteriorSessions(t, root), statetest.LearningLines(t, root)[id]
		switch {
		case !killed:
			outcomes["finished before the kill"]++
		case afterN == beforeN:
			outcomes["killed before posteriors.json committed"]++
		case lines == 0:
			outcomes["killed between posteriors.json and learnings.jsonl (the retry appends the line)"]++
		default:
			outcomes["killed after the learning"]++
		}
		// Resume and end again, twice.
		for _, ev := range []string{"SessionStart", "SessionEnd", "SessionEnd"} {
			p := endOf(id)
			if ev == "SessionStart" {
				p = []byte(fmt.Sprintf(`{"session_id":"%s","hook_event_name":"SessionStart","source":"resume"}`, id))
			}
			r := runHook(t, dir, root, ev, p)
			checkHookContract(t, ev+" after a kill", r)
			onlyNotices(t, fmt.Sprintf("trial %d: %s after the kill", trial, ev), r.stderr, restoredLearningRE, restoredRE)
		}
		checkState(t, root)
		if n := statetest.PosteriorSessions(t, root); n != 3+trial+1 {
			t.Fatalf("trial %d: posteriors.json counts %d sessions for %d", trial, n, 3+trial+1)
		}
		for sid, n := range statetest.LearningLines(t, root) {
			if n != 1 {
				t.Fatalf("trial %d: session %s has %d learnings.jsonl lines", trial, sid, n)
			}
		}
		if !loadWindow(t, root, id).Drift.Learned {
			t.Fatalf("trial %d: window.json does not record the session as learned", trial)
		}
	}
	t.Logf("%d SessionEnd kill trials (SIGKILL and SIGTERM within %v), outcomes: %v", trials, span, outcomes)
}
