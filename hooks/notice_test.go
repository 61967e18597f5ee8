package hooks

import (
	"context"
	"path/filepath"
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
