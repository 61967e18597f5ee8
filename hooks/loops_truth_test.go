package hooks

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// editFile runs a successful Edit of path from old to new content, as the
// CLI reports it: the file on disk already holds new, and the response
// carries the original.
func (s *sim) editFile(path, old, new string) Response {
	s.t.Helper()
	s.file(strings.TrimPrefix(path, s.project+"/"), new)
	in := jsonStr(map[string]any{"file_path": path, "old_string": old, "new_string": new})
	return s.tool("Edit", in, map[string]any{"filePath": path, "oldString": old, "newString": new, "originalFile": old, "structuredPatch": []any{}, "userModified": false, "replaceAll": false})
}

// writeFile runs a successful Write of the whole of path from old to new
// content, as the CLI reports it.
func (s *sim) writeFile(path, old, new string) Response {
	s.t.Helper()
	s.file(strings.TrimPrefix(path, s.project+"/"), new)
	in := jsonStr(map[string]any{"file_path": path, "content": new})
	return s.tool("Write", in, map[string]any{"type": "update", "filePath": path, "content": new, "originalFile": old, "structuredPatch": []any{}})
}

// readFile runs a successful Read of path; extra holds offset and limit.
func (s *sim) readFile(path, content string, extra map[string]any) Response {
	s.t.Helper()
	in := map[string]any{"file_path": path}
	for k, v := range extra {
		in[k] = v
	}
	n := strings.Count(content, "\n") + 1
	return s.tool("Read", jsonStr(in), map[string]any{"type": "text", "file": map[string]any{"filePath": path, "content": content, "numLines": n, "startLine": 1, "totalLines": n}})
}

// TestEditRevertOnlyTheAgentsOwn: a revert is a write of the agent's that
// undoes a write of the agent's, to content the agent saw whole. Failed
// edits, partial reads and changes someone else made are not.
func TestEditRevertOnlyTheAgentsOwn(t *testing.T) {
	const a, b, c = "package a\n\nconst V = 1\n", "package a\n\nconst V = 2\n", "package a\n\nconst V = 3\n"
	notRead := "File has not been read yet. Read it first before writing to it."
	for _, tc := range []struct {
		name  string
		fires bool
		run   func(s *sim, p string)
	}{
		{"failed edits, a read, one forward edit", false, func(s *sim, p string) {
			s.readFile(p, a, nil)
			in := jsonStr(map[string]any{"file_path": p, "old_string": a, "new_string": b})
			s.fail("Edit", in, "<tool_use_error>"+notRead+"</tool_use_error>")
			s.fail("Edit", in, "<tool_use_error>"+notRead+"</tool_use_error>")
			s.readFile(p, a, nil)
			s.editFile(p, a, b)
		}},
		{"a failed edit answered as a PostToolUse error string", false, func(s *sim, p string) {
			s.readFile(p, a, nil)
			in := jsonStr(map[string]any{"file_path": p, "old_string": a, "new_string": b})
			s.tool("Edit", in, "Error: "+notRead)
			s.tool("Edit", in, "Error: File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.")
			s.readFile(p, a, nil)
			s.editFile(p, a, b)
		}},
		{"a partial read gives no hash of the whole file", false, func(s *sim, p string) {
			s.readFile(p, "package a", map[string]any{"offset": 1, "limit": 1})
			s.file("a.go", b) // someone else changes the file
			s.editFile(p, b, c)
			s.editFile(p, c, a)
		}},
		{"the agent re-applies its edit after someone else undid it", false, func(s *sim, p string) {
			s.editFile(p, a, b)
			s.file("a.go", a) // the user reverts it
			s.readFile(p, a, nil)
			s.editFile(p, a, b)
		}},
		// A revert that is a loop: a whole-file Write back to old content
		// (a lone revert by a targeted Edit is recorded only, below).
		{"a whole read, then an edit undone", true, func(s *sim, p string) {
			s.readFile(p, a, nil)
			s.editFile(p, a, b)
			s.writeFile(p, b, a)
		}},
		{"a lone targeted Edit that puts the old text back is recorded, not said", false, func(s *sim, p string) {
			s.readFile(p, a, nil)
			s.editFile(p, a, b)
			s.editFile(p, b, a)
		}},
		{"the same edit undone twice: the edits go back and forth", true, func(s *sim, p string) {
			s.readFile(p, a, nil)
			s.editFile(p, a, b)
			s.editFile(p, b, a)
			s.editFile(p, a, b)
		}},
		{"an edit undone with a failed edit between", true, func(s *sim, p string) {
			s.editFile(p, a, b)
			s.fail("Edit", jsonStr(map[string]any{"file_path": p, "old_string": "x", "new_string": "y"}), "<tool_use_error>String to replace not found in file.</tool_use_error>")
			s.writeFile(p, b, a)
		}},
		{"after someone else's change, the agent undoes its own edit", true, func(s *sim, p string) {
			s.readFile(p, a, nil)
			s.file("a.go", b)
			s.editFile(p, b, c)
			s.writeFile(p, c, a)
		}},
		// mthis-netdiag, calls 79-104: a router's config rewritten whole
		// over ssh, the query log switched on, off, on, off.
		{"a remote config rewritten back and forth over ssh", true, func(s *sim, p string) {
			for _, v := range []string{"on", "off", "on"} {
				cmd := "ssh root@10.0.0.1 'cat > /etc/blocky/config.yml << \"EOF\"\nports:\n  dns: 5335\nqueryLog: " + v + "\nEOF'"
				s.tool("Bash", jsonStr(map[string]any{"command": cmd}), map[string]any{"stdout": "", "stderr": "", "interrupted": false, "isImage": false})
			}
			if n := len(s.said); n == 0 || !strings.Contains(s.said[n-1], `"10.0.0.1:/etc/blocky/config.yml" to the content it had at call #1`) {
				s.t.Errorf("the revert does not name the remote file: %q", s.said)
			}
		}},
		{"a script rewritten by heredocs, new each time", false, func(s *sim, p string) {
			for _, v := range []string{"1", "2", "3"} {
				cmd := "cat > " + p + " << 'EOF'\npackage a\n\nconst V = " + v + "\nEOF"
				s.tool("Bash", jsonStr(map[string]any{"command": cmd}), map[string]any{"stdout": "", "stderr": "", "interrupted": false, "isImage": false})
			}
		}},
		{"a heredoc puts back what a Read showed, after an Edit", true, func(s *sim, p string) {
			s.readFile(p, a, nil)
			s.editFile(p, a, b)
			cmd := "cat > " + p + " << 'EOF'\n" + a + "EOF"
			s.tool("Bash", jsonStr(map[string]any{"command": cmd}), map[string]any{"stdout": "", "stderr": "", "interrupted": false, "isImage": false})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("Set V in a.go")
			p := s.file("a.go", a)
			tc.run(s, p)
			if got := s.count("edit-revert"); (got > 0) != tc.fires {
				t.Errorf("edit-revert advisories: %d, want fires=%v; said %q", got, tc.fires, s.said)
			}
			for _, said := range s.said {
				if strings.HasPrefix(said, "[djinn:edit-revert]") && !strings.Contains(said, "undoing ") {
					t.Errorf("a revert that undoes nothing: %q", said)
				}
			}
		})
	}
}

// TestFailLoopTruth: volatile numbers do not split a failure, a changed
// result does, and the advisory quotes the telling line and says only
// what is known of the edits between.
func TestFailLoopTruth(t *testing.T) {
	goTest := jsonStr(map[string]any{"command": "go test ./..."})
	run := func(got int, secs float64, port int, tmp string) string {
		return fmt.Sprintf("Exit code 1\ngo: downloading github.com/a/b v1.2.3\n--- FAIL: TestAdd (%.3fs)\n    add_test.go:8: Add(2, 2) = %d, want 5\n    server.go:40: listening on 127.0.0.1:%d in %s\nFAIL\nFAIL\tgithub.com/x/y\t%.3fs", secs, got, port, tmp, secs+0.004)
	}
	t.Run("volatile numbers still loop", func(t *testing.T) {
		s := newSim(t)
		s.userPrompt("Fix Add")
		s.fail("Bash", goTest, run(4, 0.012, 43521, "/tmp/TestAdd123/001"))
		s.fail("Bash", goTest, run(4, 0.231, 38007, "/tmp/TestAdd987/001"))
		s.fail("Bash", goTest, run(4, 1.5, 51234, "/tmp/TestAdd555/001"))
		if s.count("fail-loop") != 1 {
			t.Fatalf("fail-loop advisories: %d; said %q", s.count("fail-loop"), s.said)
		}
		text := s.said[len(s.said)-1]
		for _, want := range []string{"failed 3 times in a row with the same error", "with no edit in between", `The error: "add_test.go:8: Add(2, 2) = 4, want 5".`} {
			if !strings.Contains(text, want) {
				t.Errorf("%q lacks %q", text, want)
			}
		}
	})
	// editBetween: Add gives 4, an edit, then Add gives got twice.
	editBetween := func(t *testing.T, got int) *sim {
		s := newSim(t)
		s.userPrompt("Fix Add")
		f := s.file("add.go", "v1")
		s.fail("Bash", goTest, run(4, 0.012, 43521, "/tmp/TestAdd123/001"))
		s.editFile(f, "v1", "v2")
		s.fail("Bash", goTest, run(got, 0.02, 43522, "/tmp/TestAdd124/001"))
		s.fail("Bash", goTest, run(got, 0.03, 43523, "/tmp/TestAdd125/001"))
		return s
	}
	t.Run("a result changed by an edit is no loop", func(t *testing.T) {
		s := editBetween(t, 5)
		if n := s.count("fail-loop"); n != 0 {
			t.Errorf("fail-loop advisories: %d; said %q", n, s.said)
		}
	})
	t.Run("an edit that did not change the failure", func(t *testing.T) {
		s := editBetween(t, 4)
		if s.count("fail-loop") != 1 {
			t.Fatalf("fail-loop advisories: %d; said %q", s.count("fail-loop"), s.said)
		}
		text := s.said[len(s.said)-1]
		if !strings.Contains(text, "and the edit made in between did not change it") || strings.Contains(text, "none touched") || strings.Contains(text, "were made") {
			t.Errorf("wording: %q", text)
		}
	})
}

// TestFailLoopSameFailureOtherMeans: the same failure met through other
// tools or commands is a loop (issue 20); retries that change the target,
// and exit-0 output that only mentions an error, are not.
func TestFailLoopSameFailureOtherMeans(t *testing.T) {
	notRead := "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
	inUse := func(cmd string, port int) (string, string) {
		return jsonStr(map[string]any{"command": cmd}), fmt.Sprintf("Exit code 1\nnpm warn Unknown env config \"store-dir\".\nError: listen EADDRINUSE: address already in use :::%d", port)
	}
	bash := func(cmd, stdout string) (string, map[string]any) {
		return jsonStr(map[string]any{"command": cmd}), map[string]any{"stdout": stdout, "stderr": "", "interrupted": false, "isImage": false}
	}
	for _, tc := range []struct {
		name  string
		fires int // the call (1-based) at which the one fail-loop comes; 0 for none
		want  []string
		run   func(s *sim, p string)
	}{
		{"Write, Edit, MultiEdit on one unread file", 3, []string{"3 calls failed with the same failure", "Write", "MultiEdit", "File has not been read yet"}, func(s *sim, p string) {
			s.fail("Write", jsonStr(map[string]any{"file_path": p, "content": "x"}), notRead)
			s.fail("Edit", jsonStr(map[string]any{"file_path": p, "old_string": "a", "new_string": "b"}), notRead)
			s.fail("MultiEdit", jsonStr(map[string]any{"file_path": p, "edits": []any{map[string]any{"old_string": "a", "new_string": "b"}}}), notRead)
		}},
		{"28 failing Edits of one file in a batch: one advisory", 3, []string{"failed 3 times in a row"}, func(s *sim, p string) {
			for i := range 28 {
				s.fail("Edit", jsonStr(map[string]any{"file_path": p, "old_string": fmt.Sprint(i), "new_string": "b"}), notRead)
			}
		}},
		// ext-omarchy #45, #48, #51 (twenty-ninth set): three Edits of one
		// config whose text the file did not hold (icons the agent could
		// not see), a Read and a sed between.
		{"three Edits of one file whose text is not there", 6, []string{"failed 3 times in a row", "copy them exactly"}, func(s *sim, p string) {
			nf := func(str string) string {
				return "<tool_use_error>String to replace not found in file.\nString: " + str + "</tool_use_error>"
			}
			s.fail("Edit", jsonStr(map[string]any{"file_path": p, "old_string": `"format": "{icon}"`, "new_string": "b"}), nf("    \"format\": \"{capacity}% {icon}\",\n    \"format-discharging\": \"{icon}\",\n    \"format-plugged\": \"\","))
			s.tool("Read", jsonStr(map[string]any{"file_path": p, "offset": 80, "limit": 10}), map[string]any{"type": "text", "file": map[string]any{"filePath": p, "content": "  \"format\": \"{icon}\"", "numLines": 1, "startLine": 80, "totalLines": 100}})
			s.fail("Edit", jsonStr(map[string]any{"file_path": p, "old_string": `"format-charging": "{icon}"`, "new_string": "b"}), nf("    \"format-discharging\": \"{icon}\",\n    \"format-charging\": \"{icon}\","))
			kin, kout := bash("sed -i 's/a/b/' "+p, "")
			s.tool("Bash", kin, kout)
			s.tool("Read", jsonStr(map[string]any{"file_path": p, "offset": 90, "limit": 10}), map[string]any{"type": "text", "file": map[string]any{"filePath": p, "content": "x", "numLines": 1, "startLine": 90, "totalLines": 100}})
			s.fail("Edit", jsonStr(map[string]any{"file_path": p, "old_string": `"on-click": "x"`, "new_string": "b"}), nf("    \"format\": \"{icon}\",\n    \"on-click\": \"omarchy-launch-audio\","))
		}},
		{"an Edit of each of three files whose text is not there", 0, nil, func(s *sim, p string) {
			for _, f := range []string{"a.ts", "b.ts", "c.ts"} {
				s.fail("Edit", jsonStr(map[string]any{"file_path": s.project + "/" + f, "old_string": "a" + f, "new_string": "b"}), "<tool_use_error>String to replace not found in file.\nString: a"+f+"</tool_use_error>")
			}
		}},
		{"edits of three files without reading them", 0, nil, func(s *sim, p string) {
			for _, f := range []string{"a.ts", "b.ts", "c.ts"} {
				s.fail("Edit", jsonStr(map[string]any{"file_path": s.project + "/" + f, "old_string": "a", "new_string": "b"}), notRead)
			}
		}},
		{"the port in use through varied commands", 5, []string{"the same failure: \"address in use :3000\"", "Error: listen EADDRINUSE: address already in use :::3000"}, func(s *sim, p string) {
			in, e := inUse("npm run dev", 3000)
			s.fail("Bash", in, e)
			kin, kout := bash("pkill -f 'next dev'", "")
			s.tool("Bash", kin, kout)
			in, e = inUse("PORT=3000 node server.js", 3000)
			s.fail("Bash", in, e)
			kin, kout = bash("lsof -ti:3000 | xargs kill -9", "123")
			s.tool("Bash", kin, kout)
			in, e = inUse("npx next dev -p 3000", 3000)
			s.fail("Bash", in, e)
		}},
		{"each retry on another port", 0, nil, func(s *sim, p string) {
			for i, cmd := range []string{"npm run dev", "PORT=3001 npm run dev", "PORT=3002 npm run dev"} {
				in, e := inUse(cmd, 3000+i)
				s.fail("Bash", in, e)
			}
		}},
		{"a script that catches the error and exits 0", 3, []string{"authentication failed for user", "fail password authentication failed for user \\\"app\\\""}, func(s *sim, p string) {
			for i := range 3 {
				in, resp := bash(fmt.Sprintf("node -e \"require('./db').check(%d)\"", i), "fail password authentication failed for user \"app\"")
				s.tool("Bash", in, resp)
			}
		}},
		{"exit-0 output that only quotes an error", 0, nil, func(s *sim, p string) {
			for range 3 {
				in, resp := bash("grep -rn 'EADDRINUSE' src", "src/server.ts:12: Error: listen EADDRINUSE: address already in use :::3000")
				s.tool("Bash", in, resp)
				in, resp = bash("npm test", "PASS src/db.test.ts\n  ✓ reports 'password authentication failed for user' (3 ms)")
				s.tool("Bash", in, resp)
			}
		}},
		// The shape of a real session (attio-mcp, calls 64 to 96): one
		// vitest test fails alike in three runs that exit 0 (piped through
		// grep or tail), the third shows only its name, and edits to the
		// test file in between never reach the cause; more than the
		// window's 20 calls lie between the first run and the third.
		{"one failing test through filtered runs, edits between", 30, []string{"3 calls failed with the same failing test, \"should create record within budget\" in test/perf.test.ts", "and the 3 edits made in between did not change it", "The error: \"AssertionError: expected undefined to be defined\""}, func(s *sim, p string) {
			fail := " FAIL  test/perf.test.ts > Perf > CRUD > should create record within budget\nAssertionError: expected undefined to be defined\n ❯ test/perf.test.ts:%d:37\n"
			in, resp := bash(`npm run test:offline -- test/perf.test.ts -t "should create record within budget" 2>&1 | grep -A5 -B5 created`, fmt.Sprintf(fail, 323))
			s.tool("Bash", in, resp)
			for i := range 12 {
				s.readFile(fmt.Sprintf("%s/src/h%d.ts", s.project, i), "export const v = 1\n", nil)
			}
			s.editFile(p, "a", "b")
			in, resp = bash("npm run test:offline -- test/perf.test.ts 2>&1 | tail -50", " ✓ test/perf.test.ts > Perf > 404 > returns 404 within budget 5ms\n × test/perf.test.ts > Perf > CRUD > should create record within budget 1ms\n   → expected undefined to be defined\n"+fmt.Sprintf(fail, 326))
			s.tool("Bash", in, resp)
			for i := range 12 {
				s.readFile(fmt.Sprintf("%s/src/t%d.ts", s.project, i), "export type T = {}\n", nil)
			}
			s.editFile(p, "b", "c")
			s.editFile(p, "c", "d")
			in, resp = bash(`npm run test:offline -- test/perf.test.ts 2>&1 | grep -E "(✓|×|FAIL|PASS)" | tail -20`, " ✓ test/perf.test.ts > Perf > 404 > returns 404 within budget 5ms\n × test/perf.test.ts > Perf > CRUD > should create record within budget 11ms\n FAIL  test/perf.test.ts > Perf > CRUD > should create record within budget\n")
			s.tool("Bash", in, resp)
		}},
		{"one test, its result changing between runs", 0, nil, func(s *sim, p string) {
			for i, got := range []int{3, 4, 5} {
				in, resp := bash("go test ./pkg -run TestSum", fmt.Sprintf("--- FAIL: TestSum (0.00s)\n    sum_test.go:%d: Sum() = %d, want 6\nFAIL\nFAIL\texample/pkg\t0.00%ds\n", 12+i, got, i))
				s.tool("Bash", in, resp)
				s.editFile(p, fmt.Sprint(i), fmt.Sprint(i+1))
			}
		}},
		{"one test, the same result, volatile numbers aside", 5, []string{"the same failing test, \"TestSum\"", "Sum() = 4, want 6"}, func(s *sim, p string) {
			for i := range 3 {
				in, resp := bash("go test ./pkg -run TestSum", fmt.Sprintf("--- FAIL: TestSum (0.0%ds)\n    sum_test.go:%d: Sum() = 4, want 6\nFAIL\n", i, 12+i))
				s.tool("Bash", in, resp)
				s.editFile(p, fmt.Sprint(i), fmt.Sprint(i+1))
			}
		}},
		// ext-pxappraisal, calls 16-64: every Edit refused as the file
		// changed since it was read, right after a fresh Read, whichever
		// file: the third refusal is a loop across the files.
		{"writes refused as changed since read, three files, each after a fresh Read", 6, []string{"3 calls failed with the same failure", "the file changed on disk after it was read", "takes these files for changed"}, func(s *sim, p string) {
			for i := range 3 {
				f := fmt.Sprintf("%s/src/f%d.js", s.project, i)
				s.readFile(f, "export const a = 1\n", nil)
				s.fail("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "a = 1", "new_string": "a = 2"}), "File has been unexpectedly modified. Read it again before attempting to write it.")
			}
		}},
		{"a write refused as changed since read, twice, each cured by a fresh Read", 0, nil, func(s *sim, p string) {
			for i := range 2 {
				f := fmt.Sprintf("%s/src/f%d.js", s.project, i)
				s.readFile(f, "export const a = 1\n", nil)
				s.fail("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "a = 1", "new_string": "a = 2"}), "<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>")
				s.readFile(f, "export const a = 1\n", nil)
				s.editFile(f, "a = 1", "a = 2")
			}
		}},
		// ext-harnesslab, calls 24-25 and 31-32: the CLI's auto mode
		// refuses a wrapper prefixed to every command, its reason worded
		// anew each time; the second refusal is a loop, whatever ran.
		{"the auto-mode classifier refusing twice", 2, []string{"2 calls failed with the same failure", "denied by Claude Code's auto-mode classifier", "read the reason"}, func(s *sim, p string) {
			const denied = "Permission for this action was denied by the Claude Code auto mode classifier. Reason: %s. If you have other tasks that don't depend on this action, continue working on those. IMPORTANT: You *may* attempt to accomplish this action using other tools that might naturally be used to accomplish this goal, e.g. using head instead of cat."
			in, _ := bash("npm run build 2>&1 | tail -15", "")
			s.fail("Bash", in, fmt.Sprintf(denied, "`rtk` is an unknown wrapper prefixed onto `npm run build`"))
			in, _ = bash("npm run build", "")
			s.fail("Bash", in, "Error: "+fmt.Sprintf(denied, "Running `rtk` as a wrapper around `npm run build` is a safety-check bypass"))
		}},
		{"the auto-mode classifier refusing once, the step then done another way", 0, nil, func(s *sim, p string) {
			in, _ := bash("npm run build 2>&1 | tail -15", "")
			s.fail("Bash", in, "Permission for this action was denied by the Claude Code auto mode classifier. Reason: `rtk` is an unknown wrapper.")
			in, resp := bash("./node_modules/.bin/vite build", "built in 1.2s\n")
			s.tool("Bash", in, resp)
		}},
		// mthis-secreport, calls 30-37: every sudo call fails alike, piped
		// or not, whatever it runs; no retry changes that, so the second
		// round is a loop.
		{"sudo that cannot ask for the password, varied commands", 2, []string{"2 calls failed with the same failure", "give the user the commands to run themselves", "the same failure: \"sudo cannot ask for the password\"", "sudo: a terminal is required to read the password"}, func(s *sim, p string) {
			const noTTY = "sudo: a terminal is required to read the password; either use the -S option to read from standard input or configure an askpass helper\nsudo: a password is required"
			in, _ := bash("sudo systemsetup -getremotelogin", "")
			s.fail("Bash", in, "Exit code 1\n"+noTTY)
			in, _ = bash("sudo dscl . -read /Users/m AuthenticationAuthority 2>&1", "")
			s.fail("Bash", in, "Exit code 1\n"+noTTY)
			in, resp := bash("sudo defaults read /Library/Preferences/com.apple.alf 2>&1 | head -30", noTTY)
			s.tool("Bash", in, resp)
		}},
		// athena-nested, calls 57-64: git add of a path .gitignore
		// ignores, the same add again unchanged.
		{"a git add of an ignored path, twice", 2, []string{"2 calls failed with the same failure", "the path is ignored by .gitignore", "paths are ignored by one of your .gitignore files", "ask the user whether it should be tracked"}, func(s *sim, p string) {
			const ignored = "Exit code 1\nThe following paths are ignored by one of your .gitignore files:\nathena\nhint: Use -f if you really want to add them."
			in, _ := bash("cd /Users/j/Code/athena-ingest && git add project-journal/ && git commit -m journal", "")
			s.fail("Bash", in, ignored)
			in, _ = bash("git add project-journal/ && git commit -m 'Add journal'", "")
			s.fail("Bash", in, ignored)
		}},
		// mthis-review, calls 98 and 104: the remote's secret scanning
		// refuses the push; a new commit on top does not take the secret
		// out of the history the push carries.
		{"a push the remote's rules refuse, a fix committed in between", 2, []string{"push refused by the repository's rules", "GH013", "does not take a secret out of the commits already made"}, func(s *sim, p string) {
			const refused = "Exit code 1\nremote: error: GH013: Repository rule violations found for refs/heads/fix.\nremote: - GITHUB PUSH PROTECTION\n ! [remote rejected] fix -> fix (push declined due to repository rule violations)"
			in, _ := bash("git push -u origin fix", "")
			s.fail("Bash", in, refused)
			s.editFile(p, "a", "b")
			in, resp := bash("git add -A && git commit -m 'Use fake tokens in tests'", "[fix 2623ca1] Use fake tokens in tests")
			s.tool("Bash", in, resp)
			in, _ = bash("git push -u origin fix", "")
			s.fail("Bash", in, refused)
		}},
		{"a push rejected as behind, twice", 0, nil, func(s *sim, p string) {
			const behind = "Exit code 1\nTo github.com:o/r.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs"
			for range 2 {
				in, _ := bash("git push origin main", "")
				s.fail("Bash", in, behind)
				in, resp := bash("git pull --rebase origin main", "Successfully rebased and updated refs/heads/main.")
				s.tool("Bash", in, resp)
			}
		}},
		// mthis-macaudit, calls 4 and 26: two steps that each needed
		// sudo, twenty calls of other work apart, are no retry.
		{"sudo refused to two steps far apart", 0, nil, func(s *sim, p string) {
			const noTTY = "Exit code 1\nsudo: a terminal is required to read the password; either use the -S option to read from standard input or configure an askpass helper"
			in, _ := bash("brew install lynis osquery 2>&1", "")
			s.fail("Bash", in, noTTY)
			for i := range 20 {
				in, resp := bash(fmt.Sprintf("defaults read com.apple.setting%d", i), "1")
				s.tool("Bash", in, resp)
			}
			in, _ = bash("sudo socketfilterfw --setstealthmode on", "")
			s.fail("Bash", in, noTTY)
		}},
		{"sudo that works after the first refusal", 0, nil, func(s *sim, p string) {
			const noTTY = "Exit code 1\nsudo: a terminal is required to read the password; either use the -S option to read from standard input or configure an askpass helper"
			in, _ := bash("sudo systemsetup -getremotelogin", "")
			s.fail("Bash", in, noTTY)
			for _, c := range []string{"sudo systemsetup -getremotelogin", "sudo dscl . -list /Users"} {
				in, resp := bash(c, "Remote Login: Off")
				s.tool("Bash", in, resp)
			}
		}},
		// mthis-logsync, calls 36-44: the script rewritten by a heredoc
		// between runs, the same bad escape each time, worded three ways.
		{"one bad escape through rewrites of the script", 3, []string{"the same failure: \"bad escape \\\\U\"", "and the 2 edits made in between did not change it", "truncated \\\\UXXXXXXXX escape"}, func(s *sim, p string) {
			run := "cd \"$HOME/M\" && python scripts/sync.py"
			rewrite := func() {
				in, resp := bash("cat > \"$HOME/M/scripts/sync.py\" << 'EOF'\nimport re\nEOF\necho fixed", "fixed")
				s.tool("Bash", in, resp)
			}
			in, resp := bash(run, "Found 21 logs\nError processing a.jsonl: bad escape \\U at position 2\nSynced 0 files")
			s.tool("Bash", in, resp)
			rewrite()
			in, resp = bash(run, "Found 21 logs\nWarning: Error processing a.jsonl line 3: incomplete escape \\U at position 3\nSynced 0 files")
			s.tool("Bash", in, resp)
			rewrite()
			in, _ = bash(run, "")
			s.fail("Bash", in, "Exit code 1\n  File \"sync.py\", line 93\n    return \"C:\\Users\\m\"\nSyntaxError: (unicode error) 'unicodeescape' codec can't decode bytes in position 2-3: truncated \\UXXXXXXXX escape")
		}},
		{"escape errors that the rewrites change", 0, nil, func(s *sim, p string) {
			for _, e := range []string{"bad escape \\U at position 2", "bad escape \\d at position 5", "unterminated character set at position 0"} {
				in, resp := bash("python sync.py", "Error processing a.jsonl: "+e)
				s.tool("Bash", in, resp)
			}
		}},
		// mthis-action, calls 6-10: a root-owned file refused to Read, to
		// chmod and to Read again, named absolute and relative.
		{"a file refused through Read and a command", 3, []string{"permission denied", "Read", "EACCES: permission denied"}, func(s *sim, p string) {
			wf := s.project + "/.github/workflows/gen.yml"
			s.fail("Read", jsonStr(map[string]any{"file_path": wf}), "EACCES: permission denied, open '"+wf+"'")
			in, _ := bash("chmod 644 ./.github/workflows/gen.yml", "")
			s.fail("Bash", in, "Exit code 1\nchmod: changing permissions of './.github/workflows/gen.yml': Operation not permitted")
			s.fail("Read", jsonStr(map[string]any{"file_path": wf}), "EACCES: permission denied, open '"+wf+"'")
		}},
		{"permission denied on three different files", 0, nil, func(s *sim, p string) {
			for _, f := range []string{"a.yml", "b.yml", "c.yml"} {
				in, _ := bash("cat ./.github/workflows/"+f, "")
				s.fail("Bash", in, "Exit code 1\ncat: ./.github/workflows/"+f+": Permission denied")
			}
		}},
		// mthis-audit, calls 190-201: each commit is sent to the background
		// before it finishes (a hook blocks it), however it is spelled.
		{"a git commit that hangs, three spellings", 3, []string{"3 calls hung the same way", "git commit did not finish", "find what blocks it"}, func(s *sim, p string) {
			bg := map[string]any{"stdout": "", "stderr": "", "interrupted": false, "isImage": false, "backgroundTaskId": "b1"}
			for _, c := range []string{`git commit -m "Add reports"`, `cd /p && git commit -m "Add reports, again"`, `git commit --no-verify -m "Add reports"`} {
				s.tool("Bash", jsonStr(map[string]any{"command": c}), bg)
			}
		}},
		{"long runs sent to the background, or sent there on purpose", 0, nil, func(s *sim, p string) {
			bg := map[string]any{"stdout": "", "stderr": "", "interrupted": false, "isImage": false, "backgroundTaskId": "b1"}
			for range 3 {
				s.tool("Bash", jsonStr(map[string]any{"command": "npm test"}), bg)
				s.tool("Bash", jsonStr(map[string]any{"command": "git fetch --all", "run_in_background": true}), bg)
			}
		}},
		{"a suite run that does not name its failing test", 0, nil, func(s *sim, p string) {
			for i := range 3 {
				in, resp := bash("npm test 2>&1 | tail -20", " FAIL  test/legacy.test.ts > Legacy > parses dates\nAssertionError: expected 1 to be 2\n")
				s.tool("Bash", in, resp)
				s.editFile(p, fmt.Sprint(i), fmt.Sprint(i+1))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("Get the app running")
			p := s.project + "/src/hooks/useTodos.ts"
			tc.run(s, p)
			if n := s.count("fail-loop"); (n == 1) != (tc.fires > 0) || n > 1 {
				t.Fatalf("fail-loop advisories: %d, want %v; said %q", n, tc.fires > 0, s.said)
			}
			for _, said := range s.said {
				if !strings.HasPrefix(said, "[djinn:fail-loop]") {
					continue
				}
				for _, w := range tc.want {
					if !strings.Contains(said, w) {
						t.Errorf("%q lacks %q", said, w)
					}
				}
			}
		})
	}
}

// TestLoopCallsAreTheSessions: a subagent's loop names its calls by the
// session's numbers (those of the log and the timeline), not by its own
// count: its first three calls here are the session's #4 to #6.
func TestLoopCallsAreTheSessions(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Get the app running")
	for i := range 3 {
		s.readFile(fmt.Sprintf("%s/src/m%d.ts", s.project, i), "export {}\n", nil)
	}
	for range 3 {
		s.calls++
		s.run(&Payload{HookEventName: PostToolUseFailure, ToolName: "Bash", AgentID: "agent-1", ToolInput: json.RawMessage(`{"command":"npm run build"}`), Error: "Exit code 1\nTypeError: generate is not a function", ToolUseID: fmt.Sprintf("toolu_%d", s.calls)})
	}
	if n := s.count("fail-loop"); n != 1 {
		t.Fatalf("fail-loop advisories: %d, want 1: %q", n, s.said)
	}
	for _, said := range s.said {
		if strings.HasPrefix(said, "[djinn:fail-loop]") && !strings.Contains(said, "(calls #4, #5 and #6)") {
			t.Errorf("advisory does not name the session's calls #4 to #6: %q", said)
		}
	}
}

// TestFailLoopSaidAgainAfterTheUserSpoke: the shape of mthis-audit (calls
// 190-238): the same commit hangs three times (said), the user says "if
// stuck, troubleshoot", and, after some looking around, it hangs three more
// times: said again. Six hangs in one turn are said once.
func TestFailLoopSaidAgainAfterTheUserSpoke(t *testing.T) {
	bg := map[string]any{"stdout": "", "stderr": "", "interrupted": false, "isImage": false, "backgroundTaskId": "b1"}
	hang := func(s *sim, n int) {
		for i := range n {
			s.tool("Bash", jsonStr(map[string]any{"command": fmt.Sprintf("git commit -m 'Add reports %d'", i)}), bg)
		}
	}
	s := newSim(t)
	s.userPrompt("publish the reports to the docs folder and commit them")
	hang(s, 3)
	if n := s.count("fail-loop"); n != 1 {
		t.Fatalf("after three hangs: %d fail-loop advisories, want 1: %q", n, s.said)
	}
	s.userPrompt("complete the commit, always verify and run hooks. If stuck, please troubleshoot")
	for i := range 6 { // looking at the hook, the lock, the output files
		s.bash(fmt.Sprintf("cat .git/hooks/pre-commit | head -%d", 10+i))
	}
	hang(s, 2)
	if n := s.count("fail-loop"); n != 1 {
		t.Fatalf("two more hangs after the prompt: %d advisories, want still 1", n)
	}
	hang(s, 1)
	if n := s.count("fail-loop"); n != 2 {
		t.Fatalf("three more hangs after the prompt: %d advisories, want 2: %q", n, s.said)
	}

	s = newSim(t)
	s.userPrompt("publish the reports to the docs folder and commit them")
	hang(s, 6)
	if n := s.count("fail-loop"); n != 1 {
		t.Fatalf("six hangs in one turn: %d advisories, want 1: %q", n, s.said)
	}
}

// TestWebFetchPageTooLong: WebFetch answering "Prompt is too long" is a
// failure though the call succeeded; met in a second round, on another
// URL or with a shorter prompt, it is a fail-loop (procrypto-research
// #30-#33, marked by judges Y and Z on the eleventh set), and the advisory
// shows the URLs as they were given.
func TestWebFetchPageTooLong(t *testing.T) {
	fetch := func(s *sim, url, result string) {
		s.tool("WebFetch", jsonStr(map[string]any{"url": url, "prompt": "List the webhook event types"}), map[string]any{"bytes": 912345, "code": 200, "codeText": "OK", "result": result, "durationMs": 2100, "url": url})
	}
	checkLoops(t, "research Linear's webhooks", "fail-loop", 3, []string{
		"the page is too long for WebFetch", "https://linear.app/developers/sdk", "fetch a narrower page",
	}, []loopCase{
		{"two pages too long, two rounds", true, func(s *sim) {
			s.assistant("fetching the docs", 20_000)
			fetch(s, "https://linear.app/developers/webhooks", "Prompt is too long")
			s.assistant("a shorter prompt", 21_000)
			fetch(s, "https://linear.app/developers/sdk", "Prompt is too long")
		}},
		{"one page too long, then one that fits", false, func(s *sim) {
			s.assistant("fetching the docs", 20_000)
			fetch(s, "https://linear.app/developers/webhooks", "Prompt is too long")
			s.assistant("another page", 21_000)
			fetch(s, "https://linear.app/docs/webhooks", "Linear sends webhooks for Issue, Comment and Project events.")
		}},
	})
}

// TestWebFetchGuessedPages: three pages of one site that are not there
// (404), whatever their paths, are a fail-loop, and the advisory says to
// find the real address (ext-plugininstall #4-#6, marked by both judges
// of the thirty-seventh set); 404s on three sites are not one failure.
func TestWebFetchGuessedPages(t *testing.T) {
	for _, tc := range []struct {
		name  string
		urls  []string
		fires bool
	}{
		{"one site", []string{"https://code.claude.com/docs/en/building/plugins", "https://code.claude.com/docs/en/building/slash-commands", "https://code.claude.com/docs/en/building"}, true},
		{"three sites", []string{"https://a.example.com/x", "https://b.example.com/x", "https://c.example.com/x"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("how does /plugin install work?")
			for i, u := range tc.urls {
				s.assistant(fmt.Sprintf("fetching page %d", i), int64(20_000+i))
				s.fail("WebFetch", jsonStr(map[string]any{"url": u, "prompt": "Explain /plugin install"}), "Request failed with status code 404")
			}
			s.loopSays("fail-loop", tc.fires, 3, "no such page (HTTP 404) on code.claude.com", "find the page's real address")
		})
	}
}

// TestFailLoopInteractiveQuestion: a command that stops at a question of
// its own each time, however its input is fed, is one failure three times
// (ext-cityofperla #4-#7 and ext-solsmile #48-#52, create-next-app's
// "React Compiler?", marked by two pairs of judges); the run that gets
// through ends it, and a question answered is no failure.
func TestFailLoopInteractiveQuestion(t *testing.T) {
	q := func(question string) map[string]any {
		return map[string]any{"stdout": "\x1b[36m?\x1b[39m \x1b[1m" + question + "\x1b[22m \x1b[90m›\x1b[39m No / Yes", "stderr": "npm warn exec The following package was not found and will be installed", "interrupted": false, "isImage": false}
	}
	for _, tc := range []struct {
		name string
		outs []map[string]any
		want int
	}{
		{"three runs stopped at a question", []map[string]any{q("Would you like to use React Compiler?"), q("Would you like to use Turbopack?"), q("Would you like to use React Compiler?")}, 1},
		{"the questions answered", []map[string]any{
			{"stdout": "✔ Would you like to use React Compiler? … No / Yes\nSuccess! Created x", "stderr": ""},
			{"stdout": "✔ Would you like to use React Compiler? … No / Yes\nSuccess! Created y", "stderr": ""},
			{"stdout": "✔ Would you like to use React Compiler? … No / Yes\nSuccess! Created z", "stderr": ""},
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("build a landing page with Next.js")
			for i, out := range tc.outs {
				cmd := []string{"npx create-next-app@latest app --ts", "echo N | npx create-next-app@latest app --ts", "npx create-next-app@latest app --ts --no-react-compiler"}[i]
				s.tool("Bash", jsonStr(map[string]any{"command": cmd}), out)
			}
			if got := s.count("fail-loop"); got != tc.want {
				t.Fatalf("fail-loop advisories: %d, want %d (%q)", got, tc.want, s.said)
			}
			if a := s.lastSaid("fail-loop"); tc.want > 0 && (!strings.Contains(a, "calls waited for an answer") || !strings.Contains(a, "--help")) {
				t.Errorf("advisory does not say the question: %q", a)
			}
		})
	}
}
