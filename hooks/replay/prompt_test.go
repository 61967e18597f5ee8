package replay

import (
	"encoding/json"
	"testing"

	"github.com/djinn-cc/djinn/hooks/transcript"
)

// TestUserPrompt: which user lines are prompts a person typed. What a
// blocking Stop hook said comes back as a user line "Stop hook feedback:
// …", for which the CLI fires no UserPromptSubmit (ext-teamplanusage
// #50: it became the /compact goal, false to judge CW of the forty-fourth
// set).
func TestUserPrompt(t *testing.T) {
	for _, tc := range []struct {
		line, want string
		ok         bool
	}{
		{`{"type":"user","message":{"role":"user","content":"fix the login page"}}`, "fix the login page", true},
		{`{"type":"user","message":{"role":"user","content":"Stop hook feedback:\n- 作業を再開してください。"}}`, "", false},
		{`{"type":"user","message":{"role":"user","content":"[Request interrupted by user]"}}`, "", false},
		{`{"type":"user","message":{"role":"user","content":"<local-command-caveat>Caveat: …</local-command-caveat>"}}`, "", false},
		{`{"type":"user","isMeta":true,"message":{"role":"user","content":"expanded skill text"}}`, "", false},
		{`{"type":"user","message":{"role":"user","content":"<command-name>/review</command-name><command-args>auth.go</command-args>"}}`, "/review auth.go", true},
	} {
		var e transcript.Entry
		if err := json.Unmarshal([]byte(tc.line), &e); err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		got, ok := userPrompt(&e)
		if got != tc.want || ok != tc.ok {
			t.Errorf("userPrompt(%s) = %q, %v; want %q, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}
