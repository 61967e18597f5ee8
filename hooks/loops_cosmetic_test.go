package hooks

import (
	"fmt"
	"strings"
	"testing"
)

// bashOut is a Bash tool_response as the CLI sends it.
func bashOut(stdout string) map[string]any {
	return map[string]any{"stdout": stdout, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}
}

// TestCosmeticVariantsLoop: cosmetic variants of one command (tail windows
// of an unchanged log; a test command that prints nothing, changed only in
// redirects, quoting and path spelling) are a tool-loop within 3 calls of
// the third; a log that grows, other files, or a changing output are not.
func TestCosmeticVariantsLoop(t *testing.T) {
	var log strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&log, "step %d ok\n", i)
	}
	last := func(text string, n int) string {
		lines := strings.Split(strings.TrimSpace(text), "\n")
		return strings.Join(lines[max(0, len(lines)-n):], "\n")
	}
	for _, tc := range []struct {
		name  string
		fires bool
		empty bool
		run   func(s *sim)
	}{
		{"tail windows of an unchanged log", true, false, func(s *sim) {
			for _, n := range []int{10, 15, 20, 5} {
				s.tool("Bash", jsonStr(map[string]any{"command": fmt.Sprintf("cat %s/task.output | tail -%d", s.project, n), "description": "Check the task"}), bashOut(last(log.String(), n)))
			}
		}},
		{"a test command printing nothing, respelled", true, true, func(s *sim) {
			for _, c := range []string{"python -m pytest tests/test_api.py", "python -m pytest ./tests/test_api.py 2>&1", "python -m pytest '" + s.project + "/tests/test_api.py' >/dev/null 2>&1"} {
				s.tool("Bash", jsonStr(map[string]any{"command": c}), bashOut(""))
			}
		}},
		{"tail windows of a growing log", false, false, func(s *sim) {
			text := log.String()
			for i, n := range []int{10, 15, 20, 5} {
				text += fmt.Sprintf("step %d ok\n", 41+i)
				s.tool("Bash", jsonStr(map[string]any{"command": fmt.Sprintf("cat task.output | tail -%d", n)}), bashOut(last(text, n)))
			}
		}},
		{"nothing printed on different files", false, false, func(s *sim) {
			for _, f := range []string{"a", "b", "c", "d"} {
				s.tool("Bash", jsonStr(map[string]any{"command": "grep -n TODO src/" + f + ".go 2>&1"}), bashOut(""))
			}
		}},
		{"the output changes between runs", false, false, func(s *sim) {
			for i, c := range []string{"go test ./... 2>&1 | tail -20", "go test ./... | tail -30", "go test ./...  2>&1 | tail -n 5"} {
				s.tool("Bash", jsonStr(map[string]any{"command": c}), bashOut(fmt.Sprintf("ok pkg %d.0s\nok other\nPASS run %d", i, i)))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("Find out why the background task stalls")
			tc.run(s)
			said, ok := s.loopWithin("tool-loop", tc.fires, 3)
			if !ok {
				return
			}
			t.Logf("%s", said)
			if got := strings.Contains(said, "printed nothing"); got != tc.empty {
				t.Errorf("empty wording = %v, want %v: %q", got, tc.empty, said)
			}
		})
	}
}

// loopWithin checks a scenario's advisories of a loop kind: none when it
// must not fire, else exactly one, within 3 calls of the call that made
// the loop evident (third); it returns the advisory's text, and ok when
// there is one to check further.
func (s *sim) loopWithin(kind string, fires bool, third int) (said string, ok bool) {
	s.t.Helper()
	seqs := s.advisorySeqs(kind)
	if !fires {
		if len(seqs) != 0 {
			s.t.Fatalf("%s at %v: %q", kind, seqs, s.said)
		}
		return "", false
	}
	if len(seqs) != 1 || seqs[0] > third+3 {
		s.t.Fatalf("%s at %v, want one within 3 calls of call %d: %q", kind, seqs, third, s.said)
	}
	return s.lastSaid(kind), true
}

// loopSays is loopWithin for a case whose advisory, when it fires, must
// hold every phrase of wants.
func (s *sim) loopSays(kind string, fires bool, third int, wants ...string) {
	s.t.Helper()
	said, ok := s.loopWithin(kind, fires, third)
	if !ok {
		return
	}
	for _, want := range wants {
		if !strings.Contains(said, want) {
			s.t.Errorf("advisory lacks %q: %q", want, said)
		}
	}
}

// loopCase is one case of a loop test: the calls a session makes after
// its first prompt, and whether they make the loop.
type loopCase struct {
	name  string
	fires bool
	run   func(s *sim)
}

// checkLoops runs each case in a new session that opens with prompt, and
// checks its advisories of kind with loopSays (third, wants).
func checkLoops(t *testing.T, prompt, kind string, third int, wants []string, cases []loopCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt(prompt)
			tc.run(s)
			s.loopSays(kind, tc.fires, third, wants...)
		})
	}
}

// TestRerunLoop: one test script run again and again with nothing written
// between, each time through another filter, is a tool-loop at the third
// run (ext-paymentkit #75-#77, a tool-loop to both judges of the
// twenty-ninth set); an edit, a subagent's work, another script's run (an
// install) or a user prompt between the runs, or a different script, makes
// each run a new one.
func TestRerunLoop(t *testing.T) {
	runs := []string{"pnpm run coverage 2>&1 | tail -100", `pnpm run coverage 2>&1 | grep -E "(Tests:|FAIL)" | tail -20`, `pnpm run coverage 2>&1 | grep -E "(22 passed|FAIL)"`}
	for _, tc := range []struct {
		name    string
		fires   bool
		between func(s *sim, i int)
	}{
		{"nothing between", true, func(s *sim, i int) {}},
		{"a read between", true, func(s *sim, i int) {
			s.tool("Read", jsonStr(map[string]any{"file_path": s.project + "/src/a.ts"}), map[string]any{"type": "text", "file": map[string]any{"filePath": s.project + "/src/a.ts", "content": "x", "numLines": 1, "startLine": 1, "totalLines": 1}})
		}},
		{"an edit between", false, func(s *sim, i int) {
			s.tool("Edit", jsonStr(map[string]any{"file_path": s.project + "/src/a.ts", "old_string": fmt.Sprint(i), "new_string": fmt.Sprint(i + 1)}), map[string]any{"filePath": s.project + "/src/a.ts"})
		}},
		{"a subagent between", false, func(s *sim, i int) {
			s.tool("Task", jsonStr(map[string]any{"description": "fix the failing tests", "prompt": "fix them"}), map[string]any{"content": []any{map[string]any{"type": "text", "text": "fixed"}}})
		}},
		{"the user between", false, func(s *sim, i int) { s.userPrompt(fmt.Sprintf("run it again, attempt %d", i)) }},
		// An install between may change what the run reads
		// (e-claudecodeconfig-1d7a8ab7 #51, false to both judges of the
		// thirteenth draw).
		{"an install between", false, func(s *sim, i int) {
			s.tool("Bash", jsonStr(map[string]any{"command": "pnpm install --frozen-lockfile 2>&1 | tail -20"}), bashOut("Done in 19.1s\n"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("fix every failing test in the coverage run")
			s.bashBetween(runs, tc.between, func(i int) string {
				return fmt.Sprintf("Tests: 389 passed, 389 total\nTime: %d.%ds\n", 40+i, i)
			})
			said, ok := s.loopWithin("tool-loop", tc.fires, 3)
			if ok && !strings.Contains(said, "pnpm run coverage") {
				t.Errorf("advisory does not name the run: %q", said)
			}
		})
	}
}

// TestInstallRerunNoLoop: an install run again through other filters is no
// rerun loop: it changes what it reads itself (p-dotfile-617b8d63 #23,
// false to both judges of the pool).
func TestInstallRerunNoLoop(t *testing.T) {
	s := newSim(t)
	s.userPrompt("get the dependencies installed")
	runs := []string{"npm install 2>&1 | tail -20", "npm install 2>&1 | grep -i err", "npm install 2>&1 | tail -5"}
	s.bashBetween(runs, func(*sim, int) {}, func(i int) string { return fmt.Sprintf("added %d packages\n", i) })
	s.loopWithin("tool-loop", false, 3)
}

// bashBetween runs commands[i] as a Bash call that prints printed(i),
// with between(s, i) before each call but the first.
func (s *sim) bashBetween(commands []string, between func(s *sim, i int), printed func(i int) string) {
	s.t.Helper()
	for i, c := range commands {
		if i > 0 {
			between(s, i)
		}
		s.tool("Bash", jsonStr(map[string]any{"command": c}), bashOut(printed(i)))
	}
}

// TestSleepPollLoop: a poll that sleeps and then looks at the same log,
// three times with longer waits and the same last lines, is a tool-loop at
// the third (ext-musdbtrain #24-#26, marked by both judges of the
// thirty-second set) that says the job is not moving; a log that moves on
// between looks, or bare sleeps, stay quiet.
func TestSleepPollLoop(t *testing.T) {
	stuck := "Generating 200000 examples with 48 workers\nLoading MUSDB18 audio...\n"
	for _, tc := range []struct {
		name  string
		fires bool
		cmd   func(i int) string
		out   func(i int) string
	}{
		{"the log stays put", true,
			func(i int) string { return fmt.Sprintf("sleep %d && tail -%d /tmp/gen200k.log", 30*(i+1), 5*(i+1)) },
			func(int) string { return stuck }},
		{"the log moves on", false,
			func(i int) string { return fmt.Sprintf("sleep %d && tail -%d /tmp/gen200k.log", 30*(i+1), 5*(i+1)) },
			func(i int) string { return stuck + fmt.Sprintf("generated %d/200000\n", 5000*i) }},
		{"bare sleeps", false,
			func(i int) string { return "sleep 30" },
			func(int) string { return "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("generate the 200k dataset and tell me when it is done")
			for i := range 3 {
				s.tool("Bash", jsonStr(map[string]any{"command": tc.cmd(i)}), bashOut(tc.out(i)))
			}
			said, ok := s.loopWithin("tool-loop", tc.fires, 3)
			if ok && (!strings.Contains(said, "poll") || !strings.Contains(said, "not moving") || !strings.Contains(said, "calls #1, #2 and #3")) {
				t.Errorf("advisory does not say the poll is not moving: %q", said)
			}
		})
	}
}

// TestEmptyLookLoop: a background job's output file looked at three times,
// each time another way and each time empty, with a status check between,
// is a tool-loop at the third look that says the file stays empty and
// why that can be (ext-hcrregistration #72-#81, marked by both judges of
// the thirty-ninth set); a file that printed something, or one the agent
// wrote between the looks, stays quiet.
func TestEmptyLookLoop(t *testing.T) {
	const out = "/tmp/claude/tasks/b3rbj8i2t.output"
	looks := []string{"tail -50 " + out + " 2>&1", "cat " + out + " 2>&1", "cat " + out + " 2>&1 | head -100"}
	for _, tc := range []struct {
		name    string
		fires   bool
		printed func(i int) string
		between func(s *sim, i int)
	}{
		{"empty each time", true, func(int) string { return "" }, func(s *sim, i int) {
			s.tool("Bash", jsonStr(map[string]any{"command": "ps aux | grep run_revival | grep -v grep"}), bashOut(fmt.Sprintf("root 381581 99.%d python3 run_revival.py\n", i)))
		}},
		{"the file fills", false, func(i int) string {
			if i == 1 {
				return "subject 1 of 6: done\n"
			}
			return ""
		}, func(s *sim, i int) {}},
		{"the agent truncates it between", false, func(int) string { return "" }, func(s *sim, i int) {
			if i == 2 {
				s.tool("Bash", jsonStr(map[string]any{"command": ": > " + out}), bashOut(""))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("run P1 on all six subjects and report the scores")
			s.bashBetween(looks, tc.between, tc.printed)
			said, ok := s.loopWithin("tool-loop", tc.fires, 5)
			if ok && (!strings.Contains(said, "empty each time") || !strings.Contains(said, "a pipe to tail or head holds all output")) {
				t.Errorf("advisory does not say the file stays empty and why: %q", said)
			}
		})
	}
}
