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
		// In a command, the rest of a project path spelled with
		// backslashes goes with it: the hook reads C:\Users\ana\app\src\x.js
		// whole as a path in the project (seventh draw,
		// r-claudeagents-fd3434e5 #122: an rm of a file the move had
		// emptied, taken for a deletion outside the project).
		{`rm "C:\Users\ana\app\src\x.js" && ls`, `rm "/scratch/c/Users/ana/app/src/x.js" && ls`},
		{`del C:\Users\ana\app\src\old.js;echo ok`, `del /scratch/c/Users/ana/app/src/old.js;echo ok`},
		{`type 'C:\Users\ana\app\a b.txt'`, `type '/scratch/c/Users/ana/app/a b.txt'`},
		{`echo C:\Users\ana\apple\x`, `echo C:\Users\ana\apple\x`},
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

// TestEscapedSpaces: a project whose path has a space is mapped in a
// command that escapes it (Week\ 03) as well as in one that quotes it, so
// an rm of a project file is not taken for one outside the project
// (twenty-eighth set, ext-ticketbooking #44).
func TestEscapedSpaces(t *testing.T) {
	r := &paths{fsRoot: "/scratch", origCwd: "/Users/ana/Week 03/app"}
	r.projectDir = r.mapPath(r.origCwd)
	for _, tc := range []struct{ in, want string }{
		{`rm /Users/ana/Week\ 03/app/src/a.properties`, `rm /scratch/Users/ana/Week\ 03/app/src/a.properties`},
		{`cd "/Users/ana/Week 03/app" && ls`, `cd "/scratch/Users/ana/Week 03/app" && ls`},
		{`ls /Users/ana/Week\ 04`, `ls /Users/ana/Week\ 04`},
	} {
		if got := r.mapString(tc.in); got != tc.want {
			t.Errorf("mapString(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
