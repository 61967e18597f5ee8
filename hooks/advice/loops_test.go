package advice

import (
	"slices"
	"strings"
	"testing"

	"github.com/djinn-cc/djinn/engines/loops"
)

func TestTellingLine(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"npm warnings before the exception",
			"npm warn Unknown env config \"verify-deps-before-run\". This will stop working in the next major version of npm.\nnpm warn Unknown env config \"store-dir\".\n\n> Build error occurred\n[TypeError: generate is not a function]\n\n> todo-app@0.1.0 build\n> next build",
			"[TypeError: generate is not a function]"},
		{"go test: the assertion, not FAIL or --- FAIL",
			"Exit code 1\n--- FAIL: TestAdd (0.00s)\n    add_test.go:8: Add(2, 2) = 4, want 5\nFAIL\nFAIL\tgithub.com/x/y\t0.012s",
			"add_test.go:8: Add(2, 2) = 4, want 5"},
		{"go: downloading lines first",
			"Exit code 1\ngo: downloading github.com/a/b v1.2.3\ngo: downloading golang.org/x/mod v0.1.0\n./main.go:10:2: undefined: Foo",
			"./main.go:10:2: undefined: Foo"},
		{"a shell start-up error printed on every command",
			"Exit code 2\n/root/.bashrc: line 12: nvm: command not found\nmake: *** [build] Error 2\ncc: error: foo.c: No such file or directory",
			"cc: error: foo.c: No such file or directory"},
		{"python traceback: the exception line",
			"Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n    if a == b:\nKeyError: 'id'",
			"KeyError: 'id'"},
		{"pytest assertion",
			"F\n=== FAILURES ===\n    def test_add():\n>       assert add(2, 2) == 5\nE       assert 4 == 5\nFAILED test_x.py::test_add",
			">       assert add(2, 2) == 5"},
		{"pytest --tb=long: an assert of the source before the failing one",
			"=== FAILURES ===\n    def test_el():\n        r_low = client.post(\"/ask\", json=low)\n        assert r_low.status_code == 200\n        high_ans = ask(high)\n>       assert high_ans < low_ans\nE       assert 53.42 < 53.42\nFAILED test_el.py::test_el",
			">       assert high_ans < low_ans"},
		{"python traceback: the exception after an assert of the source",
			"Traceback (most recent call last):\n  File \"t.py\", line 4, in <module>\n    assert total == 10, total\nAssertionError: 9",
			"AssertionError: 9"},
		{"rust error code",
			"   Compiling x v0.1.0\nwarning: unused variable\nerror[E0308]: mismatched types",
			"error[E0308]: mismatched types"},
		{"plain message", "Exit code 3\nboom", "boom"},
		{"only an exit code", "Exit code 3", "Exit code 3"},
		{"only noise", "npm warn a\nnpm warn b", "npm warn a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := TellingLine(tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFailLoopWording(t *testing.T) {
	base := loops.Finding{Pattern: loops.FailLoop, Target: "go test ./...", Count: 3, Events: []uint64{1, 3, 5}, Fingerprint: "x"}
	for _, tc := range []struct {
		edits        int
		want, absent string
	}{
		{0, "with no edit in between", "did not change"},
		{1, "and the edit made in between did not change it", "were made"},
		{2, "and the 2 edits made in between did not change it", "edit was"},
	} {
		f := base
		f.Edits = tc.edits
		text := Loop(f, LoopContext{ErrorText: "Exit code 1\nFAIL\n    a_test.go:3: got 1, want 2"}).Text
		if !strings.Contains(text, tc.want) || strings.Contains(text, tc.absent) {
			t.Errorf("edits %d: %q; want %q, not %q", tc.edits, text, tc.want, tc.absent)
		}
		for _, never := range []string{"none touched the cause", "1 edit were", "1 edits"} {
			if strings.Contains(text, never) {
				t.Errorf("edits %d: %q says %q", tc.edits, text, never)
			}
		}
		if !strings.Contains(text, `The error: "a_test.go:3: got 1, want 2".`) {
			t.Errorf("edits %d: %q does not quote the assertion", tc.edits, text)
		}
	}
}

func TestFailLoopAcrossCalls(t *testing.T) {
	f := loops.Finding{Pattern: loops.FailLoop, Tool: "MultiEdit", Target: "/p/a.ts", Count: 3, Events: []uint64{1, 3, 4}, Key: "/p/a.ts",
		Steps: []loops.Step{{Tool: "Edit", Target: "/p/a.ts"}, {Tool: "MultiEdit", Target: "/p/a.ts"}}}
	text := Loop(f, LoopContext{ErrorText: "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"}).Text
	for _, want := range []string{"3 calls failed with the same failure: \"/p/a.ts\"", "#1, #3 and #4", "Edit \"/p/a.ts\", MultiEdit \"/p/a.ts\"", "File has not been read yet"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q lacks %q", text, want)
		}
	}
	f = loops.Finding{Pattern: loops.FailLoop, Tool: "Bash", Target: "npx next dev", Count: 3, Events: []uint64{1, 3, 5}, Key: "address in use :3000",
		Steps: []loops.Step{{Tool: "Bash", Target: "npm run dev"}, {Tool: "Bash", Target: "npx next dev"}}}
	text = Loop(f, LoopContext{ErrorText: "Exit code 1\nnpm warn Unknown env config\nError: listen EADDRINUSE: address already in use :::3000"}).Text
	for _, want := range []string{"the same failure: \"address in use :3000\"", "Bash \"npm run dev\", Bash \"npx next dev\"", "Error: listen EADDRINUSE: address already in use :::3000"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q lacks %q", text, want)
		}
	}
}

func TestReadableTarget(t *testing.T) {
	for in, want := range map[string]string{
		`{"bash_id":"d66418"}`:                     "bash_id d66418",
		`{"block":true,"task_id":"b1"}`:            "block true, task_id b1",
		"git commit -m \"Add … EOF )\"#2882337086": "git commit -m \"Add … EOF )\"",
		"deploy.sh#2882337086":                     "deploy.sh#2882337086", // not clipped: the name's own
		`{"a":{"b":1}}`:                            `{"a":{"b":1}}`,
		"go test ./...":                            "go test ./...",
	} {
		if got := readable(in); got != want {
			t.Errorf("readable(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSettledNextCoversRetryProof: every failure the engine counts as a
// loop at its second round has the next step that changes it, and no step
// is kept for a key the engine no longer knows.
func TestSettledNextCoversRetryProof(t *testing.T) {
	keys := loops.RetryProofKeys()
	for _, k := range keys {
		if settledNext[k] == "" {
			t.Errorf("no next step for the retry-proof failure %q", k)
		}
	}
	for k := range settledNext {
		if !slices.Contains(keys, k) {
			t.Errorf("a next step for %q, which the engine does not count as retry-proof", k)
		}
	}
}

// TestSettledNextSaysOnlyWhatIsKnown: a next step offers every cause the
// failure allows, not one it guesses. npm's missing script is also a script
// renamed in that very package.json (ext-agilepain #130: lint:tw had become
// lint; "find the package.json that defines them" was labelled false by
// both judges).
func TestSettledNextSaysOnlyWhatIsKnown(t *testing.T) {
	for _, tc := range []struct {
		key       string
		says, not []string
	}{
		{loops.MissingScriptKey, []string{"list its scripts", "under another name", "npm --prefix"}, []string{"has none of these", "defines them"}},
	} {
		next := settledNext[tc.key]
		for _, w := range tc.says {
			if !strings.Contains(next, w) {
				t.Errorf("%s: %q lacks %q", tc.key, next, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(next, w) {
				t.Errorf("%s: %q says %q", tc.key, next, w)
			}
		}
	}
}
