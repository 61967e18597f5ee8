package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// capturePayloads rewrites ../testdata/payloads from the self-test's runs:
//
//	go test ./e2e -run TestSelf -capture-payloads
var capturePayloads = flag.Bool("capture-payloads", false, "write redacted hook payloads and a transcript to ../testdata/payloads")

const marker = "E2E-MARKER"

// TestSelf is the proof that the harness works with the real CLI: one
// session with a tool call, a failing tool call and a final answer, then
// /compact on the resumed session. Every Djinn hook event must fire with the
// payload it should have, the PostToolUse context must reach the next
// request, and the compaction request must be answered.
func TestSelf(t *testing.T) {
	t.Parallel()
	lastUsage := Usage{InputTokens: 1234, CacheCreationInputTokens: 2000, CacheReadInputTokens: 30000, OutputTokens: 42}
	stub := NewStub(t,
		Bash("echo e2e-hello", "Print a greeting"),
		Bash("sh -c 'echo boom >&2; exit 3'", "Fail on purpose"),
		Text("All done.").WithUsage(lastUsage),
	)
	rec := NewRecorder(t, HookEvents, map[string]string{"PostToolUse": marker})
	env := NewEnv(t, stub)
	t.Logf("claude %s at %s", env.Version, env.Bin)

	run1 := env.MustClaude(Run{Prompt: "Please run echo", PluginDirs: []string{rec.Dir}})
	if run1.SessionID == "" {
		t.Fatalf("no session id in the stream-json output\n%v", run1)
	}
	main := stub.Messages(KindMain)
	if len(main) != 3 || stub.Remaining() != 0 {
		t.Fatalf("main-chain requests = %d, script left = %d; want 3 and 0\n%v", len(main), stub.Remaining(), run1)
	}
	for _, r := range main {
		if r.RawQuery != "beta=true" || !r.Stream || r.Model == "" {
			t.Errorf("request %d: query %q stream %v model %q; want beta=true, streaming, a model", r.Seq, r.RawQuery, r.Stream, r.Model)
		}
	}

	// The marker is printed by the PostToolUse hook of the first call, so it
	// must be absent from the first request and present in the second.
	if got := FindText(main, marker); got != 1 {
		t.Errorf("first main request with %q = %d, want 1", marker, got)
	}
	if p := ContextPlacement(main[1], marker); p != PlacementSystemReminder && p != PlacementSystemMessage {
		t.Errorf("%q placed as %v, want system-reminder (2.1.197) or system-message (newer)", marker, p)
	}
	if hr := run1.HookResponses("PostToolUse"); len(hr) == 0 || !strings.Contains(hr[0].Output, marker) {
		t.Errorf("PostToolUse hook_response events %+v do not carry the marker", hr)
	}

	// The transcript keeps the echoed model and the scripted usage, which is
	// what Djinn's context meter reads.
	lines := readJSONL(t, env.Transcript(run1.SessionID))
	var last struct {
		Message struct {
			ID    string `json:"id"`
			Model string `json:"model"`
			Usage Usage  `json:"usage"`
		} `json:"message"`
	}
	for _, l := range lines {
		if bytes.Contains(l, []byte(`"type":"assistant"`)) && bytes.Contains(l, []byte(`"msg_e2e_003"`)) {
			if err := json.Unmarshal(l, &last); err != nil {
				t.Fatal(err)
			}
		}
	}
	if last.Message.Model != main[2].Model || last.Message.Usage != lastUsage {
		t.Errorf("last assistant line: model %q usage %+v; want %q %+v", last.Message.Model, last.Message.Usage, main[2].Model, lastUsage)
	}

	run2 := env.MustClaude(Run{Prompt: "/compact keep notes", Resume: run1.SessionID, PluginDirs: []string{rec.Dir}})
	compact := stub.Messages(KindCompact)
	if len(compact) != 1 || compact[0].Answer == nil || compact[0].Answer.Text != CompactSummary {
		t.Fatalf("compaction requests %d, want 1 answered with the summary\n%v", len(compact), run2)
	}
	if n := len(stub.Messages(KindMain)); n != 3 {
		t.Errorf("/compact made %d extra main-chain requests, want 0", n-3)
	}
	if len(run2.Find("system", "compact_boundary")) != 1 {
		t.Errorf("no compact_boundary event in the stream\n%v", run2)
	}
	if !containsLine(readJSONL(t, env.Transcript(run1.SessionID)), `"subtype":"compact_boundary"`) {
		t.Error("no compact_boundary line in the transcript")
	}

	checkPayloads(t, rec, run1.SessionID)

	if *capturePayloads {
		capture(t, env, rec, run1.SessionID)
	}
}

// checkPayloads asserts that every wired event fired with the expected
// fields. The counts are lower bounds where newer CLIs fire more (2.1.330
// sends two SubagentStop events on /compact).
func checkPayloads(t *testing.T, rec *Recorder, session string) {
	t.Helper()
	get := func(ev string) []Payload {
		ps, err := rec.Decoded(ev)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.HookEventName != ev || p.SessionID != session {
				t.Errorf("%s payload names %q in session %q, want %q", ev, p.HookEventName, p.SessionID, session)
			}
		}
		return ps
	}
	field := func(p Payload, key string) any {
		var m map[string]any
		if err := json.Unmarshal(p.Raw, &m); err != nil {
			t.Fatal(err)
		}
		return m[key]
	}

	var sources []string
	for _, p := range get("SessionStart") {
		sources = append(sources, p.Source)
	}
	if strings.Join(sources, ",") != "startup,resume,compact" {
		t.Errorf("SessionStart sources %v, want startup, resume, compact", sources)
	}
	if ps := get("UserPromptSubmit"); len(ps) != 1 || field(ps[0], "prompt") != "Please run echo" {
		t.Errorf("UserPromptSubmit payloads %d, want 1 with the prompt (/compact fires none)", len(ps))
	}
	if ps := get("PostToolUse"); len(ps) != 1 || ps[0].ToolName != "Bash" || field(ps[0], "tool_use_id") != "toolu_e2e_001_0" {
		t.Errorf("PostToolUse payloads %+v, want the echo call", ps)
	}
	if ps := get("PostToolUseFailure"); len(ps) != 1 || !strings.Contains(field(ps[0], "error").(string), "Exit code 3") {
		t.Errorf("PostToolUseFailure payloads %+v, want the failing call with its error", ps)
	}
	if ps := get("Stop"); len(ps) != 1 || field(ps[0], "last_assistant_message") != "All done." {
		t.Errorf("Stop payloads %+v, want one with the last answer", ps)
	}
	found := false
	for _, p := range get("SubagentStop") {
		if p.AgentID != "" && p.AgentType == "" && field(p, "last_assistant_message") == CompactSummary {
			found = true
		}
	}
	if !found {
		t.Error("no SubagentStop of the compactor (empty agent_type, the summary as last message)")
	}
	if ps := get("PreCompact"); len(ps) != 1 || ps[0].Trigger != "manual" || field(ps[0], "custom_instructions") != "keep notes" {
		t.Errorf("PreCompact payloads %+v, want one manual with the instructions", ps)
	}
	if ps := get("SessionEnd"); len(ps) != 2 || ps[0].Reason == "" {
		t.Errorf("SessionEnd payloads %+v, want one per run with a reason", ps)
	}
}

// TestPluginCommands drives `claude plugin` in the scratch HOME: validate
// the recorder plugin, add a directory marketplace holding it, install it
// and find it in the list.
func TestPluginCommands(t *testing.T) {
	t.Parallel()
	env := NewEnv(t, nil)
	rec := NewRecorder(t, HookEvents, nil)
	env.MustPlugin("validate", rec.Dir)

	mkt := filepath.Dir(rec.Dir) // the plugin is <mkt>/plugin
	manifest := `{"name":"e2e-local","owner":{"name":"e2e"},"plugins":[{"name":"e2e-recorder","source":"./plugin","version":"0.0.1"}]}`
	writeFile(t, filepath.Join(mkt, ".claude-plugin", "marketplace.json"), manifest)
	env.MustPlugin("marketplace", "add", mkt)
	env.MustPlugin("install", "e2e-recorder@e2e-local")
	list := env.MustPlugin("list")
	if !bytes.Contains(list.Stdout, []byte("e2e-recorder@e2e-local")) {
		t.Errorf("plugin list does not show the installed plugin\n%v", list)
	}
	if _, err := os.Stat(filepath.Join(env.Home, ".claude", "plugins", "installed_plugins.json")); err != nil {
		t.Errorf("install wrote nothing under the scratch HOME: %v", err)
	}

	bad := t.TempDir()
	writeFile(t, filepath.Join(bad, ".claude-plugin", "plugin.json"), `{"version":"1"}`)
	res, err := env.Plugin(t.Context(), "validate", bad)
	if err != nil || res.ExitCode == 0 {
		t.Errorf("validate of a manifest without name: err %v, %v; want a non-zero exit", err, res)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSONL(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			out = append(out, append([]byte(nil), sc.Bytes()...))
		}
	}
	return out
}

func containsLine(lines [][]byte, s string) bool {
	for _, l := range lines {
		if bytes.Contains(l, []byte(s)) {
			return true
		}
	}
	return false
}
