package hooks

import (
	"slices"
	"strings"
	"testing"
)

// readThrice reads one unchanged file three times: a read-loop when the
// loops detector is on.
func readThrice(s *sim, rel string) { readLoops(s, rel, 3) }

// TestPromptSwitchLoops: /djinn:disable loops, as the raw prompt reaches
// UserPromptSubmit, turns the loops detector off for the session (no
// read-loop is advised), tells the model and the person, and
// /djinn:enable loops turns it back on.
func TestPromptSwitchLoops(t *testing.T) {
	s := newSim(t)
	s.userPrompt("fix the parser so that nested lists round-trip")
	r := s.userPrompt("/djinn:disable loops")
	want := "djinn disable: Djinn's loops detector is off for this session. Disabled now: loops."
	if len(r.Context) != 1 || r.Context[0] != want || r.SystemMessage != want {
		t.Fatalf("disable: context %q, message %q", r.Context, r.SystemMessage)
	}
	if d := s.window().Disabled; !slices.Equal(d, []string{"loops"}) {
		t.Fatalf("disabled %q", d)
	}
	readThrice(s, "src/a.go")
	if n := s.count("read-loop"); n != 0 {
		t.Fatalf("%d read-loops with loops disabled: %q", n, s.said)
	}
	r = s.userPrompt("/djinn:enable loops")
	want = "djinn enable: Djinn's loops detector is on for this session. Disabled now: none."
	if len(r.Context) != 1 || r.Context[0] != want || r.SystemMessage != want {
		t.Fatalf("enable: context %q, message %q", r.Context, r.SystemMessage)
	}
	if d := s.window().Disabled; len(d) != 0 {
		t.Fatalf("disabled %q after enable", d)
	}
	readThrice(s, "src/b.go")
	if n := s.count("read-loop"); n != 1 {
		t.Fatalf("%d read-loops after enable, want 1: %q", n, s.said)
	}
	// The switch prompts are not goals or tasks.
	if a := s.anchor(); a == nil || strings.Contains(a.Text, "djinn") {
		t.Fatalf("anchor %+v", a)
	}
}

// TestPromptSwitchAll: /djinn:disable with no detector turns all of Djinn
// off, and /djinn:enable still reaches the hook and turns it back on.
func TestPromptSwitchAll(t *testing.T) {
	s := newSim(t)
	r := s.userPrompt("/djinn:disable")
	if want := "djinn disable: Djinn is off for this session. Disabled now: all."; r.SystemMessage != want {
		t.Fatalf("message %q", r.SystemMessage)
	}
	readThrice(s, "src/a.go")
	if len(s.said) != 1 {
		t.Fatalf("said with Djinn off: %q", s.said)
	}
	r = s.userPrompt("/djinn:enable")
	if want := "djinn enable: Djinn is on for this session. Disabled now: none."; r.SystemMessage != want {
		t.Fatalf("message %q", r.SystemMessage)
	}
	readThrice(s, "src/b.go")
	if n := s.count("read-loop"); n != 1 {
		t.Fatalf("%d read-loops after enable, want 1", n)
	}
}

// TestPromptSwitchRefused: an unknown detector or more than one word is
// refused with the usage, and nothing changes.
func TestPromptSwitchRefused(t *testing.T) {
	s := newSim(t)
	s.userPrompt("/djinn:disable stall")
	for _, tc := range []struct{ prompt, want string }{
		{"/djinn:disable telepathy", `djinn disable: unknown detector "telepathy". Nothing changed. Usage: /djinn:disable [detector], where detector is one of: all, drift, loops, stall, pressure, compress (none means all).`},
		{"/djinn:enable stall loops", "djinn enable: expected at most one detector, got 2 words. Nothing changed. Usage: /djinn:enable [detector], where detector is one of: all, drift, loops, stall, pressure, compress (none means all)."},
		{"/djinn:enable $(rm -rf ~)", "djinn enable: expected at most one detector, got 3 words."},
	} {
		r := s.userPrompt(tc.prompt)
		if len(r.Context) != 1 || !strings.HasPrefix(r.Context[0], tc.want) || r.SystemMessage != r.Context[0] {
			t.Errorf("%s: context %q, message %q", tc.prompt, r.Context, r.SystemMessage)
		}
		if d := s.window().Disabled; !slices.Equal(d, []string{"stall"}) {
			t.Fatalf("%s: disabled %q", tc.prompt, d)
		}
	}
	// Another command that starts with the same letters is not a switch.
	if r := s.userPrompt("/djinn:disabled-things"); len(r.Context) != 0 || r.SystemMessage != "" {
		t.Fatalf("context %q, message %q", r.Context, r.SystemMessage)
	}
}
