package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeclinedCallHookEvents records the hook events of a Bash call that
// Claude Code refuses, in print mode, five ways: a command that needs
// approval under --permission-mode default (no one can approve it), a
// --disallowedTools rule, a PreToolUse hook that answers deny, the
// dontAsk permission mode, and a settings deny rule on the command. None
// of them sends PostToolUse or PostToolUseFailure: the hook-driven
// detectors never see a declined call (the last two give the "Permission to
// use Bash … has been denied" texts that replay turns into failures). The refusal reaches the model, and the
// transcript, only as an is_error tool_result (docs/declined-calls.md).
func TestDeclinedCallHookEvents(t *testing.T) {
	events := append([]string{"PreToolUse", "PermissionRequest", "PermissionDenied"}, HookEvents...)
	const hookReason = "e2e denies this call"
	cases := []struct {
		name string
		// pre is whether PreToolUse fires for the call.
		pre bool
		// result is a text the is_error tool_result holds.
		result string
		run    func(rec *Recorder) Run
	}{
		{"needs approval", true, "This command requires approval", func(rec *Recorder) Run {
			return Run{Prompt: "run it", PluginDirs: []string{rec.Dir}, AllowedTools: []string{"Read"}, Args: []string{"--permission-mode", "default"}}
		}},
		{"disallowed tool", false, "No such tool available: Bash", func(rec *Recorder) Run {
			return Run{Prompt: "run it", PluginDirs: []string{rec.Dir}, AllowedTools: []string{"Read"}, Args: []string{"--disallowedTools", "Bash"}}
		}},
		{"dontAsk mode", true, "Permission to use Bash has been denied because Claude Code is running in don't ask mode", func(rec *Recorder) Run {
			return Run{Prompt: "run it", PluginDirs: []string{rec.Dir}, AllowedTools: []string{"Read"}, Args: []string{"--permission-mode", "dontAsk"}}
		}},
		{"settings deny rule", true, "Permission to use Bash with command python3 -c", func(rec *Recorder) Run {
			return Run{Prompt: "run it", PluginDirs: []string{rec.Dir}, Args: []string{"--settings", `{"permissions":{"deny":["Bash(python3:*)"]}}`}}
		}},
		{"PreToolUse deny", true, hookReason, func(rec *Recorder) Run {
			deny, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{
				"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": hookReason}})
			script := "#!/bin/sh\nlog=" + shellQuote(rec.LogDir) + "\npayload=$(cat)\nprintf '%s\\n' \"$payload\" >>\"$log/$1.jsonl\"\n" +
				"if [ \"$1\" = PreToolUse ]; then printf '%s\\n' " + shellQuote(string(deny)) + "; fi\nexit 0\n"
			if err := os.WriteFile(filepath.Join(rec.Dir, "record.sh"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			return Run{Prompt: "run it", PluginDirs: []string{rec.Dir}}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stub := NewStub(t, Bash(`python3 -c "print(42)"`, "run python"), Text("done"))
			rec := NewRecorder(t, events, nil)
			env := NewEnv(t, stub)
			res := env.MustClaude(c.run(rec))
			if stub.Remaining() != 0 {
				t.Fatalf("script left = %d; want 0\n%v", stub.Remaining(), res)
			}
			got := map[string]int{}
			for _, ev := range events {
				ps, err := rec.Payloads(ev)
				if err != nil {
					t.Fatal(err)
				}
				got[ev] = len(ps)
			}
			want := map[string]int{"SessionStart": 1, "UserPromptSubmit": 1, "Stop": 1, "SessionEnd": 1}
			if c.pre {
				want["PreToolUse"] = 1
			}
			for _, ev := range events {
				if got[ev] != want[ev] {
					t.Errorf("%s recorded %d times, want %d (all: %v)", ev, got[ev], want[ev], got)
				}
			}
			// What the model is told, and what the transcript keeps.
			main := stub.Messages(KindMain)
			if len(main) != 2 || !strings.Contains(string(main[1].Body), `"is_error":true`) || !main[1].Contains(c.result) {
				t.Errorf("second request does not carry an is_error tool_result with %q", c.result)
			}
			var found bool
			for _, line := range readJSONL(t, env.Transcript(res.SessionID)) {
				var l struct {
					Message struct {
						Content json.RawMessage `json:"content"`
					} `json:"message"`
				}
				if json.Unmarshal(line, &l) != nil {
					continue
				}
				var blocks []struct {
					Type    string `json:"type"`
					IsError bool   `json:"is_error"`
					Content string `json:"content"`
				}
				if json.Unmarshal(l.Message.Content, &blocks) != nil {
					continue
				}
				for _, b := range blocks {
					if b.Type == "tool_result" && b.IsError && strings.Contains(b.Content, c.result) {
						found = true
					}
				}
			}
			if !found {
				t.Errorf("transcript has no is_error tool_result with %q", c.result)
			}
		})
	}
}
