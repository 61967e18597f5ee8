package loops

import "testing"

// TestShellKeyCosmetic: variants that change only quoting, quiet
// redirects, path spelling or how much output is shown share a key; those
// that change what runs do not.
func TestShellKeyCosmetic(t *testing.T) {
	const dir = "/proj"
	same := [][]string{
		{"cat task.output | tail -10", "cat task.output | tail -15", "tail -n 20 task.output", "tail -5 ./task.output", "tail --lines=7 /proj/task.output", "cat 'task.output' | tail -n5 | less"},
		{"npm test", "npm test 2>&1", "npm test >/dev/null 2>&1", "npm  test 2>/dev/null", `npm "test"`},
		{"pytest tests/unit 2>&1 | tail -20", "pytest ./tests/unit 2>&1 | tail -40", "pytest /proj/tests/unit | tail -n 5"},
		{"make 2>&1 | head -30", "make | head -n 50"},
		{"cd /proj && tail -20 log.txt", "cd /proj && cat log.txt | tail -3"},
		{"./run.sh a/b", "/proj/run.sh ./a/b"},
		// How long a poll sleeps before it looks.
		{"tail -5 /tmp/gen.log", "sleep 30 && tail -5 /tmp/gen.log", "sleep 90; tail -n 15 /tmp/gen.log", "sleep 2m && tail -3 /tmp/gen.log"},
		{"gh run view 42", "sleep 60 && gh run view 42"},
	}
	for _, group := range same {
		k0, v0 := ShellKey(group[0], dir)
		for _, c := range group[1:] {
			if k, v := ShellKey(c, dir); k != k0 || v != v0 {
				t.Errorf("ShellKey(%q) = %q, %d; want %q, %d as for %q", c, k, v, k0, v0, group[0])
			}
		}
	}
	differ := [][2]string{
		{"tail -20 a.log", "tail -20 b.log"},
		{"tail -20 a.log", "head -20 a.log"},
		{"tail -20 a.log", "tail -f a.log"},
		{"tail -20 a.log", "tail -n +20 a.log"},
		{"npm test", "npm test > out.txt"},
		{"run.sh", "./run.sh"},
		{"pytest | tail -5", "pytest"},
		{"cat a.log", "tail a.log"},
		{"grep x a b", `grep "x a" b`},
		{"npm test", "npm test; npm run lint"},
		{"sleep 30", "sleep 60"},
		{"sleep 30 && tail -5 a.log", "sleep 30 || tail -5 a.log"},
		{"sleep $T && tail -5 a.log", "tail -5 a.log"},
	}
	for _, d := range differ {
		a, _ := ShellKey(d[0], dir)
		b, _ := ShellKey(d[1], dir)
		if a == b {
			t.Errorf("ShellKey(%q) = ShellKey(%q) = %q, want them different", d[0], d[1], a)
		}
	}
	views := map[string]View{
		"tail -20 log":                ViewTail,
		"make 2>&1 | head -5":         ViewHead,
		"npm test":                    ViewNone,
		"tail -5 a.log; ls":           ViewNone,
		"ls; tail -5 a.log":           ViewNone,
		"cd x && tail -5 a.log":       ViewTail,
		"tail -5 a.log > b":           ViewNone,
		"cat a | tail -5 | grep x":    ViewNone,
		"if true; then tail -5 a; fi": ViewNone,
		"sleep 30 && tail -5 a.log":   ViewTail,
		"sleep 30; tail -5 a.log":     ViewTail,
	}
	for c, want := range views {
		if _, v := ShellKey(c, dir); v != want {
			t.Errorf("ShellKey(%q) view = %d, want %d", c, v, want)
		}
	}
	if k, v := ShellKey("echo 'unterminated", dir); k != "echo 'unterminated" || v != ViewNone {
		t.Errorf("unparsable command: %q, %d", k, v)
	}
}

// TestOutputWindow: windows onto one unchanged output agree; a grown log
// does not; nothing printed is Empty.
func TestOutputWindow(t *testing.T) {
	log := "l1\nl2\nl3\nl4\nl5\nl6\n"
	var a, b, c, d Event
	a.Tool, b.Tool, c.Tool, d.Tool = "Bash", "Bash", "Bash", "Bash"
	a.Output("l3\nl4\nl5\nl6\n", ViewTail)
	b.Output(log, ViewTail)
	c.Output(log+"l7\n", ViewTail)
	d.Output(" \n\n", ViewTail)
	if a.Shown == "" || a.Shown != b.Shown {
		t.Errorf("tail windows of one log differ: %q %q", a.Shown, b.Shown)
	}
	if c.Shown == b.Shown {
		t.Error("a grown log shows the same last lines")
	}
	if !d.Empty || d.Shown != "" || a.Empty {
		t.Errorf("empty: %+v %+v", d, a)
	}
	var h1, h2 Event
	h1.Tool, h2.Tool = "Bash", "Bash"
	h1.Output("l1\nl2\nl3\n", ViewHead)
	h2.Output(log, ViewHead)
	if h1.Shown != h2.Shown {
		t.Error("head windows of one output differ")
	}
}
