package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// nextSession is a new session of the same developer under the same state
// root: what a profile taught in s reaches it.
func (s *sim) nextSession(id string) *sim {
	n := &sim{t: s.t, env: s.env, id: id, project: s.project, tpath: s.tpath, now: s.now}
	if err := os.WriteFile(n.tpath, nil, 0o600); err != nil {
		s.t.Fatal(err)
	}
	n.run(&Payload{HookEventName: SessionStart, Source: "startup"})
	return n
}

func (s *sim) profile() *state.Profile {
	s.t.Helper()
	p, err := s.env.loadProfile()
	if err != nil {
		s.t.Fatal(err)
	}
	return p
}

// readLoops reads one unchanged file n times.
func readLoops(s *sim, rel string, n int) {
	in := jsonStr(map[string]any{"file_path": s.file(rel, "package app\n")})
	for range n {
		s.tool("Read", in, readResp("package app"))
	}
}

// TestWrongMarksTheLatestAdvisory: /djinn:wrong with a note marks the
// session's most recent advisory wrong in the window, with the note,
// raises its kind's level in the developer's profile, and tells the model
// once, first in the context, not to act on it; the next hook does not
// repeat it.
func TestWrongMarksTheLatestAdvisory(t *testing.T) {
	s := newSim(t)
	s.userPrompt("fix the parser so that nested lists round-trip")
	readThrice(s, "src/a.go")
	if s.count("read-loop") != 1 {
		t.Fatalf("no read-loop to judge: %q", s.said)
	}
	rec := s.window().Recent
	last := rec[len(rec)-1]
	if len(last.ID) != 12 {
		t.Fatalf("recent advisory has no id: %+v", last)
	}
	if ids := s.advisoryIDs("read-loop"); len(ids) != 1 || ids[0] != last.ID {
		t.Fatalf("advisories.jsonl ids %q, recent %q", ids, last.ID)
	}

	r := s.userPrompt("/djinn:wrong too noisy")
	if len(r.Context) != 2 {
		t.Fatalf("context %q", r.Context)
	}
	notice := r.Context[0]
	for _, want := range []string{"[djinn:feedback]", "read-loop advisory from tool call #3 wrong", `"too noisy"`, "Do not act on that advisory"} {
		if !strings.Contains(notice, want) {
			t.Errorf("notice lacks %q: %s", want, notice)
		}
	}
	line := "djinn wrong: marked the read-loop advisory " + last.ID + " (tool call #3) wrong (\"too noisy\"). For this developer, read-loop: level 1 of 3"
	if !strings.HasPrefix(r.Context[1], line) || r.SystemMessage != r.Context[1] {
		t.Fatalf("result %q, message %q, want prefix %q", r.Context[1], r.SystemMessage, line)
	}
	w := s.window()
	if f := w.Feedback; f == nil || len(f.Marks) != 1 || f.Marks[0].ID != last.ID || f.Marks[0].Note != "too noisy" || f.Marks[0].Verdict != "wrong" || f.Notice != "" {
		t.Fatalf("window feedback %+v", w.Feedback)
	}
	if lv := s.profile().Level("read-loop", s.env.developerKey()); lv != 1 {
		t.Fatalf("profile level %d, want 1", lv)
	}
	// Told once: the next tool call's context does not repeat it.
	r = s.tool("Grep", jsonStr(map[string]any{"pattern": "parse"}), map[string]any{"mode": "files_with_matches", "filenames": []string{}, "numFiles": 0})
	for _, c := range r.Context {
		if strings.Contains(c, "[djinn:feedback]") {
			t.Fatalf("notice repeated: %q", r.Context)
		}
	}
	// The same advisory judged wrong again counts once.
	r = s.userPrompt("/djinn:wrong")
	if !strings.Contains(r.SystemMessage, "was already marked wrong; nothing changed") {
		t.Fatalf("repeat: %q", r.SystemMessage)
	}
	if lv := s.profile().Level("read-loop", s.env.developerKey()); lv != 1 {
		t.Fatalf("profile level %d after a repeat, want 1", lv)
	}
	// The prompt is neither goal nor task.
	if a := s.anchor(); a == nil || strings.Contains(a.Text, "noisy") {
		t.Fatalf("anchor %+v", a)
	}
}

// TestWrongWithNothingToMark: with no advisory yet, nothing changes.
func TestWrongWithNothingToMark(t *testing.T) {
	s := newSim(t)
	r := s.userPrompt("/djinn:wrong")
	if want := "djinn wrong: this session has no advisory to mark yet. Nothing changed."; r.SystemMessage != want {
		t.Fatalf("message %q", r.SystemMessage)
	}
	if _, err := os.Stat(filepath.Join(s.env.Store.Root, state.ProfileFile)); !os.IsNotExist(err) {
		t.Fatalf("profile written: %v", err)
	}
}

// TestWrongQuietsTheKindNextSession: a kind marked wrong three times holds
// a one-off finding of that kind back in the developer's next session
// (counted in the window, not recorded), still gives a chronic (hard) one,
// and leaves the other kinds alone; marking the three right undoes it.
func TestWrongQuietsTheKindNextSession(t *testing.T) {
	const goal = "fix the parser so that nested lists round-trip"
	s := newSim(t)
	s.userPrompt(goal)
	// next is the developer's next session on the same goal, which reads
	// file three times.
	next := func(id, file string) *sim {
		n := s.nextSession(id)
		n.userPrompt(goal)
		readThrice(n, file)
		return n
	}
	for i, f := range []string{"src/a.go", "src/b.go", "src/c.go"} {
		readThrice(s, f)
		for j := range 3 { // past the pattern's cooldown
			s.tool("Grep", jsonStr(map[string]any{"pattern": f + string(rune('a'+3*i+j))}), map[string]any{"mode": "files_with_matches", "filenames": []string{}, "numFiles": 0})
		}
	}
	ids := s.advisoryIDs("read-loop")
	if len(ids) != 3 {
		t.Fatalf("%d read-loops, want 3", len(ids))
	}
	// The latest through /djinn:wrong, the other two through djinn
	// feedback's path.
	s.userPrompt("/djinn:wrong")
	s.judge("read-loop", ids[:2], state.VerdictWrong, "again")
	if lv := s.profile().Level("read-loop", s.env.developerKey()); lv != 3 {
		t.Fatalf("level %d, want 3", lv)
	}

	// The first finding is soft (EMA α): held.
	n := next("sim-session-2", "src/d.go")
	if c := n.count("read-loop"); c != 0 {
		t.Fatalf("a one-off read-loop was told at level 3: %q", n.said)
	}
	if h := n.window().Feedback.Held["read-loop"]; h != 1 {
		t.Fatalf("held %d, want 1", h)
	}
	if seqs := n.advisorySeqs("read-loop"); len(seqs) != 0 {
		t.Fatalf("held advisory recorded at %v", seqs)
	}
	// Six more reads of the same file: the chronic loop's hard alert.
	readLoops(n, "src/d.go", 6)
	if c := n.count("read-loop"); c != 1 || !strings.Contains(n.said[len(n.said)-1], "keeps coming back") {
		t.Fatalf("the hard read-loop was not told: %q", n.said)
	}
	// Another kind is untouched: a fail-loop is told.
	in := jsonStr(map[string]any{"command": "go test ./..."})
	for range 3 {
		n.fail("Bash", in, "FAIL: TestX expected 1 got 2")
	}
	if c := n.count("fail-loop"); c != 1 {
		t.Fatalf("fail-loop told %d times, want 1", c)
	}

	// Marking the three right undoes it.
	s.judge("read-loop", ids, state.VerdictRight, "")
	if lv := s.profile().Level("read-loop", s.env.developerKey()); lv != 0 {
		t.Fatalf("level %d after three rights, want 0", lv)
	}
	m := next("sim-session-3", "src/e.go")
	if c := m.count("read-loop"); c != 1 {
		t.Fatalf("read-loop told %d times after the undo, want 1", c)
	}
}

// TestProfileHandEdited: a profile.json edited into something invalid, or
// deleted, is the empty profile (the invalid file moved aside), never a
// failed hook; a valid hand edit is honoured.
func TestProfileHandEdited(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		told      int
	}{
		{"garbage", "{not json", 1},
		{"level out of range", `{"schema_version":1,"entries":{"read-loop::%DEV%":{"kind":"read-loop","developer":"%DEV%","level":99,"wrong":99,"right":0,"updated_at":"2026-11-21T10:00:00Z"}}}`, 1},
		{"unknown field", `{"schema_version":1,"entries":{},"extra":1}`, 1},
		{"deleted", "", 1},
		{"valid hand edit to level 2", `{"schema_version":1,"entries":{"read-loop::%DEV%":{"kind":"read-loop","developer":"%DEV%","level":2,"wrong":2,"right":0,"updated_at":"2026-11-21T10:00:00Z"}}}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			path := filepath.Join(s.env.Store.Root, state.ProfileFile)
			if tc.doc != "" {
				doc := strings.ReplaceAll(tc.doc, "%DEV%", s.env.developerKey())
				if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			s.userPrompt("fix the parser so that nested lists round-trip")
			readThrice(s, "src/a.go")
			if c := s.count("read-loop"); c != tc.told {
				t.Fatalf("read-loop told %d times, want %d", c, tc.told)
			}
			// /djinn:wrong still works, and writes a valid profile.
			s.userPrompt("/djinn:wrong")
			p := s.profile()
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestHeldBounds: the adjustments grow with the level and stay within
// their bounds; hard advisories are never held.
func TestHeldBounds(t *testing.T) {
	s := newSim(t)
	set := s.env.Settings
	prev := AdjustFor(set, advice.KindEditRevert, 0)
	if prev != (Adjust{}) {
		t.Fatalf("level 0 adjusts: %+v", prev)
	}
	for l := 1; l <= state.MaxFeedbackLevel+2; l++ {
		a := AdjustFor(set, advice.KindEditRevert, l)
		if a.Level > state.MaxFeedbackLevel || a.MinEMA > set.Loops.HardEMA+1e-9 || a.Cooldown > state.MaxFeedbackLevel*set.Loops.Cooldown {
			t.Fatalf("level %d out of bounds: %+v", l, a)
		}
		if l <= state.MaxFeedbackLevel && (a.MinEMA <= prev.MinEMA || a.Cooldown <= prev.Cooldown) {
			t.Fatalf("level %d not stricter than %d: %+v vs %+v", l, l-1, a, prev)
		}
		prev = a
	}
	if d := AdjustFor(set, advice.KindDrift, 3); math.Abs(d.DriftMargin-0.15) > 1e-9 || d.Cooldown != 3*set.Drift.Cooldown {
		t.Fatalf("drift at 3: %+v", d)
	}
	prof := state.NewProfile()
	dev := s.env.developerKey()
	for i := range 3 {
		prof.Judge(advice.KindDrift, dev, strings.Repeat("a", 11)+string(rune('0'+i)), state.VerdictWrong, s.now)
	}
	ses := &session{env: s.env, w: state.NewWindow("x", s.now)}
	ses.w.ToolCalls = 100
	soft := advice.Advisory{Kind: advice.KindDrift, Severity: advice.Soft, Numbers: map[string]float64{"score": 0.5, "threshold": 0.7}}
	if ses.held(soft, &prof, dev) {
		t.Fatal("a drift score 0.2 under its threshold held at level 3 (margin 0.15)")
	}
	soft.Numbers["score"] = 0.6
	if !ses.held(soft, &prof, dev) {
		t.Fatal("a drift score 0.1 under its threshold told at level 3")
	}
	soft.Numbers["score"] = 0.5
	ses.w.Feedback = &state.Feedback{Given: map[string]int{advice.KindDrift: 100 - 3*set.Drift.Cooldown}}
	if !ses.held(soft, &prof, dev) {
		t.Fatal("a drift advisory inside the longer cooldown told")
	}
	hard := soft
	hard.Severity = advice.Hard
	hard.Numbers = map[string]float64{"score": 0.69, "threshold": 0.7}
	if ses.held(hard, &prof, dev) {
		t.Fatal("a hard advisory held")
	}
}

// judge judges the advisories of a kind with these ids of this session as
// djinn feedback does (internal/feedback), with the note: each under the
// session's lock, opened outside a hook, then saved.
func (s *sim) judge(kind string, ids []string, verdict, note string) {
	for _, id := range ids {
		var found *state.Advisory
		for _, a := range s.logged(kind) {
			if state.AdvisoryID(s.id, a) == id {
				found = &a
			}
		}
		if found == nil {
			s.t.Fatalf("no advisory %s", id)
		}
		o, err := OpenSession(context.Background(), s.env, s.id)
		if err != nil {
			s.t.Fatal(err)
		}
		if _, err := o.Judge(context.Background(), *found, verdict, note); err != nil {
			s.t.Fatal(err)
		}
		if err := o.Save(); err != nil {
			s.t.Fatal(err)
		}
		if err := o.Close(); err != nil {
			s.t.Fatal(err)
		}
	}
}

// advisoryIDs reads advisories.jsonl: the ids of the advisories of a kind.
func (s *sim) advisoryIDs(kind string) []string {
	var out []string
	for _, a := range s.logged(kind) {
		out = append(out, a.ID)
	}
	return out
}

// FuzzProfile: any profile.json, hand-edited or torn, is read as a valid
// profile (the file's own, or the empty one with the file moved aside),
// never an error or a panic; a judgement then writes a valid profile, and
// every level it implies stays within its bounds.
func FuzzProfile(f *testing.F) {
	for _, s := range []string{
		`{"schema_version":1,"entries":{}}`,
		`{"schema_version":1,"entries":{"edit-revert::0123456789abcdef":{"kind":"edit-revert","developer":"0123456789abcdef","level":2,"wrong":3,"right":1,"updated_at":"2026-11-21T10:00:00Z"}},"marked":[{"id":"0123456789ab","verdict":"wrong"}]}`,
		`{"schema_version":1,"entries":{"x::y":null}}`,
		`{"schema_version":1,"entries":{"drift::0123456789abcdef":{"kind":"drift","developer":"0123456789abcdef","level":-4,"wrong":0,"right":0,"updated_at":"x"}}}`,
		`{"schema_version":2}`, `{`, `null`, "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, state.ProfileFile), raw, 0o600); err != nil {
			t.Fatal(err)
		}
		env := &Env{Store: &state.Store{Root: root, LockWait: time.Second, NoSync: true}, Settings: settings.Default()}
		p, err := env.loadProfile()
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("loaded an invalid profile: %v", err)
		}
		for _, e := range p.Entries {
			lv := p.Level(e.Kind, e.Developer)
			a := AdjustFor(env.Settings, e.Kind, lv)
			if lv < 0 || lv > state.MaxFeedbackLevel || a.MinEMA > env.Settings.Loops.HardEMA+1e-9 || a.DriftMargin > 0.15+1e-9 {
				t.Fatalf("level %d: %+v", lv, a)
			}
		}
		if _, _, err := env.teachProfile(context.Background(), advice.KindEditRevert, "0123456789ab", state.VerdictWrong, time.Unix(0, 0).UTC()); err != nil {
			t.Fatalf("judge: %v", err)
		}
		if _, err := env.loadProfile(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestWrongOnAnOldWindow: a session whose window predates advisory ids
// (its recent entries have none) is judged from advisories.jsonl, where an
// id-less line is named by state.AdvisoryID.
func TestWrongOnAnOldWindow(t *testing.T) {
	s := newSim(t)
	s.userPrompt("fix the parser so that nested lists round-trip")
	readThrice(s, "src/a.go")
	// Strip the ids, as an older Djinn wrote them.
	dir, _ := s.env.Store.SessionDir(s.id)
	w := s.window()
	for i := range w.Recent {
		w.Recent[i].ID = ""
	}
	if err := s.env.Store.Save(filepath.Join(dir, "window.json"), state.KindWindow, &w); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "advisories.jsonl")
	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var a state.Advisory
	if err := state.DecodeStrict(bytes.TrimSpace(raw), &a); err != nil {
		t.Fatal(err)
	}
	want := a.ID
	a.ID = ""
	line, _ := json.Marshal(a)
	if err := os.WriteFile(logPath, append(line, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := state.AdvisoryID(s.id, a); got != want {
		t.Fatalf("derived id %s, written %s", got, want)
	}
	r := s.userPrompt("/djinn:wrong")
	if !strings.Contains(r.SystemMessage, "marked the read-loop advisory "+want+" (tool call #3) wrong") {
		t.Fatalf("message %q", r.SystemMessage)
	}
}
