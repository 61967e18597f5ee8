package replay

import (
	"encoding/json"
	"testing"
)

// TestWindowsPaths: a Windows session's paths land in one place of the
// scratch file system however they are spelled (the cwd C:\Users\ana\app,
// a file tool's c:/Users/ana/app/x, Git Bash's /c/Users/ana/app), so the
// hooks see the session's files in its project (twenty-second set,
// ext-solsmile #27: rm -rf node_modules after cd /c/Users/…, taken for a
// deletion outside the project); a name an archive redacted as [USER]
// is the cwd's user again.
func TestWindowsPaths(t *testing.T) {
	r := &paths{fsRoot: "/scratch", origCwd: `C:\Users\ana\app`}
	r.projectDir = r.mapPath(r.origCwd)
	if r.projectDir != "/scratch/c/Users/ana/app" {
		t.Fatalf("project = %q", r.projectDir)
	}
	for _, tc := range []struct{ in, want string }{
		{"c:/Users/ana/app/contracts/hardhat.config.js", "/scratch/c/Users/ana/app/contracts/hardhat.config.js"},
		{`C:\Users\ana\app\src\a.ts`, "/scratch/c/Users/ana/app/src/a.ts"},
		{"cd /c/Users/ana/app/contracts && rm -rf node_modules", "cd /scratch/c/Users/ana/app/contracts && rm -rf node_modules"},
		{`cd "C:/Users/ana/app" && ls`, `cd "/scratch/c/Users/ana/app" && ls`},
		{`cd "C:/Users/[USER]/app" && ls`, `cd "/scratch/c/Users/ana/app" && ls`},
		{"ls /c/Users/bob", "ls /c/Users/bob"},
	} {
		if got := r.mapString(tc.in); got != tc.want {
			t.Errorf("mapString(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// A cwd that is not Windows keeps the one spelling.
	u := &paths{fsRoot: "/scratch", origCwd: "/home/ana/app", projectDir: "/scratch/home/ana/app"}
	raw := u.mapInput(json.RawMessage(`{"command":"cd /home/ana/app && cat /c/x"}`))
	if string(raw) != `{"command":"cd /scratch/home/ana/app \u0026\u0026 cat /c/x"}` {
		t.Errorf("mapInput = %s", raw)
	}
}
