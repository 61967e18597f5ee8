package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/engines/lcs"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// sim drives the hook handlers in process for one session, the way Claude
// Code would: it writes a transcript as the session goes, so the meter and
// the agent's prose are real inputs.
type sim struct {
	t       *testing.T
	env     *Env
	id      string
	project string
	tpath   string
	calls   int
	prompt  int
	now     time.Time
	said    []string // every advisory paragraph, in order
	// observed are the advisories of kinds in observe mode, not told.
	observed []string
	// messages are the systemMessages shown to the person.
	messages []string
}

func newSim(t *testing.T) *sim {
	t.Helper()
	dir := t.TempDir()
	project := filepath.Join(dir, "proj")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	s := &sim{t: t, id: "sim-session", project: project, tpath: filepath.Join(dir, "transcript.jsonl"), now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	// The scenarios of the detectors run with every kind advised, so they
	// see what each detector says; modes_test.go holds the modes and their
	// defaults.
	set := settings.Default()
	set.Advisories.SetAll(settings.Advise)
	s.env = &Env{
		Store:    &state.Store{Root: filepath.Join(dir, "state"), LockWait: time.Second},
		Settings: set,
		Now:      func() time.Time { return s.now },
		Getenv: func(k string) string {
			if k == "CLAUDE_PROJECT_DIR" {
				return project
			}
			return ""
		},
	}
	s.env.Store.Now = s.env.Now
	if err := os.WriteFile(s.tpath, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s.run(&Payload{HookEventName: SessionStart, Source: "startup"})
	return s
}

// line appends one transcript line.
func (s *sim) line(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.t.Fatal(err)
	}
	f, err := os.OpenFile(s.tpath, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	f.Write(append(b, '\n'))
}

// assistant writes an assistant message with prose and usage.
func (s *sim) assistant(text string, tokens int64) {
	s.line(map[string]any{"type": "assistant", "isSidechain": false, "message": map[string]any{
		"id": fmt.Sprintf("msg_%d", s.calls), "role": "assistant", "model": "claude-sonnet-4-5-20250929", // a 200,000-token window
		"content": []any{map[string]any{"type": "text", "text": text}},
		"usage":   map[string]any{"input_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": tokens - 1, "output_tokens": 10},
	}})
}

// do fills in the session's fields, a second later, and runs one hook.
func (s *sim) do(p *Payload) (Response, error) {
	p.SessionID = s.id
	if p.TranscriptPath == "" {
		p.TranscriptPath = s.tpath
	}
	p.Cwd = s.project
	if p.PromptID == "" {
		p.PromptID = fmt.Sprintf("prompt-%d", s.prompt)
	}
	s.now = s.now.Add(time.Second)
	return Run(context.Background(), s.env, p)
}

// darkModeEdits gives the session a goal (then a pivot to another task
// when pivot is set) and eight edits of one file: a session SessionEnd
// learns from.
func (s *sim) darkModeEdits(pivot bool) {
	s.userPrompt("Add dark-mode support with a11y keyboard-trap tests")
	if pivot {
		s.userPrompt("New task: add keyboard shortcuts to the settings page")
	}
	f := s.file("src/theme/dark.ts", "x")
	for i := 0; i < 8; i++ {
		s.tool("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "a", "new_string": fmt.Sprint(i)}), map[string]any{})
	}
}

func (s *sim) run(p *Payload) Response {
	s.t.Helper()
	r, err := s.do(p)
	if err != nil {
		s.t.Fatalf("%s: %v", p.HookEventName, err)
	}
	if _, err := Encode(p.HookEventName, r); err != nil {
		s.t.Fatalf("%s: response breaks the contract: %v", p.HookEventName, err)
	}
	for _, c := range r.Context {
		s.said = append(s.said, strings.Split(c, "\n\n")...)
	}
	if r.Reason != "" {
		s.said = append(s.said, r.Reason)
	}
	s.observed = append(s.observed, r.Observed...)
	if r.SystemMessage != "" {
		s.messages = append(s.messages, r.SystemMessage)
	}
	return r
}

func (s *sim) userPrompt(text string) Response {
	s.prompt++
	s.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	return s.run(&Payload{HookEventName: UserPromptSubmit, Prompt: text})
}

// tool runs one successful tool call; input is a JSON object.
func (s *sim) tool(name, input string, response any) Response {
	s.t.Helper()
	s.calls++
	resp, _ := json.Marshal(response)
	return s.run(&Payload{HookEventName: PostToolUse, ToolName: name, ToolInput: json.RawMessage(input), ToolResponse: resp, ToolUseID: fmt.Sprintf("toolu_%d", s.calls)})
}

// cliDeclined is the error text the CLI gives a call the person declined
// at its permission prompt.
const cliDeclined = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."

func (s *sim) fail(name, input, errText string) Response {
	s.t.Helper()
	s.calls++
	return s.run(&Payload{HookEventName: PostToolUseFailure, ToolName: name, ToolInput: json.RawMessage(input), Error: errText, ToolUseID: fmt.Sprintf("toolu_%d", s.calls)})
}

// path returns an absolute path in the project, creating the file.
func (s *sim) file(rel, content string) string {
	p := filepath.Join(s.project, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		s.t.Fatal(err)
	}
	return p
}

func (s *sim) window() state.Window {
	var w state.Window
	dir, _ := s.env.Store.SessionDir(s.id)
	if found, err := s.env.Store.Load(filepath.Join(dir, "window.json"), state.KindWindow, &w); !found || err != nil {
		s.t.Fatalf("window.json: found=%v err=%v", found, err)
	}
	return w
}

func (s *sim) anchor() *state.Anchor {
	var a state.Anchor
	dir, _ := s.env.Store.SessionDir(s.id)
	found, err := s.env.Store.Load(filepath.Join(dir, "anchor.json"), state.KindAnchor, &a)
	if err != nil {
		s.t.Fatal(err)
	}
	if !found {
		return nil
	}
	return &a
}

// count returns how many advisories of a kind were said.
func (s *sim) count(kind string) int { return countKind(s.said, kind) }

// countKind returns how many of the advisory texts are of a kind.
func countKind(texts []string, kind string) int { return len(ofKind(texts, kind)) }

// ofKind returns the advisory texts of a kind, in order.
func ofKind(texts []string, kind string) []string {
	var out []string
	for _, p := range texts {
		if strings.HasPrefix(p, "[djinn:"+kind+"]") {
			out = append(out, p)
		}
	}
	return out
}

// lastSaid returns the last advisory of a kind said, "" for none.
func (s *sim) lastSaid(kind string) string {
	if said := ofKind(s.said, kind); len(said) > 0 {
		return said[len(said)-1]
	}
	return ""
}

func jsonStr(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// advisorySeqs reads advisories.jsonl: the tool-call numbers at which
// advisories of a kind were given.
func (s *sim) advisorySeqs(kind string) []int {
	var out []int
	for _, a := range s.logged(kind) {
		out = append(out, a.Seq)
	}
	return out
}

// turns reads turns.jsonl.
func (s *sim) turns() []state.Turn {
	dir, _ := s.env.Store.SessionDir(s.id)
	var out []state.Turn
	_, err := s.env.Store.ReadLines(filepath.Join(dir, "turns.jsonl"), state.KindTurn, 0, func(raw []byte) error {
		var tu state.Turn
		if err := json.Unmarshal(raw, &tu); err != nil {
			return err
		}
		out = append(out, tu)
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}

func lcsNormalize(s string) []string { return lcs.Normalize(s) }

// compactNext runs what a compaction runs, SessionStart(compact) and
// PostCompact with summary (when given), then the next hook that can say a
// re-anchor, a PostToolUse of a harmless call, and returns its response.
func (s *sim) compactNext(summary string) Response {
	s.t.Helper()
	if r := s.run(&Payload{HookEventName: SessionStart, Source: "compact"}); !r.Empty() {
		s.t.Fatalf("SessionStart(compact) said %+v; the re-anchor waits for the next hook", r)
	}
	if summary != "" {
		if r := s.run(&Payload{HookEventName: PostCompact, Trigger: "auto", CompactSummary: summary}); !r.Empty() {
			s.t.Fatalf("PostCompact said %+v", r)
		}
	}
	// The CLI writes the boundary and the summary after the hooks.
	s.line(map[string]any{"type": "system", "subtype": "compact_boundary", "isSidechain": false, "compactMetadata": map[string]any{"trigger": "auto", "preTokens": 100_000}})
	s.line(map[string]any{"type": "user", "isSidechain": false, "isCompactSummary": true, "message": map[string]any{"role": "user", "content": summary}})
	return s.tool("Bash", `{"command":"pwd"}`, map[string]any{"stdout": "/p", "stderr": ""})
}

// subagentCompactsNext is compactNext for a subagent's compaction: the
// CLI runs the same hooks, with no agent id, and writes the boundary to
// the subagent's transcript; the main transcript goes on unchanged.
func (s *sim) subagentCompactsNext(summary string) Response {
	s.t.Helper()
	s.run(&Payload{HookEventName: SessionStart, Source: "compact"})
	if summary != "" {
		s.run(&Payload{HookEventName: PostCompact, Trigger: "auto", CompactSummary: summary})
	}
	return s.tool("Bash", `{"command":"pwd"}`, map[string]any{"stdout": "/p", "stderr": ""})
}

// reanchorIn is the [djinn:reanchor] of a response, told or observed, or "".
func reanchorIn(r Response) string {
	for _, c := range append(append([]string{}, r.Context...), r.Observed...) {
		if strings.HasPrefix(c, "[djinn:reanchor]") {
			return c
		}
	}
	return ""
}
