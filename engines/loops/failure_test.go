package loops

import "testing"

func TestFailureKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Error: listen EADDRINUSE: address already in use :::3000", "address in use :3000"},
		{"OSError: [Errno 98] Address already in use (port 8000)", "address in use :8000"},
		{"error: password authentication failed for user \"app\"", "authentication failed for user \"app\""},
		{"ERROR 1045 (28000): Access denied for user 'root'@'localhost'", "access denied for user 'root'@'localhost'"},
		{"Error: Cannot find module 'express'\nRequire stack:", "missing express"},
		{"ModuleNotFoundError: No module named 'requests'", "missing requests"},
		// One missing dependency, however it shows (attio-mcp-2, calls 76-79).
		{"> vitest run\n\nsh: vitest: command not found", "missing vitest"},
		{"ls: node_modules/.bin/vitest: No such file or directory", "missing vitest"},
		{"Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'vitest' imported from /p/vitest.config.ts", "missing vitest"},
		{"ls: node_modules/@types/node/index.d.ts: No such file or directory", "missing @types/node"},
		{"bash: ./deploy.sh: Permission denied", "permission denied ./deploy.sh"},
		{"ls: cannot access 'types/': No such file or directory", "no such file types/"},
		{"/root/.bashrc: line 3: nvm: command not found\nmake: *** [all] Error 2", ""},
		{"bash: tsc: command not found", "missing tsc"},
		// A warning git prints on every call is no failure (mthis-action 76).
		{"warning: unable to access '/home/u/.gitignore_global': Permission denied\nerror: gpg failed to sign the data", ""},
		{"bash: ./node_modules/.bin/tsc: command not found", "missing tsc"},
		{"Exit code 1\n--- FAIL: TestAdd (0.00s)", ""},
		{"", ""},
	} {
		if got := FailureKey(tc.in); got != tc.want {
			t.Errorf("FailureKey(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestOutputFailureKey(t *testing.T) {
	for _, tc := range []struct{ cmd, out, want string }{
		{"node -e 'x'", "fail password authentication failed for user \"app\"", "authentication failed for user \"app\""},
		{"cd web && PORT=3 npm start", "Error: listen EADDRINUSE: address already in use :::3000", "address in use :3000"},
		{"grep -rn EADDRINUSE src", "src/a.ts:3: Error: listen EADDRINUSE: address already in use :::3000", ""},
		{"cat out.log | tail -5", "Error: listen EADDRINUSE: address already in use :::3000", ""},
		{"npm test", "src/a.test.ts:12: expect(e).toMatch('No such file or directory')", ""},
		{"npm test", "  // throws 'Cannot find module' when missing", ""},
		{"npm test", "Tests: 12 passed, 0 failed", ""},
	} {
		if got := OutputFailureKey(tc.cmd, tc.out); got != tc.want {
			t.Errorf("OutputFailureKey(%q, %q) = %q, want %q", tc.cmd, tc.out, got, tc.want)
		}
	}
}
