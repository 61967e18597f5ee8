package loops

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCommandFailureKeys(t *testing.T) {
	for _, tc := range []struct {
		name, command, output string
		exited0               bool
		want                  []string
	}{
		{"vitest, named file, message after", "npx vitest run test/a.test.ts", " FAIL  test/a.test.ts > Suite > adds up\nAssertionError: expected 3 to be 4\n ❯ test/a.test.ts:12:7", true,
			[]string{"test failed \"adds up\" in test/a.test.ts\x1fAssertionError: expected 3 to be 4"}},
		{"vitest, only the name", "npx vitest run a.test.ts | grep FAIL", " FAIL  test/a.test.ts > Suite > adds up", true,
			[]string{"test failed \"adds up\" in test/a.test.ts"}},
		{"vitest, a suite run names no test", "npm test", " FAIL  test/a.test.ts > Suite > adds up\nAssertionError: expected 3 to be 4", true, nil},
		{"jest, by test name", "npx jest -t 'adds up'", "  ● Suite › adds up\n\n    expect(received).toBe(expected) // Object.is equality\n\n    Expected: 4\n    Received: 3\n\n  ● Suite › other", false,
			[]string{"test failed \"adds up\"\x1fExpected: 4 Received: 3"}},
		{"pytest short summary", "pytest tests/test_calc.py -x", "FAILED tests/test_calc.py::test_add - assert 3 == 4", false,
			[]string{"test failed \"test_add\" in tests/test_calc.py\x1fassert 3 == 4"}},
		{"go test, message on the next line, line numbers volatile", "go test ./calc -run TestAdd", "--- FAIL: TestAdd (0.01s)\n    calc_test.go:9: Add(1, 2) = 4, want 3\nFAIL", false,
			[]string{"test failed \"TestAdd\"\x1fcalc_test.go:<n>: Add(1, 2) = 4, want 3"}},
		{"cargo", "cargo test parser::tests::empty", "test parser::tests::empty ... FAILED", false,
			[]string{"test failed \"empty\""}},
		{"a class key and a test key", "go test ./srv -run TestListen", "--- FAIL: TestListen (0.00s)\n    listen tcp :8080: bind: address already in use", false,
			[]string{"address in use :8080", "test failed \"TestListen\""}},
		{"a reader's output is not its own", "cat out.log | tail", " FAIL  test/a.test.ts > Suite > adds up", true, nil},
		{"passing tests only", "npx vitest run test/a.test.ts", " ✓ test/a.test.ts > Suite > adds up 2ms", true, nil},
		{"at most three tests", "pytest tests/test_a.py", "FAILED tests/test_a.py::t1 - x\nFAILED tests/test_a.py::t2 - x\nFAILED tests/test_a.py::t3 - x\nFAILED tests/test_a.py::t4 - x", false,
			[]string{"test failed \"t1\" in tests/test_a.py\x1fx", "test failed \"t2\" in tests/test_a.py\x1fx", "test failed \"t3\" in tests/test_a.py\x1fx"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := failKeys(CommandFailureKeys(tc.command, tc.output, tc.exited0))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSameFailureKey(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"address in use :3000", "address in use :3000", true},
		{"address in use :3000", "address in use :3001", false},
		{"test failed \"t\"\x1fgot 4", "test failed \"t\"", true},
		{"test failed \"t\"", "test failed \"t\"\x1fgot 4", true},
		{"test failed \"t\"\x1fgot 4", "test failed \"t\"\x1fgot 5", false},
		{"test failed \"t\"", "test failed \"u\"", false},
		{"missing x\x1fa", "missing x", false},
		// A path key matches the same path spelled from another directory.
		{"permission denied /home/u/w/a.yml", "permission denied ./w/a.yml", true},
		{"permission denied ./w/a.yml", "permission denied w/a.yml", true},
		{"no such file /p/src/x.ts", "no such file src/x.ts", true},
		{"permission denied /home/u/w/a.yml", "permission denied a.yml", false}, // a bare name is too loose
		{"permission denied /home/u/w/a.yml", "permission denied ./v/a.yml", false},
		{"permission denied /home/u/w/a.yml", "no such file /home/u/w/a.yml", false},
		{"permission denied /home/u/xw/a.yml", "permission denied w/a.yml", false},
	} {
		if got := sameFailureKey(tc.a, tc.b); got != tc.want {
			t.Errorf("sameFailureKey(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// FuzzCommandFailureKeys: any command and output give at most four keys,
// each well under Event.Fail's 1 KiB bound, with no key separator inside a
// key.
func FuzzCommandFailureKeys(f *testing.F) {
	f.Add("npx vitest run a.test.ts", " FAIL  a.test.ts > S > t\nAssertionError: x", true)
	f.Add("pytest t.py", "FAILED t.py::a - b\nFAILED t.py::c", false)
	f.Add("go test -run TestA", "--- FAIL: TestA (0.00s)\n    a_test.go:1: got 1", false)
	f.Fuzz(func(t *testing.T, command, output string, exited0 bool) {
		fail := CommandFailureKeys(command, output, exited0)
		if len(fail) > 1024 {
			t.Fatalf("Fail is %d bytes", len(fail))
		}
		if keys := failKeys(fail); len(keys) > 1+maxTestKeys {
			t.Fatalf("%d keys", len(keys))
		}
	})
}
