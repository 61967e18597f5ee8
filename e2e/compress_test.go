package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compressCase is one run of a Bash call with a large output.
type compressCase struct {
	chars int      // how many characters the command prints
	env   []string // Djinn settings for the run
}

// compressRun is what a compressCase produced.
type compressRun struct {
	result   string // the tool_result text in the request after the call
	next     Request
	hookOut  string // the PostToolUse hook's output
	session  string
	stateDir string
	env      *Env
}

func runCompressCase(t *testing.T, c compressCase) compressRun {
	t.Helper()
	stateDir := t.TempDir()
	cmd := fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x", c.chars)
	stub := NewStub(t, Bash(cmd, "Print a large output"), Text("The output is all x."))
	env := djinnEnv(t, stub, stateDir)
	env.Env = append(env.Env, c.env...)
	run := env.MustClaude(pluginRun(t, Run{Prompt: "Print the generated log and tell me what it contains."}))
	main := stub.Messages(KindMain)
	if len(main) != 2 {
		t.Fatalf("main-chain requests = %d, want 2\n%v", len(main), run)
	}
	r := compressRun{next: main[1], session: run.SessionID, stateDir: stateDir, env: env}
	for _, l := range Locate(main[1].Body) {
		if l.Block == "tool_result" {
			r.result += l.Text
		}
	}
	if r.result == "" {
		t.Fatalf("no tool_result in the request after the call")
	}
	for _, hr := range run.HookResponses("PostToolUse") {
		r.hookOut += hr.Output
	}
	return r
}

// TestCompressorBuiltinToolOutput: Djinn's tool-result compressor (seed 004)
// on a built-in tool, Bash, with the real CLI 2.1.197.
//
// What the CLI does itself decides what can be tested: it hands a hook at
// most BASH_MAX_OUTPUT_LENGTH characters of Bash stdout (30,000 by default,
// 150,000 at most), and above that it saves the whole output to a file and
// gives the model a 2 KB "<persisted-output>" preview. A Bash output over
// Djinn's default 200,000-character cap therefore never reaches the model,
// or the hook, at that size. The cap is lowered (DJINN_COMPRESS_CAP) to see
// the compressor's round-trip on an output the CLI passes through whole.
func TestCompressorBuiltinToolOutput(t *testing.T) {
	t.Parallel()
	const marker = "[djinn: cut "

	// With builtin_tools on and the output over the cap, the model gets
	// Djinn's replacement (updatedToolOutput in Bash's own shape): at most
	// cap characters, ending with Djinn's marker, plus [djinn:compacted] as
	// context; the transcript keeps the replacement, and the full output is
	// saved where the advisory says.
	t.Run("over the cap, builtin_tools on", func(t *testing.T) {
		t.Parallel()
		const limit = 10000
		r := runCompressCase(t, compressCase{chars: 25000, env: []string{"DJINN_COMPRESS_BUILTIN_TOOLS=true", fmt.Sprintf("DJINN_COMPRESS_CAP=%d", limit)}})
		if n := len([]rune(r.result)); n > limit || n < limit/2 {
			t.Errorf("tool_result has %d characters, want at most the %d cap (and most of it)", n, limit)
		}
		if !strings.Contains(r.result, marker) {
			t.Errorf("tool_result lacks Djinn's marker %q; ends %q", marker, r.result[max(0, len(r.result)-200):])
		}
		if p := ContextPlacement(r.next, "[djinn:compacted]"); p != PlacementSystemReminder && p != PlacementSystemMessage {
			t.Errorf("[djinn:compacted] placed as %v, want hook context; tags %v", p, djinnTags(r.next))
		}
		// The replacement is what the transcript keeps (and what a resumed
		// session replays).
		shortened := false
		for _, line := range readJSONL(t, r.env.Transcript(r.session)) {
			if strings.Contains(string(line), `"toolUseResult"`) && strings.Contains(string(line), marker) {
				shortened = true
			}
		}
		if !shortened {
			t.Errorf("the transcript's toolUseResult is not the shortened output")
		}
		saved, err := filepath.Glob(filepath.Join(r.stateDir, "sessions", r.session, "outputs", "*.json"))
		if err != nil || len(saved) != 1 {
			t.Fatalf("saved outputs %v (%v), want one", saved, err)
		}
		data, err := os.ReadFile(saved[0])
		if err != nil || !strings.Contains(string(data), strings.Repeat("x", 25000)) {
			t.Errorf("the saved output %s does not hold the full 25,000 characters (%v)", saved[0], err)
		}
		if !ContextInRequest(r.next, saved[0]) {
			t.Errorf("the advisory does not name the saved output %s", saved[0])
		}
	})

	// builtin_tools is off by default: the same output reaches the model
	// whole and Djinn says nothing.
	t.Run("over the cap, builtin_tools off (default)", func(t *testing.T) {
		t.Parallel()
		r := runCompressCase(t, compressCase{chars: 25000, env: []string{"DJINN_COMPRESS_CAP=10000"}})
		if n := len(r.result); n != 25000 || strings.Contains(r.result, marker) {
			t.Errorf("tool_result has %d characters (marker: %v), want the whole 25,000", n, strings.Contains(r.result, marker))
		}
		if ContextInRequest(r.next, "[djinn:compacted]") || strings.Contains(r.hookOut, "updatedToolOutput") {
			t.Errorf("Djinn compressed a built-in tool's output with builtin_tools off: %s", r.hookOut)
		}
	})

	// Over 200,000 characters, default cap, builtin_tools on: the CLI has
	// already saved the output to a file and sends a short preview; the hook
	// sees 30,000 characters, under the cap, so Djinn stays silent.
	t.Run("over 200,000 characters, default cap", func(t *testing.T) {
		t.Parallel()
		r := runCompressCase(t, compressCase{chars: 300000, env: []string{"DJINN_COMPRESS_BUILTIN_TOOLS=true"}})
		if n := len(r.result); n > 200000 || !strings.Contains(r.result, "<persisted-output>") {
			t.Errorf("tool_result has %d characters; want the CLI's <persisted-output> preview, under 200,000:\n%.300s", n, r.result)
		}
		if ContextInRequest(r.next, "[djinn:compacted]") || strings.Contains(r.hookOut, "updatedToolOutput") {
			t.Errorf("Djinn compressed an output the CLI had already cut to 30,000 characters: %.500s", r.hookOut)
		}
	})

	// A persisted output over a lowered cap: Djinn replaces the (already
	// clipped) stdout, but the model still gets the CLI's preview built from
	// the saved file, so the replacement changes nothing the model sees.
	// Whether Djinn should then still say [djinn:compacted] is a product
	// question (reported); this case records what happens.
	t.Run("persisted output over a lowered cap", func(t *testing.T) {
		t.Parallel()
		r := runCompressCase(t, compressCase{chars: 300000, env: []string{"DJINN_COMPRESS_BUILTIN_TOOLS=true", "DJINN_COMPRESS_CAP=20000"}})
		if !strings.Contains(r.result, "<persisted-output>") || strings.Contains(r.result, marker) {
			t.Errorf("tool_result: want the CLI's <persisted-output> preview, not Djinn's replacement:\n%.300s", r.result)
		}
		t.Logf("tool_result %d characters; Djinn sent updatedToolOutput: %v; [djinn:compacted] in context: %v",
			len(r.result), strings.Contains(r.hookOut, "updatedToolOutput"), ContextInRequest(r.next, "[djinn:compacted]"))
	})
}
