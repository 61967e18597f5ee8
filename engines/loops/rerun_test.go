package loops

import "testing"

// TestRunnerKey: a run of a test, build or package script is the same run
// whatever filters its output goes through and whatever exit-status echo
// follows it (ext-paymentkit #15, #23, #32); a command that is not one run
// of one script has none.
func TestRunnerKey(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"pnpm run coverage 2>&1", "pnpm run coverage"},
		{`cd /p/app && pnpm run coverage 2>&1 | tee /tmp/out.txt && echo "EXIT_CODE: $?"`, "pnpm run coverage"},
		{`pnpm run coverage; echo "EXIT_CODE=$?"`, "pnpm run coverage"},
		{`pnpm run coverage 2>&1 | grep -E "(Test Suites:|Tests:)" | tail -20`, "pnpm run coverage"},
		{`pnpm run coverage 2>&1 | grep FAIL | head -20 || echo "No failures found"`, "pnpm run coverage"},
		{"/usr/local/bin/go test ./...", "go test ./..."},
		{"npx tsc --noEmit | head -50", "npx tsc --noEmit"},
		{"cat log.txt | grep ERROR", ""},
		{"npm test && npm run build", ""},
		{"npm test | python3 -c 'import sys; print(len(sys.stdin.read()))'", ""},
		{"npm run dev &", ""},
		{"curl -s localhost:3000 | head", ""},
		{"ls", ""},
		{"pnpm run coverage 2>&1 | tail -", "pnpm run coverage"},
		{"if true; then npm test; fi", ""},
		{`cd "$PKG" && npm test`, ""},
	} {
		if got := RunShown(RunnerKey(tc.cmd, "/p")); got != tc.want {
			t.Errorf("RunnerKey(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

// TestRunnerKeyDirectory: a run is the same run only in the same
// directory, however the command gets there: a cd in the command, or the
// directory it starts in (the CLI keeps the last cd: ext-paymentkit #23
// runs cd ~/…/payment-kit-master && pnpm run coverage from blocklets/core,
// #32 runs pnpm run coverage from payment-kit-master, one run; #15 ran it
// in blocklets/core, another).
func TestRunnerKeyDirectory(t *testing.T) {
	const root = "/Users/y/Arcblock/payment-kit-master"
	for _, tc := range []struct {
		cmdA, dirA, cmdB, dirB string
		same                   bool
	}{
		{"cd " + root + " && pnpm run coverage | tail", root + "/blocklets/core", "pnpm run coverage; echo $?", root, true},
		{"cd ~/Arcblock/payment-kit-master && pnpm run coverage", root + "/blocklets/core/api", "pnpm run coverage | grep FAIL", root, true},
		{"cd .. && npm test", root + "/app", "npm test", root, true},
		{"cd app && cd .. && npm test", root, "npm test", root, true},
		{"pnpm run coverage 2>&1", root + "/blocklets/core", "pnpm run coverage", root, false},
		{"cd backend && npm run dev", root, "cd frontend && npm run dev", root, false},
		{"npm test; cd /elsewhere", root, "npm test", root, true},
		{"cd ~/Arcblock/payment-kit-master && pnpm run coverage", "/tmp/fs/~/Arcblock/payment-kit-master/app", "pnpm run coverage", "/tmp/fs/~/Arcblock/payment-kit-master", true},
	} {
		a, b := RunnerKey(tc.cmdA, tc.dirA), RunnerKey(tc.cmdB, tc.dirB)
		if a == "" || b == "" || (a == b) != tc.same {
			t.Errorf("RunnerKey(%q in %s) = %q, RunnerKey(%q in %s) = %q; same run: want %v", tc.cmdA, tc.dirA, a, tc.cmdB, tc.dirB, b, tc.same)
		}
	}
}

// TestLookOf: a command that only shows one file is a look at it, however
// it shows it (ext-hcrregistration #72, #73, #81, #83: tail -50 F, cat F,
// cat F | head -100, cat F | tail -50); anything that does more, shows
// several files or follows one is not.
func TestLookOf(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"tail -50 /tmp/t/b3.output 2>&1", "/tmp/t/b3.output"},
		{"cat /tmp/t/b3.output 2>&1", "/tmp/t/b3.output"},
		{"cat /tmp/t/b3.output 2>&1 | head -100", "/tmp/t/b3.output"},
		{"cat /tmp/t/b3.output | tail -50", "/tmp/t/b3.output"},
		{"sleep 30 && tail -150 /tmp/t/b8.output 2>&1", "/tmp/t/b8.output"},
		{`tail -200 /tmp/t/b8.output 2>&1 || echo "File not ready yet"`, "/tmp/t/b8.output"},
		{"cd /p && tail -5 out.log", "out.log"},
		{"less notes.txt", "notes.txt"},
		{"tail -f /tmp/t/b8.output", ""},
		{"tail -n +5 out.log", ""},
		{"cat out.log && ls", ""},
		{"cat a.log b.log", ""},
		{"cat *.log | tail -3", ""},
		{"cat out.log || rm out.log", ""},
		{"grep ERROR out.log", ""},
		{"cat out.log > copy.log", ""},
		{"ls -la /tmp/t/b3.output", ""},
	} {
		key, _ := ShellKey(tc.cmd, "/p")
		if got := LookOf(key); got != tc.want {
			t.Errorf("LookOf(ShellKey(%q) = %q) = %q, want %q", tc.cmd, key, got, tc.want)
		}
	}
}

// TestInstalls: a package manager's install, add, remove or update, however
// it is reached, read from the parsed command; its other runs, other
// commands and a quoted "npm install" are not.
func TestInstalls(t *testing.T) {
	for cmd, want := range map[string]bool{
		"pnpm install --frozen-lockfile 2>&1 | tail -20": true,
		"cd app && npm ci":                                 true,
		"python -m pip install -r requirements.txt":        true,
		"/usr/local/bin/pip3 install requests":             true,
		"go mod tidy && go test ./...":                     true,
		"cargo add serde":                                  true,
		"pnpm astro check 2>&1 | head -50":                 false,
		"go test ./internal/service/devmachine/... -v":     false,
		"npm run install-hooks":                            false,
		"echo install":                                     false,
		"grep -rn \"npm install\" README.md":               false,
		"cargo test --workspace -- --list 2>&1 | head -20": false,
	} {
		if _, _, w := shellKey(cmd, ""); w.installs != want {
			t.Errorf("installs(%q) = %v, want %v", cmd, w.installs, want)
		}
	}
}
