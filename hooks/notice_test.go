package hooks

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// TestNoticesWait: a notice raised at an event that cannot show it
// (SessionEnd) waits in window.json and is shown, once, at the next hook
// that can, before this hook's own notices; notify filters it.
func TestNoticesWait(t *testing.T) {
	for _, tc := range []struct {
		notify  settings.Notify
		warning bool
		want    string
	}{
		{settings.NotifyAll, false, "djinn: repaired anchor.json\nfirst"},
		{settings.NotifyWarnings, false, "first"},
		{settings.NotifyWarnings, true, "djinn: repaired anchor.json\nfirst"},
		{settings.NotifyOff, true, ""},
	} {
		dir := t.TempDir()
		set := settings.Default()
		set.Notify = tc.notify
		env := &Env{Store: &state.Store{Root: filepath.Join(dir, "state"), LockWait: time.Second}, Settings: set}
		var lock *state.Lock
		open := func() *session {
			if lock != nil {
				_ = lock.Unlock()
			}
			s, l, err := openSession(context.Background(), env, "sid")
			if err != nil {
				t.Fatal(err)
			}
			lock = l
			return s
		}
		s := open()
		s.tell("djinn: repaired anchor.json", tc.warning)
		var resp Response
		s.showNotices(SessionEnd, &resp)
		if resp.SystemMessage != "" {
			t.Fatalf("SessionEnd carried %q", resp.SystemMessage)
		}
		if err := s.save(); err != nil {
			t.Fatal(err)
		}
		s = open()
		resp = Response{}
		resp.Notify("first", true)
		s.showNotices(UserPromptSubmit, &resp)
		if resp.SystemMessage != tc.want {
			t.Errorf("notify=%s warning=%v: systemMessage %q, want %q", tc.notify, tc.warning, resp.SystemMessage, tc.want)
		}
		if len(s.w.Notices) != 0 || len(resp.Notices) != 0 {
			t.Errorf("notices left after showing: %v %v", s.w.Notices, resp.Notices)
		}
		_ = lock.Unlock()
		out, err := Encode(UserPromptSubmit, resp)
		if err != nil || (tc.want != "") != (len(out) > 0) {
			t.Errorf("Encode: %s, %v", out, err)
		}
	}
}

// TestNoticePerToldAdvisory: the same fail-loop in each mode. Advised, the
// person gets one notice saying what the agent was told; observed or off,
// none (nothing was said to the agent).
func TestNoticePerToldAdvisory(t *testing.T) {
	for _, mode := range []settings.Mode{settings.Advise, settings.Observe, settings.Off} {
		s := newSim(t)
		s.env.Settings.Advisories.FailLoop = mode
		cmd := jsonStr(map[string]any{"command": "go test ./..."})
		for i := 0; i < 3; i++ {
			s.fail("Bash", cmd, fmt.Sprintf("Exit code 1\n--- FAIL: TestX (0.0%ds)\nx_test.go:%d: want 3", i, 10+i))
		}
		var told []string
		for _, m := range s.messages {
			if strings.Contains(m, "djinn: told the agent") {
				told = append(told, m)
			}
		}
		want := 0
		if mode == settings.Advise {
			want = 1
		}
		if len(told) != want {
			t.Fatalf("%s: notices %q, want %d", mode, told, want)
		}
		if want == 1 && told[0] != `djinn: told the agent "go test ./..." failed 3× in a row with the same error` {
			t.Errorf("notice %q", told[0])
		}
	}
}
