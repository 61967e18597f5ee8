package loops

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNoMatchKey(t *testing.T) {
	for _, tc := range []struct {
		command, want string
	}{
		{"netstat -tuln | grep 5335", "grep finds no 5335"},
		{"ssh root@10.0.0.1 'netstat -tuln | grep 5335'", "grep finds no 5335"},
		{"ssh -p 2222 -i ~/.ssh/k root@h 'ps | grep -E \"blocky|dns\"'", "grep finds no blocky|dns"},
		{"ssh h '/etc/init.d/x start' && sleep 3 && ssh h 'netstat -tuln | grep 5335'", "grep finds no 5335"},
		{"ps aux | grep -i -e server", "grep finds no server"},
		{"grep -q 'listening on' server.log", "grep finds no listening on"},
		{"grep -A 3 -m1 TODO main.go", "grep finds no TODO"},
		{"grep --regexp=fixme a.go", "grep finds no fixme"},
		// Exit status 1 means other things, or no grep ends the command.
		{"ps aux | grep -v grep", ""},
		{"grep -c x a.go", ""},
		{"grep -L x *.go", ""},
		{"netstat -tuln | grep 5335 | wc -l", ""},
		{"grep 5335 ports.txt; echo done", ""},
		{"! grep x a.go", ""},
		{"make test", ""},
		{"ssh h", ""},
		{"ssh h 'ssh g \"ps | grep x\"'", ""}, // one ssh deep, no more
		{"grep", ""},
		{"echo 'unterminated", ""},
	} {
		if got := noMatchKey(tc.command); got != tc.want {
			t.Errorf("noMatchKey(%q) = %q, want %q", tc.command, got, tc.want)
		}
	}
}

func TestCommandFailureKeysNoMatch(t *testing.T) {
	for _, tc := range []struct {
		command, text string
		exited0       bool
		want          string
	}{
		{"netstat -tuln | grep 5335", "Exit code 1", false, "grep finds no 5335"},
		{"netstat -tuln | grep 5335", "Error", false, "grep finds no 5335"},
		{"netstat -tuln | grep 5335", "  ", false, "grep finds no 5335"},
		// The command printed something: its own words say what failed.
		{"netstat -tuln | grep 5335", "Exit code 1\nnetstat: command not found", false, "missing netstat"},
		{"netstat -tuln | grep 5335", "Exit code 1\nsome output", false, ""},
		// A grep that exited 0 found something.
		{"netstat -tuln | grep 5335", "tcp 0 0 :::5335", true, ""},
		// A server run in the foreground finding its port taken is the
		// same failure as one killed by its timeout (athena-computeruse
		// #43, #50); sent to the background, or exiting 0, it is not.
		{"cd /p && source .venv/bin/activate && python3 app.py", "[INFO] Starting the gradio app\nOSError: Cannot find empty port in range: 7888-7888. You can specify a different port", false, "address in use :7888\nkilled by its timeout: python3"},
		{"cd /p && python3 app.py", "Command timed out after 2m 0.0s [INFO] Starting the gradio app", false, "killed by its timeout: python3"},
		{"npm run dev", "Error: listen EADDRINUSE: address already in use :::3000", false, "address in use :3000\nkilled by its timeout: npm"},
		{"npm run dev &", "Error: listen EADDRINUSE: address already in use :::3000", false, "address in use :3000"},
		{"npm run dev", "Error: listen EADDRINUSE: address already in use :::3000", true, "address in use :3000"},
		{"go test ./srv -run TestListen", "--- FAIL: TestListen (0.00s)\n    listen tcp :8080: bind: address already in use", false, "address in use :8080\ntest failed \"TestListen\""},
		// pkill -f / pgrep -f whose pattern is in the shell's own command
		// line kill that shell (ext-sentinellitellm #66, #67).
		{`pkill -f "litellm.*4001" 2>/dev/null; sleep 2; nohup litellm --port 4001 &`, "Exit code 144", false, SelfKillKey},
		{`kill $(pgrep -f "litellm.*4001") 2>/dev/null; sleep 1`, "Exit code 143", false, SelfKillKey},
		{`pkill litellm`, "Exit code 144", false, ""},
		{`pkill -f "litellm.*4001"`, "Exit code 1", false, ""},
		// A bare failure after a pkill -f says nothing of the last
		// check: the shell may have died first (g-work-42c11128 #382).
		{`pkill -9 -f "next-server" 2>/dev/null; sleep 2; netstat -tlnp | grep 8231`, "Exit code 1", false, ""},
		{`pkill -9 next-server; sleep 2; netstat -tlnp | grep 8231`, "Exit code 1", false, "grep finds no 8231"},
	} {
		if got := CommandFailureKeys(tc.command, tc.text, tc.exited0); got != tc.want {
			t.Errorf("CommandFailureKeys(%q, %q, %v) = %q, want %q", tc.command, tc.text, tc.exited0, got, tc.want)
		}
	}
}

func TestEmptyFailure(t *testing.T) {
	for text, want := range map[string]bool{
		"Exit code 1": true, "Exit code 255\n": true, "": true, "Error": true,
		"Exit code 1\nboom": false, "Exit code x": false, "Exit code ": false, "Error: boom": false,
	} {
		if got := emptyFailure(text); got != want {
			t.Errorf("emptyFailure(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestPrinting(t *testing.T) {
	banner := "Microsoft Windows [Version 10.0.26200.7462]\r\n(c) Microsoft Corporation. All rights reserved.\r\n\r\nC:\\Users\\M>"
	sshWarning := "** WARNING: connection is not using a post-quantum key exchange algorithm.\n** This session may be vulnerable to \"store now, decrypt later\" attacks.\n** The server may need to be upgraded. See https://openssh.com/pq.html\n"
	for _, tc := range []struct {
		name, tool, command, out string
		set                      bool
	}{
		{"a wrapper's banner", "Bash", `cmd /c "dir /s /b x.ico"`, banner, true},
		{"the banner with a warning before it", "Bash", `cmd /c "dir"`, "warning: x\n" + banner, true},
		{"only ssh's warning", "Bash", "ssh h '/etc/init.d/x stop'", sshWarning, false},
		{"one line", "Bash", "go version", "go version go1.24.0 linux/amd64 and some more words", false},
		{"short", "Bash", "make", "ok\ndone\n", false},
		{"a file's content", "Bash", "cat a.txt", banner, false},
		{"a search's", "Bash", "grep -r x .", banner, false},
		{"not a shell", "Read", "", banner, false},
		{"a long output", "Bash", "make", strings.Repeat("compiling module and linking it\n", 3000), false},
	} {
		e := Event{Tool: tc.tool}
		e.Printing(tc.command, tc.out)
		if (e.Printed != "") != tc.set {
			t.Errorf("%s: Printed = %q, want set %v", tc.name, e.Printed, tc.set)
		}
	}
	a, b := Event{Tool: "Bash"}, Event{Tool: "Bash"}
	a.Printing(`cmd /c "dir a"`, banner)
	b.Printing(`cmd /c "dir b"`, "warning: other\n"+strings.ReplaceAll(banner, "\r\n", "\n"))
	if a.Printed != b.Printed {
		t.Errorf("one output less a warning and carriage returns hashes apart: %q %q", a.Printed, b.Printed)
	}
}

func FuzzNoMatchKey(f *testing.F) {
	for _, s := range []string{
		"netstat -tuln | grep 5335",
		"ssh -p 22 h 'ps | grep -e x'",
		"grep -e",
		"ssh -p",
		"echo 'unterminated",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		k := noMatchKey(cmd)
		if k != "" && !strings.HasPrefix(k, "grep finds no ") {
			t.Fatalf("noMatchKey(%q) = %q", cmd, k)
		}
		if !utf8.ValidString(cmd) {
			return
		}
		if len(k) > len("grep finds no ")+MaxFingerprint {
			t.Fatalf("key too long: %d", len(k))
		}
	})
}

func TestTimeoutKey(t *testing.T) {
	for _, tc := range []struct{ command, text, want string }{
		{"mix phx.server", "Command timed out after 15s      warning: clauses with the same name", "killed by its timeout: mix"},
		{"cd app && source .venv/bin/activate && python3 app.py", "Command timed out after 2m 0.0s", "killed by its timeout: python3"},
		{"FOO=1 npm run dev", "Command timed out after 10s", "killed by its timeout: npm"},
		{"mix phx.server", "Exit code 1\n** (Mix) could not compile", ""},
		// Started with &: it runs on after the CLI stopped waiting for its
		// output (athena-computeruse #46, labelled false by judges M and N).
		{"cd app && source .venv/bin/activate && python3 app.py 2>/tmp/app.log &", "Command timed out after 2m 0.0s", ""},
		{"mix phx.server", "", ""},
		// A wait longer than the timeout is killed, whatever follows it
		// (ext-cadsviz #92, #101, marked by both judges of the
		// twenty-eighth set).
		{"sleep 180 && gh run view 17456322327", "Command timed out after 2m 0.0s", SleepKey},
		{"sleep 4m; gh run list", "Command timed out after 2m 0.0s", SleepKey},
		{"sleep 120 && curl -s localhost:3000", "Command timed out after 2m 0.0s\nsome output", SleepKey},
		{"sleep 20 && mix phx.server", "Command timed out after 15s      warning: clauses", SleepKey},
		{"sleep 30 && gh run view 17456322327", "Command timed out after 2m 0.0s", "killed by its timeout: gh"},
		{"sleep x && npm run dev", "Command timed out after 10s", "killed by its timeout: npm"},
	} {
		if got := timeoutKey(tc.command, tc.text); got != tc.want {
			t.Errorf("timeoutKey(%q, %q) = %q, want %q", tc.command, tc.text, got, tc.want)
		}
	}
}
