package hooks

import "testing"

// Response.Notices are the person's: shown as systemMessage lines after
// SystemMessage where the event allows one, dropped where it does not
// (they also went to stderr), and never sent to the model.
func TestEncodeNotices(t *testing.T) {
	for _, tc := range []struct {
		event string
		resp  Response
		want  string
	}{
		{PostToolUse, Response{Notices: []string{"djinn: repaired window.json"}}, `{"systemMessage":"djinn: repaired window.json"}` + "\n"},
		{UserPromptSubmit, Response{SystemMessage: "context at 80%", Notices: []string{"a", "b"}}, `{"systemMessage":"context at 80%\na\nb"}` + "\n"},
		{SubagentStop, Response{Notices: []string{"djinn: repaired anchor.json"}}, ""},
		{PreCompact, Response{Plain: "keep the goal", Notices: []string{"djinn: repaired anchor.json"}}, "keep the goal\n"},
	} {
		out, err := Encode(tc.event, tc.resp)
		if err != nil {
			t.Fatalf("%s: %v", tc.event, err)
		}
		if string(out) != tc.want {
			t.Errorf("%s: Encode = %q, want %q", tc.event, out, tc.want)
		}
	}
}
