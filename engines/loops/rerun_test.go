package loops

import "testing"

// TestRunnerKey: a run of a test, build or package script is the same run
// whatever filters its output goes through and whatever cd or exit-status
// echo surrounds it (ext-paymentkit #15, #23, #32); a command that is not
// one run of one script has none.
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
	} {
		if got := RunnerKey(tc.cmd); got != tc.want {
			t.Errorf("RunnerKey(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}
