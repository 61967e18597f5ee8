package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const repairSID = "00000000-0000-4000-8000-000000000001"

// goodAnchor is a valid anchor.json as a hook writes it.
const goodAnchor = `{"schema_version":1,"session_id":"` + repairSID + `","text":"Fix the login redirect loop","hash":"5bff3399d9fa","intent_type":"bugfix","tokens":["fix","login"],"captured_at":"2026-11-21T10:00:00Z","source":"prompt","deltas":[],"delta_count":0,"pivots":0,"reorients":0}`

func writeSessionFile(t *testing.T, st *Store, name, content string) string {
	t.Helper()
	dir := filepath.Join(st.SessionsDir(), repairSID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadRepairsAnchorField: one hand-edited member of anchor.json (a
// string where a count goes) is reset to its default and named; the goal
// and every other member are kept, the original is moved aside, the
// repaired file is written, and the next load is quiet.
func TestLoadRepairsAnchorField(t *testing.T) {
	st, notices := testStore(t)
	p := writeSessionFile(t, st, "anchor.json", strings.Replace(goodAnchor, `"delta_count":0`, `"delta_count":"one"`, 1))
	var a Anchor
	found, rep, err := st.LoadRepaired(p, KindAnchor, &a)
	if err != nil || !found || rep == nil {
		t.Fatalf("found=%v rep=%v err=%v", found, rep, err)
	}
	if a.Text != "Fix the login redirect loop" || a.Hash != "5bff3399d9fa" || a.IntentType != "bugfix" || len(a.Tokens) != 2 || a.DeltaCount != 0 {
		t.Fatalf("repaired anchor lost a valid member: %+v", a)
	}
	if len(rep.Fields) != 1 || rep.Fields[0].Field != "delta_count" || !strings.Contains(rep.Fields[0].Problem, "expected integer") {
		t.Fatalf("repair = %+v, want delta_count named", rep.Fields)
	}
	if got := rep.Notice(); got != `djinn: repaired anchor.json (a hand edit?): "delta_count" was invalid and is reset to its default; the goal and the rest are kept (the original is anchor.json.corrupt-20261121T100000Z)` || !strings.Contains(got, "anchor.json.corrupt-20261121T100000Z") {
		t.Fatalf("notice = %q", got)
	}
	oneNotice(t, *notices, "delta_count")
	if b, err := os.ReadFile(p + ".corrupt-20261121T100000Z"); err != nil || !strings.Contains(string(b), `"one"`) {
		t.Fatalf("original not kept beside it: %q %v", b, err)
	}
	// Told once: the repaired file is on disk and loads quietly.
	var again Anchor
	found, rep, err = st.LoadRepaired(p, KindAnchor, &again)
	if err != nil || !found || rep != nil || again.Text != a.Text || len(*notices) != 1 {
		t.Fatalf("second load: found=%v rep=%v err=%v notices=%q", found, rep, err, *notices)
	}
}

// TestLoadRepairsAnchorHash: a bad hash is derived again from the text.
func TestLoadRepairsAnchorHash(t *testing.T) {
	st, _ := testStore(t)
	p := writeSessionFile(t, st, "anchor.json", strings.Replace(goodAnchor, `"hash":"5bff3399d9fa"`, `"hash":"XYZ"`, 1))
	var a Anchor
	found, rep, err := st.LoadRepaired(p, KindAnchor, &a)
	if err != nil || !found || rep == nil || a.Hash != AnchorHash(a.Text) {
		t.Fatalf("found=%v rep=%v err=%v hash=%q", found, rep, err, a.Hash)
	}
}

// TestLoadAnchorWithoutTextStartsFresh: an anchor whose text is what is
// broken holds no goal to keep; it is moved aside as before.
func TestLoadAnchorWithoutTextStartsFresh(t *testing.T) {
	st, notices := testStore(t)
	p := writeSessionFile(t, st, "anchor.json", strings.Replace(goodAnchor, `"text":"Fix the login redirect loop"`, `"text":7`, 1))
	var a Anchor
	found, rep, err := st.LoadRepaired(p, KindAnchor, &a)
	if err != nil || found || rep != nil {
		t.Fatalf("found=%v rep=%v err=%v", found, rep, err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) || len(*notices) != 1 || !strings.Contains((*notices)[0], "starting fresh") {
		t.Fatalf("not moved aside: %v %q", err, *notices)
	}
}

// TestLoadRepairsWindowTypo: a window.json cut short by a typo keeps the
// members before it, and its tool-call count is taken from the last line of
// turns.jsonl, so status and the log agree. A member that fails Validate
// deep inside (drift's threshold) resets that member only.
func TestLoadRepairsWindowTypo(t *testing.T) {
	st, _ := testStore(t)
	writeSessionFile(t, st, "turns.jsonl",
		`{"schema_version":1,"seq":15,"time":"2026-11-21T10:00:00Z","tool":"Read"}`+"\n"+
			`{"schema_version":1,"seq":16,"time":"2026-11-21T10:00:00Z","tool":"Bash"}`+"\n")
	p := writeSessionFile(t, st, "window.json", `{"schema_version":1,"session_id":"`+repairSID+`","project_dir":"/work/proj","events":{"PostToolUse":16},"disabled":["loops"],"drift":{"threshold":7},"tool_calls":"16","prompt_id":"p","loops":{"main":{"n":3,,`)
	var w Window
	found, rep, err := st.LoadRepaired(p, KindWindow, &w)
	if err != nil || !found || rep == nil {
		t.Fatalf("found=%v rep=%v err=%v", found, rep, err)
	}
	if w.ToolCalls != 16 || w.ProjectDir != "/work/proj" || w.Events["PostToolUse"] != 16 || len(w.Disabled) != 1 || w.Drift != nil {
		t.Fatalf("repaired window: %+v", w)
	}
	names := rep.Names()
	if !strings.Contains(names, `"drift"`) || !strings.Contains(names, `"tool_calls"`) || w.PromptID != "p" || !strings.Contains(names, "what followed the invalid JSON") {
		t.Fatalf("names = %q", names)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestPeekRepairsInMemory: status's read repairs in memory, moves and
// writes nothing.
func TestPeekRepairsInMemory(t *testing.T) {
	st, notices := testStore(t)
	bad := strings.Replace(goodAnchor, `"delta_count":0`, `"delta_count":"one"`, 1)
	p := writeSessionFile(t, st, "anchor.json", bad)
	var a Anchor
	found, err := st.Peek(p, KindAnchor, &a)
	if err != nil || !found || a.Text != "Fix the login redirect loop" {
		t.Fatalf("found=%v err=%v a=%+v", found, err, a)
	}
	if b, _ := os.ReadFile(p); string(b) != bad {
		t.Fatal("Peek changed the file")
	}
	if _, err := os.Stat(p + ".corrupt-20261121T100000Z"); err == nil {
		t.Fatal("Peek moved a copy aside")
	}
	oneNotice(t, *notices, "next hook will repair it")
}
