package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdvisoryNoticeOnScreen: Djinn installed from the marketplace with a
// plugin option (userConfig) set at install, advisories.read_loop=advise;
// the scripted model reads one file three times. The option reaches the
// hooks (CLAUDE_PLUGIN_OPTION_ADVISORIES_READ_LOOP): the read-loop advisory,
// observe by default, is told to the model. And the person sees that it
// was: the third read's PostToolUse hook answers with a systemMessage,
// "djinn: told the agent it re-read … 3× unchanged", which Claude Code
// shows on screen and never sends to the model.
func TestAdvisoryNoticeOnScreen(t *testing.T) {
	t.Parallel()
	const tag = "[djinn:read-loop]"
	const notice = "djinn: told the agent it re-read"
	stub := NewStub(t)
	env := djinnEnv(t, stub, "")
	installDjinn(t, env, "--config", "advisories_read_loop=advise")

	read := configRead(t, env)
	stub.Push(read, read, read, Text("The config sets retries to 3."))
	run := env.MustClaude(Run{Prompt: "Check the retry setting in config.yaml and tell me its value."})

	main := stub.Messages(KindMain)
	if got := FindText(main, tag); got != 3 {
		t.Fatalf("first request with %s = %d, want 3: the plugin option did not make read-loop advised\n%v", tag, got, run)
	}
	hr := run.HookResponses("PostToolUse")
	if len(hr) != 3 {
		t.Fatalf("PostToolUse hook responses = %d, want 3\n%v", len(hr), run)
	}
	if !strings.Contains(hr[2].Output, `"systemMessage":"`+notice) {
		t.Errorf("third PostToolUse hook output %q; want a systemMessage %q", hr[2].Output, notice)
	}
	for _, h := range hr[:2] {
		if strings.Contains(h.Output, "systemMessage") {
			t.Errorf("an earlier PostToolUse carried a systemMessage: %q", h.Output)
		}
	}
	// Claude Code took it as a message for the person: -p prints no screen,
	// and stream-json has it only inside the hook_response's output, but
	// the transcript records it as a hook_system_message attachment, what
	// the interactive screen renders (one line under the tool call).
	var shown []string
	for _, a := range transcriptAttachments(t, env, run.SessionID, "hook_system_message") {
		if a.HookEvent == "SessionStart" && strings.HasPrefix(a.Content, "djinn: built Djinn ") {
			// The first session after install also says the build.
			continue
		}
		shown = append(shown, a.HookEvent+": "+a.Content)
	}
	if len(shown) != 1 || !strings.HasPrefix(shown[0], "PostToolUse: "+notice) || !strings.HasSuffix(shown[0], "3× unchanged") {
		t.Errorf("hook_system_message attachments %q; want one, PostToolUse's %q… 3× unchanged", shown, notice)
	}
	// Shown to the person, never to the model.
	if got := FindText(main, notice); got != -1 {
		t.Errorf("the notice reached the model in request %d", got)
	}
}

// TestConfigProblemShownOnce: a config.json with a misspelt key, and a
// session of a few hooks (SessionStart, UserPromptSubmit, two PostToolUse,
// Stop). The problem is shown to the person once, at the session start,
// with the key meant, and is on stderr once, not at every hook.
func TestConfigProblemShownOnce(t *testing.T) {
	t.Parallel()
	const problem = "key loops.read_treshold: unknown property (did you mean loops.read_threshold?)"
	stub := NewStub(t, Bash("echo one", "One"), Bash("echo two", "Two"), Text("Done."))
	state := t.TempDir()
	writeFile(t, filepath.Join(state, "config.json"), `{"loops": {"read_treshold": 4}}`)
	env := djinnEnv(t, stub, state)
	run := env.MustClaude(pluginRun(t, Run{Prompt: "Run echo one, then echo two.", AllowedTools: []string{"Bash(echo *)"}}))

	var shown []string
	for _, a := range transcriptAttachments(t, env, run.SessionID, "hook_system_message") {
		if strings.Contains(a.Content, "configuration problem") {
			shown = append(shown, a.HookEvent+": "+a.Content)
		}
	}
	// (The first session after install also says the build, on the line
	// before.)
	if len(shown) != 1 || !strings.HasPrefix(shown[0], "SessionStart: ") || !strings.Contains(shown[0], "djinn: configuration problem: ") || !strings.Contains(shown[0], problem) {
		t.Errorf("configuration problems shown %q; want one, at SessionStart, naming %q", shown, problem)
	}
	hooks, onStderr := 0, 0
	for _, hr := range run.HookResponses("") {
		hooks++
		onStderr += strings.Count(hr.Output, problem)
	}
	if hooks < 5 || onStderr != 2 {
		// SessionStart's output holds it twice: in its systemMessage and
		// its one stderr line.
		t.Errorf("%d hooks; the problem in their output %d times, want 2 (SessionStart's systemMessage and stderr)\n%v", hooks, onStderr, run)
	}
}

// transcriptAttachments returns a session's transcript attachments of one
// type (hook_system_message: what Claude Code shows the person for a
// hook's systemMessage).
func transcriptAttachments(t *testing.T, env *Env, sessionID, typ string) []struct{ Type, Content, HookEvent string } {
	t.Helper()
	var out []struct{ Type, Content, HookEvent string }
	for _, l := range readJSONL(t, env.Transcript(sessionID)) {
		var line struct {
			Type       string `json:"type"`
			Attachment struct {
				Type, Content, HookEvent string
			} `json:"attachment"`
		}
		if json.Unmarshal(l, &line) == nil && line.Type == "attachment" && line.Attachment.Type == typ {
			out = append(out, line.Attachment)
		}
	}
	return out
}
