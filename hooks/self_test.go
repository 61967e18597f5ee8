package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The command lines the skills run, as Claude Code substitutes them.
const (
	skillData   = "/root/.claude/plugins/data/djinn-djinn cc"
	skillRoot   = "/root/.claude/plugins/cache/djinn-cc/djinn/0.1.0"
	skillStatus = `env "CLAUDE_PLUGIN_DATA=` + skillData + `" "` + skillRoot + `/hooks/djinn" status --session "sim-session" 2>&1 || true`
)

func TestIsSelfCall(t *testing.T) {
	env := func(k string) string {
		if k == "CLAUDE_PLUGIN_DATA" {
			return "/home/u/.claude/plugins/data/djinn"
		}
		return ""
	}
	for _, tc := range []struct {
		cmd  string
		self bool
	}{
		// The skills' lines.
		{skillStatus, true},
		{`env "CLAUDE_PLUGIN_DATA=` + skillData + `" "` + skillRoot + `/hooks/djinn" rank --session "s1" 2>&1 || true`, true},
		{`env "CLAUDE_PLUGIN_DATA=` + skillData + `" "` + skillRoot + `/hooks/djinn" log --session "s1" 2>&1 || true`, true},
		{`env "CLAUDE_PLUGIN_DATA=` + skillData + `" "` + skillRoot + `/hooks/djinn" reorient --last --session "s1"`, true},
		// /djinn:disable and /djinn:enable have the model run status; a
		// person may run the switches themselves from a shell.
		{`env "CLAUDE_PLUGIN_DATA=` + skillData + `" "` + skillRoot + `/hooks/djinn" status --session "s1"`, true},
		{`env "CLAUDE_PLUGIN_DATA=` + skillData + `" "` + skillRoot + `/hooks/djinn" disable loops --session "s1" 2>&1 || true`, true},
		{`env "CLAUDE_PLUGIN_DATA=` + skillData + `" "` + skillRoot + `/hooks/djinn" enable --session "s1"`, true},
		{`env "CLAUDE_PLUGIN_DATA=` + skillData + `" "` + skillRoot + `/hooks/djinn" disable loops; rm -rf src`, false},
		// Unsubstituted, or with the variables set by the model.
		{`env "CLAUDE_PLUGIN_DATA=${CLAUDE_PLUGIN_DATA}" "${CLAUDE_PLUGIN_ROOT}/hooks/djinn" status --session "$CLAUDE_SESSION_ID"`, true},
		{`CLAUDE_PLUGIN_DATA='/tmp/d' /opt/plugin/hooks/djinn status`, true},
		// A binary in the plugin data dir's bin/.
		{`/home/u/.claude/plugins/data/djinn/bin/djinn-0.1.0 status --session s1`, true},
		{`env CLAUDE_PLUGIN_DATA=/x/data /x/data/bin/djinn rank`, true},
		{`"$CLAUDE_PLUGIN_DATA/bin/djinn-0.1.0" status`, true},

		// Not Djinn, or more than Djinn: the agent's work.
		{`go test ./...`, false},
		{`cat hooks/djinn`, false},
		{`./hooks/djinn status`, false}, // developing Djinn itself
		{`grep -rn djinn status.go`, false},
		{`echo "/opt/plugin/hooks/djinn status"`, false},
		{skillRoot + `/hooks/djinn hook PostToolUse < payload.json`, false},
		{skillRoot + `/hooks/djinn replay t.jsonl`, false},
		{skillRoot + `/hooks/djinn status && rm -rf build`, false},
		{skillRoot + `/hooks/djinn status | tee out.txt`, false},
		{skillRoot + `/hooks/djinn status > out.txt`, false},
		{skillRoot + `/hooks/djinn status; make`, false},
		{skillRoot + `/hooks/djinn status || make`, false},
		{skillRoot + `/hooks/djinn $(make) status`, false},
		{skillRoot + `/hooks/djinn status &`, false},
		{skillRoot + `/hooks/djinnx status`, false},
		{skillRoot + `/hooks/djinn`, false},
		{`/usr/local/bin/djinn status`, false}, // not under the plugin data dir
		{`/home/u/.claude/plugins/data/djinn/bin/djinn-hook status`, false},
		{`/home/u/.claude/plugins/data/djinn/djinn status`, false},
		{`env -i /opt/plugin/hooks/djinn status`, false},
		{`if true; then /opt/plugin/hooks/djinn status; fi`, false},
		{`/opt/plugin/hooks/djinn "status`, false}, // does not parse
	} {
		in, _ := json.Marshal(map[string]string{"command": tc.cmd})
		if got := isSelfCall(&Payload{ToolName: "Bash", ToolInput: in}, env); got != tc.self {
			t.Errorf("isSelfCall(%s) = %v, want %v", tc.cmd, got, tc.self)
		}
	}
	in, _ := json.Marshal(map[string]string{"command": skillStatus})
	if isSelfCall(&Payload{ToolName: "Monitor", ToolInput: in}, env) {
		t.Error("a tool other than Bash taken for Djinn's own call")
	}
}

// TestSelfCallsAreNotAgentWork: three /djinn:status in a row (the skill's
// Bash call, the same output each time) give no tool-loop, no advisory of
// any kind, and leave the call count, the loop ring, the drift window and
// turns.jsonl as they were; three identical ordinary Bash calls with the
// same output still give a tool-loop.
func TestSelfCallsAreNotAgentWork(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Fix the off-by-one bug in the pagination helper in pager.go")
	pager := s.file("pager.go", "package pager\n")
	s.tool("Read", jsonStr(map[string]any{"file_path": pager}), map[string]any{"type": "text", "file": map[string]any{"content": "package pager", "numLines": 1, "startLine": 1, "totalLines": 1}})
	s.tool("Edit", jsonStr(map[string]any{"file_path": pager, "old_string": "a", "new_string": "b"}), map[string]any{"filePath": pager})
	s.tool("Bash", jsonStr(map[string]any{"command": "go test ./...", "description": "Run the tests"}), map[string]any{"stdout": "ok pager", "stderr": ""})
	before := s.window()
	turns := s.turnLines()

	out := map[string]any{"stdout": "djinn status: session sim-session\ngoal: Fix the off-by-one bug", "stderr": ""}
	for i := 0; i < 3; i++ {
		s.assistant("Here is Djinn's status.", 30000)
		r := s.tool("Bash", jsonStr(map[string]any{"command": skillStatus, "description": "Djinn status"}), out)
		if len(r.Context) != 0 || r.Block {
			t.Fatalf("/djinn:status #%d was answered: %+v", i+1, r)
		}
	}
	after := s.window()
	if n := s.count("tool-loop"); n != 0 {
		t.Fatalf("tool-loop on Djinn's own command: %q", s.said)
	}
	if after.ToolCalls != before.ToolCalls {
		t.Errorf("tool_calls %d → %d: Djinn's own calls were counted", before.ToolCalls, after.ToolCalls)
	}
	if d := cmp.Diff(before.Drift, after.Drift); d != "" {
		t.Errorf("Djinn's own calls changed the drift window (-before +after):\n%s", d)
	}
	if d := cmp.Diff(before.Loops, after.Loops); d != "" {
		t.Errorf("Djinn's own calls were recorded as loop events (-before +after):\n%s", d)
	}
	if got := s.turnLines(); got != turns {
		t.Errorf("Djinn's own calls were recorded as turns: %d → %d lines", turns, got)
	}
	if len(s.advisorySeqs("tool-loop")) != 0 {
		t.Error("a tool-loop advisory was recorded")
	}

	// The same ordinary command three times with the same output is a loop.
	pods := jsonStr(map[string]any{"command": "kubectl get pods", "description": "List pods"})
	for i := 0; i < 3; i++ {
		s.tool("Bash", pods, map[string]any{"stdout": "web-1 Pending", "stderr": ""})
	}
	if n := s.count("tool-loop"); n != 1 {
		t.Fatalf("three identical kubectl calls gave %d tool-loops, want 1: %q", n, s.said)
	}
	if w := s.window(); w.ToolCalls != before.ToolCalls+3 {
		t.Errorf("tool_calls = %d, want %d", w.ToolCalls, before.ToolCalls+3)
	}
}

// turnLines counts the lines of the session's turns.jsonl.
func (s *sim) turnLines() int {
	dir, _ := s.env.Store.SessionDir(s.id)
	b, err := os.ReadFile(filepath.Join(dir, "turns.jsonl"))
	if err != nil && !os.IsNotExist(err) {
		s.t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// TestEmptyReorientChangesNothing: /djinn:reorient with no text tells the
// model the usage and that nothing changed, and does not announce a
// re-orientation; one with text does.
func TestEmptyReorientChangesNothing(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Fix the off-by-one bug in the pagination helper in pager.go")
	goal := s.anchor().Hash
	r := s.userPrompt("/djinn:reorient")
	text := strings.Join(r.Context, "\n\n")
	for _, want := range []string{"no new intent given", "Nothing changed", "Usage: /djinn:reorient <"} {
		if !strings.Contains(text, want) {
			t.Errorf("empty reorient context lacks %q: %q", want, text)
		}
	}
	if strings.Contains(text, "re-oriented the session") || s.count("reanchor") != 0 {
		t.Errorf("empty reorient announced as a re-orientation: %q", text)
	}
	if s.anchor().Hash != goal || len(s.advisorySeqs("reanchor")) != 0 {
		t.Errorf("empty reorient changed the goal or recorded an advisory")
	}
	r = s.userPrompt("/djinn:reorient Write the user guide for the pager package instead")
	if text := strings.Join(r.Context, "\n\n"); !strings.Contains(text, "[djinn:reanchor] The user re-oriented the session") {
		t.Errorf("a real reorient is not announced: %q", text)
	}
}
