package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// skillRun is a resumed run of a slash command with no --allowedTools, so
// that only the skill's own allowed-tools can permit its commands.
func skillRun(t testing.TB, prompt, session string) Run {
	return pluginRun(t, Run{Prompt: prompt, Resume: session, AllowedTools: []string{}})
}

// skillFailures are the CLI's messages when a skill's !`…` command is
// refused or fails; either aborts the skill before the model sees it.
var skillFailures = []string{"Shell command permission check failed", "Shell command failed"}

// checkSkillRan fails the test when the run shows a refused or failing
// skill command.
func checkSkillRan(t *testing.T, res *Result) {
	t.Helper()
	for _, f := range skillFailures {
		if strings.Contains(string(res.Stdout), f) {
			t.Fatalf("the skill's command did not run (%q)\n%v", f, res)
		}
	}
}

// containsExact reports whether one of texts holds want verbatim.
func containsExact(texts []string, want string) bool {
	for _, s := range texts {
		if strings.Contains(s, want) {
			return true
		}
	}
	return false
}

// TestSkillsShowBinaryOutput: /djinn:status, /djinn:rank, /djinn:log, /djinn:reorient,
// /djinn:disable and /djinn:enable work from the real CLI against the stub, and what the
// model receives is the binary's own output, byte for byte.
//
// A first run pins a goal and makes a few tool calls on two files. Then each
// command runs on the resumed session with no --allowedTools, so only the
// skill's allowed-tools permit its command. DJINN_STATE_DIR is set, while
// the skills pass the plugin data dir as CLAUDE_PLUGIN_DATA: the state the
// hooks wrote must still be the one the skills read (DJINN_STATE_DIR wins).
//
// status, rank and log run the binary in a !`…` line before the model is asked;
// the text `djinn status` / `djinn rank` / `djinn log` prints for the session (run here
// through the same launcher) must be in that request's last user message.
// reorient cannot do that: the skill's !`…` commands run before the
// UserPromptSubmit hook that performs the re-orientation (see
// TestSkillCommandsRunBeforeUserPromptSubmit), so the skill asks the model
// to run `djinn reorient --last` as a Bash tool call. The stub plays the
// model, copying the command from the skill text; the tool result the next
// request carries must be the re-orientation the hook did, and the session's
// goal must have changed.
func TestSkillsShowBinaryOutput(t *testing.T) {
	t.Parallel()
	stub, env, stateDir := djinnScratch(t)
	spaceInHome(t, env) // the skills' command lines carry the plugin data dir
	pager := filepath.Join(env.Project, "pager.go")
	pagerTest := filepath.Join(env.Project, "pager_test.go")
	writeFile(t, pager, "package pager\n\n// Page returns items [off, off+limit).\nfunc Page(items []int, off, limit int) []int {\n\treturn items[off : off+limit-1]\n}\n")
	stub.Push(
		Tool("Read", map[string]string{"file_path": pager}),
		Tool("Edit", map[string]any{"file_path": pager, "old_string": "off+limit-1]", "new_string": "min(off+limit, len(items))]"}),
		Tool("Write", map[string]string{"file_path": pagerTest, "content": "package pager\n\nimport \"testing\"\n\nfunc TestPage(t *testing.T) {\n\tif got := Page([]int{1, 2, 3}, 1, 5); len(got) != 2 {\n\t\tt.Fatal(got)\n\t}\n}\n"}),
		Bash("grep -n limit pager.go pager_test.go", "Check the limit handling"),
		Text("Fixed the off-by-one in Page and added a regression test."),
	)
	run1 := env.MustClaude(pluginRun(t, Run{
		Prompt:       "Fix the off-by-one bug in the pagination helper in pager.go and add a regression test for it.",
		AllowedTools: []string{"Bash", "Read", "Edit", "Write"},
	}))
	session := run1.SessionID
	if w := readWindow(t, stateDir, session); w.ToolCalls != 4 {
		t.Fatalf("tool calls recorded in DJINN_STATE_DIR = %d, want 4\n%s", w.ToolCalls, w.Raw)
	}

	for _, cmd := range []string{"status", "rank", "log"} {
		t.Run(cmd, func(t *testing.T) {
			// The binary's output for this session, as a user would get it
			// in a terminal; nothing the resumed run does before the skill's
			// command (SessionStart(resume)) changes it.
			want, code := djinnCommand(t, env, cmd, "--session", session)
			if code != 0 || !strings.HasPrefix(want, "djinn "+cmd+": session "+session) {
				t.Fatalf("djinn %s exit %d, output:\n%s", cmd, code, want)
			}
			t.Logf("djinn %s printed:\n%s", cmd, want)
			stub.Push(Text("(shown to the user)"))
			res := env.MustClaude(skillRun(t, "/djinn:"+cmd, session))
			checkSkillRan(t, res)
			req := lastMain(t, stub)
			got := lastUserTexts(req)
			if !containsExact(got, want) {
				t.Fatalf("the request after /djinn:%s does not hold the binary's output verbatim.\nwant:\n%s\nlast user message:\n%s", cmd, want, strings.Join(got, "\n---\n"))
			}
			if !containsExact(got, "exactly as printed") {
				t.Errorf("the skill text does not tell the model to show the output as printed:\n%s", strings.Join(got, "\n---\n"))
			}
		})
	}

	t.Run("report", func(t *testing.T) {
		// /djinn:report writes the session's report and the model is given
		// its path, which is where `djinn report` writes it.
		stub.Push(Text("(shown to the user)"))
		res := env.MustClaude(skillRun(t, "/djinn:report", session))
		checkSkillRan(t, res)
		got := lastUserTexts(lastMain(t, stub))
		want := filepath.Join(stateDir, "sessions", session, "report.html")
		if !containsExact(got, want) {
			t.Fatalf("the request after /djinn:report does not hold the report's path %s:\n%s", want, strings.Join(got, "\n---\n"))
		}
		html, err := os.ReadFile(want)
		if err != nil || !strings.Contains(string(html), `data-calls="4"`) {
			t.Fatalf("the report the skill wrote (err %v) does not show the session's 4 tool calls:\n%.2000s", err, html)
		}
	})

	t.Run("reorient", func(t *testing.T) {
		const intent = `Write the user guide for the "pager" package instead; skip the tests`
		main := runFollowedSkill(t, stub, env, "/djinn:reorient "+intent, session)
		want, code := djinnCommand(t, env, "reorient", "--last", "--session", session)
		if code != 0 || !strings.Contains(want, "goal replaced") || !strings.Contains(want, intent) {
			t.Fatalf("djinn reorient --last exit %d, output:\n%s\nwant the goal replaced by the new intent", code, want)
		}
		t.Logf("djinn reorient --last printed:\n%s", want)
		result := lastToolResult(main[1])
		if strings.TrimSpace(result) != strings.TrimSpace(want) {
			t.Errorf("tool result of the skill's command:\n%s\nwant the binary's output:\n%s", result, want)
		}
		status, _ := djinnCommand(t, env, "status", "--session", session)
		if !strings.Contains(status, "set with /djinn:reorient; id ") || !strings.Contains(status, "): "+intent+"\n") {
			t.Errorf("status after /djinn:reorient does not show the new goal:\n%s", status)
		}
		// The skills' own commands (the !`…` lines and the model's Bash call
		// of reorient --last) are Djinn's, not the agent's work.
		if w := readWindow(t, stateDir, session); w.ToolCalls != 4 {
			t.Errorf("tool calls after the skills = %d, want still 4: Djinn's own commands were counted\n%s", w.ToolCalls, w.Raw)
		}
	})

	// /djinn:disable and /djinn:enable: as for reorient, the hook takes the
	// detector from the raw line and switches it; its result reaches the
	// skill's request, and the model's `djinn status` call shows the
	// switch. A bad name changes nothing.
	for _, tc := range []struct{ line, said, shown string }{
		{"/djinn:disable loops", "djinn disable: Djinn's loops detector is off for this session. Disabled now: loops.", "disabled for this session: loops\n"},
		{"/djinn:disable telepathy", `djinn disable: unknown detector "telepathy". Nothing changed.`, "disabled for this session: loops\n"},
		{"/djinn:enable loops", "djinn enable: Djinn's loops detector is on for this session. Disabled now: none.", ""},
	} {
		t.Run(tc.line, func(t *testing.T) {
			main := runFollowedSkill(t, stub, env, tc.line, session)
			if !ContextInRequest(main[0], tc.said) {
				t.Errorf("the hook's result %q is not in the skill's request", tc.said)
			}
			result := lastToolResult(main[1])
			if !strings.HasPrefix(result, "djinn status: session "+session) {
				t.Fatalf("tool result of the skill's command is not djinn status:\n%s", result)
			}
			if tc.shown != "" && !strings.Contains(result, tc.shown) {
				t.Errorf("status after %s does not show %q:\n%s", tc.line, tc.shown, result)
			}
			if tc.shown == "" && strings.Contains(result, "disabled for this session") {
				t.Errorf("status after %s still shows a switch:\n%s", tc.line, result)
			}
			if w := readWindow(t, stateDir, session); w.ToolCalls != 4 {
				t.Errorf("tool calls after the skill = %d, want still 4: Djinn's own commands were counted\n%s", w.ToolCalls, w.Raw)
			}
		})
	}
}

// followSkillCommand plays a model that follows the reorient skill: when
// the last user message holds a fenced command, it runs that command with
// the Bash tool; after the tool result it ends the turn.
func followSkillCommand(req *Request, script *Script) (Response, int) {
	if req.Kind != KindMain {
		return DefaultPolicy(req, script)
	}
	for _, txt := range lastUserTexts(*req) {
		if _, rest, ok := strings.Cut(txt, "```\n"); ok {
			if cmd, _, ok := strings.Cut(rest, "\n```"); ok {
				return Bash(cmd, "Show Djinn's re-orientation"), -1
			}
		}
	}
	return Text("(shown to the user)"), -1
}

// runFollowedSkill runs the slash command line on session with a model
// that follows the skill (followSkillCommand), and returns the two
// main-chain requests that makes: the skill's, answered with its command
// as one tool call, then the one carrying the command's tool result.
func runFollowedSkill(t *testing.T, stub *Stub, env *Env, line, session string) []Request {
	t.Helper()
	stub.SetPolicy(followSkillCommand)
	defer stub.SetPolicy(DefaultPolicy)
	before := len(stub.Messages(KindMain))
	res := env.MustClaude(skillRun(t, line, session))
	checkSkillRan(t, res)
	main := stub.Messages(KindMain)[before:]
	if len(main) != 2 || main[0].Answer == nil || len(main[0].Answer.Tools) != 1 {
		t.Fatalf("want 2 requests (the skill, then the tool result), the first answered with the skill's command; got %d\n%v", len(main), res)
	}
	return main
}

// lastToolResult is the text of the last tool_result block in req.
func lastToolResult(req Request) string {
	var result string
	for _, l := range Locate(req.Body) {
		if l.Block == "tool_result" {
			result = l.Text
		}
	}
	return result
}

// TestSkillCommandsRunBeforeUserPromptSubmit pins down the CLI behaviour
// the reorient skill is built around: for a prompt "/<plugin>:<skill> args",
// Claude Code 2.1.197 runs the skill's !`…` commands first and fires
// UserPromptSubmit afterwards, with the raw, unexpanded line as "prompt".
// A recorder plugin gets a skill whose !`…` command prints the recorded
// UserPromptSubmit payloads: at that moment there are none. The hook then
// fires with the raw line, and its additionalContext reaches the same
// request as the skill's text (which is how a hook could hand the model a
// result computed from the raw line).
func TestSkillCommandsRunBeforeUserPromptSubmit(t *testing.T) {
	t.Parallel()
	const upsContext = "E2E-UPS-CONTEXT"
	stub := NewStub(t, Text("first"), Text("second"))
	env := NewEnv(t, stub)
	rec := NewRecorder(t, []string{"UserPromptSubmit"}, map[string]string{"UserPromptSubmit": upsContext})
	log := filepath.Join(rec.LogDir, "UserPromptSubmit.jsonl")
	// cat outside the project directory is refused in a skill command, so a
	// script in the plugin prints the log.
	writeFile(t, filepath.Join(rec.Dir, "skills", "probe", "SKILL.md"),
		"---\nname: probe\ndescription: e2e probe\nallowed-tools: Bash(${CLAUDE_PLUGIN_ROOT}/show.sh:*)\n---\nRecorded so far:\n\n!`${CLAUDE_PLUGIN_ROOT}/show.sh`\n")
	writeFile(t, filepath.Join(rec.Dir, "show.sh"), "#!/bin/sh\ncat "+shellQuote(log)+" 2>&1\nexit 0\n")
	if err := os.Chmod(filepath.Join(rec.Dir, "show.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	run1 := env.MustClaude(Run{Prompt: "first prompt of the session", PluginDirs: []string{rec.Dir}})

	const line = `/e2e-recorder:probe new goal with "quotes"; and a semicolon`
	res := env.MustClaude(Run{Prompt: line, Resume: run1.SessionID, PluginDirs: []string{rec.Dir}, AllowedTools: []string{}})
	checkSkillRan(t, res)
	req := lastMain(t, stub)
	var shown string
	for _, txt := range lastUserTexts(req) {
		if strings.Contains(txt, "Recorded so far:") {
			shown = txt
		}
	}
	if shown == "" {
		t.Fatalf("the skill's text is not in the last request\n%v", res)
	}
	// The first run's prompt is recorded; this prompt's must not be yet.
	if n := strings.Count(shown, `"hook_event_name":"UserPromptSubmit"`); n != 1 {
		t.Errorf("the skill's command saw %d UserPromptSubmit payloads, want 1 (the first run's only; 2 means the hook now runs first, and the reorient skill could use a !`…` line):\n%s", n, shown)
	}
	ps, err := rec.Payloads("UserPromptSubmit")
	if err != nil || len(ps) != 2 {
		t.Fatalf("UserPromptSubmit payloads %d (%v), want 2", len(ps), err)
	}
	var p struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(ps[1], &p); err != nil || p.Prompt != line {
		t.Errorf("UserPromptSubmit prompt = %q (%v), want the raw line %q", p.Prompt, err, line)
	}
	if !ContextInRequest(req, upsContext) {
		t.Errorf("the UserPromptSubmit hook's additionalContext is not in the skill's request")
	}
}
