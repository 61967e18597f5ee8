package loops

import (
	"path"
	"strings"
)

// maxTestKeys bounds how many failing tests one call's output contributes
// to its failure keys, and maxTestID and maxTestMessage the bytes of a
// test's name and message in its key (Event.Fail stays under 1 KiB).
const (
	maxTestKeys    = 3
	maxTestID      = 120
	maxTestMessage = 100
)

// testKeySep separates a failing test's name from its message inside a
// key, and keySep the keys of one event (Event.Fail).
const (
	testKeySep = "\x1f"
	keySep     = "\n"
)

// testFailure is one failing test a runner's output names: its id (the
// file and test path, or the test function) and, when the runner prints it
// beside the name, the assertion's message, normalised by ErrorFingerprint
// so that volatile numbers drop out and result values stay.
type testFailure struct {
	id, file, name, msg string
}

// testFailures finds the failing tests a test runner's output names:
// vitest and jest ("FAIL file > suite > test", "● suite › test"), pytest
// ("FAILED file::test - message"), go test ("--- FAIL: TestX") and cargo
// ("test path ... FAILED"). Each test is listed once, in order.
func testFailures(text string) []testFailure {
	// Every runner's marker holds "FAIL" but jest's "●": most outputs hold
	// neither and are not split into lines at all.
	if !strings.Contains(text, "FAIL") && !strings.Contains(text, "● ") {
		return nil
	}
	if len(text) > maxFailureInput {
		text = text[:maxFailureInput/2] + "\n" + text[len(text)-maxFailureInput/2:]
	}
	lines := strings.Split(text, "\n")
	var out []testFailure
	add := func(t testFailure) {
		for i := range out {
			if out[i].id == t.id {
				if out[i].msg == "" {
					out[i].msg = t.msg
				}
				return
			}
		}
		out = append(out, t)
	}
	for i, raw := range lines {
		l := strings.TrimSpace(raw)
		if l == "" || len(l) > maxFailureLine {
			continue
		}
		switch {
		case strings.HasPrefix(l, "FAIL ") && strings.Contains(l, " > "):
			// vitest: FAIL  test/a.test.ts > Suite > does a thing
			id := strings.TrimSpace(l[len("FAIL "):])
			file, name, _ := strings.Cut(id, " > ")
			add(testFailure{id: id, file: file, name: lastPart(name, " > "), msg: messageAfter(lines, i)})
		case strings.HasPrefix(l, "● ") && strings.Contains(l, " › "):
			// jest: ● Suite › does a thing
			id := strings.TrimSpace(l[len("● "):])
			add(testFailure{id: id, name: lastPart(id, " › "), msg: messageAfter(lines, i)})
		case strings.HasPrefix(l, "FAILED ") && strings.Contains(l, "::"):
			// pytest: FAILED tests/test_a.py::test_b - AssertionError: …
			id, msg, _ := strings.Cut(l[len("FAILED "):], " - ")
			id = strings.TrimSpace(id)
			file, name, _ := strings.Cut(id, "::")
			add(testFailure{id: id, file: file, name: lastPart(name, "::"), msg: normalMessage(msg)})
		case strings.HasPrefix(l, "--- FAIL: "):
			// go test: --- FAIL: TestX/sub (0.00s)
			f := strings.Fields(l[len("--- FAIL: "):])
			if len(f) == 0 {
				continue
			}
			name, _, _ := strings.Cut(f[0], "/")
			add(testFailure{id: f[0], name: name, msg: messageAfter(lines, i)})
		case strings.HasPrefix(l, "test ") && strings.HasSuffix(l, " ... FAILED"):
			// cargo: test parser::tests::empty ... FAILED
			id := strings.TrimSpace(l[len("test ") : len(l)-len(" ... FAILED")])
			add(testFailure{id: id, name: lastPart(id, "::")})
		}
	}
	return out
}

func lastPart(s, sep string) string {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return strings.TrimSpace(s[i+len(sep):])
	}
	return strings.TrimSpace(s)
}

// messageAfter is the assertion message a runner prints in the lines
// after a failing test's name, when they read as one ("AssertionError: …",
// "x_test.go:12: got 4, want 5", jest's "Expected: 4" and "Received: 3"
// after its matcher line); "" otherwise. It stops at the next test.
func messageAfter(lines []string, i int) string {
	var parts []string
	for j := i + 1; j < len(lines) && j <= i+8 && len(parts) < 2; j++ {
		l := strings.TrimSpace(lines[j])
		if l == "" || strings.HasPrefix(l, "expect(") {
			continue
		}
		if strings.HasPrefix(l, "FAIL") || strings.HasPrefix(l, "--- FAIL") || strings.HasPrefix(l, "● ") || strings.HasPrefix(l, "✓") || strings.HasPrefix(l, "×") {
			break
		}
		low := strings.ToLower(l)
		for _, w := range []string{"error", "expected", "received", "got", "want", "assert", "panic"} {
			if strings.Contains(low, w) {
				parts = append(parts, l)
				break
			}
		}
	}
	return normalMessage(strings.Join(parts, " "))
}

// quoteName quotes a test's name for its key (its own double quotes
// become single ones, so the key reads plainly in an advisory).
func quoteName(s string) string { return `"` + strings.ReplaceAll(s, `"`, `'`) + `"` }

func normalMessage(m string) string {
	m = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(m), "→"))
	if m == "" {
		return ""
	}
	return ErrorFingerprint(m)
}

// testKeys are the failure keys of the failing tests an output names that
// the command ran by name: the command names the test's file or the test
// itself. A test that fails in every run of a whole suite while the agent
// works on something else is not what the agent is iterating on, so a
// suite run that does not name it gives it no key.
func testKeys(command, text string) []string {
	if command == "" {
		return nil
	}
	var keys []string
	for _, t := range testFailures(text) {
		if !names(command, t) {
			continue
		}
		// The key names the test as a person would (its own name, and its
		// file when the runner gives one); the name and the message are
		// bounded apart, so that a clipped key still tells one from the
		// other.
		name := t.name
		if name == "" {
			name = t.id
		}
		k := "test failed " + quoteName(clip(strings.ToValidUTF8(name, "\uFFFD"), maxTestID, 60))
		if t.file != "" {
			k += " in " + clip(strings.ToValidUTF8(t.file, "\uFFFD"), maxTestID, 60)
		}
		if t.msg != "" {
			k += testKeySep + clip(strings.ToValidUTF8(t.msg, "\uFFFD"), maxTestMessage, 60)
		}
		keys = append(keys, k)
		if len(keys) == maxTestKeys {
			break
		}
	}
	return keys
}

// names tells whether command names the test t: its file (by path or base
// name) or the test's own name.
func names(command string, t testFailure) bool {
	if t.file != "" {
		if strings.Contains(command, t.file) || strings.Contains(command, path.Base(t.file)) {
			return true
		}
	}
	return len(t.name) >= 4 && strings.Contains(command, t.name)
}

// CommandFailureKeys is what a shell command's failure is about, read from
// its error text or from the output of a command that exited 0 (then only
// its own output counts, as for OutputFailureKey): the class-and-target key
// of FailureKey, and the failing tests the command ran by name, at most
// 1+maxTestKeys keys joined by newlines ("" when none). Two calls whose
// keys share one, with compatible messages, met the same failure.
func CommandFailureKeys(command, text string, exited0 bool) string {
	var keys []string
	if exited0 {
		k := OutputFailureKey(command, text)
		if k == "" && !ownOutput(command) {
			return ""
		}
		if k != "" {
			keys = append(keys, k)
		}
	} else if k := interruptKey(command, text); k != "" {
		return k
	} else if k := FailureKey(text); k != "" {
		keys = append(keys, k)
		if strings.HasPrefix(k, PortBusyKey) && len(testKeys(command, text)) == 0 {
			// A server started in the foreground again finds its port
			// held by the run before it: the same failure as a run
			// killed by its timeout, a server run the wrong way (a test
			// that cannot bind is not one).
			if t := foregroundKey(command); t != "" {
				keys = append(keys, t)
			}
		}
	} else if emptyFailure(text) {
		if k := selfKillKey(command, text); k != "" {
			keys = append(keys, k)
		} else if k := noMatchKey(command); k != "" && !killsByCommandLine(command) {
			// A command that may have killed its own shell first says
			// nothing of its last check: "pkill -9 -f next-server; …;
			// netstat | grep 8231 || echo free" ended with a bare "Exit
			// code 1" (g-work-42c11128 #358-#383, read as a check that
			// found nothing: false to both judges).
			keys = append(keys, k)
		}
	} else if k := timeoutKey(command, text); k != "" {
		keys = append(keys, k)
	}
	keys = append(keys, testKeys(command, text)...)
	return strings.Join(keys, keySep)
}

// failKeys splits Event.Fail into its keys.
func failKeys(fail string) []string {
	if fail == "" {
		return nil
	}
	return strings.Split(fail, keySep)
}

// sameFailureKey tells whether two keys name the same failure: equal, or
// the same failing test where at most one of them shows the message (a
// filtered output may print only the test's name).
func sameFailureKey(a, b string) bool {
	if a == b {
		return true
	}
	for _, class := range pathClasses {
		pa, okA := strings.CutPrefix(a, class)
		pb, okB := strings.CutPrefix(b, class)
		if okA && okB {
			return samePath(pa, pb)
		}
	}
	ida, ma, _ := strings.Cut(a, testKeySep)
	idb, mb, _ := strings.Cut(b, testKeySep)
	return strings.HasPrefix(ida, "test failed ") && ida == idb && (ma == "" || mb == "")
}

// pathClasses are the keys whose target is a path, which one call names
// absolute and the next relative to where it ran.
var pathClasses = []string{"permission denied ", "no such file "}

// samePath tells whether two paths may name one file: equal, or the one
// (less a leading "./") ends the other at a "/" ("./a/b.yml" and
// "/home/u/a/b.yml"). A bare name ("b.yml") is too loose to match a path.
func samePath(a, b string) bool {
	a, b = strings.TrimPrefix(a, "./"), strings.TrimPrefix(b, "./")
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return strings.Contains(a, "/") && strings.HasSuffix(b, "/"+a)
}

// keyShown is a key as an advisory shows it: a test's key without its
// message.
func keyShown(k string) string {
	id, _, _ := strings.Cut(k, testKeySep)
	return id
}
