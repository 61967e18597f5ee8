package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

var feedbackReport = flag.String("feedback.report", "", "write the feedback evaluation (Markdown) to this file")

// feedbackBase is the session the feedback evaluation replays: a real
// 150-call session with one edit-revert of its own.
const feedbackBase = "../../testdata/transcripts/spotter-4d5611e5-241a-462a-8d15-5122611a9569.jsonl"

// injected is one stretch of work appended to a replayed transcript:
// Lines are its transcript lines (1-based, inclusive); Loop says whether it
// is a loop Djinn must catch (of kind Kind) or a one-off undo.
type injected struct {
	Name   string
	Kind   string
	Loop   bool
	First  int
	Last   int
	Caught bool
}

// injector appends tool calls to a transcript in its own format (an
// assistant line with the tool_use, a user line with the tool_result and
// toolUseResult), each a second after the last.
type injector struct {
	buf       bytes.Buffer
	lines     int
	session   string
	cwd       string
	at        time.Time
	n         int
	injected  []injected
	stretchAt int
}

func (j *injector) line(v map[string]any) {
	v["sessionId"], v["cwd"], v["isSidechain"], v["userType"] = j.session, j.cwd, false, "external"
	v["timestamp"] = j.at.Format(time.RFC3339Nano)
	v["uuid"] = fmt.Sprintf("00000000-0000-4000-8000-%012d", j.lines)
	b, _ := json.Marshal(v)
	j.buf.Write(b)
	j.buf.WriteByte('\n')
	j.lines++
}

// call appends one tool call and its result; errText makes it a failure.
func (j *injector) call(tool string, input map[string]any, result any, text, errText string) {
	j.n++
	j.at = j.at.Add(time.Second)
	id := fmt.Sprintf("toolu_inj%04d", j.n)
	j.line(map[string]any{"type": "assistant", "message": map[string]any{
		"role": "assistant", "type": "message", "model": "claude-opus-4-6", "id": fmt.Sprintf("msg_inj%04d", j.n),
		"content": []any{map[string]any{"type": "tool_use", "id": id, "name": tool, "input": input}},
	}})
	res := map[string]any{"type": "tool_result", "tool_use_id": id, "content": text}
	if errText != "" {
		res["content"], res["is_error"], result = errText, true, "Error: "+errText
	}
	j.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{res}}, "toolUseResult": result})
}

func (j *injector) path(rel string) string { return j.cwd + "/" + rel }

func (j *injector) write(rel, content string) {
	p := j.path(rel)
	j.call("Write", map[string]any{"file_path": p, "content": content},
		map[string]any{"type": "create", "filePath": p, "content": content, "structuredPatch": []any{}, "originalFile": nil},
		"File created successfully at: "+p, "")
}

func (j *injector) edit(rel, old, new string) {
	p := j.path(rel)
	j.call("Edit", map[string]any{"file_path": p, "old_string": old, "new_string": new, "replace_all": false},
		map[string]any{"filePath": p, "oldString": old, "newString": new, "originalFile": old, "structuredPatch": []any{}, "userModified": false, "replaceAll": false},
		"The file "+p+" has been updated successfully.", "")
}

func (j *injector) read(rel, content string) {
	p := j.path(rel)
	j.call("Read", map[string]any{"file_path": p},
		map[string]any{"type": "text", "file": map[string]any{"filePath": p, "content": content, "numLines": 1, "startLine": 1, "totalLines": 1}},
		"     1\t"+content, "")
}

func (j *injector) bash(cmd, out, errText string) {
	j.call("Bash", map[string]any{"command": cmd, "description": "run " + cmd},
		map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}, out, errText)
}

// filler is unrelated work: greps for distinct symbols, past every
// pattern's cooldown.
func (j *injector) filler(n int) {
	for range n {
		j.n++
		pat := fmt.Sprintf("injected_symbol_%d", j.n)
		j.call("Grep", map[string]any{"pattern": pat, "path": j.cwd},
			map[string]any{"mode": "files_with_matches", "filenames": []any{}, "numFiles": 0}, "No files found", "")
	}
}

// stretch records the lines of the work fn appends.
func (j *injector) stretch(name, kind string, loop bool, fn func()) {
	first := j.lines + 1
	fn()
	j.injected = append(j.injected, injected{Name: name, Kind: kind, Loop: loop, First: first, Last: j.lines})
	j.filler(6)
}

// injectLoops appends to the base transcript (after its last user prompt,
// so no revert counts as asked for) three one-off undos, each a write that
// takes a file back to the content it had one edit before, and four loops,
// one per pattern: an edit oscillating between two versions, a file read
// over and over, a command failing the same way, an identical command
// repeated. Between them, unrelated greps.
func injectLoops(t *testing.T, base string) ([]byte, []injected) {
	t.Helper()
	raw, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	j := &injector{lines: bytes.Count(raw, []byte("\n"))}
	for _, l := range bytes.Split(raw, []byte("\n")) {
		var e struct {
			SessionID string `json:"sessionId"`
			Cwd       string `json:"cwd"`
			Timestamp string `json:"timestamp"`
		}
		if json.Unmarshal(l, &e) != nil {
			continue
		}
		if e.SessionID != "" && j.session == "" {
			j.session, j.cwd = e.SessionID, e.Cwd
		}
		if ts, err := time.Parse(time.RFC3339Nano, e.Timestamp); err == nil && ts.After(j.at) {
			j.at = ts
		}
	}
	j.buf.Write(raw)
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		j.buf.WriteByte('\n')
		j.lines++
	}
	j.filler(6)
	for i := 1; i <= 3; i++ {
		rel := fmt.Sprintf("lib/injected/undo_%d.ex", i)
		a, b := fmt.Sprintf("defmodule Undo%d do\n  def v, do: 1\nend\n", i), fmt.Sprintf("defmodule Undo%d do\n  def v, do: 2\nend\n", i)
		j.stretch(fmt.Sprintf("one-off undo %d", i), "edit-revert", false, func() {
			j.write(rel, a)
			j.edit(rel, a, b)
			j.edit(rel, b, a)
		})
	}
	osc := "lib/injected/oscillating.ex"
	va, vb := "defmodule Osc do\n  def mode, do: :fast\nend\n", "defmodule Osc do\n  def mode, do: :safe\nend\n"
	j.stretch("edit oscillating between two versions (8 edits)", "edit-revert", true, func() {
		j.write(osc, va)
		for k := range 8 {
			if k%2 == 0 {
				j.edit(osc, va, vb)
			} else {
				j.edit(osc, vb, va)
			}
		}
	})
	j.stretch("one file read 4 times, unchanged", "read-loop", true, func() {
		j.write("lib/injected/config.ex", "config :spotter, injected: true\n")
		for range 4 {
			j.read("lib/injected/config.ex", "config :spotter, injected: true\n")
		}
	})
	j.stretch("one command failing the same way 3 times", "fail-loop", true, func() {
		for range 3 {
			j.bash("mix test test/injected_test.exs", "", "Exit code 2\n** (CompileError) test/injected_test.exs:3: undefined function injected/0")
		}
	})
	j.stretch("one identical command repeated 3 times", "tool-loop", true, func() {
		for range 3 {
			j.bash("git log --oneline -1 -- lib/injected", "a1b2c3d injected", "")
		}
	})
	return j.buf.Bytes(), j.injected
}

// feedbackPass is one replay: the edit-revert advisories recorded (told or
// observed), the advisories by kind, and which injected loops were caught.
type feedbackPass struct {
	editReverts []Advisory
	byKind      map[string]int
	injected    []injected
	state       string
	session     string
}

func replayWithProfile(t *testing.T, path string, set settings.Settings, profile []byte, inj []injected) feedbackPass {
	t.Helper()
	st := t.TempDir()
	if profile != nil {
		if err := os.WriteFile(filepath.Join(st, "profile.json"), profile, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Run(context.Background(), path, Options{StateDir: st, Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	p := feedbackPass{byKind: rep.ByKind, state: st, session: rep.SessionID, injected: append([]injected(nil), inj...)}
	for _, a := range rep.Advisories {
		if a.Kind == "edit-revert" {
			p.editReverts = append(p.editReverts, a)
		}
		for i := range p.injected {
			in := &p.injected[i]
			if a.Kind == in.Kind && a.Line >= in.First && a.Line <= in.Last {
				in.Caught = true
			}
		}
	}
	return p
}

// markWrong judges the first n edit-revert advisories of a pass wrong, as
// djinn feedback does, and returns the profile it taught.
func markWrong(t *testing.T, p feedbackPass, set settings.Settings, n int) []byte {
	t.Helper()
	env := &hooks.Env{Store: &state.Store{Root: p.state, LockWait: 5 * time.Second}, Settings: set,
		Now: func() time.Time { return time.Date(2026, 2, 13, 0, 0, 0, 0, time.UTC) }}
	dir, _ := env.Store.SessionDir(p.session)
	var ids []string
	_, err := env.Store.ReadLines(filepath.Join(dir, "advisories.jsonl"), state.KindAdvisory, 0, func(raw []byte) error {
		var a state.Advisory
		if state.DecodeStrict(raw, &a) == nil && a.Kind == "edit-revert" {
			ids = append(ids, a.ID)
		}
		return nil
	})
	if err != nil || len(ids) < n {
		t.Fatalf("%d edit-revert ids (%v), want %d", len(ids), err, n)
	}
	for _, id := range ids[:n] {
		sid, a, err := hooks.FindAdvisory(env.Store, p.session, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := hooks.Judge(context.Background(), env, sid, a, state.VerdictWrong, "not a loop"); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(filepath.Join(p.state, "profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestFeedbackEval is the feedback evaluation (docs/feedback.md,
// scripts/feedback-eval): a real session with three one-off undos and four
// loops injected is replayed, its first edit-revert advisories are marked
// wrong (one, two, then three of them), and the same session is replayed
// with the profile that taught: the edit-revert advisories must fall by at
// least half at three marks, every injected loop must still be caught, and
// the other kinds must not change. It runs with edit-revert advised and
// with its default mode, observe (counting the advisories recorded).
func TestFeedbackEval(t *testing.T) {
	transcript, inj := injectLoops(t, feedbackBase)
	path := filepath.Join(t.TempDir(), filepath.Base(feedbackBase))
	if err := os.WriteFile(path, transcript, 0o600); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The session replayed: `testdata/transcripts/%s` (150 tool calls, one edit-revert of its own) with, appended after its last prompt, 3 one-off undos and 4 loops (%d tool calls added).\n\n", filepath.Base(feedbackBase), injectedCalls(transcript, feedbackBase))
	fmt.Fprintf(&b, "| mode of edit-revert | edit-revert marked wrong | edit-revert advisories | change | injected loops caught | read-loop | fail-loop | tool-loop | drift |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, mode := range []settings.Mode{settings.Advise, settings.Observe} {
		set := settings.Default()
		if mode == settings.Advise {
			set.Advisories.EditRevert = settings.Advise
		}
		if got := set.Advisories.Mode("edit-revert"); got != mode {
			t.Fatalf("edit-revert mode %s, want %s", got, mode)
		}
		first := replayWithProfile(t, path, set, nil, inj)
		row := func(marked int, p feedbackPass) {
			caught := 0
			for _, in := range p.injected {
				if in.Loop && in.Caught {
					caught++
				}
			}
			change := "–"
			if marked > 0 {
				change = fmt.Sprintf("%+.0f%%", 100*float64(len(p.editReverts)-len(first.editReverts))/float64(len(first.editReverts)))
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %s | %d of %d | %d | %d | %d | %d |\n", mode, marked, len(p.editReverts), change, caught, loopsIn(p.injected),
				p.byKind["read-loop"], p.byKind["fail-loop"], p.byKind["tool-loop"], p.byKind["drift"])
		}
		row(0, first)
		checkCaught(t, fmt.Sprintf("%s, no feedback", mode), first)
		if len(first.editReverts) < 3 {
			t.Fatalf("%s: %d edit-revert advisories to mark, want at least 3", mode, len(first.editReverts))
		}
		for n := 1; n <= 3; n++ {
			prof := markWrong(t, replayWithProfile(t, path, set, nil, inj), set, n)
			again := replayWithProfile(t, path, set, prof, inj)
			row(n, again)
			checkCaught(t, fmt.Sprintf("%s, %d marked wrong", mode, n), again)
			for _, k := range []string{"read-loop", "fail-loop", "tool-loop", "drift"} {
				if again.byKind[k] != first.byKind[k] {
					t.Errorf("%s, %d marked: %s advisories %d, were %d", mode, n, k, again.byKind[k], first.byKind[k])
				}
			}
			if n == 3 && 2*len(again.editReverts) > len(first.editReverts) {
				t.Errorf("%s: %d edit-revert advisories after three marks, %d before: not down by half", mode, len(again.editReverts), len(first.editReverts))
			}
		}
	}
	if *feedbackReport == "" {
		return
	}
	var doc strings.Builder
	fmt.Fprintf(&doc, "# Feedback evaluation\n\nGenerated by `scripts/feedback-eval` (`go test ./hooks/replay -run TestFeedbackEval -feedback.report=…`); do not edit by hand. Its assertions run in every `go test ./...`.\n\n")
	doc.WriteString(b.String())
	fmt.Fprintf(&doc, "\nEach row after the first replays the same transcript from a fresh state directory holding only the `profile.json` taught by marking the first N edit-revert advisories of a first replay wrong (through `djinn feedback`'s path, `hooks.FindAdvisory` and `hooks.Judge`). An advisory counts when it is recorded in the replay's advisories, told (mode advise) or recorded only (mode observe, edit-revert's default); an advisory the profile holds back is neither told nor recorded. A loop is caught when an advisory of its kind fires on one of its transcript lines.\n\nThe injected stretches:\n\n| stretch | kind | a loop Djinn must catch |\n|---|---|---|\n")
	for _, in := range inj {
		fmt.Fprintf(&doc, "| %s (lines %d–%d) | %s | %v |\n", in.Name, in.First, in.Last, in.Kind, in.Loop)
	}
	if err := os.WriteFile(*feedbackReport, []byte(doc.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func loopsIn(inj []injected) int {
	n := 0
	for _, in := range inj {
		if in.Loop {
			n++
		}
	}
	return n
}

func checkCaught(t *testing.T, what string, p feedbackPass) {
	t.Helper()
	for _, in := range p.injected {
		if in.Loop && !in.Caught {
			t.Errorf("%s: injected loop %q (lines %d–%d) not caught", what, in.Name, in.First, in.Last)
		}
	}
}

// injectedCalls counts the tool calls appended to base.
func injectedCalls(all []byte, base string) int {
	raw, _ := os.ReadFile(base)
	return (bytes.Count(all, []byte(`"type":"tool_use"`)) - bytes.Count(raw, []byte(`"type": "tool_use"`)) - bytes.Count(raw, []byte(`"type":"tool_use"`)))
}
