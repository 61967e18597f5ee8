package hooks

import (
	"fmt"
	"testing"
)

// The shapes below are from real sessions (mthis-shortcut: cmd /c from Git
// Bash printing only its banner; mthis-netdiag: a port checked with grep
// over ssh, never there, between restarts of the service; mthis-router: ssh
// printing only its post-quantum warning before commands that print
// nothing).

const (
	cmdBanner  = "Microsoft Windows [Version 10.0.26200.7462]\r\n(c) Microsoft Corporation. All rights reserved.\r\n\r\nC:\\Users\\M>"
	sshWarning = "** WARNING: connection is not using a post-quantum key exchange algorithm.\r\n** This session may be vulnerable to \"store now, decrypt later\" attacks.\r\n** The server may need to be upgraded. See https://openssh.com/pq.html\r\n"
)

// TestSameOutputLoop: different commands that all print one output are a
// tool-loop within 3 calls of the third; commands that print their own
// different answers, only a warning, or the same answer once an edit came
// between, are not.
func TestSameOutputLoop(t *testing.T) {
	bash := func(s *sim, command, out string) {
		s.tool("Bash", jsonStr(map[string]any{"command": command}), bashOut(out))
	}
	checkLoops(t, "Create a desktop shortcut for the CLI with its icon", "tool-loop", 4, []string{
		"[djinn:tool-loop] 3 different Bash commands printed exactly the same output", "Microsoft Windows [Version 10.0.26200.7462]", "calls #1, #2 and #4",
	}, []loopCase{
		{"cmd /c prints its banner whatever it is asked", true, func(s *sim) {
			bash(s, `cmd /c "dir /s /b "%APPDATA%\npm\*.ico" 2>nul"`, cmdBanner)
			bash(s, `cmd /c "dir /s /b "%APPDATA%\npm\*.png" 2>nul"`, cmdBanner)
			s.tool("Glob", `{"pattern":"**/*.ico"}`, map[string]any{"filenames": []string{}})
			bash(s, `cmd /c "dir "C:\Users\M\AppData""`, cmdBanner)
		}},
		{"ssh prints only its warning before silent commands", false, func(s *sim) {
			for _, svc := range []string{"gl-cloud", "carrier-monitor", "modem-init", "gl-tertf"} {
				bash(s, fmt.Sprintf(`ssh root@10.0.0.1 "/etc/init.d/%s stop && /etc/init.d/%s disable"`, svc, svc), sshWarning)
			}
		}},
		{"different commands, different answers", false, func(s *sim) {
			for i, c := range []string{"node scripts/a.js", "node scripts/b.js", "node scripts/c.js"} {
				bash(s, c, fmt.Sprintf("processed %d records\nwrote out/%d.json with 12 rows", i, i))
			}
		}},
		{"the same answer with an edit in between", false, func(s *sim) {
			bash(s, "node scripts/a.js", "Error: config missing\n    at main (scripts/a.js:3)")
			bash(s, "node scripts/b.js", "Error: config missing\n    at main (scripts/a.js:3)")
			p := s.file("config.json", "{}")
			s.tool("Write", jsonStr(map[string]any{"file_path": p, "content": "{\"a\":1}"}), map[string]any{"type": "create", "filePath": p})
			bash(s, "node scripts/c.js", "Error: config missing\n    at main (scripts/a.js:3)")
		}},
		{"two commands printing one answer", false, func(s *sim) {
			bash(s, "node scripts/a.js", "Error: config missing\n    at main (scripts/a.js:3)")
			bash(s, "node scripts/b.js", "Error: config missing\n    at main (scripts/a.js:3)")
			bash(s, "node scripts/a.js", "Error: config missing\n    at main (scripts/a.js:3)")
		}},
		{"a file's content read three ways", false, func(s *sim) {
			for _, c := range []string{"cat notes.txt", "head -50 notes.txt", "sed -n 1,80p notes.txt"} {
				bash(s, c, "line one of the notes\nline two of the notes\nline three")
			}
		}},
	})
}

// TestNoMatchLoop: a check that keeps finding nothing (grep exits 1 and
// prints nothing), however the calls around it vary, is a fail-loop within
// 3 calls of the third; a check that finds what it looked for, or checks
// for different things, is not.
func TestNoMatchLoop(t *testing.T) {
	check := func(s *sim, command string, found bool) {
		in := jsonStr(map[string]any{"command": command})
		if found {
			s.tool("Bash", in, bashOut("tcp 0 0 :::5335 :::* LISTEN 29332/blocky"))
			return
		}
		s.fail("Bash", in, "Exit code 1")
	}
	restart := func(s *sim, how string) {
		s.tool("Bash", jsonStr(map[string]any{"command": "ssh root@10.0.0.1 '" + how + "'"}), bashOut(""))
	}
	checkLoops(t, "Blocky stopped answering on 5335 after the query log change; find out why", "fail-loop", 5, []string{
		"[djinn:fail-loop] 3 checks found nothing", `"grep finds no 5335"`, "calls #1, #3 and #5",
	}, []loopCase{
		{"the port never comes back between restarts", true, func(s *sim) {
			check(s, "ssh root@10.0.0.1 'netstat -tuln | grep 5335'", false)
			restart(s, "/etc/init.d/blocky restart")
			check(s, "ssh root@10.0.0.1 '/usr/sbin/blocky --config /etc/blocky/config.yml &' && sleep 3 && ssh root@10.0.0.1 'netstat -tuln | grep 5335'", false)
			restart(s, "killall blocky")
			check(s, "ssh root@10.0.0.1 'killall -9 blocky; /etc/init.d/blocky start; sleep 2; netstat -tuln | grep 5335'", false)
		}},
		{"the port comes back", false, func(s *sim) {
			check(s, "ssh root@10.0.0.1 'netstat -tuln | grep 5335'", false)
			restart(s, "/etc/init.d/blocky restart")
			check(s, "ssh root@10.0.0.1 'netstat -tuln | grep 5335'", false)
			restart(s, "killall blocky")
			check(s, "ssh root@10.0.0.1 'netstat -tuln | grep 5335'", true)
		}},
		{"checks for different things", false, func(s *sim) {
			for _, p := range []string{"5335", "4005", "53"} {
				check(s, "ssh root@10.0.0.1 'netstat -tuln | grep "+p+"'", false)
			}
		}},
		{"searches that find no line to remove", false, func(s *sim) {
			for _, f := range []string{"a.go", "b.go", "c.go"} {
				check(s, "grep -v TODO "+f, false)
			}
		}},
	})
}

// TestKilledByTimeoutLoop: a server run in the foreground is killed by the
// CLI's timeout; the second time (athena-keyerror #58 and #64) is a
// fail-loop, and so is a run again in the foreground that finds its port
// taken after a kill (athena-computeruse #43, #46 in the background, #50:
// an earlier run is still up). A server started in the background after
// one kill, two different programs, a port taken at the first run, a test
// that cannot bind, and a run sent to the background are not. A port
// taken and then a kill is one too, said as such.
func TestKilledByTimeoutLoop(t *testing.T) {
	killed := "Command timed out after 15s      warning: clauses with the same name and arity should be grouped together"
	taken := "[INFO] Starting the gradio app\nOSError: Cannot find empty port in range: 7888-7888. You can specify a different port by setting the GRADIO_SERVER_PORT environment variable"
	killedTwice := []string{"2 calls were killed when their timeout ran out", "killed by its timeout: mix", "whether it still runs is not known", "still holds its port", "run_in_background, or &"}
	portTaken := []string{"2 calls could not run a server in the foreground", `"address in use :7888"`, "the last found its port taken", "lsof -i"}
	for _, tc := range []struct {
		name  string
		fires bool
		says  []string
		run   func(s *sim)
	}{
		{"the server killed twice", true, killedTwice, func(s *sim) {
			s.fail("Bash", jsonStr(map[string]any{"command": "mix phx.server", "timeout": 15000}), killed)
			s.tool("Bash", jsonStr(map[string]any{"command": "curl -s http://localhost:4000/"}), bashOut(""))
			s.fail("Bash", jsonStr(map[string]any{"command": "mix phx.server", "timeout": 20000}), killed)
		}},
		{"killed once, then started in the background", false, killedTwice, func(s *sim) {
			s.fail("Bash", jsonStr(map[string]any{"command": "mix phx.server", "timeout": 15000}), killed)
			s.tool("Bash", jsonStr(map[string]any{"command": "mix phx.server", "run_in_background": true}), map[string]any{"backgroundTaskId": "b1"})
		}},
		{"two different programs killed", false, killedTwice, func(s *sim) {
			s.fail("Bash", jsonStr(map[string]any{"command": "npm run dev"}), killed)
			s.fail("Bash", jsonStr(map[string]any{"command": "bundle exec jekyll serve"}), killed)
		}},
		{"killed, then the port taken", true, portTaken, func(s *sim) {
			s.fail("Bash", jsonStr(map[string]any{"command": "cd /p && source .venv/bin/activate && python3 app.py"}), killed)
			s.tool("Bash", jsonStr(map[string]any{"command": "ls -la tmp"}), bashOut("total 0"))
			s.fail("Bash", jsonStr(map[string]any{"command": "cd /p && source .venv/bin/activate && python3 app.py"}), taken)
		}},
		// The port taken first, then the run killed (s-claudeconfig-b9f04a3d
		// #34, #36, fourth draw): not both were killed by the timeout.
		{"the port taken, then killed", true, []string{"2 calls could not run a server in the foreground", "an earlier run found its port taken", "the last was started in the foreground and killed at its timeout", "lsof -i"}, func(s *sim) {
			s.fail("Bash", jsonStr(map[string]any{"command": "node temp-server.cjs", "timeout": 10000}), "node:events:485\n      throw er; // Unhandled 'error' event\n\nError: listen EADDRINUSE: address already in use :::5000\n    at Server.setupListenHandle [as _listen2] (node:net:1912:16)")
			s.tool("Bash", jsonStr(map[string]any{"command": "npx kill-port 5000"}), bashOut("Process on port 5000 killed"))
			s.fail("Bash", jsonStr(map[string]any{"command": "node temp-server.cjs", "timeout": 10000}), "Command timed out after 10s\n🚀 Temporary API Server running on http://localhost:5000")
		}},
		// A watcher that found its port taken and waited was killed too
		// (p-claudeconfig-77e159f9 #135, #137, useful to both judges).
		{"the port taken while it waited, then killed", true, []string{"2 calls were killed when their timeout ran out", "killed by its timeout: npm"}, func(s *sim) {
			s.fail("Bash", jsonStr(map[string]any{"command": "npm run dev", "timeout": 15000}), "Command timed out after 15s\nError: listen EADDRINUSE: address already in use :::3001\n[nodemon] app crashed - waiting for file changes before starting...")
			s.fail("Bash", jsonStr(map[string]any{"command": "npm run dev", "timeout": 15000}), "Command timed out after 15s\n[nodemon] 3.1.10\nServer running on http://localhost:3001")
		}},
		{"the port taken at the first run", false, portTaken, func(s *sim) {
			s.fail("Bash", jsonStr(map[string]any{"command": "python3 app.py"}), taken)
		}},
		{"a test that cannot bind after a killed server", false, portTaken, func(s *sim) {
			s.fail("Bash", jsonStr(map[string]any{"command": "go run ./cmd/server"}), killed)
			s.fail("Bash", jsonStr(map[string]any{"command": "go test ./srv -run TestListen"}), "--- FAIL: TestListen (0.00s)\n    listen tcp :8080: bind: address already in use")
		}},
		// Waits longer than the timeout (ext-cadsviz #92, #101): the
		// sleep is killed each time, while the check it waits for passes
		// when run alone in between.
		{"a wait past the timeout twice", true, []string{"2 calls were killed when their timeout ran out", "the wait itself is killed", "wait less than the timeout"}, func(s *sim) {
			s.fail("Bash", jsonStr(map[string]any{"command": "sleep 180 && gh run view 17456322327"}), "Command timed out after 2m 0.0s")
			s.tool("Bash", jsonStr(map[string]any{"command": "gh run view 17456322327"}), bashOut("in progress"))
			s.fail("Bash", jsonStr(map[string]any{"command": "sleep 240 && gh run view 17456430442"}), "Command timed out after 2m 0.0s")
		}},
		{"a wait within the timeout, then one past it", false, []string{"the wait itself is killed"}, func(s *sim) {
			s.tool("Bash", jsonStr(map[string]any{"command": "sleep 30 && gh run view 17456322327"}), bashOut("in progress"))
			s.fail("Bash", jsonStr(map[string]any{"command": "sleep 240 && gh run view 17456430442"}), "Command timed out after 2m 0.0s")
		}},
		{"killed, then run in the background", false, portTaken, func(s *sim) {
			s.fail("Bash", jsonStr(map[string]any{"command": "python3 app.py"}), killed)
			s.fail("Bash", jsonStr(map[string]any{"command": "python3 app.py &"}), taken)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("get the app running")
			tc.run(s)
			s.loopSays("fail-loop", tc.fires, 3, tc.says...)
		})
	}
}

// TestNoChangeEditLoop: the same no-op Edit refused twice (ext-n8njson #3,
// #5, a write of another file between) is a fail-loop at the second; one
// refusal, or a refusal and then a real edit of the file, is not.
func TestNoChangeEditLoop(t *testing.T) {
	const refused = "<tool_use_error>No changes to make: old_string and new_string are exactly the same.</tool_use_error>"
	for _, tc := range []struct {
		name  string
		fires bool
		run   func(s *sim, f string)
	}{
		{"refused twice", true, func(s *sim, f string) {
			s.fail("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "a", "new_string": "a"}), refused)
			s.tool("Write", jsonStr(map[string]any{"file_path": s.file("sample.json", ""), "content": "[]"}), map[string]any{})
			s.fail("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "a", "new_string": "a"}), refused)
		}},
		{"refused once", false, func(s *sim, f string) {
			s.fail("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "a", "new_string": "a"}), refused)
		}},
		{"refused, then a real edit", false, func(s *sim, f string) {
			s.fail("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "a", "new_string": "a"}), refused)
			s.tool("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "a", "new_string": "b"}), map[string]any{})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("strip the accents in code-fixed.js")
			f := s.file("code-fixed.js", "a")
			tc.run(s, f)
			s.loopSays("fail-loop", tc.fires, 3, "an Edit whose new text is the same as the old", "send the new text as it should read")
		})
	}
}

// TestDeclinedEditsNoLoop: the person declining three edits of one file
// (ext-polloai #22, #25, #30, each after a new prompt or a read) is no
// fail-loop: the person said no, the agent did not fail; nor are three
// edits the CLI cancelled with their batch; three edits that failed the
// same way are one.
func TestDeclinedEditsNoLoop(t *testing.T) {
	const declined = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
	const refused = "<tool_use_error>String to replace not found in file.\nString: padding</tool_use_error>"
	for _, tc := range []struct {
		name, errText string
		fires         bool
	}{
		{"declined three times", declined, false},
		{"refused three times", refused, true},
		// A call the CLI cancelled because another of its parallel batch
		// failed never ran (q-memorybridge-2f5a3bd7 #86, second draw:
		// three different Edits of one batch, false to both judges).
		{"cancelled with its batch three times", "<tool_use_error>Sibling tool call errored</tool_use_error>", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("shorten the button label with EllipsisText")
			f := s.file("index.tsx", "<Button>label</Button>")
			for i := 0; i < 3; i++ {
				s.fail("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "label", "new_string": fmt.Sprintf("<EllipsisText>label %d</EllipsisText>", i)}), tc.errText)
				s.tool("Read", jsonStr(map[string]any{"file_path": f}), map[string]any{})
			}
			s.loopSays("fail-loop", tc.fires, 5)
		})
	}
}
