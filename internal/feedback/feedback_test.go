package feedback

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// newEnv is a hook environment over a fresh state root and project, every
// advisory kind advised.
func newEnv(t *testing.T) (*hooks.Env, string) {
	t.Helper()
	dir := t.TempDir()
	project := filepath.Join(dir, "proj")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	set := settings.Default()
	set.Advisories.SetAll(settings.Advise)
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	env := &hooks.Env{
		Store:    &state.Store{Root: filepath.Join(dir, "state"), LockWait: time.Second},
		Settings: set,
		Now:      func() time.Time { now = now.Add(time.Second); return now },
		Getenv: func(k string) string {
			if k == "CLAUDE_PROJECT_DIR" {
				return project
			}
			return ""
		},
	}
	return env, project
}

// readLoopSession runs a session through the hooks that gives a goal and
// reads one unchanged file three times: one read-loop advisory, whose
// logged line it returns.
func readLoopSession(t *testing.T, env *hooks.Env, project, id string) state.Advisory {
	t.Helper()
	run := func(p *hooks.Payload) {
		p.SessionID, p.Cwd, p.TranscriptPath = id, project, filepath.Join(project, id+".jsonl")
		if _, err := hooks.Run(context.Background(), env, p); err != nil {
			t.Fatalf("%s: %v", p.HookEventName, err)
		}
	}
	run(&hooks.Payload{HookEventName: hooks.UserPromptSubmit, Prompt: "fix the parser so that nested lists round-trip"})
	file := filepath.Join(project, "a.go")
	if err := os.WriteFile(file, []byte("package app\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(map[string]any{"file_path": file})
	out, _ := json.Marshal(map[string]any{"type": "text", "file": map[string]any{"content": "package app", "numLines": 1, "startLine": 1, "totalLines": 1}})
	for i := range 3 {
		run(&hooks.Payload{HookEventName: hooks.PostToolUse, ToolName: "Read", ToolInput: in, ToolResponse: out, ToolUseID: "toolu_" + string(rune('0'+i))})
	}
	dir, _ := env.Store.SessionDir(id)
	var advs []state.Advisory
	if _, err := env.Store.ReadLines(filepath.Join(dir, "advisories.jsonl"), state.KindAdvisory, 0, func(raw []byte) error {
		var a state.Advisory
		if err := json.Unmarshal(raw, &a); err != nil {
			return err
		}
		if a.Kind == advice.KindReadLoop {
			advs = append(advs, a)
		}
		return nil
	}); err != nil || len(advs) != 1 {
		t.Fatalf("read-loops %+v (%v), want one", advs, err)
	}
	return advs[0]
}

func window(t *testing.T, env *hooks.Env, id string) state.Window {
	t.Helper()
	dir, _ := env.Store.SessionDir(id)
	var w state.Window
	if found, err := env.Store.Peek(filepath.Join(dir, "window.json"), state.KindWindow, &w); !found || err != nil {
		t.Fatalf("window.json: found %v, %v", found, err)
	}
	return w
}

// TestFindAdvisory: an id is found in its own session, in every session
// when none is named, and nowhere else; an unknown id is ErrNoAdvisory.
func TestFindAdvisory(t *testing.T) {
	env, project := newEnv(t)
	a1 := readLoopSession(t, env, project, "session-1")
	a2 := readLoopSession(t, env, project, "session-2")
	for _, tc := range []struct {
		session, id, want string
	}{
		{"", a1.ID, "session-1"},
		{"", a2.ID, "session-2"},
		{"session-1", a1.ID, "session-1"},
	} {
		sid, a, err := FindAdvisory(env.Store, tc.session, tc.id)
		if err != nil || sid != tc.want || state.AdvisoryID(sid, a) != tc.id {
			t.Errorf("FindAdvisory(%q, %s) = %s, %s, %v; want %s", tc.session, tc.id, sid, a.ID, err, tc.want)
		}
	}
	for _, tc := range []struct{ session, id string }{{"session-2", a1.ID}, {"", "0123456789ab"}} {
		if _, _, err := FindAdvisory(env.Store, tc.session, tc.id); !errors.Is(err, ErrNoAdvisory) {
			t.Errorf("FindAdvisory(%q, %s): %v, want ErrNoAdvisory", tc.session, tc.id, err)
		}
	}
}

// TestJudge: a verdict of djinn feedback is kept in the session's window
// and raises (wrong) or lowers (right) the kind's level in the profile,
// which status and config then show; the same verdict again changes
// nothing; a bad verdict or a reanchor is refused.
func TestJudge(t *testing.T) {
	ctx := context.Background()
	env, project := newEnv(t)
	a := readLoopSession(t, env, project, "session-1")

	j, err := Judge(ctx, env, "session-1", a, state.VerdictWrong, "a one-off")
	if err != nil || !j.Changed || j.Entry.Level != 1 || j.ID != a.ID {
		t.Fatalf("wrong: %+v, %v", j, err)
	}
	w := window(t, env, "session-1")
	if f := w.Feedback; f == nil || len(f.Marks) != 1 || f.Marks[0].ID != a.ID || f.Marks[0].Note != "a one-off" || !strings.Contains(f.Notice, "judged Djinn's read-loop advisory") {
		t.Fatalf("window feedback %+v", w.Feedback)
	}
	var b bytes.Buffer
	if err := WriteProfile(&b, env); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.HasPrefix(got, "developer feedback in force") || !strings.Contains(got, "  - read-loop: level 1 of 3") || !strings.Contains(got, "(marked wrong 1×, right 0×)") {
		t.Fatalf("profile lines:\n%s", got)
	}

	if j, err := Judge(ctx, env, "session-1", a, state.VerdictWrong, ""); err != nil || j.Changed {
		t.Fatalf("the same verdict again: %+v, %v", j, err)
	}
	if j, err := Judge(ctx, env, "session-1", a, state.VerdictRight, ""); err != nil || !j.Changed || j.Entry.Level != 0 {
		t.Fatalf("right: %+v, %v", j, err)
	}
	b.Reset()
	if err := WriteProfile(&b, env); err != nil || b.Len() != 0 {
		t.Fatalf("profile at its defaults printed %q, %v", b.String(), err)
	}

	if _, err := Judge(ctx, env, "session-1", a, "maybe", ""); err == nil {
		t.Error("a verdict other than wrong or right was taken")
	}
	re := a
	re.Kind = advice.KindReanchor
	if _, err := Judge(ctx, env, "session-1", re, state.VerdictWrong, ""); err == nil {
		t.Error("a reanchor was judged")
	}
}

// TestWriteProfileInvalid: status and config say an invalid profile.json
// is invalid, in one line, and leave it where it is (PeekProfile moves
// nothing; the next hook does).
func TestWriteProfileInvalid(t *testing.T) {
	env, _ := newEnv(t)
	path := filepath.Join(env.Store.Root, state.ProfileFile)
	if err := os.MkdirAll(env.Store.Root, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := PeekProfile(env.Store); err == nil {
		t.Error("an invalid profile peeked without error")
	}
	var b bytes.Buffer
	if err := WriteProfile(&b, env); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.HasPrefix(got, "developer feedback: ") || strings.Count(got, "\n") != 1 {
		t.Fatalf("invalid profile: %q", got)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the invalid profile was moved: %v", err)
	}
}
