package risk

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parseCommands are commands of every shape the readings of a call parse:
// cds, && lists, sh -c strings, heredocs, pipes into sudo -S, redirects.
var parseCommands = []string{
	`rm -rf build && npm run build`,
	`cd ~/proj && git stash && git pull && git stash pop`,
	`git add -A && git commit -m "wip" && git push --force origin main`,
	`echo hunter2 | sudo -S systemctl restart nginx`,
	`bash -c "rm -rf /tmp/x && mkdir -p out && cp a.txt out/"`,
	"cat > notes.md << 'EOF'\nhello\nEOF",
	`mv github-mcp-server ../projects/ && touch done.flag > log.txt`,
	`psql -c "DROP TABLE users"`,
	`chmod 777 run.sh; git reset --hard HEAD~1`,
	`sed -i s/a/b/ x.go | tee out.txt`,
	`git commit --no-verify -m "x"`,
	`(`,
}

// TestWithParseSame: a call parsed once (WithParse) reads the same as one
// each reading parses for itself.
func TestWithParseSame(t *testing.T) {
	limits := ParseLimits("don't commit, don't push and don't delete anything; do not touch notes.md")
	for _, cmd := range parseCommands {
		c := Call{Tool: "Bash", Command: cmd, ProjectDir: "/home/ana/proj", Written: []string{"/home/ana/proj/out"}}
		p := c.WithParse()
		if p.Parsed == nil {
			t.Fatalf("WithParse(%q) left Parsed nil", cmd)
		}
		if d := cmp.Diff(Check(c), Check(p)); d != "" {
			t.Errorf("Check(%q) differs parsed once (-each +once):\n%s", cmd, d)
		}
		if d := cmp.Diff(Broken(limits, c), Broken(limits, p)); d != "" {
			t.Errorf("Broken(%q) differs parsed once (-each +once):\n%s", cmd, d)
		}
		if d := cmp.Diff(Creates(c), Creates(p)); d != "" {
			t.Errorf("Creates(%q) differs parsed once (-each +once):\n%s", cmd, d)
		}
		if Stashes(c) != Stashes(p) {
			t.Errorf("Stashes(%q) differs parsed once", cmd)
		}
	}
	if len(Check(Call{Tool: "Bash", Command: parseCommands[2]})) == 0 || !Stashes(Call{Command: parseCommands[1]}) {
		t.Fatal("the table no longer exercises the readings")
	}
}

// BenchmarkBashReadings is what one Bash call costs the risk readings a
// hook makes (Check, Broken, Creates, Stashes), parsing the command for
// each ("each") or once ("once").
func BenchmarkBashReadings(b *testing.B) {
	limits := ParseLimits("don't commit, don't push")
	c := Call{Tool: "Bash", Command: `cd ~/proj && git stash && npm ci && npm run build 2>&1 | tail -20 && git stash pop`, ProjectDir: "/home/ana/proj"}
	for _, once := range []bool{false, true} {
		name := "each"
		if once {
			name = "once"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				x := c
				if once {
					x = x.WithParse()
				}
				_ = Check(x)
				_ = Broken(limits, x)
				_ = Creates(x)
				_ = Stashes(x)
			}
		})
	}
}

// TestFallback: the text an echo after a step's || prints is kept on the
// step's findings, for the step at the end of an && list too; an echo of
// nothing, of a variable, after a pipe or after ; is none.
func TestFallback(t *testing.T) {
	for _, tc := range []struct{ command, want string }{
		{`taskkill /F /IM node.exe 2>nul || echo "No node processes to kill"`, "No node processes to kill"},
		{`cd /c/app && taskkill /F /IM node.exe || echo No node left`, "No node left"},
		{`taskkill /F /IM node.exe || echo ""`, ""},
		{`taskkill /F /IM node.exe || echo $?`, ""},
		{`taskkill /F /IM node.exe; echo "No node processes to kill"`, ""},
		{`taskkill /F /IM node.exe || true`, ""},
		{`taskkill /F /IM node.exe || echo "gone" > log.txt`, ""},
	} {
		var got []string
		for _, f := range Check(Call{Tool: "Bash", Command: tc.command}) {
			if f.Entry == KillRuntime {
				got = append(got, f.Fallback)
			}
		}
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s: fallbacks %q, want one %q", tc.command, got, tc.want)
		}
	}
}
