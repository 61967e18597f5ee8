package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAskBeforeRiskyCall: with the ask setting on, the user says to
// analyse only and the scripted model then deletes a file. Djinn's
// PreToolUse hook answers "ask" before the call runs. In print mode no one
// can answer, so the call does not run: the file is still there, no
// PostToolUse fires for it, and the model gets an is_error tool_result. The
// control run, with the setting off, lets the same call run.
func TestAskBeforeRiskyCall(t *testing.T) {
	t.Parallel()
	for _, ask := range []bool{true, false} {
		t.Run(map[bool]string{true: "ask on", false: "ask off"}[ask], func(t *testing.T) {
			t.Parallel()
			stub := NewStub(t)
			env := djinnEnv(t, stub, t.TempDir())
			if ask {
				env.Env = append(env.Env, "DJINN_ASK=true")
			}
			victim := filepath.Join(env.Project, "cache.db")
			writeFile(t, victim, "precious\n")
			stub.Push(Bash("rm -f cache.db", "clear the cache"), Text("Done."))
			run := env.MustClaude(pluginRun(t, Run{Prompt: "The app is slow. Just analyse, don't do anything yet."}))
			main := stub.Messages(KindMain)
			if len(main) != 2 {
				t.Fatalf("main-chain requests = %d, want 2\n%v", len(main), run)
			}
			_, err := os.Stat(victim)
			if ask {
				if err != nil {
					t.Errorf("the call ran although Djinn asked first: %v", err)
				}
				if !strings.Contains(string(main[1].Body), `"is_error":true`) || !main[1].Contains("[djinn:instruction] Djinn asks before this call: it runs rm -f cache.db") {
					t.Errorf("the model was not told the call was refused, and why:\n%s", clip(main[1].Body))
				}
				pre := run.HookResponses("PreToolUse")
				found := false
				for _, ev := range pre {
					if strings.Contains(string(ev.Raw), `permissionDecision`) && strings.Contains(string(ev.Raw), "[djinn:instruction]") {
						found = true
					}
				}
				if !found {
					t.Errorf("no PreToolUse hook response with Djinn's ask; responses: %v", pre)
				}
			} else if err == nil {
				t.Errorf("with ask off the call did not run (cache.db still there)")
			}
		})
	}
}
