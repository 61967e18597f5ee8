package e2e

import "testing"

// TestDisableLoopsStopsLoopAdvisories: in one session with the real CLI,
// /djinn:disable loops stops the loop advisories (three reads of one file
// draw no [djinn:read-loop]) and /djinn:enable loops brings them back (the
// same three reads do). read-loop is told (advise) for the test; it ships
// as observe.
func TestDisableLoopsStopsLoopAdvisories(t *testing.T) {
	t.Parallel()
	const tag = "[djinn:read-loop]"
	stub, env, _ := djinnScratch(t, "DJINN_ADVISORIES_READ_LOOP=advise")
	read := configRead(t, env)

	stub.Push(Text("Noted."))
	first := env.MustClaude(pluginRun(t, Run{Prompt: "We will tune the retry settings in config.yaml."}))
	session := first.SessionID

	// reads runs one resumed turn of three reads and returns the requests
	// the model got after them.
	reads := func(prompt string) []Request {
		t.Helper()
		before := len(stub.Messages(KindMain))
		stub.Push(read, read, read, Text("The config sets retries to 3."))
		env.MustClaude(pluginRun(t, Run{Prompt: prompt, Resume: session}))
		return stub.Messages(KindMain)[before:]
	}
	toggle := func(line string) {
		t.Helper()
		stub.Push(Text("(shown to the user)"))
		res := env.MustClaude(skillRun(t, line, session))
		checkSkillRan(t, res)
	}

	toggle("/djinn:disable loops")
	if got := FindText(reads("What is the retry count in config.yaml?"), tag); got != -1 {
		t.Errorf("with loops disabled, request %d still carries %s", got, tag)
	}
	toggle("/djinn:enable loops")
	main := reads("Check config.yaml's retry count again.")
	if got := FindText(main, tag); got != 3 {
		t.Errorf("with loops enabled again, the first request with %s = %d, want 3 (right after the third read)", tag, got)
	}
}
