package hooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/hooks/replay"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

var fuzzSeeds = []string{
	`{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_response":{"stdout":"ok","stderr":""}}`,
	`{"session_id":"s1","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make"},"error":"exit 2","is_interrupt":false}`,
	`{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"Fix the invoice rounding in internal/billing so tax is rounded per line"}`,
	`{"session_id":"s1","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done done done done done done done done done done done"}`,
	`{"session_id":"s1","hook_event_name":"SubagentStop","agent_id":"a1","agent_type":"general-purpose","last_assistant_message":"x"}`,
	`{"session_id":"s1","hook_event_name":"SessionStart","source":"resume","context_tokens":150000}`,
	`{"session_id":"s1","hook_event_name":"PreCompact","trigger":"manual","custom_instructions":null}`,
	`{"session_id":"s1","hook_event_name":"SessionEnd","reason":"other"}`,
	`{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"/dev/zero","old_string":"a","new_string":"b"},"tool_response":{"originalFile":"a","type":"update"}}`,
	`{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"mcp__x__y","tool_input":{},"tool_response":[{"type":"text","text":"data:image/png;base64,AAAA"}]}`,
	`{"session_id":"../x","hook_event_name":"Stop"}`,
	`{"session_id":"s1","session_id":"s2","hook_event_name":"Stop","duration_ms":1e999}`,
	`[1,2,3]`,
	"\xff\xfe",
}

// FuzzDecodePayload: any stdin either decodes into a payload for the event,
// the one json.Unmarshal gives, or is refused with an error; never a panic.
func FuzzDecodePayload(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), "PostToolUse")
	}
	f.Fuzz(func(t *testing.T, in []byte, event string) {
		p, err := hooks.DecodePayload(bytes.NewReader(in), event)
		if err != nil {
			return
		}
		if p.HookEventName != event {
			t.Fatalf("decoded a payload for %q when asked for %q", p.HookEventName, event)
		}
		var want hooks.Payload
		if err := json.Unmarshal(bytes.TrimSpace(in), &want); err != nil {
			t.Fatalf("decoded a payload json.Unmarshal refuses: %v", err)
		}
		if want.HookEventName == "" {
			want.HookEventName = event
		}
		if !reflect.DeepEqual(*p, want) {
			t.Fatalf("decoded %+v, json.Unmarshal gives %+v", *p, want)
		}
	})
}

// FuzzRun feeds any payload through the handlers against a scratch state
// root that already holds a session: the hook either answers something its
// event may carry or fails, every state file stays valid, and nothing is
// written outside the root.
func FuzzRun(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		dir := fuzzDir(t)
		root := filepath.Join(dir, "state")
		env := &hooks.Env{
			Store:    &state.Store{Root: root, LockWait: time.Second},
			Settings: settings.Default(),
			Now:      func() time.Time { return time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) },
			Getenv:   func(string) string { return "" },
		}
		// A session with some state to keep valid.
		for _, s := range fuzzSeeds[:3] {
			p, err := hooks.DecodePayload(strings.NewReader(s), eventOf(s))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := hooks.Run(context.Background(), env, p); err != nil {
				t.Fatal(err)
			}
		}
		for _, event := range hooks.Events() {
			p, err := hooks.DecodePayload(bytes.NewReader(in), event)
			if err != nil {
				continue
			}
			p.TranscriptPath = "" // the fuzzer must not read the machine's files
			if p.Cwd != "" {
				p.Cwd = dir
			}
			resp, err := hooks.Run(context.Background(), env, p)
			if err != nil {
				continue
			}
			if _, err := hooks.Encode(event, resp); err != nil {
				t.Fatalf("%s: the handler answered something the event cannot carry: %v", event, err)
			}
		}
		rep, err := env.Store.CheckWith(nil, settings.ValidateBytes)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Problems) > 0 {
			t.Fatalf("invalid state after %q: %v", in, rep.Problems)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Name() != "state" {
				t.Fatalf("wrote %s outside the state root", e.Name())
			}
		}
	})
}

func eventOf(s string) string {
	for _, e := range hooks.Events() {
		if strings.Contains(s, `"`+e+`"`) {
			return e
		}
	}
	return ""
}

// fuzzDir is a scratch directory in memory when the machine has one: each
// run writes (and fsyncs) a dozen state files, as a replay does.
func fuzzDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(replay.ScratchBase(), "djinn-fuzz-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
