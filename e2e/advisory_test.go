package e2e

import "testing"

// TestReadLoopAdvisoryReachesModel: the scripted model reads the same file
// three times. Djinn's PostToolUse hook on the third read says
// [djinn:read-loop], and the request that follows the third read, the
// model's next turn, must carry it as hook context (a <system-reminder> in
// the user message with the tool_result in 2.1.197, a role:"system" message
// in newer CLIs). The first three requests must not.
func TestReadLoopAdvisoryReachesModel(t *testing.T) {
	t.Parallel()
	const tag = "[djinn:read-loop]"
	// read-loop ships as observe (not told); this test is about how a told
	// advisory reaches the model.
	stub, env, _ := djinnScratch(t, "DJINN_ADVISORIES_READ_LOOP=advise")
	read := configRead(t, env)
	stub.Push(read, read, read, Text("The config sets retries to 3."))

	run := env.MustClaude(pluginRun(t, Run{Prompt: "Check the retry setting in config.yaml and tell me its value."}))
	toldAfterThird(t, stub, run, tag)
	if hr := run.HookResponses("PostToolUse"); len(hr) != 3 {
		t.Errorf("PostToolUse hook responses = %d, want 3", len(hr))
	}
}

// TestSameCallToolLoopToldWhenSet: the scripted model runs the same Bash
// command three times and gets the same output. The same-call family ships
// observed (advisories.tool_loop_repeat, docs/preregistered.md), so it is
// set to advise here, as the plugin option does: Djinn's PostToolUse hook
// on the third says [djinn:tool-loop], and the model's next request
// carries it as hook context, the earlier ones not.
func TestSameCallToolLoopToldWhenSet(t *testing.T) {
	t.Parallel()
	const tag = "[djinn:tool-loop]"
	stub, env, _ := djinnScratch(t, "DJINN_ADVISORIES_TOOL_LOOP_REPEAT=advise")
	same := Bash("echo pending", "Check the job")
	stub.Push(same, same, same, Text("The job is still pending."))

	run := env.MustClaude(pluginRun(t, Run{Prompt: "Is the job done yet?"}))
	toldAfterThird(t, stub, run, tag)
}

// toldAfterThird checks a run of three tool calls and an answer: the
// advisory tagged tag first reaches the model in the request right after
// the third call, as hook context, and no earlier request carries it.
func toldAfterThird(t *testing.T, stub *Stub, run *Result, tag string) {
	t.Helper()
	main := stub.Messages(KindMain)
	if len(main) != 4 {
		t.Fatalf("main-chain requests = %d, want 4 (three calls and the answer)\n%v", len(main), run)
	}
	if got := FindText(main, tag); got != 3 {
		t.Fatalf("first request with %s = %d, want 3 (right after the third call); tags per request: %v %v %v %v",
			tag, got, djinnTags(main[0]), djinnTags(main[1]), djinnTags(main[2]), djinnTags(main[3]))
	}
	if p := ContextPlacement(main[3], tag); p != PlacementSystemReminder && p != PlacementSystemMessage {
		t.Errorf("%s placed as %v, want hook context (system-reminder or system message)", tag, p)
	}
}
