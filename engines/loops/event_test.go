package loops

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCanonicalInput(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"sorted keys", `{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"nested sorted", `{"z":{"y":1,"x":[{"d":1,"c":2}]}}`, `{"z":{"x":[{"c":2,"d":1}],"y":1}}`},
		{"whitespace", " {\n \"a\" : [ 1 , 2 ] }\n", `{"a":[1,2]}`},
		{"volatile dropped", `{"command":"ls","description":"List","timeout":5000,"run_in_background":false,"dangerouslyDisableSandbox":true}`, `{"command":"ls"}`},
		{"task_progress dropped", `{"path":"x","task_progress":"- [x] a"}`, `{"path":"x"}`},
		{"nested description kept", `{"questions":[{"description":"d"}]}`, `{"questions":[{"description":"d"}]}`},
		{"number spellings", `{"a":1.0,"b":1e2,"c":-0,"d":0.5,"e":12345678901234567890}`, `{"a":1,"b":100,"c":0,"d":0.5,"e":12345678901234567890}`},
		{"escapes", `{"s":"a\u0041\"\\\n<>&é"}`, `{"s":"aA\"\\\n<>&é"}`},
		{"control char", `{"s":"\u0001"}`, `{"s":"\u0001"}`},
		{"duplicate key last wins", `{"a":1,"a":2}`, `{"a":2}`},
		{"scalar", `"x"`, `"x"`},
		{"invalid", `{"a":`, `!{"a":`},
		{"trailing garbage", `{"a":1} ]`, `!{"a":1} ]`},
		{"two values", `{} {}`, `!{} {}`},
		{"empty", ``, `!`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CanonicalInput([]byte(tt.in)); got != tt.want {
				t.Errorf("CanonicalInput(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestResultHash(t *testing.T) {
	a := `{"durationMs":12,"filenames":["a.go","b.go"],"numFiles":2,"truncated":false}`
	b := `{"numFiles":2,"truncated":false,"filenames":["a.go","b.go"],"durationMs":40}`
	c := `{"numFiles":2,"truncated":false,"filenames":["a.go","c.go"],"durationMs":40}`
	if ResultHash([]byte(a)) != ResultHash([]byte(b)) {
		t.Error("Glob results differing only in durationMs and key order hash differently")
	}
	if ResultHash([]byte(a)) == ResultHash([]byte(c)) {
		t.Error("Glob results with different files hash the same")
	}
	poll1 := `{"stdout":"progress 45%","stderr":""}`
	poll2 := `{"stdout":"progress 50%","stderr":""}`
	if ResultHash([]byte(poll1)) == ResultHash([]byte(poll2)) {
		t.Error("output that changes only in a number must be a changed result (polling)")
	}
	if got := len(ResultHash([]byte(a))); got != 16 {
		t.Errorf("hash length %d, want 16", got)
	}
	// BashOutput (2.0.x) stamps each poll at the top level; the same
	// answer at another time is the same result (mthis-ssh), while a
	// timestamp inside the content is content.
	out1 := `{"shellId":"d66418","status":"running","stdout":"","stderr":"** WARNING","timestamp":"2025-12-06T08:27:25.871Z"}`
	out2 := `{"shellId":"d66418","status":"running","stdout":"","stderr":"** WARNING","timestamp":"2025-12-06T08:27:28.832Z"}`
	if ResultHash([]byte(out1)) != ResultHash([]byte(out2)) {
		t.Error("polls differing only in their top-level timestamp hash differently")
	}
	rec1 := `{"records":[{"id":1,"timestamp":"2025-12-06T08:27:25Z"}]}`
	rec2 := `{"records":[{"id":1,"timestamp":"2025-12-06T09:00:00Z"}]}`
	if ResultHash([]byte(rec1)) == ResultHash([]byte(rec2)) {
		t.Error("a nested timestamp is content, yet was dropped")
	}
}

// TestResultHashLarge: a response over MaxCanonicalResult is hashed as
// written, allocating nothing in proportion to it: the same bytes are the
// same result, a changed byte a changed one.
func TestResultHashLarge(t *testing.T) {
	text := strings.Repeat("0123456789abcdef", MaxCanonicalResult/16)
	a := []byte(`[{"type":"text","text":"` + text + `"}]`)
	b := []byte(` [{"type":"text","text":"` + text + `"}]` + "\n")
	c := []byte(`[{"type":"text","text":"` + text + `!"}]`)
	if ResultHash(a) != ResultHash(b) {
		t.Error("the same large response hashes differently")
	}
	if ResultHash(a) == ResultHash(c) {
		t.Error("large responses differing in one byte hash the same")
	}
	if got := len(ResultHash(a)); got != 16 {
		t.Errorf("hash length %d, want 16", got)
	}
	if n := testing.AllocsPerRun(3, func() { ResultHash(a) }); n > 8 {
		t.Errorf("%v allocations per hash of a large response", n)
	}
}

func TestTargetOf(t *testing.T) {
	long := strings.Repeat("echo hello; ", 40)
	tests := []struct {
		name, tool, in, target, rng string
	}{
		{"read whole", "Read", `{"file_path":"/p/a.go"}`, "/p/a.go", ""},
		{"read offset limit", "Read", `{"file_path":"/p/a.go","offset":100,"limit":50}`, "/p/a.go", "lines 100-149"},
		{"read offset only", "Read", `{"file_path":"/p/a.go","offset":100}`, "/p/a.go", "lines 100-"},
		{"read limit only", "Read", `{"file_path":"/p/a.go","limit":50}`, "/p/a.go", "lines 1-50"},
		{"read offset 1 is whole", "Read", `{"file_path":"/p/a.go","offset":1}`, "/p/a.go", ""},
		{"read quoted numbers", "Read", `{"file_path":"/p/a.go","offset":"100","limit":"50"}`, "/p/a.go", "lines 100-149"},
		{"read pages", "Read", `{"file_path":"/p/a.pdf","pages":"1-5"}`, "/p/a.pdf", "pages 1-5"},
		{"read path cleaned", "Read", `{"file_path":"/p/./src/../a.go"}`, "/p/a.go", ""},
		{"edit", "Edit", `{"file_path":"/p/a.go","old_string":"x","new_string":"y"}`, "/p/a.go", ""},
		{"multiedit", "MultiEdit", `{"file_path":"/p/a.go","edits":[]}`, "/p/a.go", ""},
		{"write", "Write", `{"file_path":"/p/a.go","content":"x"}`, "/p/a.go", ""},
		{"notebook", "NotebookEdit", `{"notebook_path":"/p/n.ipynb","new_source":"x"}`, "/p/n.ipynb", ""},
		{"bash collapsed", "Bash", `{"command":"  go   test\n ./... ","description":"x"}`, "go test ./...", ""},
		{"grep path", "Grep", `{"pattern":"func New","path":"/p/src","glob":"*.go"}`, "func New in /p/src", ""},
		{"glob no path", "Glob", `{"pattern":"**/*.go"}`, "**/*.go", ""},
		{"webfetch", "WebFetch", `{"url":"https://example.com","prompt":"x"}`, "https://example.com", ""},
		{"websearch", "WebSearch", `{"query":"go fuzz"}`, "go fuzz", ""},
		{"mcp canonical", "mcp__s__t", `{"b":1,"a":"x"}`, `{"a":"x","b":1}`, ""},
		{"mcp invalid", "mcp__s__t", `nope`, `!nope`, ""},
		{"read without path", "Read", `{}`, `{}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target, rng := TargetOf(tt.tool, json.RawMessage(tt.in))
			if target != tt.target || rng != tt.rng {
				t.Errorf("TargetOf(%s, %s) = %q, %q; want %q, %q", tt.tool, tt.in, target, rng, tt.target, tt.rng)
			}
		})
	}
	t.Run("long command clipped", func(t *testing.T) {
		a, _ := TargetOf("Bash", json.RawMessage(`{"command":"`+long+`A"}`))
		b, _ := TargetOf("Bash", json.RawMessage(`{"command":"`+long+`B"}`))
		if len(a) > MaxTarget || !utf8.ValidString(a) {
			t.Errorf("clipped target %q: %d bytes", a, len(a))
		}
		if a == b {
			t.Error("commands that differ after the clip point got the same target")
		}
		if !strings.HasPrefix(a, "echo hello;") {
			t.Errorf("clipped target lost its head: %q", a)
		}
	})
}

func TestNewEvent(t *testing.T) {
	e1 := NewEvent("Bash", json.RawMessage(`{"command":"ls","description":"a"}`))
	e2 := NewEvent("Bash", json.RawMessage(`{"description":"b","command":"ls","timeout":1}`))
	if e1 != e2 {
		t.Errorf("events of the same call differ: %+v vs %+v", e1, e2)
	}
	if e1.Target != "ls" || len(e1.Input) != 16 {
		t.Errorf("event %+v", e1)
	}
}

func TestErrorFingerprint(t *testing.T) {
	same := [][2]string{
		{"Exit code 1\nFAIL at /tmp/go-build123/b001/x_test.go:12:5 after 0.23s", "Exit code 2\nFAIL at /tmp/go-build9/b001/x_test.go:40:1 after 1m2.5s"},
		{"request 550e8400-e29b-41d4-a716-446655440000 failed", "request 123e4567-e89b-12d3-a456-426614174000 failed"},
		{"commit a1b2c3d4e5f6 not found", "commit 0f9e8d7c6b5a not found"},
		{"at 2026-04-27T10:11:12Z: timeout", "at 2025-01-02 09:08:07: timeout"},
		{"took 120ms", "took 3 seconds"},
		{"  spaced\t\tout \n text ", "spaced out text"},
		{"tool toolu_01ABCdefGHI failed", "tool toolu_99xyz failed"},
		{"Compiling 1 file", "Compiling 41 files"},
		{`C:\Users\me\proj\a.go: bad`, `D:\work\a.go: bad`},
		{"open ./src/a.go: no such file", "open lib/old/src/a.go: no such file"},
		{"at 0x7ffd1234", "at 0xdeadbeef"},
		// Volatile numbers: timings, ports, temp dirs, addresses, PIDs,
		// seeds, dates, positions and counts of nouns.
		{"--- FAIL: TestAdd (0.012s)\nadd_test.go:8: Add(2, 2) = 4, want 5\nFAIL\tgithub.com/x/y\t0.015s",
			"--- FAIL: TestAdd (1.5s)\nadd_test.go:9: Add(2, 2) = 4, want 5\nFAIL\tgithub.com/x/y\t2.1s"},
		{"listen tcp 127.0.0.1:43521: bind: address already in use", "listen tcp 127.0.0.1:38007: bind: address already in use"},
		{"server on port 8080 refused", "server on port 9090 refused"},
		{"open /tmp/TestFoo1234567/001/cfg.json: denied", "open /tmp/TestFoo7654321/002/cfg.json: denied"},
		{"open /tmp/pytest-of-root/pytest-12/test_a0/x.db: locked", "open /tmp/pytest-of-root/pytest-13/test_a1/x.db: locked"},
		{"panic: nil map\ngoroutine 7 [running]:\nmain.f(0xc000012345)", "panic: nil map\ngoroutine 19 [running]:\nmain.f(0xc0000a8f00)"},
		{"(node:12345) DeprecationWarning: x", "(node:678) DeprecationWarning: x"},
		{"worker pid=4242 crashed", "worker pid=977 crashed"},
		{"Randomized with seed 4711", "Randomized with seed 1234"},
		{"at 10:11:12 the build broke", "at 23:59:01 the build broke"},
		{"Jan 2 log written at 1714212345", "Jan 2 log written at 1714299999"},
		{"Time: 1.234 s\nTests: 1 failed, 2 passed", "Time: 3.9 s\nTests: 1 failed, 2 passed"},
		{`File "x.py", line 12, in f\nKeyError: 'id'`, `File "x.py", line 14, in f\nKeyError: 'id'`},
		{"exit status 1", "exit status 2"},
		{"Allocated 1234 bytes", "Allocated 99 bytes"},
		{"go: downloading github.com/a/b v1.2.3\n./main.go:10:2: undefined: Foo", "./main.go:10:2: undefined: Foo"},
		{"npm warn Unknown env config \"x\".\n[TypeError: generate is not a function]", "[TypeError: generate is not a function]"},
		// A colour code, and dotenv's tip drawn at random on every run
		// (ext-debtmarket #80, #85: one HH404 twice).
		{"Exit code 1\n\x1b[31m\x1b[1mError\x1b[22m\x1b[39m HH404: File a.sol not found.\n\n[dotenv@17.2.3] injecting env (0) from .env -- tip: ⚙️  suppress all logs with { quiet: true }",
			"Exit code 1\nError HH404: File a.sol not found.\n\n[dotenv@17.2.3] injecting env (0) from .env -- tip: ⚙️  override existing env vars with { override: true }"},
		// The CLI's refusals of a write until the file is read, however
		// worded (mthis-logsync, calls 25, 27, 29).
		{"File has been unexpectedly modified. Read it again before attempting to write it.", "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"},
		{"File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.", "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"},
		// The CLI's refusals of an Edit whose text the file does not hold,
		// each quoting another string (ext-omarchy #45, #48, #51).
		{"<tool_use_error>String to replace not found in file.\nString:     \"format\": \"{capacity}% {icon}\",</tool_use_error>", "<tool_use_error>String to replace not found in file.\nString:     \"format\": \"{icon}\",\n    \"on-click\": \"omarchy-launch-audio\",</tool_use_error>"},
	}
	for _, p := range same {
		t.Run("same/"+p[0], func(t *testing.T) {
			a, b := ErrorFingerprint(p[0]), ErrorFingerprint(p[1])
			if a != b {
				t.Errorf("fingerprints differ:\n%q -> %q\n%q -> %q", p[0], a, p[1], b)
			}
		})
	}
	different := [][2]string{
		{"undefined: Foo", "undefined: Bar"},
		{"/p/a.go:12: syntax error", "/p/b.go:12: syntax error"},
		{"permission denied", "no such file or directory"},
		{"word defaced here", "word effaced here"},
		// Result values: assertions, got/want, expected/actual, counts of
		// failures.
		{"add_test.go:8: Add(2, 2) = 4, want 5", "add_test.go:8: Add(2, 2) = 5, want 5"},
		{"parse_test.go:12: got 3 want 4", "parse_test.go:12: got 5 want 4"},
		{"E       assert 4 == 5", "E       assert 3 == 5"},
		{"AssertionError: 4 != 5", "AssertionError: 6 != 5"},
		{"Expected: 4\nReceived: 5", "Expected: 4\nReceived: 6"},
		{"expected 3 items, got 4 items", "expected 3 items, got 5 items"},
		{"Tests: 3 failed, 2 passed, 5 total", "Tests: 2 failed, 3 passed, 5 total"},
		{"Found 3 errors in 2 files", "Found 2 errors in 2 files"},
		{"HTTP status 500", "HTTP status 404"},
		{"error TS2345: bad argument", "error TS2322: bad argument"},
		{"0.1 + 0.2 = 0.30000000000000004", "0.1 + 0.2 = 0.3"},
	}
	for _, p := range different {
		t.Run("different/"+p[0], func(t *testing.T) {
			if ErrorFingerprint(p[0]) == ErrorFingerprint(p[1]) {
				t.Errorf("%q and %q share the fingerprint %q", p[0], p[1], ErrorFingerprint(p[0]))
			}
		})
	}
	t.Run("bounded and distinct in the middle", func(t *testing.T) {
		head := "Exit code 1\n" + strings.Repeat("compiling module ok\n", 50)
		tail := strings.Repeat("\nsummary line", 20)
		a := ErrorFingerprint(head + "undefined: Foo" + tail)
		b := ErrorFingerprint(head + "undefined: Bar" + tail)
		if len(a) > MaxFingerprint || len(b) > MaxFingerprint {
			t.Errorf("lengths %d, %d over %d", len(a), len(b), MaxFingerprint)
		}
		if a == b {
			t.Errorf("errors differing in the middle share %q", a)
		}
	})
	t.Run("huge input", func(t *testing.T) {
		s := strings.Repeat("x/y/z 123 ", 100000)
		if got := ErrorFingerprint(s); len(got) > MaxFingerprint {
			t.Errorf("length %d", len(got))
		}
	})
	t.Run("example", func(t *testing.T) {
		got := ErrorFingerprint("Exit code 1\n--- FAIL: TestParse (0.01s)\n    parse_test.go:12: got 3, want 4\nFAIL\tgithub.com/x/y\t0.015s")
		want := "Exit code <n> --- FAIL: TestParse (<dur>) parse_test.go:<n>: got 3, want 4 FAIL …/y <dur>"
		if got != want {
			t.Errorf("got %q\nwant %q", got, want)
		}
	})
}
