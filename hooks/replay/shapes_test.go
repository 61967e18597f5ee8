package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/hooks/transcript"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// The transcripts under testdata are small sessions built to the shapes
// real Claude Code versions write, each beside a twin without the shape:
//
//   - resume-repeated: 2.0.x on resume writes an earlier stretch again
//     (new uuids, the same message and tool_use ids, the same prompt);
//     resume-once is the session without it. Both hold a prompt ("go on")
//     the person really typed twice.
//   - early-result: 2.1.1xx writes an Edit's and a Write's tool_result
//     before its tool_use; early-inorder is the same session in order.
//   - subagents/<session-id>.jsonl: 2.1.x keeps a subagent in
//     <session-id>/subagents/agent-<id>.jsonl (and the compaction
//     summariser in agent-acompact-*); subagents-inline is the same session
//     as 1.0.x writes it, the subagent's lines inline with isSidechain.
//   - spotter-4d5611e5-subagents: a real subagent's file (see its README).
//   - selfcall: a /djinn:status between two of the agent's calls;
//     selfcall-none is the session without it.

// shapeEvent is what a hook was fired with and said, without the
// transcript line (the twins' lines differ).
type shapeEvent struct {
	Name, Tool, Agent string
	Calls, Line       int
	Fired             []string
}

// replayShape replays a transcript with a kept state directory and checks
// that the report counts the calls the hooks counted (their turns).
func replayShape(t *testing.T, path string) (*Report, []shapeEvent) {
	t.Helper()
	var evs []shapeEvent
	st := t.TempDir()
	rep, err := Run(context.Background(), path, Options{StateDir: st, Settings: settings.Default(), OnEvent: func(e Event) {
		se := shapeEvent{Name: e.Name, Tool: e.ToolName, Agent: e.AgentID, Calls: e.ToolCalls, Line: e.Line}
		for _, a := range e.Fired {
			se.Fired = append(se.Fired, a.Kind)
		}
		evs = append(evs, se)
	}})
	if err != nil {
		t.Fatalf("replay %s: %v", path, err)
	}
	store := &state.Store{Root: st}
	turns, seq := 0, 0
	_, err = store.ReadLines(filepath.Join(st, "sessions", rep.SessionID, "turns.jsonl"), state.KindTurn, 0, func(raw []byte) error {
		var tu state.Turn
		if err := json.Unmarshal(raw, &tu); err != nil {
			return err
		}
		turns++
		seq = max(seq, tu.Seq)
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatalf("%s: turns: %v", path, err)
	}
	if rep.ToolCalls != turns || rep.ToolCalls != seq {
		t.Errorf("%s: the report counts %d tool calls, the hooks %d turns (last #%d)", filepath.Base(path), rep.ToolCalls, turns, seq)
	}
	return rep, evs
}

func names(evs []shapeEvent, name string) []shapeEvent {
	var out []shapeEvent
	for _, e := range evs {
		if e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

func eventList(evs []shapeEvent) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "%s %s %s #%d %v\n", e.Name, e.Tool, e.Agent, e.Calls, e.Fired)
	}
	return b.String()
}

// TestResumeRepeat: a stretch written again on resume fires no hook again:
// the replay of resume-repeated is the replay of resume-once, event for
// event; and a prompt typed twice with new work after it fires twice.
func TestResumeRepeat(t *testing.T) {
	once, onceEv := replayShape(t, "testdata/resume-once.jsonl")
	rep, repEv := replayShape(t, "testdata/resume-repeated.jsonl")
	if once.ToolCalls != 5 {
		t.Errorf("resume-once: %d tool calls, want 5", once.ToolCalls)
	}
	if n := once.Events[hooks.UserPromptSubmit]; n != 3 {
		t.Errorf("resume-once: %d prompts, want 3 (\"go on\" typed twice is two prompts)", n)
	}
	if n := once.Events[hooks.Stop]; n != 3 {
		t.Errorf("resume-once: %d Stops, want 3", n)
	}
	if diff := cmp.Diff(eventList(onceEv), eventList(repEv)); diff != "" {
		t.Errorf("resume-repeated replays differently from resume-once (-once +repeated):\n%s", diff)
	}
	if rep.ToolCalls != once.ToolCalls {
		t.Errorf("resume-repeated: %d tool calls, resume-once %d", rep.ToolCalls, once.ToolCalls)
	}
}

// TestEarlyResult: a tool_result written before its tool_use waits for
// it: the Edit and the Write fire, and their effects reach the scratch
// project (the hooks see the same events as in order).
func TestEarlyResult(t *testing.T) {
	in, inEv := replayShape(t, "testdata/early-inorder.jsonl")
	early, earlyEv := replayShape(t, "testdata/early-result.jsonl")
	if in.ToolCalls != 4 {
		t.Errorf("early-inorder: %d tool calls, want 4", in.ToolCalls)
	}
	var tools []string
	for _, e := range names(earlyEv, hooks.PostToolUse) {
		tools = append(tools, e.Tool)
	}
	if want := []string{"Read", "Edit", "Write", "Bash"}; !cmp.Equal(tools, want) {
		t.Errorf("early-result: PostToolUse for %v, want %v", tools, want)
	}
	if diff := cmp.Diff(eventList(inEv), eventList(earlyEv)); diff != "" {
		t.Errorf("early-result replays differently from early-inorder (-in order +early):\n%s", diff)
	}
	if early.ToolCalls != in.ToolCalls {
		t.Errorf("early-result: %d tool calls, early-inorder %d", early.ToolCalls, in.ToolCalls)
	}
}

// TestEarlyResultEffects: the Edit whose result came first is applied to
// the file as its originalFile had it, and the Write's content is written.
func TestEarlyResultEffects(t *testing.T) {
	for _, f := range []string{"testdata/early-inorder.jsonl", "testdata/early-result.jsonl"} {
		work := filepath.Join(t.TempDir(), "work")
		if _, err := Run(context.Background(), f, Options{WorkDir: work, Settings: settings.Default()}); err != nil {
			t.Fatal(err)
		}
		calc, err := os.ReadFile(filepath.Join(work, "fs", "home", "dev", "calc", "calc.go"))
		if err != nil || !strings.Contains(string(calc), "func Sub(") {
			t.Errorf("%s: calc.go after the replay: %q (%v), want the Edit's Sub", f, calc, err)
		}
		if _, err := os.Stat(filepath.Join(work, "fs", "home", "dev", "calc", "calc_test.go")); err != nil {
			t.Errorf("%s: the Write left no calc_test.go: %v", f, err)
		}
	}
}

// TestSubagentFiles: a 2.1.x subagent's own file is replayed with the
// session: its calls are subagent events with its agent id, between the
// Task call and the Task's result by timestamp, its task prompt is no user
// prompt, a SubagentStop follows, and the compaction summariser's file is
// not replayed. The same session written inline (1.0.x) replays the same.
func TestSubagentFiles(t *testing.T) {
	main := "testdata/subagents/5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9.jsonl"
	rep, evs := replayShape(t, main)
	if want := []string{"agent-a7f3c21.jsonl"}; !cmp.Equal(rep.Subagents, want) {
		t.Errorf("subagent files %v, want %v", rep.Subagents, want)
	}
	want := strings.Join([]string{
		"SessionStart   #0 []",
		"UserPromptSubmit   #0 []",
		"PostToolUse Grep a7f3c21 #1 []",
		"PostToolUse Read a7f3c21 #2 []",
		"PostToolUse Task  #3 []",
		"SubagentStop  a7f3c21 #3 []",
		"PostToolUse Edit  #4 []",
		"Stop   #4 []",
		"SessionEnd   #4 []",
	}, "\n") + "\n"
	if diff := cmp.Diff(want, eventList(evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	_, inlineEv := replayShape(t, "testdata/subagents-inline.jsonl")
	if diff := cmp.Diff(eventList(inlineEv), eventList(evs)); diff != "" {
		t.Errorf("the subagent's own file replays differently from the inline session (-inline +file):\n%s", diff)
	}

	// Without its directory the main file is replayed alone, as before.
	alone := filepath.Join(t.TempDir(), "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9.jsonl")
	raw, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	rep, evs = replayShape(t, alone)
	if len(rep.Subagents) != 0 || rep.ToolCalls != 2 {
		t.Errorf("main file alone: subagents %v, %d tool calls; want none and 2", rep.Subagents, rep.ToolCalls)
	}
	for _, e := range evs {
		if e.Agent != "" {
			t.Errorf("main file alone: a subagent event %+v", e)
		}
	}
}

// TestSelfCallNotCounted: Djinn's own command takes no call number, as in
// the hooks: the session with a /djinn:status counts the agent's calls as
// the session without it, and the next call is #2, not #3.
func TestSelfCallNotCounted(t *testing.T) {
	none, _ := replayShape(t, "testdata/selfcall-none.jsonl")
	rep, evs := replayShape(t, "testdata/selfcall.jsonl")
	if none.ToolCalls != 2 || rep.ToolCalls != 2 {
		t.Errorf("tool calls: %d with the self call, %d without; want 2 and 2", rep.ToolCalls, none.ToolCalls)
	}
	var calls []string
	for _, e := range names(evs, hooks.PostToolUse) {
		calls = append(calls, fmt.Sprintf("%s #%d", e.Tool, e.Calls))
	}
	if want := []string{"Bash #1", "Bash #1", "Bash #2"}; !cmp.Equal(calls, want) {
		t.Errorf("PostToolUse call numbers %v, want %v", calls, want)
	}
}

// TestRealSubagentFile: the real 2.1.39 session spotter-4d5611e5 with its
// subagent's own file beside it, as Claude Code wrote them: the Explore
// subagent's 33 calls are replayed with its agent id between the Task call
// and its result, a SubagentStop follows, the compaction summariser's file
// is not replayed, and the main chain's events are those of the main file
// alone.
func TestRealSubagentFile(t *testing.T) {
	const sid = "4d5611e5-241a-462a-8d15-5122611a9569"
	dir := t.TempDir()
	raw, err := os.ReadFile("../../testdata/transcripts/spotter-" + sid + ".jsonl")
	if err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(dir, sid+".jsonl")
	if err := os.WriteFile(main, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	_, aloneEv := replayShape(t, main)
	sub := filepath.Join(dir, sid, "subagents")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"agent-a2898e3.jsonl", "agent-acompact-e1f845.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata/spotter-4d5611e5-subagents", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rep, evs := replayShape(t, main)
	if want := []string{"agent-a2898e3.jsonl"}; !cmp.Equal(rep.Subagents, want) {
		t.Errorf("subagent files %v, want %v", rep.Subagents, want)
	}
	var mainEv []string
	agentCalls, stops := 0, 0
	for _, e := range evs {
		switch {
		case e.Agent == "":
			mainEv = append(mainEv, e.Name+" "+e.Tool)
		case e.Agent == "a2898e3" && (e.Name == hooks.PostToolUse || e.Name == hooks.PostToolUseFailure):
			agentCalls++
			// The Task is called on line 44 and returns on line 113.
			if e.Line < 44 || e.Line >= 113 {
				t.Errorf("subagent call %s at main line %d, outside its Task (lines 44-113)", e.Tool, e.Line)
			}
		case e.Agent == "a2898e3" && e.Name == hooks.SubagentStop:
			stops++
		default:
			t.Errorf("unexpected event %+v", e)
		}
	}
	if agentCalls != 33 || stops != 1 {
		t.Errorf("subagent: %d calls and %d SubagentStops, want 33 and 1", agentCalls, stops)
	}
	var aloneMain []string
	for _, e := range aloneEv {
		if e.Agent == "" {
			aloneMain = append(aloneMain, e.Name+" "+e.Tool)
		}
	}
	if diff := cmp.Diff(aloneMain, mainEv); diff != "" {
		t.Errorf("main-chain events differ from the main file alone (-alone +with subagent):\n%s", diff)
	}
}

// TestSummaryNamesSubagentFiles: the text summary says which subagents'
// files were replayed with the session, and says nothing of them when
// there were none.
func TestSummaryNamesSubagentFiles(t *testing.T) {
	for f, want := range map[string]bool{
		"testdata/subagents/5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9.jsonl": true,
		"testdata/subagents-inline.jsonl":                               false,
	} {
		var b strings.Builder
		replayFile(t, f).Summary(&b)
		if got := strings.Contains(b.String(), "\n  with the subagents' files: agent-a7f3c21.jsonl\n"); got != want {
			t.Errorf("%s: summary names the subagent file: %v, want %v\n%s", f, got, want, b.String())
		}
	}
}

// TestSubagentCompaction: a compaction in a subagent's own file fires
// PreCompact at its boundary and SessionStart(compact) and PostCompact at
// its summary, with no agent id, as the CLI runs them; the main chain's
// events are unchanged, and the main agent, whose context was not
// compacted, draws no reanchor at its next call (the Task's result).
func TestSubagentCompaction(t *testing.T) {
	const sid = "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9"
	dir := t.TempDir()
	copyFile := func(from, to string, edit func([]string) []string) {
		raw, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
		if edit != nil {
			lines = edit(lines)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	main := filepath.Join(dir, sid+".jsonl")
	copyFile("testdata/subagents/"+sid+".jsonl", main, nil)
	copyFile("testdata/subagents/"+sid+"/subagents/agent-a7f3c21.jsonl", filepath.Join(dir, sid, "subagents", "agent-a7f3c21.jsonl"), func(ls []string) []string {
		at := `"isSidechain":true,"userType":"external","cwd":"/home/dev/calc","sessionId":"` + sid + `","version":"2.1.39","agentId":"a7f3c21","timestamp":"2025-12-10T14:00:08.000Z"`
		compaction := []string{
			`{"type":"system","subtype":"compact_boundary","uuid":"00000000-0000-4000-8000-0000000000c0",` + at + `,"compactMetadata":{"trigger":"auto","preTokens":150000}}`,
			`{"type":"user","isCompactSummary":true,"uuid":"00000000-0000-4000-8000-0000000000c1",` + at + `,"message":{"role":"user","content":"This session is being continued: the subagent greps calc."}}`,
		}
		return append(append(append([]string{}, ls[:4]...), compaction...), ls[4:]...)
	})
	_, evs := replayShape(t, main)
	want := strings.Join([]string{
		"SessionStart   #0 []",
		"UserPromptSubmit   #0 []",
		"PostToolUse Grep a7f3c21 #1 []",
		"PreCompact   #1 []",
		"SessionStart   #1 []",
		"PostCompact   #1 []",
		"PostToolUse Read a7f3c21 #2 []",
		"PostToolUse Task  #3 []",
		"SubagentStop  a7f3c21 #3 []",
		"PostToolUse Edit  #4 []",
		"Stop   #4 []",
		"SessionEnd   #4 []",
	}, "\n") + "\n"
	if diff := cmp.Diff(want, eventList(evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestMarkTriggers: the PostCompact replay fires at a compaction summary
// gets the trigger of its boundary (2.x), or "manual" when the /compact
// command line follows the summary before any reply (1.0, no boundary).
func TestMarkTriggers(t *testing.T) {
	const (
		boundaryManual = `{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual","preTokens":90000}}`
		boundaryAuto   = `{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":160000}}`
		summary        = `{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation."}}`
		caveat         = `{"type":"user","isMeta":true,"message":{"role":"user","content":"Caveat: The messages below were generated by the user while running local commands."}}`
		command        = `{"type":"user","message":{"role":"user","content":"<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>"}}`
		reply          = `{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"Continuing."}]}}`
		prompt         = `{"type":"user","message":{"role":"user","content":"go on"}}`
	)
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string // the triggers of the summaries, in order
	}{
		{"2.x manual", []string{boundaryManual, summary, prompt}, []string{"manual"}},
		{"2.x auto", []string{boundaryAuto, summary, reply}, []string{"auto"}},
		{"1.0 /compact after the summary", []string{summary, caveat, command, prompt}, []string{"manual"}},
		{"1.0 auto: the agent goes on", []string{summary, reply, command}, []string{"auto"}},
		{"1.0 auto then 2.x manual", []string{summary, reply, boundaryManual, summary}, []string{"auto", "manual"}},
		{"a boundary's trigger is its summary's only", []string{boundaryManual, summary, reply, summary}, []string{"manual", "auto"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := make([]item, len(tc.lines))
			for i, l := range tc.lines {
				e, err := transcript.Decode([]byte(l))
				if err != nil {
					t.Fatal(err)
				}
				items[i] = item{raw: []byte(l), e: &e, line: i + 1}
			}
			markTriggers(items)
			var got []string
			for _, it := range items {
				if it.e.IsCompactSummary {
					got = append(got, it.trigger)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("triggers (-want +got):\n%s", diff)
			}
		})
	}
}
