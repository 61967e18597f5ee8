package state

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReconcile: the lines a hook logged in window.json are appended to
// the log exactly when, and as far as, the log lacks them; what it has is
// never written twice. The oracle is the log as a hook that was not
// interrupted leaves it.
func TestReconcile(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	turn := func(seq int) *Turn {
		return &Turn{SchemaVersion: SchemaVersion, Seq: seq, Time: at, Tool: "Bash", Summary: "go test ./..."}
	}
	st := &Store{}
	line := func(seq int) string {
		raw, err := st.EncodeLine(KindTurn, turn(seq))
		if err != nil {
			t.Fatal(err)
		}
		return string(raw) + "\n"
	}
	old := line(1) + line(2)
	full := old + line(3) + line(4) // what the interrupted hook meant to leave
	cases := []struct {
		name     string
		before   string // the log after the kill; "-" means no file
		restored int
	}{
		{"all appended", full, 0},
		{"none appended", old, 2},
		{"one of two appended", old + line(3), 1},
		{"torn mid-line", old + line(3) + line(4)[:20], 1},
		{"torn first line", old + line(3)[:7], 2},
		{"no log yet", "-", 2},
		{"empty log", "", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var notices []string
			st := &Store{Notice: func(m string) { notices = append(notices, m) }}
			path := filepath.Join(t.TempDir(), "turns.jsonl")
			if c.before != "-" {
				if err := os.WriteFile(path, []byte(c.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			n, err := st.Reconcile(path, KindTurn, []any{turn(3), turn(4)})
			if err != nil || n != c.restored {
				t.Fatalf("Reconcile = %d, %v; want %d", n, err, c.restored)
			}
			got, _ := os.ReadFile(path)
			// Whole lines, in order, nothing there twice; and no torn
			// fragment left for every later reader to skip and report: a
			// restore cuts it off.
			if n > 0 && !strings.HasSuffix(string(got), "\n") {
				t.Errorf("log after a restore does not end its last line: %q", got)
			}
			for _, l := range strings.SplitAfter(string(got), "\n") {
				if l != "" && !json.Valid([]byte(l)) {
					t.Errorf("log after Reconcile keeps an invalid line %q", l)
				}
			}
			var whole []string
			for _, l := range strings.SplitAfter(string(got), "\n") {
				if json.Valid(bytes.TrimSpace([]byte(l))) && l != "" {
					whole = append(whole, l)
				}
			}
			want := full
			if c.before == "-" || c.before == "" {
				want = line(3) + line(4)
			}
			if strings.Join(whole, "") != want {
				t.Errorf("log after Reconcile:\n%s\nwant its whole lines to be:\n%s", got, want)
			}
			if (n > 0) != (len(notices) == 1) {
				t.Errorf("notices %q for %d restored lines", notices, n)
			}
			if torn := strings.HasPrefix(c.name, "torn"); len(notices) == 1 && torn != strings.HasSuffix(notices[0], "its torn last line was cut off") {
				t.Errorf("notice %q for %s", notices[0], c.name)
			}
			// Reconciling again finds everything there.
			if n, err := st.Reconcile(path, KindTurn, []any{turn(3), turn(4)}); n != 0 || err != nil {
				t.Errorf("second Reconcile = %d, %v; want 0", n, err)
			}
		})
	}
}
