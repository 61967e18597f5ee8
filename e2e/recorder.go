package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// HookEvents are the events Djinn wires, in the order they usually fire.
var HookEvents = []string{
	"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure",
	"Stop", "SubagentStop", "PreCompact", "SessionEnd",
}

// Recorder is a throwaway plugin whose hooks save their stdin: each payload
// becomes one line of <LogDir>/<Event>.jsonl. Load it with
// Run.PluginDirs = []string{rec.Dir}.
type Recorder struct {
	Dir    string // plugin root (.claude-plugin/plugin.json, hooks/hooks.json, record.sh)
	LogDir string // where payloads are appended
}

// NewRecorder writes a plugin named "e2e-recorder" under t.TempDir() with
// one command hook (exec form: record.sh <Event>) per event. For each event
// in context, the hook also prints
// {"hookSpecificOutput":{"hookEventName":<Event>,"additionalContext":<text>}},
// which is how a plugin injects context.
func NewRecorder(t testing.TB, events []string, context map[string]string) *Recorder {
	t.Helper()
	root := t.TempDir()
	r := &Recorder{Dir: filepath.Join(root, "plugin"), LogDir: filepath.Join(root, "payloads")}
	manifest := `{"name":"e2e-recorder","version":"0.0.1","description":"e2e harness: records hook payloads"}` + "\n"
	hooks := map[string]any{}
	for _, ev := range events {
		h := map[string]any{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/record.sh", "args": []string{ev}, "timeout": 10}
		hooks[ev] = []any{map[string]any{"hooks": []any{h}}}
	}
	hooksJSON, err := json.MarshalIndent(map[string]any{"description": "e2e recorder", "hooks": hooks}, "", "  ")
	if err != nil {
		t.Fatalf("e2e: %v", err)
	}
	// The script stays POSIX sh. The payload is read whole and written with
	// one printf so that concurrent hooks of one event do not interleave
	// within a line. The log dir comes from the script itself, not the
	// environment, so no variable has to reach the hook.
	var sb strings.Builder
	fmt.Fprintf(&sb, "#!/bin/sh\n# e2e recorder hook: append stdin to %s/<event>.jsonl\n", r.LogDir)
	fmt.Fprintf(&sb, "log=%s\n", shellQuote(r.LogDir))
	sb.WriteString("payload=$(cat)\nprintf '%s\\n' \"$payload\" >>\"$log/$1.jsonl\"\ncase $1 in\n")
	for _, ev := range events {
		text, ok := context[ev]
		if !ok {
			continue
		}
		out, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": ev, "additionalContext": text}})
		if err != nil {
			t.Fatalf("e2e: %v", err)
		}
		fmt.Fprintf(&sb, "%s) printf '%%s\\n' %s ;;\n", ev, shellQuote(string(out)))
	}
	sb.WriteString("esac\nexit 0\n")

	files := []struct {
		path string
		data string
		mode os.FileMode
	}{
		{filepath.Join(r.Dir, ".claude-plugin", "plugin.json"), manifest, 0o644},
		{filepath.Join(r.Dir, "hooks", "hooks.json"), string(hooksJSON) + "\n", 0o644},
		{filepath.Join(r.Dir, "record.sh"), sb.String(), 0o755},
	}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			t.Fatalf("e2e: %v", err)
		}
		if err := os.WriteFile(f.path, []byte(f.data), f.mode); err != nil {
			t.Fatalf("e2e: %v", err)
		}
	}
	if err := os.MkdirAll(r.LogDir, 0o755); err != nil {
		t.Fatalf("e2e: %v", err)
	}
	return r
}

// shellQuote quotes s for sh as one word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Payloads returns the payloads recorded for event, in order (nil if none).
func (r *Recorder) Payloads(event string) ([]json.RawMessage, error) {
	data, err := os.ReadFile(filepath.Join(r.LogDir, event+".jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read payloads: %w", err)
	}
	var out []json.RawMessage
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !json.Valid(line) {
			return out, fmt.Errorf("%s payload %d is not JSON: %q", event, i, line)
		}
		out = append(out, json.RawMessage(line))
	}
	return out, nil
}

// Payload is one decoded hook payload: the fields every test looks at, and
// the raw JSON.
type Payload struct {
	HookEventName  string          `json:"hook_event_name"`
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Source         string          `json:"source"`    // SessionStart
	Reason         string          `json:"reason"`    // SessionEnd
	Trigger        string          `json:"trigger"`   // PreCompact
	ToolName       string          `json:"tool_name"` // tool events
	AgentID        string          `json:"agent_id"`  // inside subagents
	AgentType      string          `json:"agent_type"`
	Raw            json.RawMessage `json:"-"`
}

// Decoded returns the payloads of event, decoded.
func (r *Recorder) Decoded(event string) ([]Payload, error) {
	raws, err := r.Payloads(event)
	out := make([]Payload, 0, len(raws))
	for _, raw := range raws {
		var p Payload
		if err := json.Unmarshal(raw, &p); err != nil {
			return out, fmt.Errorf("decode %s payload: %w", event, err)
		}
		p.Raw = raw
		out = append(out, p)
	}
	return out, err
}
