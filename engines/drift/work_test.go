package drift

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/djinn-cc/djinn/engines/reservoir"
)

func TestWordsSplitPathsAndIdentifiers(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"db/pool7.go", []string{"db", "pool"}},
		// (read itself is a narration word, never a signal word.)
		{"PoolTimeout", []string{"pool", "timeout"}},
		{"ReadTimeout", []string{"timeout"}},
		{"pool_timeout-config", []string{"pool", "timeout", "config"}},
		{"conn-pool v2 sha256", []string{"conn", "pool"}},
		// One word per stem: the first as written.
		{"scopes scope scoped", []string{"scopes"}},
	}
	for _, c := range cases {
		if got := Words(c.text); !slices.Equal(got, c.want) {
			t.Errorf("Words(%q) = %v, want %v", c.text, got, c.want)
		}
	}
	if Stem("pooling") != Stem("pool") || Stem("scopes") != Stem("scope") {
		t.Errorf("stems: pooling %q pool %q scopes %q scope %q", Stem("pooling"), Stem("pool"), Stem("scopes"), Stem("scope"))
	}
}

func TestNamedFilesAndRelated(t *testing.T) {
	got := NamedFiles("Now let's work on the database layer instead: add connection pooling to db/pool.go (see README.md, e.g. https://x.io/a.html)")
	if !slices.Equal(got, []string{"db/pool.go", "README.md"}) {
		t.Fatalf("NamedFiles = %v", got)
	}
	known := []string{"db/pool.go"}
	for _, f := range []string{"db/pool.go", "db/pool6.go", "db/conn.go", "internal/pool_test.go"} {
		if !relatedFile([]string{f}, known) {
			t.Errorf("%s is not related to %v", f, known)
		}
	}
	for _, f := range []string{"web/landing.tsx", "README.md", "analytics/events.go"} {
		if relatedFile([]string{f}, append(known, "main.go")) {
			t.Errorf("%s is related to %v", f, known)
		}
	}
}

// session steps a fresh state for goal through calls made by mk.
type session struct {
	t   *testing.T
	c   Config
	st  State
	seq int
}

func newSession(t *testing.T, goal string) *session {
	c := DefaultConfig()
	an := NewAnchor(goal, nil, len(Words(goal)), c)
	return &session{t: t, c: c, st: State{AnchorHash: "h", AnchorTokens: an.Stems, Files: an.Files, Idents: an.Idents,
		Insufficient: an.Insufficient, Threshold: c.Threshold, ThresholdSource: "fallback", Reservoir: reservoir.New[Sample](c.ReservoirK)}}
}

func (s *session) call(tool string, in map[string]string) Verdict {
	s.seq++
	raw, _ := json.Marshal(in)
	return s.st.Step(s.c, "s", Call{Tool: tool, Sig: Extract(tool, raw, "/p"), Seq: s.seq})
}

func (s *session) edit(path string) Verdict {
	return s.call("Edit", map[string]string{"file_path": "/p/" + path, "old_string": "a", "new_string": "b"})
}

// offGoal reports whether v would be advised by the design's mapping (a
// lost tail, or a refocus moment that lasts).
func offGoal(v Verdict) bool { return v.Kind == RealDrift || v.Kind == RefocusMoment }

// TestDetourCaughtWherever: a switch to unrelated work leaves on_task
// within 8 calls wherever it starts, the first call included, and its words
// are not learned.
func TestDetourCaughtWherever(t *testing.T) {
	const goal = "Add connection pooling to the database layer in db/pool.go"
	detour := []string{"web/landing/hero.tsx", "web/analytics/events.ts", "web/landing/pricing.tsx", "web/analytics/tracker.ts"}
	for _, start := range []int{0, 1, 3, 10, 20} {
		t.Run(fmt.Sprint(start), func(t *testing.T) {
			s := newSession(t, goal)
			for i := 0; i < start; i++ {
				s.edit("db/pool.go")
			}
			at := -1
			for i := 0; i < 8; i++ {
				if v := s.edit(detour[i%len(detour)]); offGoal(v) && at < 0 {
					at = i + 1
				}
			}
			if at < 0 {
				t.Fatalf("a detour after %d on-task calls was not seen within 8 calls", start)
			}
			if slices.Contains(s.st.Vocab, Stem("analytics")) || slices.Contains(s.st.Files, "web/landing/hero.tsx") {
				t.Fatalf("the detour was learned: vocab %v files %v", s.st.Vocab, s.st.Files)
			}
		})
	}
}

// TestRelatedWorkStaysOnTask: work on files beside or named like the
// goal's (and its tests) stays on task, bookkeeping included.
func TestRelatedWorkStaysOnTask(t *testing.T) {
	s := newSession(t, "Now let's work on the database layer instead: add connection pooling to db/pool.go")
	for i := 0; i < 20; i++ {
		var v Verdict
		switch i % 4 {
		case 0:
			v = s.edit(fmt.Sprintf("db/pool%d.go", i))
		case 1:
			v = s.call("TodoWrite", map[string]string{"todos": "x"})
		case 2:
			v = s.edit("db/conn.go")
		default:
			v = s.call("Read", map[string]string{"file_path": "/p/test/pool_test.go"})
		}
		if v.Kind != OnTask && v.Kind != InsufficientData {
			t.Fatalf("call %d: %+v, recent %+v", i+1, v, s.st.Recent)
		}
	}
}

// TestBookkeepingNoEvidence: TodoWrite and task tools give no signal, so
// their words never reach the evidence.
func TestBookkeepingNoEvidence(t *testing.T) {
	for _, tool := range []string{"TodoWrite", "TaskCreate", "TaskUpdate", "ExitPlanMode"} {
		in, _ := json.Marshal(map[string]any{"todos": []map[string]string{{"content": "Wire analytics", "status": "completed"}}, "subject": "analytics", "status": "completed"})
		if sig := Extract(tool, in, "/p"); len(sig.Object)+len(sig.Narrative)+len(sig.Files) != 0 || sig.Acts != "" {
			t.Errorf("%s: %+v", tool, sig)
		}
	}
	s := newSession(t, "Add connection pooling to the database layer in db/pool.go")
	s.edit("db/pool.go")
	s.call("TodoWrite", map[string]string{"todos": "completed"})
	if r := s.st.Recent[len(s.st.Recent)-1]; r.Topic != TopicNeutral || len(r.Tokens) != 0 {
		t.Fatalf("TodoWrite signal %+v", r)
	}
}

// TestOffGoalCountsAndResets: the off-goal count grows while the work is
// away and resets when it comes back or the user lets it go on.
func TestOffGoalCountsAndResets(t *testing.T) {
	s := newSession(t, "Add connection pooling to the database layer in db/pool.go")
	for i := 0; i < 6; i++ {
		s.edit("db/pool.go")
	}
	for i := 0; i < 7; i++ {
		s.edit(fmt.Sprintf("web/analytics/e%d.ts", i))
	}
	if s.st.OffGoal != 7 {
		t.Fatalf("OffGoal = %d after 7 off-goal calls", s.st.OffGoal)
	}
	s.st.LearnRecent()
	if s.st.OffGoal != 0 || WindowScore(s.st.Recent, s.c.SignalWindow) != 1 {
		t.Fatalf("after the user let it go on: OffGoal %d, score %v", s.st.OffGoal, WindowScore(s.st.Recent, s.c.SignalWindow))
	}
	if v := s.edit("web/analytics/e1.ts"); v.Kind != OnTask {
		t.Fatalf("confirmed work: %+v", v)
	}
}
