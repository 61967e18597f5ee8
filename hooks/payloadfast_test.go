package hooks

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// payloadFastAgrees fails t when decodePayloadFast takes raw and its
// result is not json.Unmarshal's, or json.Unmarshal fails on it. It
// reports whether the fast path took raw.
func payloadFastAgrees(t *testing.T, raw []byte) bool {
	t.Helper()
	var fast, slow Payload
	if !decodePayloadFast(raw, &fast) {
		return false
	}
	if err := json.Unmarshal(raw, &slow); err != nil {
		t.Fatalf("%q: the fast path took it, json.Unmarshal fails: %v", raw, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q:\nfast %+v\njson %+v", raw, fast, slow)
	}
	return true
}

// realPayloads are the payloads captured from Claude Code
// (testdata/payloads) and the e2e captures.
func realPayloads(t testing.TB) [][]byte {
	var out [][]byte
	for _, pat := range []string{"../testdata/payloads/*.json", "../e2e/testdata/*/*.json", "../e2e/testdata/*.json"} {
		files, _ := filepath.Glob(pat)
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if json.Valid(b) && bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
				out = append(out, b)
			}
		}
	}
	if len(out) < 9 {
		t.Fatalf("found only %d captured payloads", len(out))
	}
	return out
}

// TestPayloadFastMatchesUnmarshal holds the reflection-free payload decoder
// to json.Unmarshal on every captured payload (each must take the fast
// path: it is what Claude Code sends) and on 30,000 variants: fields
// renamed (another case, a Kelvin sign, an escape), values of other types,
// nulls, duplicates, escapes and invalid UTF-8 in strings, unknown fields
// of every shape, numbers out of range. Where the fast path declines, the
// caller uses json.Unmarshal, so only what it takes must agree; the test
// also requires that it declines for the cases it must not guess.
func TestPayloadFastMatchesUnmarshal(t *testing.T) {
	real := realPayloads(t)
	for _, b := range real {
		if !payloadFastAgrees(t, b) {
			t.Errorf("a captured payload does not take the fast path: %.200s", b)
		}
	}
	for _, c := range []struct {
		raw  string
		take bool
	}{
		{`{"session_id":"s","Session_id":"t"}`, false},
		{`{"session_id":"s","ſession_id":"t"}`, false},
		{`{"session_\u0069d":"t"}`, false},
		{`{"session_id":null}`, true},
		{`{"session_id":"a",}`, false},
		{`{"session_id":"a"} x`, false},
		{`{"duration_ms":01}`, false},
		{`{"session_id":"a\u0001"}`, true},
		{"{\"session_id\":\"a\x01\"}", false},
		{`{"session_id":5}`, false},
		{`{"tool_input":null}`, false},
		{`{"duration_ms":1e999}`, false},
		{`{"is_interrupt":"true"}`, false},
		{`{"custom_instructions":null}`, false},
		{`{"context_tokens":null}`, false},
		{`{"is_interrupt":null,"stop_hook_active":true}`, true},
		{`{"session_id":"a\u00e9\ud800b","prompt":"x\"y\\n"}`, true},
		{"{\"prompt\":\"bad \xff utf-8\"}", true},
		{`{"session_id":"a","session_id":"b","duration_ms":1,"duration_ms":-0}`, true},
		{`{"unknown":{"a":[1,{"b":"}"}],"c":"\""},"x":[],"y":null,"z":-1.5e3,"cwd":"/p"}`, true},
		{` { "tool_input" : { "a" : [ 1 , 2 ] } , "tool_response" : "s" } `, true},
		{`{}`, true},
	} {
		if got := payloadFastAgrees(t, []byte(c.raw)); got != c.take {
			t.Errorf("%s: fast path took it: %v, want %v", c.raw, got, c.take)
		}
	}
	rng := rand.New(rand.NewPCG(11, 4))
	values := []string{`"v"`, `"a\"b\u00e9\ud83d\ude00"`, "\"\xff\xfe\"", `null`, `true`, `false`, `0`, `-0`, `1.5e3`, `1e999`, `{"k":[1,"}",{"x":null}]}`, `[]`, `[[["]"]]]`, `""`, `"\/"`}
	keys := []string{"session_id", "transcript_path", "cwd", "hook_event_name", "prompt_id", "permission_mode", "agent_id", "agent_type", "source", "model", "context_tokens", "prompt", "tool_name", "tool_input", "tool_response", "tool_use_id", "error", "is_interrupt", "duration_ms", "stop_hook_active", "last_assistant_message", "agent_transcript_path", "trigger", "custom_instructions", "reason", "other", "x_y", "TOOL_NAME", "tool_Name", "\\u0074ool_name", "session_ıd", "ſource", "Ꮪource"}
	taken := 0
	for range 30000 {
		var b bytes.Buffer
		b.WriteByte('{')
		for i := range rng.IntN(6) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + keys[rng.IntN(len(keys))] + `":` + values[rng.IntN(len(values))])
		}
		b.WriteByte('}')
		if payloadFastAgrees(t, b.Bytes()) {
			taken++
		}
	}
	for _, r := range real {
		for range 200 {
			m := bytes.Clone(r)
			i := rng.IntN(len(m))
			m[i] = []byte(`"{}[],:\ a1nE`)[rng.IntN(13)]
			if payloadFastAgrees(t, m) {
				taken++
			}
		}
	}
	if taken < 5000 {
		t.Errorf("the fast path took only %d of the generated payloads", taken)
	}
}

// FuzzPayloadFast: for any valid JSON the fast path takes, json.Unmarshal
// succeeds and gives the same payload.
func FuzzPayloadFast(f *testing.F) {
	for _, b := range realPayloads(f) {
		f.Add(b)
	}
	f.Add([]byte(`{"session_id":"a","session_id":"b","duration_ms":1,"x":{"y":["]"]}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		payloadFastAgrees(t, raw)
	})
}
