package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

func readResp(content string) map[string]any {
	return map[string]any{"type": "text", "file": map[string]any{"content": content, "numLines": 1, "startLine": 1, "totalLines": 1}}
}

// TestReadLoopThroughHook: the third read of an unchanged file gives a
// [djinn:read-loop] naming the file, the count and a next step; a re-read
// after a real change does not.
func TestReadLoopThroughHook(t *testing.T) {
	s := newSim(t)
	f := s.file("src/app.go", "package app\n")
	in := jsonStr(map[string]any{"file_path": f})
	s.tool("Read", in, readResp("package app"))
	s.tool("Read", in, readResp("package app"))
	r := s.tool("Read", in, readResp("package app"))
	if len(r.Context) != 1 || !strings.HasPrefix(r.Context[0], `[djinn:read-loop] "src/app.go" was read 3 times`) || !strings.Contains(r.Context[0], "Next step:") {
		t.Fatalf("context %q", r.Context)
	}

	s2 := newSim(t)
	f2 := s2.file("src/app.go", "package app\n")
	in2 := jsonStr(map[string]any{"file_path": f2})
	s2.tool("Read", in2, readResp("package app"))
	s2.tool("Read", in2, readResp("package app"))
	os.WriteFile(f2, []byte("package app\n\nfunc X() {}\n"), 0o600)
	s2.tool("Edit", jsonStr(map[string]any{"file_path": f2, "old_string": "app\n", "new_string": "app\n\nfunc X() {}\n"}), map[string]any{"originalFile": "package app\n"})
	r = s2.tool("Read", in2, readResp("package app func X"))
	if s2.count("read-loop") != 0 {
		t.Fatalf("re-read after a real change flagged: %q", r.Context)
	}
}

// TestFailLoopThroughHook: the same command failing 3 times with the same
// error (numbers differ) fires; a different error in between does not.
func TestFailLoopThroughHook(t *testing.T) {
	s := newSim(t)
	cmd := jsonStr(map[string]any{"command": "go test ./..."})
	for i := 0; i < 3; i++ {
		s.fail("Bash", cmd, fmt.Sprintf("Exit code 1\n--- FAIL: TestX (0.0%ds)\nx_test.go:%d: want 3", i, 10+i))
	}
	if s.count("fail-loop") != 1 {
		t.Fatalf("said %q", s.said)
	}
	s2 := newSim(t)
	s2.fail("Bash", cmd, "Exit code 1\nundefined: Foo")
	s2.fail("Bash", cmd, "Exit code 1\nsyntax error near line 3")
	s2.fail("Bash", cmd, "Exit code 1\nundefined: Foo")
	if s2.count("fail-loop") != 0 {
		t.Fatalf("different errors flagged: %q", s2.said)
	}
}

// TestFailLoopCountsRounds: failures issued together by one assistant
// message (a parallel batch) are one round, as the agent saw none of their
// results before issuing them; fail-loop needs three rounds.
func TestFailLoopCountsRounds(t *testing.T) {
	cmd := func(i int) string { return jsonStr(map[string]any{"command": fmt.Sprintf("ls /var/log/secure %d", i)}) }
	const refused = "Exit code 1\nls: cannot open directory '/var/log/secure': Permission denied"
	batch := newSim(t)
	batch.assistant("checking the logs", 20_000)
	for i := 0; i < 4; i++ {
		batch.fail("Bash", cmd(i), refused)
	}
	if n := batch.count("fail-loop"); n != 0 {
		t.Fatalf("one batch of four refusals said as a loop: %q", batch.said)
	}
	batch.assistant("trying again", 21_000)
	batch.fail("Bash", cmd(5), refused)
	if n := batch.count("fail-loop"); n != 0 {
		t.Fatalf("two rounds said as a loop: %q", batch.said)
	}
	batch.assistant("and again", 22_000)
	batch.fail("Bash", cmd(6), refused)
	batch.fail("Bash", cmd(7), refused) // the same round: said once
	if n := batch.count("fail-loop"); n != 1 {
		t.Fatalf("three rounds: %d fail-loops, want 1: %q", n, batch.said)
	}

	apart := newSim(t)
	for i := 0; i < 3; i++ {
		apart.assistant("trying", int64(20_000+i))
		apart.fail("Bash", cmd(i), refused)
	}
	if n := apart.count("fail-loop"); n != 1 {
		t.Fatalf("three messages, three refusals: %d fail-loops, want 1: %q", n, apart.said)
	}
}

// TestLoopBlockingOptIn: hard loops are advice by default; with
// loops.block they become a PostToolUse decision "block".
func TestLoopBlockingOptIn(t *testing.T) {
	for _, block := range []bool{false, true} {
		s := newSim(t)
		s.env.Settings.Loops.Block = block
		f := s.file("a.txt", "x")
		in := jsonStr(map[string]any{"file_path": f})
		blocked, hard := false, false
		for i := 0; i < 30; i++ {
			r := s.tool("Read", in, readResp("x"))
			blocked = blocked || r.Block
			for _, c := range append(r.Context, r.Reason) {
				hard = hard || strings.Contains(c, "keeps coming back")
			}
			if r.Block && strings.Contains(strings.Join(r.Context, "\n"), r.Reason) {
				t.Fatal("a blocked loop is said twice, in reason and in context")
			}
		}
		if !hard {
			t.Fatalf("block=%v: no hard read-loop after 30 reads: %q", block, s.said)
		}
		if blocked != block {
			t.Fatalf("block=%v: blocked=%v", block, blocked)
		}
	}
}

// TestSubagentLoopsApart: a subagent's reads do not complete the main
// agent's read-loop.
func TestSubagentLoopsApart(t *testing.T) {
	s := newSim(t)
	f := s.file("a.txt", "x")
	in := jsonStr(map[string]any{"file_path": f})
	s.tool("Read", in, readResp("x"))
	s.calls++
	s.run(&Payload{HookEventName: PostToolUse, ToolName: "Read", ToolInput: json.RawMessage(in), AgentID: "agent-1", AgentType: "Explore"})
	s.tool("Read", in, readResp("x"))
	if s.count("read-loop") != 0 {
		t.Fatalf("main and subagent reads were pooled: %q", s.said)
	}
}

const chant = "Here is the summary of the change. The result is the same answer again. The result is the same answer again. The result is the same answer again. The result is the same answer again. The result is the same answer again. The result is the same answer again. The result is the same answer again. The result is the same answer again."

// TestStallRollback: a chanting message is rolled back with a [djinn:stall]
// block, at most max_rollbacks per prompt whether or not stop_hook_active
// is set; then the turn ends and the user is told.
func TestStallRollback(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Summarise the change")
	for i := 1; i <= 3; i++ {
		r := s.run(&Payload{HookEventName: Stop, LastAssistantMessage: chant, StopHookActive: i > 1})
		if !r.Block || !strings.HasPrefix(r.Reason, "[djinn:stall]") || !strings.Contains(r.Reason, fmt.Sprintf("Rollback %d of at most 3", i)) {
			t.Fatalf("rollback %d: %+v", i, r)
		}
	}
	r := s.run(&Payload{HookEventName: Stop, LastAssistantMessage: chant, StopHookActive: true})
	if r.Block || !strings.Contains(r.SystemMessage, "turn ends") {
		t.Fatalf("after max_rollbacks: %+v", r)
	}
	// A new prompt gets its own budget.
	s.userPrompt("Try again, briefly")
	if r := s.run(&Payload{HookEventName: Stop, LastAssistantMessage: chant}); !r.Block {
		t.Fatalf("new prompt: %+v", r)
	}
	// Ordinary text passes.
	if r := s.run(&Payload{HookEventName: Stop, LastAssistantMessage: "The change adds a dark theme and a focus-trap test. All 12 tests pass."}); r.Block || r.SystemMessage != "" {
		t.Fatalf("ordinary message: %+v", r)
	}
	if got := s.advisorySeqs("stall"); len(got) != 5 {
		t.Fatalf("%d stall records, want 5 (every rollback and the give-up)", len(got))
	}
}

// TestStallAdviceOnly: with stall.rollback off the Stop is not blocked; the
// user is told now and the agent at its next hook.
func TestStallAdviceOnly(t *testing.T) {
	s := newSim(t)
	s.env.Settings.Stall.Rollback = false
	s.userPrompt("Summarise the change")
	r := s.run(&Payload{HookEventName: Stop, LastAssistantMessage: chant})
	if r.Block || r.SystemMessage == "" {
		t.Fatalf("advice-only Stop: %+v", r)
	}
	r = s.userPrompt("ok, and now?")
	if len(r.Context) == 0 || !strings.HasPrefix(r.Context[0], "[djinn:stall]") {
		t.Fatalf("the next hook did not carry the stall advice: %+v", r)
	}
}

// TestCompactorNeverBlocked: the compactor's own SubagentStop (empty
// agent_type, the summary as its message) is never blocked; a real
// subagent's chant is.
func TestCompactorNeverBlocked(t *testing.T) {
	s := newSim(t)
	if r := s.run(&Payload{HookEventName: SubagentStop, AgentID: "a5bd3c", AgentType: "", LastAssistantMessage: "<summary>" + chant + "</summary>"}); r.Block {
		t.Fatalf("compactor blocked: %+v", r)
	}
	if r := s.run(&Payload{HookEventName: SubagentStop, AgentID: "a77", AgentType: "general-purpose", LastAssistantMessage: chant}); !r.Block {
		t.Fatalf("real subagent's chant not blocked: %+v", r)
	}
}

// TestCompressMCPOutput: an MCP tool's output over the cap comes back
// through updatedMCPToolOutput, shortened with a marker, with
// [djinn:compacted] naming where the full output is; a built-in tool is
// left alone unless compress.builtin_tools is on.
func TestCompressMCPOutput(t *testing.T) {
	s := newSim(t)
	big := strings.Repeat("row of data, ", 25_000) // 325,000 characters
	r := s.tool("mcp__db__query", `{"sql":"select *"}`, map[string]any{"content": []any{map[string]any{"type": "text", "text": big}}})
	if len(r.UpdatedMCPToolOutput) == 0 || len(r.UpdatedMCPToolOutput) > 210_000 || !strings.Contains(string(r.UpdatedMCPToolOutput), "djinn: cut") {
		t.Fatalf("updatedMCPToolOutput: %d bytes", len(r.UpdatedMCPToolOutput))
	}
	if len(r.Context) != 1 || !strings.HasPrefix(r.Context[0], "[djinn:compacted]") || !strings.Contains(r.Context[0], "saved at") {
		t.Fatalf("context %q", r.Context)
	}
	r = s.tool("Bash", `{"command":"cat big.log"}`, map[string]any{"stdout": big, "stderr": ""})
	if len(r.UpdatedToolOutput) != 0 {
		t.Fatal("built-in tool compressed with builtin_tools off")
	}
	s.env.Settings.Compress.BuiltinTools = true
	r = s.tool("Bash", `{"command":"cat big.log"}`, map[string]any{"stdout": big, "stderr": ""})
	var out map[string]any
	if err := json.Unmarshal(r.UpdatedToolOutput, &out); err != nil || len(out["stdout"].(string)) > 201_000 || out["stderr"] != "" {
		t.Fatalf("updatedToolOutput keeps the Bash shape and the cap: %v", err)
	}
}
