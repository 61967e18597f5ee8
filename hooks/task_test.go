package hooks

import (
	"fmt"
	"strings"
	"testing"
)

// bash runs one successful Bash call.
func (s *sim) bash(cmd string) Response {
	s.t.Helper()
	return s.tool("Bash", jsonStr(map[string]any{"command": cmd}), map[string]any{"stdout": "ok", "stderr": ""})
}

// TestFollowUpWithoutPivotWordsStaysQuiet is the stale-goal shape of
// issue 19: the user asks to run and test the app, then moves the work on
// with a follow-up that has no pivot words. The follow-up becomes the
// current task, and the database work it asks for draws no drift advisory.
func TestFollowUpWithoutPivotWordsStaysQuiet(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Run the app and test the checkout page with Playwright end-to-end tests")
	for i := 0; i < 10; i++ {
		s.edit("e2e/checkout.spec.ts")
		s.bash("npx playwright test e2e/checkout.spec.ts")
	}
	s.userPrompt("set up a Postgres database for the orders service with docker compose and run the migrations")
	for i := 0; i < 4; i++ {
		s.edit("docker-compose.yml")
		s.edit(fmt.Sprintf("migrations/00%d_orders.sql", i))
		s.bash("docker compose up -d postgres")
		s.bash("npx prisma migrate deploy")
	}
	if n := s.count("drift"); n != 0 {
		t.Fatalf("%d drift advisories on the work the follow-up asked for: %q", n, s.said)
	}
	a := s.anchor()
	if a.Task == nil || !strings.HasPrefix(a.Task.Text, "set up a Postgres database") || a.Task.Source != "prompt" || a.Task.PromptID != "prompt-2" {
		t.Fatalf("task = %+v, want the follow-up from prompt-2", a.Task)
	}
	if !strings.Contains(a.Text, "Playwright") {
		t.Errorf("goal = %q, want the first prompt kept as background", a.Text)
	}
}

// TestDetourAfterFollowUpFires: after a follow-up, work that relates to
// neither it nor the goal still gives a drift advisory within 8 calls.
func TestDetourAfterFollowUpFires(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Add dark-mode support with a11y keyboard-trap tests")
	for i := 0; i < 14; i++ {
		s.edit("src/theme/dark.ts")
	}
	s.userPrompt("also cover the high-contrast variant of the dark theme")
	for i := 0; i < 4; i++ {
		s.edit("src/theme/high-contrast.ts")
	}
	start := s.window().ToolCalls + 1
	s.readBilling("invoice", 8)
	seqs := s.advisorySeqs("drift")
	if len(seqs) == 0 || seqs[0] >= start+8 {
		t.Fatalf("drift advisories at %v, want one within 8 calls of %d: %q", seqs, start, s.said)
	}
	if !strings.Contains(strings.Join(s.said, "\n"), "high-contrast") {
		t.Errorf("the advisory should name the current task: %q", s.said)
	}
}

// TestNoDriftRightAfterPrompt: within drift.prompt_grace calls of a user
// prompt the user is steering, even if the work looks unrelated.
func TestNoDriftRightAfterPrompt(t *testing.T) {
	s := drifted(t, 4)
	s.run(&Payload{HookEventName: UserPromptSubmit, Prompt: "ok"})
	before := len(s.advisorySeqs("drift"))
	at := s.window().ToolCalls
	s.readBilling("ledger", 3)
	for _, q := range s.advisorySeqs("drift")[before:] {
		if q <= at+3 {
			t.Fatalf("drift advisory at call %d, %d calls after the prompt", q, q-at)
		}
	}
}

// planningExchange is a question the agent answers with a plan it offers
// to start: the set-up of the replies that follow it.
func planningExchange(s *sim) {
	s.userPrompt("How should we handle rate limits in the API gateway? Make a plan first")
	s.tool("Read", jsonStr(map[string]any{"file_path": s.file("gateway/router.go", "package gateway")}), map[string]any{"type": "text", "file": map[string]any{"content": "package gateway", "numLines": 1, "startLine": 1, "totalLines": 1}})
	proposal := "Plan: add a token bucket limiter in limiter/bucket.go, keyed by client id, wire it into the middleware chain, and cover refill and burst in limiter/bucket_test.go. Shall I start?"
	s.assistant(proposal, 20000)
	s.run(&Payload{HookEventName: Stop, LastAssistantMessage: proposal})
}

// TestOkStartKeepsProposedTask: after a planning exchange, "ok, start"
// keeps the task the agent proposed, and its implementation stays quiet.
func TestOkStartKeepsProposedTask(t *testing.T) {
	s := newSim(t)
	planningExchange(s)
	s.userPrompt("ok, start")
	a := s.anchor()
	if a.Task == nil || a.Task.Source != "proposed" || !strings.Contains(a.Task.Text, "token bucket") || a.Task.PromptID != "prompt-2" {
		t.Fatalf("task = %+v, want the agent's proposal from prompt-2", a.Task)
	}
	for i := 0; i < 8; i++ {
		s.edit("limiter/bucket.go")
		s.edit("limiter/bucket_test.go")
		s.bash("go test ./limiter -run TestBucket")
	}
	if n := s.count("drift"); n != 0 {
		t.Fatalf("%d drift advisories on the proposed task's work: %q", n, s.said)
	}
}

// TestPickedOptionKeepsProposedTask: the shape of real sessions
// (mthis-netdiag before #139, tenbox before #15): the agent lists options,
// the user picks some by number ("start with option 4, 5"); the task is
// the agent's message, so work on the picked options stays quiet, while a
// turn to something the options never named is still drift.
func TestPickedOptionKeepsProposedTask(t *testing.T) {
	options := "Options: 1. Reinstall Node. 2. Use PowerShell as the shell. 3. Reboot. 4. Update Git for Windows and MSYS2 with winget. 5. Add a Defender exclusion for the Git install folder. Which should I start with?"
	setup := func(t *testing.T) *sim {
		s := newSim(t)
		s.userPrompt("Investigate why the terminal keeps failing to fork processes before we touch the router")
		s.bash("uname -a")
		s.assistant(options, 20000)
		s.run(&Payload{HookEventName: Stop, LastAssistantMessage: options})
		s.userPrompt("start with option 4, 5")
		return s
	}
	s := setup(t)
	if a := s.anchor(); a.Task == nil || a.Task.Source != "proposed" || !strings.Contains(a.Task.Text, "Defender") {
		t.Fatalf("task = %+v, want the agent's options", a.Task)
	}
	for range 4 {
		s.bash("winget upgrade Git.Git")
		s.bash("git --version")
		s.bash("winget show Git.Git")
		s.bash("powershell Add-MpPreference -ExclusionPath 'C:\\Program Files\\Git'")
	}
	if n := s.count("drift"); n != 0 {
		t.Fatalf("%d drift advisories on the picked options' work: %q", n, s.said)
	}
	for i := range 10 {
		f := s.file(fmt.Sprintf("web/landing/analytics_%d.tsx", i), "")
		s.tool("Read", jsonStr(map[string]any{"file_path": f}), map[string]any{"type": "text", "file": map[string]any{"content": "export {}", "numLines": 1, "startLine": 1, "totalLines": 1}})
	}
	if n := s.count("drift"); n == 0 {
		t.Fatalf("no drift advisory on work no option named: %q", s.said)
	}
}

// TestPastedPlaceholderIsNotTheGoal: a prompt that is only a paste
// placeholder (as a transcript keeps it) sets no goal; the words beside a
// placeholder are the goal without it.
func TestPastedPlaceholderIsNotTheGoal(t *testing.T) {
	s := newSim(t)
	s.userPrompt("[Pasted text #1 +30 lines]")
	if a := s.anchor(); a != nil {
		t.Fatalf("placeholder became the goal: %+v", a)
	}
	s.userPrompt("Fix the flaky upload retry in storage/upload.go [Pasted text #2 +12 lines]")
	a := s.anchor()
	if a == nil || a.Text != "Fix the flaky upload retry in storage/upload.go" {
		t.Fatalf("goal = %+v", a)
	}
}

// TestReanchorNamesLatestTaskDropsReversed: after compaction the block
// names the latest task and the session goal, keeps the instructions in
// force in the user's words once each, drops the one a later prompt took
// back, restates no advisory, and lists only failures no success cleared.
func TestReanchorNamesLatestTaskDropsReversed(t *testing.T) {
	s := drifted(t, 8) // gives a drift advisory
	if s.count("drift") == 0 {
		t.Fatal("setup: no drift advisory")
	}
	s.userPrompt("Use squash merges for the release branch")
	s.userPrompt("Keep the public API unchanged")
	s.userPrompt("Keep the public API unchanged")
	s.fail("Bash", jsonStr(map[string]any{"command": "npm test"}), "Error: expected dark got light")
	s.bash("npm test")
	s.fail("Bash", jsonStr(map[string]any{"command": "npm run lint"}), "lint: 3 problems")
	s.userPrompt("don't use squash merges after all, rebase the release branch and write the changelog")
	r := s.compactNext("")
	got := reanchorIn(r)
	if got == "" {
		t.Fatalf("reanchor: %+v", r)
	}
	for _, want := range []string{
		`<current_task prompt_id="prompt-5" source="prompt">don&#39;t use squash merges after all, rebase the release branch and write the changelog</current_task>`,
		"<goal", "dark-mode", "<constraint>Keep the public API unchanged</constraint>", "npm run lint",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("reanchor lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"Use squash merges", "<recent_advisories>", "drift", "npm test"} {
		if strings.Contains(got, bad) {
			t.Errorf("reanchor holds %q:\n%s", bad, got)
		}
	}
	if n := strings.Count(got, "Keep the public API unchanged"); n != 1 {
		t.Errorf("instruction restated %d times:\n%s", n, got)
	}
}

// TestInterruptRestartsDriftWindow: an interrupted call empties the drift
// window, so the calls before it do not count against the next request.
func TestInterruptRestartsDriftWindow(t *testing.T) {
	s := drifted(t, 3)
	s.calls++
	s.run(&Payload{HookEventName: PostToolUseFailure, ToolName: "Bash", ToolInput: []byte(`{"command":"sleep 100"}`), Error: "interrupted", IsInterrupt: true, ToolUseID: fmt.Sprintf("toolu_%d", s.calls)})
	d := s.window().Drift
	if len(d.Recent) != 0 || d.OffGoal != 0 {
		t.Fatalf("after an interrupt: %d recent calls, %d off-goal", len(d.Recent), d.OffGoal)
	}
}

// TestReanchorWholeTags: with a huge goal, task and instructions the block
// stays within its budget by dropping and shortening whole parts, never by
// cutting a tag.
func TestReanchorWholeTags(t *testing.T) {
	s := newSim(t)
	s.userPrompt(strings.Repeat("Add a very long goal with <many> \"quoted\" words & dark mode. ", 80))
	for i := 0; i < 12; i++ {
		s.userPrompt(fmt.Sprintf("Instruction %d: %s", i, strings.Repeat("keep <it> & \"small\" ", 60)))
	}
	for i := 0; i < 6; i++ {
		s.fail("Bash", jsonStr(map[string]any{"command": fmt.Sprintf("npm test -- %d %s", i, strings.Repeat("x", 300))}), strings.Repeat("Error & <fail> ", 40))
	}
	r := s.compactNext("")
	got := reanchorIn(r)
	if got == "" {
		t.Fatalf("reanchor: %+v", r)
	}
	if n := len([]rune(got)); n > maxSnapshot+300 {
		t.Errorf("reanchor is %d characters", n)
	}
	for _, want := range []string{"<current_task", "</current_task>", "<goal", "</goal>", "</djinn_state>"} {
		if !strings.Contains(got, want) {
			t.Errorf("reanchor lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasSuffix(got, "</djinn_state>") {
		t.Errorf("reanchor cut mid-tag:\n%s", got[len(got)-200:])
	}
}

// TestCLINoticeIsNotAProposal: a usage-limit notice in the agent's place
// (mthis-audit, before 222: "You're out of extra usage · resets 11pm") is
// not what the user's "continue" accepts; the task stays the agent's last
// real message.
func TestCLINoticeIsNotAProposal(t *testing.T) {
	s := newSim(t)
	s.userPrompt("complete the commit, always verify and run hooks. If stuck, please troubleshoot")
	s.bash("git status")
	real := "I'll troubleshoot the commit hook and make sure the hooks run properly."
	s.run(&Payload{HookEventName: Stop, LastAssistantMessage: real})
	s.run(&Payload{HookEventName: Stop, LastAssistantMessage: "You're out of extra usage · resets 11pm (America/Denver)"})
	s.userPrompt("continue")
	if a := s.anchor(); a.Task == nil || a.Task.Text != real {
		t.Fatalf("task = %+v, want the agent's real message", a.Task)
	}
}

// TestReanchorSaysWhatTheSummaryLeavesOut: after a compaction the re-anchor
// restates only what the compaction summary (PostCompact's
// compact_summary) leaves out; a summary that holds the task, goal and
// limits leaves nothing to say. Without a summary (a CLI before
// PostCompact) the whole block is said, at the next main-agent hook that
// can give context, never at a subagent's.
func TestReanchorSaysWhatTheSummaryLeavesOut(t *testing.T) {
	setup := func(t *testing.T) *sim {
		s := newSim(t)
		s.file("CLAUDE.md", "Never push to main.\n")
		s.run(&Payload{HookEventName: SessionStart, Source: "startup"})
		s.userPrompt("Add a retry with exponential backoff to the HTTP client in client.go")
		s.assistant("I will add the retry to client.go.", 20_000)
		s.tool("Edit", jsonStr(map[string]any{"file_path": s.file("client.go", "x"), "old_string": "x", "new_string": "y"}), map[string]any{})
		return s
	}
	full := "The user asked to add a retry with exponential backoff to the HTTP client in client.go. " +
		"Constraint from CLAUDE.md: never push to main. Edited client.go; next: tests for the retry."

	s := setup(t)
	if r := s.compactNext(full); reanchorIn(r) != "" || s.countObserved("reanchor") != 0 {
		t.Fatalf("a summary holding everything still drew %q (observed %q)", reanchorIn(r), s.observed)
	}
	if w := s.window(); w.PendingReanchor != "" || w.ReanchorAfter != "" {
		t.Errorf("nothing to say, yet pending %q after %q", w.PendingReanchor, w.ReanchorAfter)
	}

	// The CLAUDE.md limit the summary drops is not said either: the CLI
	// loads CLAUDE.md again with the compacted conversation.
	s = setup(t)
	if r := s.compactNext("The user asked to add a retry with exponential backoff to the HTTP client in client.go. Edited client.go."); reanchorIn(r) != "" {
		t.Fatalf("a summary holding the task still drew %q", reanchorIn(r))
	}

	s = setup(t)
	s.userPrompt("Don't push anything to main.")
	s.userPrompt("Now also add a timeout to the HTTP client in client.go")
	r := s.compactNext("The user asked to add a retry with exponential backoff and a timeout to the HTTP client in client.go. Edited client.go.")
	got := reanchorIn(r)
	if !strings.Contains(got, "summary leaves out") || !strings.Contains(got, "<limit>Don&#39;t push anything to main.</limit>") {
		t.Fatalf("the limit the summary dropped is not restated: %q", got)
	}
	if strings.Contains(got, "<goal") || strings.Contains(got, "client.go</file>") {
		t.Errorf("what the summary holds is restated: %q", got)
	}

	s = setup(t)
	if r := s.compactNext(""); !strings.Contains(reanchorIn(r), "<goal") {
		t.Fatalf("without a summary the whole block is due: %+v", r)
	}

	// Once a later prompt has become the task, the session's first prompt
	// is not restated as the goal even when the summary, about the later
	// work, leaves it out (sixth held-out set: pai-jarvis-history #188,
	// labelled false by both judges); the task it leaves out still is.
	s = setup(t)
	s.userPrompt("Now make the retry limit configurable through the RETRY_MAX environment variable")
	r = s.compactNext("Working on RETRY_MAX. Never push to main.")
	got = reanchorIn(r)
	if strings.Contains(got, "<goal") || strings.Contains(got, "exponential backoff") {
		t.Errorf("the first prompt is restated after a later one became the task: %q", got)
	}
	if !strings.Contains(got, "<current_task") {
		t.Errorf("the task the summary leaves out is not restated: %q", got)
	}

	// Follow-up prompts that add context or correct a figure are not
	// restated as constraints, whatever the summary leaves out (seventh
	// round: procrypto-qatools #153 and #212, a pasted explanation and "i
	// meant 0% remaining", judged useless and false); a limit the user
	// gave in one still is, as an instruction in force.
	s = setup(t)
	s.userPrompt("don't touch the tests in client_test.go")
	s.userPrompt("a little more context - there are 40+ web hooks for this alerting setup that the on-call side already uses")
	s.userPrompt("i meant 0% remaining")
	r = s.compactNext("The user asked to add a retry with exponential backoff to the HTTP client in client.go; the user meant 0% remaining. Never push to main. Edited client.go.")
	got = reanchorIn(r)
	if strings.Contains(got, "web hooks") || strings.Contains(got, "0% remaining") || strings.Contains(got, "<constraint>") {
		t.Errorf("follow-up context is restated as a constraint: %q", got)
	}
	if !strings.Contains(got, "<limit>don&#39;t touch the tests in client_test.go</limit>") {
		t.Errorf("the limit the summary leaves out is not restated: %q", got)
	}

	// A task that is the agent's own proposal, taken with "ok", is not
	// restated, whatever the summary leaves out (ext-posthog #109,
	// ext-squeezelms #83: useless to both judges); the same words typed by
	// the user are (above).
	s = setup(t)
	s.run(&Payload{HookEventName: Stop, LastAssistantMessage: "Next I propose to make the retry limit configurable through the RETRY_MAX environment variable. Shall I go ahead?"})
	s.userPrompt("ok")
	if a := s.anchor(); a.Task == nil || a.Task.Source != "proposed" {
		t.Fatalf("task = %+v, want the agent's proposal", a.Task)
	}
	if got := reanchorIn(s.compactNext("Working on the HTTP client. Never push to main.")); strings.Contains(got, "<current_task") {
		t.Errorf("the agent's own proposal is restated as the task: %q", got)
	}

	// A prompt longer than the anchor keeps (a pasted log) keeps its end,
	// where the request is (ext-mastercontroller #213: the restated task
	// had lost "just analyze, dont actually do anything yet").
	s = setup(t)
	s.userPrompt("still broken, the console says:\n" + strings.Repeat("13:08:50.069 Cross-Origin Request Blocked: the same origin policy disallows reading the remote resource.\n", 60) + "just analyze, dont actually do anything yet")
	if a := s.anchor(); a.Task == nil || !strings.HasSuffix(a.Task.Text, "dont actually do anything yet") || !strings.HasPrefix(a.Task.Text, "still broken") {
		t.Fatalf("the long prompt's task lost its head or its end: %+v", a.Task)
	}

	s = setup(t)
	s.run(&Payload{HookEventName: SessionStart, Source: "compact"})
	s.calls++
	sub := s.run(&Payload{HookEventName: PostToolUse, AgentID: "agent-1", ToolName: "Bash", ToolInput: []byte(`{"command":"pwd"}`), ToolResponse: []byte(`{"stdout":"/p"}`), ToolUseID: fmt.Sprintf("toolu_%d", s.calls)})
	if reanchorIn(sub) != "" {
		t.Fatalf("a subagent's call was given the re-anchor: %+v", sub)
	}
	if s.window().PendingReanchor == "" {
		t.Fatalf("the re-anchor was dropped at a subagent's call")
	}
}

// TestReplyToTheProposal: after the agent proposes, a reply that goes ahead
// makes the proposal the task, and one that opens with a go-ahead and adds
// to it ("yes go ahead, and delete the plan file", ext-benchscaffold #25)
// makes the proposal with the addition the task; a reply that asks
// something or says the thing is still wrong ("클로드야 안 없어진거 같은데?
// 다시 확인해볼래?", ext-adminfilter #53), or a follow-up that does not
// open with a go-ahead, accepts nothing (both drift advisories labelled
// false by both judges of the thirty-fourth and thirty-sixth sets).
func TestReplyToTheProposal(t *testing.T) {
	for _, tc := range []struct {
		reply    string
		proposed bool
	}{
		{"ok, start", true},
		{"좋아 진행해", true},
		{"yes go ahead, and delete the plan file", true},
		{"ok; also cover the burst case in the tests", true},
		{"클로드야 안 없어진거 같은데? 다시 확인해볼래?", false},
		{"근데도 안돼", false},
		{"now add a rate limit to the login endpoint as well", false},
	} {
		t.Run(tc.reply, func(t *testing.T) {
			s := newSim(t)
			planningExchange(s)
			s.userPrompt(tc.reply)
			a := s.anchor()
			if got := a.Task != nil && a.Task.Source == "proposed" && strings.Contains(a.Task.Text, "token bucket"); got != tc.proposed {
				t.Fatalf("task = %+v, want the proposal: %v", a.Task, tc.proposed)
			}
		})
	}
}

// TestQueuedFollowUpIsTheTask: a follow-up typed while the agent worked
// (a queued_command line; Claude Code runs no UserPromptSubmit hook for it)
// becomes the current task as a typed one does, and the goal stays as
// background; a short reply typed mid-turn ("no wait"), a task
// notification, or a message read before leaves the task as it was.
func TestQueuedFollowUpIsTheTask(t *testing.T) {
	const goal = "Add dark-mode support with a11y keyboard-trap tests"
	const follow = "also cover the high-contrast variant of the dark theme"
	for _, tc := range []struct {
		name string
		line map[string]any
		want string
	}{
		{"a follow-up", queuedLine(follow, map[string]any{"kind": "human"}), follow},
		{"a follow-up in Chinese", queuedLine("我想要可爱的橘子风格然后可以选择颜色", nil), "我想要可爱的橘子风格然后可以选择颜色"},
		{"a short reply", queuedLine("no wait", map[string]any{"kind": "human"}), goal},
		{"a task notification", map[string]any{"type": "attachment", "attachment": map[string]any{"type": "queued_command", "commandMode": "task-notification", "prompt": follow}}, goal},
		{"nothing typed", nil, goal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt(goal)
			for i := 0; i < 3; i++ {
				s.edit("src/theme/dark.ts")
			}
			if tc.line != nil {
				s.line(tc.line)
			}
			s.edit("src/theme/high-contrast.ts")
			a := s.anchor()
			task := a.Text
			if a.Task != nil {
				task = a.Task.Text
			}
			if task != tc.want {
				t.Fatalf("task %q, want %q", task, tc.want)
			}
			if a.Text != goal {
				t.Errorf("goal %q, want the first prompt kept", a.Text)
			}
			if tc.want != goal && (a.Task == nil || a.Task.PromptID != "queued:prompt-1") {
				t.Errorf("task %+v, want prompt id queued:prompt-1 (the typed prompt's is prompt-1)", a.Task)
			}
			if got := s.window().UserPrompts; got != 1 {
				t.Errorf("user prompts %d, want 1: a queued message counts none", got)
			}
		})
	}
}

// TestSlashCommandIsTheTask: a slash command that asks the model for work
// ("/agent:auto finish the parser") is the current task from then on, and
// no instruction in force; Claude Code's own commands (/model) and Djinn's
// leave the task as it was.
func TestSlashCommandIsTheTask(t *testing.T) {
	for _, tc := range []struct {
		prompt, want string
	}{
		{"/agent:auto finish the parser", "/agent:auto finish the parser"},
		{"/review 42", "/review 42"},
		{"/model opus", "add a token bucket rate limiter to the API"},
		{"/djinn:status", "add a token bucket rate limiter to the API"},
	} {
		t.Run(tc.prompt, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("add a token bucket rate limiter to the API")
			s.edit("limiter/bucket.go")
			s.userPrompt(tc.prompt)
			a := s.anchor()
			if got := currentTask(a).Text; got != tc.want {
				t.Errorf("current task %q, want %q", got, tc.want)
			}
			for _, in := range a.Instructions {
				if strings.HasPrefix(in.Text, "/") {
					t.Errorf("a command line among the instructions in force: %q", in.Text)
				}
			}
		})
	}
}

func TestPromptCommand(t *testing.T) {
	for prompt, want := range map[string]bool{
		"/agent:auto":                         true,
		"/review 42":                          true,
		"/init":                               true,
		"/my-plugin:deploy staging":           true,
		"/compact keep the parser":            false,
		"/model":                              false,
		"/djinn:reorient fix the parser":      false,
		"/Users/x/app.log shows a crash":      false,
		"/tmp/out.txt":                        false,
		"fix /review":                         false,
		"/review\nwith a second line of text": true,
	} {
		if got := promptCommand(prompt); got != want {
			t.Errorf("promptCommand(%q) = %v, want %v", prompt, got, want)
		}
	}
}

// TestPickedOptionIsTheTask: "1" after the agent's list of options makes
// the option picked the task, not the whole message (t-opencode-765a9806
// #161, fifth draw: the /compact line's goal was the agent's summary and
// menu, cut so that the option picked was lost; false to both judges);
// "ok" to the same message keeps the whole message.
func TestPickedOptionIsTheTask(t *testing.T) {
	const menu = "## Work Completed\n\nAll 65 tests pass.\n\nWould you like me to:\n1. **Create the remaining 4 security test suites** (C-3 through C-6)?\n2. **Run coverage analysis** to see current test coverage?\n3. **Create a final security audit report**?\n\nAll core functionality is now tested and passing!"
	for _, tc := range []struct {
		reply, want, not string
	}{
		{"1", "security test suites", "Work Completed"},
		{"ok", "Work Completed", ""},
	} {
		s := newSim(t)
		s.userPrompt("Fix the failing collateral manager tests and add security tests")
		s.bash("npx hardhat test")
		s.assistant(menu, 20000)
		s.run(&Payload{HookEventName: Stop, LastAssistantMessage: menu})
		s.userPrompt(tc.reply)
		a := s.anchor()
		if a.Task == nil || a.Task.Source != "proposed" || !strings.Contains(a.Task.Text, tc.want) || tc.not != "" && strings.Contains(a.Task.Text, tc.not) {
			t.Errorf("after %q: task = %+v, want the text holding %q and not %q", tc.reply, a.Task, tc.want, tc.not)
		}
	}
}

// TestSubagentCompactionNoReanchor: the CLI runs the compaction hooks for a
// subagent's compaction as for the main conversation's, with no agent id.
// The main agent, whose latest response is still the one before, was not
// compacted and is not told it was (w-visionweb-3acf5580 #139: false to
// both judges); a compaction of the main conversation, whose transcript
// then shows the boundary, still draws the block.
func TestSubagentCompactionNoReanchor(t *testing.T) {
	for _, tc := range []struct {
		name string
		main bool
	}{{"subagent", false}, {"main", true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("Add a retry with exponential backoff to the HTTP client in client.go")
			s.assistant("I will spawn a reviewer for client.go.", 90_000)
			s.tool("Edit", jsonStr(map[string]any{"file_path": s.file("client.go", "x"), "old_string": "x", "new_string": "y"}), map[string]any{})
			s.run(&Payload{HookEventName: PreCompact, Trigger: "auto"})
			var r Response
			if tc.main {
				r = s.compactNext("")
			} else {
				r = s.subagentCompactsNext("")
			}
			if got := reanchorIn(r) != ""; got != tc.main {
				t.Errorf("reanchor said: %v, want %v (%+v)", got, tc.main, r)
			}
			if w := s.window(); w.PendingReanchor != "" || w.ReanchorAfter != "" {
				t.Errorf("still pending: %+v", w)
			}
		})
	}
}
