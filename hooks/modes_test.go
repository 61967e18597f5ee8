package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/djinn-cc/djinn/internal/report"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// logged reads advisories.jsonl: every line of a kind.
func (s *sim) logged(kind string) []state.Advisory {
	dir, _ := s.env.Store.SessionDir(s.id)
	var out []state.Advisory
	_, err := s.env.Store.ReadLines(filepath.Join(dir, "advisories.jsonl"), state.KindAdvisory, 0, func(raw []byte) error {
		var a state.Advisory
		if json.Unmarshal(raw, &a) == nil && a.Kind == kind {
			out = append(out, a)
		}
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}

// status is what djinn status prints for the session.
func (s *sim) status() string {
	var b bytes.Buffer
	if err := report.Status(&b, s.env.Store, s.id, s.env.Settings.Drift); err != nil {
		s.t.Fatal(err)
	}
	return b.String()
}

func (s *sim) countObserved(kind string) int { return countKind(s.observed, kind) }

// TestAdvisoryModes: the same fail-loop is told to the agent and logged in
// advise mode; logged with mode "observe", shown in status as observed and
// never told in observe mode; neither told nor logged in off mode.
func TestAdvisoryModes(t *testing.T) {
	for _, mode := range []settings.Mode{settings.Advise, settings.Observe, settings.Off} {
		t.Run(string(mode), func(t *testing.T) {
			s := newSim(t)
			s.env.Settings.Advisories.FailLoop = mode
			cmd := jsonStr(map[string]any{"command": "go test ./..."})
			for i := 0; i < 3; i++ {
				s.fail("Bash", cmd, fmt.Sprintf("Exit code 1\n--- FAIL: TestX (0.0%ds)\nx_test.go:%d: want 3", i, 10+i))
			}
			told, observed, lines := s.count("fail-loop"), s.countObserved("fail-loop"), s.logged("fail-loop")
			st := s.status()
			switch mode {
			case settings.Advise:
				if told != 1 || observed != 0 || len(lines) != 1 || lines[0].Mode != "advise" {
					t.Fatalf("told %d, observed %d, logged %+v", told, observed, lines)
				}
				if !strings.Contains(st, "[djinn:fail-loop] ") || strings.Contains(st, "observed") {
					t.Errorf("status:\n%s", st)
				}
			case settings.Observe:
				if told != 0 || observed != 1 || len(lines) != 1 || lines[0].Mode != "observe" {
					t.Fatalf("told %d (%q), observed %d, logged %+v", told, s.said, observed, lines)
				}
				if !strings.Contains(st, "[djinn:fail-loop] (observed, not told to the agent)") {
					t.Errorf("status does not show the observed advisory:\n%s", st)
				}
			case settings.Off:
				if told != 0 || observed != 0 || len(lines) != 0 || strings.Contains(st, "fail-loop") {
					t.Fatalf("told %d, observed %d, logged %+v, status:\n%s", told, observed, lines, st)
				}
			}
		})
	}
}

// TestObservedLoopNeverBlocks: with loops.block on, a hard read-loop blocks
// only when read-loop is advised.
func TestObservedLoopNeverBlocks(t *testing.T) {
	for _, mode := range []settings.Mode{settings.Advise, settings.Observe} {
		s := newSim(t)
		s.env.Settings.Loops.Block = true
		s.env.Settings.Advisories.ReadLoop = mode
		f := s.file("a.txt", "x")
		in := jsonStr(map[string]any{"file_path": f})
		blocked := false
		for i := 0; i < 30; i++ {
			r := s.tool("Read", in, readResp("x"))
			blocked = blocked || r.Block
		}
		if want := mode == settings.Advise; blocked != want {
			t.Errorf("read-loop %s: blocked=%v, want %v", mode, blocked, want)
		}
		if mode == settings.Observe && (s.count("read-loop") != 0 || s.countObserved("read-loop") == 0) {
			t.Errorf("observe: told %q, observed %q", s.said, s.observed)
		}
	}
}

// TestStallModes: a stall is rolled back in advise mode; in observe mode it
// is logged and the user told, never rolled back nor told to the agent
// (not at the Stop, not at its next hook); off does nothing.
func TestStallModes(t *testing.T) {
	for _, mode := range []settings.Mode{settings.Advise, settings.Observe, settings.Off} {
		t.Run(string(mode), func(t *testing.T) {
			s := newSim(t)
			s.env.Settings.Advisories.Stall = mode
			s.userPrompt("Summarise the change")
			r := s.run(&Payload{HookEventName: Stop, LastAssistantMessage: chant})
			s.tool("Bash", jsonStr(map[string]any{"command": "ls"}), map[string]any{"stdout": "a"})
			lines := s.logged("stall")
			switch mode {
			case settings.Advise:
				if !r.Block || len(lines) != 1 || lines[0].Mode != "advise" {
					t.Fatalf("response %+v, logged %+v", r, lines)
				}
			case settings.Observe:
				if r.Block || s.count("stall") != 0 || s.countObserved("stall") != 1 || len(lines) != 1 || lines[0].Mode != "observe" {
					t.Fatalf("response %+v, said %q, observed %q, logged %+v", r, s.said, s.observed, lines)
				}
				if !strings.Contains(r.SystemMessage, "observe mode") {
					t.Errorf("the user is not told: %q", r.SystemMessage)
				}
			case settings.Off:
				if !r.Empty() || len(r.Observed) > 0 || len(lines) != 0 {
					t.Fatalf("response %+v, logged %+v", r, lines)
				}
			}
		})
	}
}

// TestDefaultModesAtCompaction: with the shipped defaults (reanchor
// observe) the compaction hand-off says nothing to the compactor or the
// agent and the reanchor is logged as observed; an observed advisory is
// never restated in a told reanchor.
func TestDefaultModesAtCompaction(t *testing.T) {
	s := newSim(t)
	s.env.Settings.Advisories = settings.Default().Advisories
	s.userPrompt("Add dark-mode support with a11y keyboard-trap tests")
	f := s.file("src/theme/dark.ts", "x")
	in := jsonStr(map[string]any{"file_path": f})
	for i := 0; i < 3; i++ {
		s.tool("Read", in, readResp("x"))
	}
	if s.count("read-loop") != 0 || s.countObserved("read-loop") != 1 {
		t.Fatalf("read-loop by default: told %q, observed %q", s.said, s.observed)
	}
	if r := s.run(&Payload{HookEventName: PreCompact, Trigger: "auto"}); !r.Empty() {
		t.Fatalf("PreCompact with reanchor observed: %+v", r)
	}
	r := s.compactNext("")
	if len(r.Context) != 0 || len(r.Observed) != 1 || !strings.HasPrefix(r.Observed[0], "[djinn:reanchor]") {
		t.Fatalf("after the compaction: %+v", r)
	}
	if lines := s.logged("reanchor"); len(lines) != 1 || lines[0].Mode != "observe" {
		t.Fatalf("reanchor logged %+v", lines)
	}
	if w := s.window(); len(w.Recent) != 1 || w.Recent[0].Mode != "observe" {
		t.Fatalf("recent %+v, want the observed read-loop", w.Recent)
	}
	// Told, the reanchor leaves the observed read-loop out.
	s.env.Settings.Advisories.Reanchor = settings.Advise
	r = s.compactNext("")
	if len(r.Context) != 1 || strings.Contains(r.Context[0], "read-loop") || strings.Contains(r.Context[0], "recent_advisories") {
		t.Fatalf("told reanchor restates an observed advisory: %q", r.Context)
	}
}
