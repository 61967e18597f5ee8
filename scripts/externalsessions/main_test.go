package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestLines(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"jsonl kept byte for byte", "{\"a\":1}\n{\"b\": 2}\n", "{\"a\":1}\n{\"b\": 2}\n"},
		{"array one element a line", "[\n  {\"a\": 1},\n  {\"b\": \"x\\u003cy\"}\n]\n", "{\"a\":1}\n{\"b\":\"x\\u003cy\"}\n"},
		{"array after white space", " \n[{\"a\":[1, 2]}]", "{\"a\":[1,2]}\n"},
		{"empty array", "[]", ""},
		{"empty file", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Lines([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("Lines(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if _, err := Lines([]byte(`[{"a":1},`)); err == nil {
		t.Error("a cut array: no error")
	}
}

// FuzzLines: an array becomes as many lines as it has elements, each the
// element itself (the same JSON value); anything else passes through.
func FuzzLines(f *testing.F) {
	for _, s := range []string{`[{"a":1},{"b":[2,3]}]`, "{\"a\":1}\n", `["x\ny"]`, `[`, ` [1, "2", null]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := Lines(in)
		trimmed := bytes.TrimLeft(in, " \t\r\n")
		if len(trimmed) == 0 || trimmed[0] != '[' {
			if err != nil || !bytes.Equal(got, in) {
				t.Fatalf("not an array: changed or refused (%v)", err)
			}
			return
		}
		var elems []json.RawMessage
		if json.Unmarshal(trimmed, &elems) != nil {
			if err == nil {
				t.Fatal("an array that does not decode was accepted")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSuffix(got, []byte("\n")), []byte("\n"))
		if len(elems) == 0 {
			if len(got) != 0 {
				t.Fatalf("empty array gave %q", got)
			}
			return
		}
		if len(lines) != len(elems) {
			t.Fatalf("%d elements, %d lines", len(elems), len(lines))
		}
		for i, l := range lines {
			var a, b any
			if json.Unmarshal(l, &a) != nil || json.Unmarshal(elems[i], &b) != nil {
				t.Fatalf("line %d does not decode: %q", i, l)
			}
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if !bytes.Equal(ja, jb) {
				t.Fatalf("line %d is %s, element is %s", i, ja, jb)
			}
		}
	})
}

func TestReadSources(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sources.tsv")
	os.WriteFile(p, []byte("# comment\nname\trepository\tcommit\tpath\tsha256\n\ns\to/r\tabc\tlogs/chat.json\tff\n"), 0o644)
	got, err := readSources(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Source{"s", "o/r", "abc", "logs/chat.json", "ff"}); len(got) != 1 || got[0] != want {
		t.Errorf("readSources = %+v, want [%+v]", got, want)
	}
	os.WriteFile(p, []byte("name\trepository\tcommit\tpath\tsha256\ns\to/r\tabc\n"), 0o644)
	if _, err := readSources(p); err == nil {
		t.Error("a row of three columns: no error")
	}
}

// TestRunRefusesOtherBytes: a session whose bytes are not the judged ones
// is refused and not written; the judged ones are written, and a second
// run leaves them.
func TestRunRefusesOtherBytes(t *testing.T) {
	mirrors, dir := t.TempDir(), t.TempDir()
	repo := filepath.Join(mirrors, "o+r", "repo")
	work := t.TempDir()
	for _, args := range [][]string{{"init", "-q", work}} {
		if err := git("", args...); err != nil {
			t.Skip("git:", err)
		}
	}
	os.MkdirAll(filepath.Join(work, "logs"), 0o755)
	os.WriteFile(filepath.Join(work, "logs", "chat.json"), []byte(`[{"type":"user"}]`), 0o644)
	for _, args := range [][]string{{"add", "."}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "x"}} {
		if err := git(work, args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := git("", "clone", "-q", "--bare", work, repo); err != nil {
		t.Fatal(err)
	}
	good := sum([]byte("{\"type\":\"user\"}\n"))
	tsv := "name\trepository\tcommit\tpath\tsha256\nok\to/r\tHEAD\tlogs/chat.json\t" + good + "\nbad\to/r\tHEAD\tlogs/chat.json\t00\n"
	os.WriteFile(filepath.Join(dir, "sources.tsv"), []byte(tsv), 0o644)
	if err := run(dir, mirrors); err == nil {
		t.Fatal("a session with other bytes: no error")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sessions", "ok.jsonl")); err != nil || string(b) != "{\"type\":\"user\"}\n" {
		t.Errorf("ok.jsonl = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sessions", "bad.jsonl")); err == nil {
		t.Error("bad.jsonl was written")
	}
}

// TestRunNested: a subagent's transcript, named by its place beside the
// session's, is written there; a name that leaves sessions/ is refused
// before anything is fetched.
func TestRunNested(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	tmp := t.TempDir()
	work := filepath.Join(tmp, "work")
	body := "{\"type\":\"user\"}\n"
	for _, args := range [][]string{
		{"init", "-q", work},
		{"-C", work, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "x"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	if err := os.MkdirAll(filepath.Join(work, "s"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "s", "agent-a1.jsonl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-C", work, "add", "."},
		{"-C", work, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "y"},
		{"clone", "-q", "--bare", work, filepath.Join(tmp, "mirrors", "o+r", "repo")},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	write := func(name string) string {
		dir := filepath.Join(tmp, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		src := "name\trepository\tcommit\tpath\tsha256\n" + name + "\to/r\tHEAD\ts/agent-a1.jsonl\t" + sum([]byte(body)) + "\n"
		if err := os.WriteFile(filepath.Join(dir, "sources.tsv"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir := write("sid")
	// The same row, named as a subagent's file of session sid.
	src, _ := os.ReadFile(filepath.Join(dir, "sources.tsv"))
	src = bytes.Replace(src, []byte("\nsid\t"), []byte("\nsid/subagents/agent-a1\t"), 1)
	if err := os.WriteFile(filepath.Join(dir, "sources.tsv"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, filepath.Join(tmp, "mirrors")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "sessions", "sid", "subagents", "agent-a1.jsonl"))
	if err != nil || string(got) != body {
		t.Fatalf("nested session: %q, %v", got, err)
	}
	bad := write("bad")
	src, _ = os.ReadFile(filepath.Join(bad, "sources.tsv"))
	src = bytes.Replace(src, []byte("\nbad\t"), []byte("\n../escape\t"), 1)
	if err := os.WriteFile(filepath.Join(bad, "sources.tsv"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(bad, filepath.Join(tmp, "mirrors")); err == nil {
		t.Fatal("a name outside sessions/ was accepted")
	}
	if _, err := os.Stat(filepath.Join(bad, "escape.jsonl")); err == nil {
		t.Fatal("a file was written outside sessions/")
	}
}
