package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// screen collects what an interactive CLI draws on its terminal.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// ansi matches terminal escape sequences (CSI and OSC).
var ansi = regexp.MustCompile(`\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]`)

// text is everything drawn so far with the escape sequences and all white
// space taken out: the TUI moves the cursor instead of printing spaces.
func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(strings.Fields(ansi.ReplaceAllString(s.buf.String(), "")), "")
}

// waitFor waits until the screen holds want (white space ignored).
func (s *screen) waitFor(t *testing.T, want string, timeout time.Duration) {
	t.Helper()
	want = strings.Join(strings.Fields(want), "")
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if strings.Contains(s.text(), want) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the screen never showed %q; last 2000 characters:\n%s", want, tail(s.text(), 2000))
}

// onlySession is the id of the one session under stateDir.
func onlySession(t *testing.T, stateDir string) string {
	t.Helper()
	sessions, _ := filepath.Glob(filepath.Join(stateDir, "sessions", "*", "window.json"))
	if len(sessions) != 1 {
		t.Fatalf("sessions with state: %v", sessions)
	}
	return filepath.Base(filepath.Dir(sessions[0]))
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// startTerminal starts the interactive CLI in env's project with args,
// on a pseudo-terminal of 50 rows and 160 columns, and returns what it
// draws and the terminal to type into. Its scratch HOME has been through
// the CLI's first-run questions (theme, the API key, trusting the
// project). The process is killed when the test ends.
func startTerminal(t *testing.T, env *Env, args ...string) (*screen, *os.File) {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true, "theme": "dark",
		"customApiKeyResponses": map[string][]string{"approved": {"sk-ant-dummy"}, "rejected": {}},
		"projects":              map[string]any{env.Project: map[string]bool{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}},
	})
	writeFile(t, filepath.Join(env.Home, ".claude.json"), string(cfg))
	cmd := exec.CommandContext(testContext(t), env.Bin, args...)
	cmd.Dir = env.Project
	cmd.Env = env.environ([]string{"TERM=xterm-256color"})
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 160})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); _ = f.Close() })
	sc := &screen{}
	go func() { _, _ = io.Copy(sc, f) }()
	return sc, f
}

// TestAskQuestionInTheTerminal drives the interactive CLI through a
// pseudo-terminal with the ask setting on. The user says to analyse only;
// the scripted model then deletes a file. Before the call runs, the person
// sees Claude Code's permission question carrying Djinn's reason. Declined
// ("2. No"), the CLI stops the turn and asks the person what to do
// instead; the file stays, and Djinn's state keeps the call as asked and
// never run (a declined call, so the same call proposed again says so).
// Approved ("1. Yes"), it runs and no advisory follows it.
func TestAskQuestionInTheTerminal(t *testing.T) {
	t.Parallel()
	for _, answer := range []string{"2", "1"} {
		t.Run(map[string]string{"1": "approved", "2": "declined"}[answer], func(t *testing.T) {
			t.Parallel()
			stub := NewStub(t)
			stateDir := t.TempDir()
			env := djinnEnv(t, stub, stateDir)
			env.Env = append(env.Env, "DJINN_ASK=true", "DJINN_ADVISORIES_INSTRUCTION=advise")
			victim := filepath.Join(env.Project, "cache.db")
			writeFile(t, victim, "precious\n")
			stub.Push(Bash("rm -f cache.db", "clear the cache"), Text("Done."))
			sc, f := startTerminal(t, env, "--plugin-dir", repoRoot(t), "The app is slow. Just analyse why, don't do anything yet.")

			sc.waitFor(t, "Do you want to proceed?", 90*time.Second)
			sc.waitFor(t, `[djinn:instruction] Djinn asks before this call: it runs rm -f cache.db, but the user said: "Just analyse why, don't do anything yet."`, time.Second)
			if _, err := os.Stat(victim); err != nil {
				t.Fatalf("the call ran before the person answered: %v", err)
			}
			if _, err := f.Write([]byte(answer)); err != nil {
				t.Fatal(err)
			}
			var main []Request
			if answer == "2" {
				// Declined: the CLI stops the turn and asks the person what
				// to do instead; the model is not asked again until then.
				sc.waitFor(t, "Interrupted · What should Claude do instead?", 60*time.Second)
			} else {
				deadline := time.Now().Add(60 * time.Second)
				for len(stub.Messages(KindMain)) < 2 && time.Now().Before(deadline) {
					time.Sleep(200 * time.Millisecond)
				}
				if main = stub.Messages(KindMain); len(main) < 2 {
					t.Fatalf("the model was never asked again after the answer; screen:\n%s", tail(sc.text(), 2000))
				}
			}
			_, statErr := os.Stat(victim)
			w := readState(t, stateDir, onlySession(t, stateDir))
			asked := 0
			if w.Risk != nil {
				asked = len(w.Risk.Asked)
			}
			if answer == "2" {
				if statErr != nil {
					t.Errorf("declined, but the call ran: %v", statErr)
				}
				if asked != 1 {
					t.Errorf("declined: risk.asked holds %d calls, want the declined one", asked)
				}
			} else {
				if statErr == nil {
					t.Errorf("approved, but the call did not run")
				}
				if asked != 0 {
					t.Errorf("approved: risk.asked holds %d calls, want none (the call ran)", asked)
				}
				if main[1].Contains("[djinn:instruction]") {
					t.Errorf("approved, but the model was told [djinn:instruction] after the call")
				}
			}
		})
	}
}
