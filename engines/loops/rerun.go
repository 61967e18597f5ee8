package loops

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/djinn-cc/djinn/internal/shellword"
)

// RerunRounds is how many rounds of one run of a test, build or package
// script (RunnerKey) with no write between make a tool-loop
// (Finding.Rerun): nothing it reads has changed, so running it again only
// to read its output through another filter learns nothing new.
const RerunRounds = 3

// runners are the first words of commands that run a project's tests,
// build or scripts: slow, and with the same files they print the same
// verdict.
var runners = map[string]bool{
	"npm": true, "pnpm": true, "yarn": true, "bun": true, "npx": true, "bunx": true, "pytest": true,
	"go": true, "cargo": true, "make": true, "mvn": true, "mvnw": true, "gradle": true, "gradlew": true,
	"jest": true, "vitest": true, "tsc": true, "dotnet": true, "mix": true, "rspec": true, "bundle": true,
	"rake": true, "tox": true, "deno": true, "uv": true, "poetry": true,
}

// filters are commands that only pass on, cut or keep a copy of what
// they read: a run piped through them is the same run.
var filters = map[string]bool{
	"grep": true, "egrep": true, "rg": true, "tail": true, "head": true, "tee": true, "sed": true,
	"awk": true, "wc": true, "sort": true, "uniq": true, "cut": true, "less": true, "more": true,
	"cat": true, "jq": true, "column": true, "tr": true,
}

// RunnerKey is the run of a test, build or package script a shell command
// makes ("pnpm run coverage @1a2b3c4d"), "" when it makes none: the words
// of the one command it runs, whatever filters its output goes through
// (| grep …, | tail -50, | tee out.txt) and whatever echo of its exit
// status after it, and a hash of the directory it runs in (dir, the
// directory the command starts in, moved by any cd before the run; ~ is the
// home directory dir is under). Seven runs of pnpm run coverage, each
// through another grep, are one run made seven times (ext-paymentkit
// #135-#143, a tool-loop to both judges of the twenty-ninth set); the same
// script in another package is another run (ext-paymentkit #15 against
// #23, ext-pdvblankscreen #31 against #36, which their judges found were
// not one run made again). RunShown is the run without its directory.
func RunnerKey(command, dir string) string {
	if len(command) > maxShellKeyInput {
		return ""
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return ""
	}
	return runnerKey(f, dir)
}

// RunShown is a RunnerKey without the hash of its directory.
func RunShown(run string) string {
	if i := strings.LastIndex(run, " @"); i >= 0 {
		return run[:i]
	}
	return run
}

// runnerKey is RunnerKey of a parsed command.
func runnerKey(f *syntax.File, dir string) string {
	sc := runScan{at: path.Clean("/" + dir)}
	for _, st := range f.Stmts {
		if st.Cmd == nil || st.Background {
			return ""
		}
		sc.command(st.Cmd)
	}
	if sc.bad || len(sc.runs) != 1 {
		return ""
	}
	words := make([]string, 0, len(sc.runs[0].Args))
	for _, w := range sc.runs[0].Args {
		var b strings.Builder
		if syntax.NewPrinter().Print(&b, w) != nil {
			return ""
		}
		words = append(words, b.String())
	}
	words[0] = path.Base(words[0])
	return strings.Join(words, " ") + " @" + ShortHash([]byte(sc.at))[:8]
}

// homeOf is the home directory a path is under (/Users/NAME, /home/NAME,
// /root, a directory named ~; also below another prefix, as a replay's
// scratch tree puts them), "" when none.
func homeOf(p string) string {
	if i := strings.Index(p+"/", "/~/"); i >= 0 {
		// A transcript that wrote the home directory as ~ (its cwd
		// "~/project"), replayed below a scratch tree.
		return p[:i+2]
	}
	if h := shellword.HomeOf(p); h != "" {
		return h
	}
	if p == "/root" || strings.HasPrefix(p, "/root/") {
		return "/root"
	}
	return ""
}

// runScan walks a command for RunnerKey: the runner commands it runs
// (runs), whether it does anything else (bad), and the directory its cds
// lead to (at, from the directory it starts in).
type runScan struct {
	runs []*syntax.CallExpr
	bad  bool
	at   string
}

// cd follows a cd to a literal directory (~ for the home directory the
// start is under); any other cd makes the run's directory unknown (bad).
func (sc *runScan) cd(c *syntax.CallExpr) {
	if len(sc.runs) > 0 {
		return // a cd after the run does not move it
	}
	if len(c.Args) != 2 {
		sc.bad = true
		return
	}
	to, ok := shellword.Text(c.Args[1], false)
	rest, home := strings.CutPrefix(to, "~")
	if !ok || to == "" || to == "-" || strings.ContainsAny(rest, "$`*?") || home && rest != "" && !strings.HasPrefix(rest, "/") {
		sc.bad = true
		return
	}
	if home {
		h := homeOf(sc.at)
		if h == "" {
			sc.bad = true
			return
		}
		to = h + rest
	}
	if !strings.HasPrefix(to, "/") {
		to = path.Join(sc.at, to)
	}
	sc.at = path.Clean(to)
}

// command reads one command: && and || lists by their parts, a pipeline
// by its first stage when every later one filters, a simple command by
// its name (cd and echo pass, a runner counts, anything else is bad).
func (sc *runScan) command(c syntax.Command) {
	switch x := c.(type) {
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.AndStmt, syntax.OrStmt:
			sc.command(x.X.Cmd)
			sc.command(x.Y.Cmd)
		case syntax.Pipe, syntax.PipeAll:
			sc.pipeline(x)
		default:
			sc.bad = true
		}
	case *syntax.CallExpr:
		switch name := callName(x); {
		case name == "cd":
			sc.cd(x)
		case name == "echo" || name == "printf" || name == "":
		case runners[name]:
			sc.runs = append(sc.runs, x)
		default:
			sc.bad = true
		}
	default:
		sc.bad = true
	}
}

// pipeline reads a pipeline: its first stage runs, every later one must
// only filter.
func (sc *runScan) pipeline(x *syntax.BinaryCmd) {
	for {
		if !isFilter(x.Y.Cmd) {
			sc.bad = true
			return
		}
		l, ok := x.X.Cmd.(*syntax.BinaryCmd)
		if !ok || l.Op != syntax.Pipe && l.Op != syntax.PipeAll {
			sc.command(x.X.Cmd)
			return
		}
		x = l
	}
}

// callName is a simple command's program name, "" when it has none (an
// assignment alone).
func callName(c *syntax.CallExpr) string {
	if len(c.Args) == 0 {
		return ""
	}
	return path.Base(c.Args[0].Lit())
}

// isFilter tells a pipeline stage that only filters what it reads.
func isFilter(c syntax.Command) bool {
	x, ok := c.(*syntax.CallExpr)
	return ok && filters[callName(x)]
}

// rerun is tool-loop's third half: back from the newest event to the
// last write or user prompt, the successful runs of the newest event's
// RunnerKey. It holds at exactly RerunRounds rounds, so one streak is
// said once, when the runs were not all one command (ShellKey): each cut
// its output another way. The runs' own copies of their output (| tee out.txt) are no
// write; a write of any other call, an install, a subagent, or the user
// speaking, is a new start.
func rerun(w []Event) (Finding, bool) {
	n := len(w)
	cur := &w[n-1]
	if KindOf(cur.Tool) != KindShell || !ok(cur) {
		return Finding{}, false
	}
	key := cur.Run
	if key == "" || cur.Installs {
		// An install changes what it reads itself (p-dotfile-617b8d63
		// #23, npm install run again after removing what blocked it,
		// false to both judges of the pool).
		return Finding{}, false
	}
	idx := streakBack(w, func(e *Event) streakStep {
		switch {
		case e.Run == key && ok(e):
			return streakTake
		case e.Run == key:
			// A failed run is fail-loop's, and what it printed may have
			// moved the agent on.
			return streakEnd
		case isEdit(e) || e.Tool == "Task" || e.Tool == "Agent":
			// A subagent may have changed what the run reads (big3 #44
			// fixed the failing tests between #42 and #45).
			return streakEnd
		case e.Installs:
			// An install may have changed it too (e-claudecodeconfig-1d7a8ab7
			// #51: pnpm install between two astro checks, said as nothing
			// changed, false to both judges of the thirteenth draw).
			return streakEnd
		}
		return streakSkip
	})
	if !closesRounds(w, idx, RerunRounds) {
		return Finding{}, false
	}
	if !cutAnotherWay(w, idx) {
		// One command run again as it was, its output changing: polling,
		// repeatLoop's to judge (a flaky or timed verdict changes).
		return Finding{}, false
	}
	return withCalls(Finding{Tool: cur.Tool, Target: RunShown(key), Count: len(idx), Cycle: 1, Rerun: true}, w, idx), true
}

// streakStep is what streakBack does with one event.
type streakStep uint8

const (
	streakSkip streakStep = iota // not part of the streak, nor its end
	streakTake                   // part of the streak
	streakEnd                    // the streak starts after it
)

// streakBack walks back from the newest event within its user prompt and
// lists (oldest first) the events step takes, up to the first it ends at.
func streakBack(w []Event, step func(*Event) streakStep) []int {
	n := len(w)
	var idx []int
	for i := n - 1; i >= 0 && w[i].Prompt == w[n-1].Prompt; i-- {
		s := step(&w[i])
		if s == streakEnd {
			break
		}
		if s == streakTake {
			idx = append(idx, i)
		}
	}
	slices.Reverse(idx)
	return idx
}

// closesRounds tells a streak (indexes into w, oldest first) that falls
// into exactly want rounds, the newest event opening the last: so one
// streak is said once.
func closesRounds(w []Event, idx []int, want int) bool {
	rounds := roundStarts(idx, func(i int) *Event { return &w[i] })
	return len(rounds) == want && rounds[len(rounds)-1] == len(w)-1
}

// withCalls fills a finding's Events and Steps with the streak's calls.
func withCalls(f Finding, w []Event, idx []int) Finding {
	for _, i := range idx {
		f.Events = append(f.Events, w[i].Seq)
		f.Steps = append(f.Steps, Step{Tool: w[i].Tool, Target: w[i].Target})
	}
	return f
}

// installers are package managers, and installVerbs their words that
// change the dependencies a run reads ("pnpm install", "pip install -r",
// "go mod tidy", "cargo add").
var (
	installers   = map[string]bool{"npm": true, "pnpm": true, "yarn": true, "bun": true, "pip": true, "pip3": true, "uv": true, "poetry": true, "pipenv": true, "conda": true, "bundle": true, "gem": true, "cargo": true, "go": true, "composer": true, "dotnet": true, "mix": true}
	installVerbs = map[string]bool{"install": true, "i": true, "ci": true, "add": true, "remove": true, "uninstall": true, "update": true, "upgrade": true, "sync": true, "get": true, "tidy": true, "restore": true, "deps.get": true}
)

// installs tells a parsed command that runs a package manager's install,
// add, remove or update, however it is reached: "cd app && pnpm install
// --frozen-lockfile", "python -m pip install -r requirements.txt", "go mod
// tidy". A quoted "npm install" is one word, no command.
func installs(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		x, ok := n.(*syntax.CallExpr)
		if !ok || found {
			return !found
		}
		for i := 0; i+1 < len(x.Args); i++ {
			if !installers[path.Base(lit(x.Args[i]))] {
				continue
			}
			next := lit(x.Args[i+1])
			if next == "mod" && i+2 < len(x.Args) { // go mod tidy, go mod download
				next = lit(x.Args[i+2])
			}
			if installVerbs[next] || next == "download" {
				found = true
				break
			}
		}
		return !found
	})
	return found
}

// cutAnotherWay tells runs (indexes into w) that were not all one command.
func cutAnotherWay(w []Event, idx []int) bool {
	for _, i := range idx[1:] {
		if w[i].Input != w[idx[0]].Input {
			return true
		}
	}
	return false
}
