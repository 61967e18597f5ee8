package loops

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/djinn-cc/djinn/internal/shellword"
)

// noMatchKey is the key of a command that failed printing nothing because
// its last step, a grep, matched nothing: "grep finds no 5335" for
// "netstat -tuln | grep 5335", also inside an ssh command's remote
// command. The same check finding nothing again, however the calls around
// it were varied (a restart, a kill, another way to start the service),
// is the same failure: what it looks for has not come. "" for anything
// else, and for grep -v, -c and -L, whose exit status says other things.
func noMatchKey(command string) string {
	return noMatchIn(command, 0)
}

func noMatchIn(command string, depth int) string {
	args, _, ok := lastCall(command)
	if !ok || len(args) == 0 {
		return ""
	}
	switch path.Base(args[0]) {
	case "grep", "egrep", "fgrep":
		if p := grepPattern(args[1:]); p != "" {
			return "grep finds no " + clip(p, 80, 60)
		}
	case "ssh":
		if remote := shellword.SSHRemote(args[1:]); remote != "" && depth < 1 {
			return noMatchIn(remote, depth+1)
		}
	}
	return ""
}

// lastCall reads the simple command a command line ends with (the last
// statement, and of a && b, a || b or a | b the last part): its words,
// and whether it is sent to the background with &. ok is false when the
// line does not parse or ends in anything else (a subshell, a negation)
// or in a word that is not plain text.
func lastCall(command string) (args []string, background, ok bool) {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil || len(f.Stmts) == 0 {
		return nil, false, false
	}
	st := f.Stmts[len(f.Stmts)-1]
	background = st.Background
	for {
		b, isBin := st.Cmd.(*syntax.BinaryCmd)
		if !isBin {
			break
		}
		st = b.Y
		background = background || st.Background
	}
	c, isCall := st.Cmd.(*syntax.CallExpr)
	if !isCall || len(c.Args) == 0 || st.Negated {
		return nil, false, false
	}
	args, ok = shellword.Words(c.Args, false)
	return args, background, ok
}

// grepValued are grep's short options that take a value.
const grepValued = "efmABCdD"

// grepPattern is the pattern a grep call looks for (its first operand,
// or the value of -e), or "" when its options make exit status 1 mean
// something other than "no line matched".
func grepPattern(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case strings.HasPrefix(a, "--"):
			if a == "--invert-match" || a == "--count" || a == "--files-without-match" {
				return ""
			}
			if strings.HasPrefix(a, "--regexp=") {
				return strings.TrimPrefix(a, "--regexp=")
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				if strings.IndexByte("vcL", a[j]) >= 0 {
					return ""
				}
				if strings.IndexByte(grepValued, a[j]) >= 0 {
					val := a[j+1:]
					if val == "" && i+1 < len(args) {
						i++
						val = args[i]
					}
					if a[j] == 'e' {
						return val
					}
					break
				}
			}
		default:
			return a
		}
	}
	return ""
}

// emptyFailure tells an error text that says only that the command exited
// non-zero ("Exit code 1", "Error"): it printed nothing.
func emptyFailure(text string) bool {
	t := strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(t, "Exit code "); ok {
		return allDigits(rest)
	}
	return t == "" || t == "Error"
}

// SelfKillKey is the key of a command that killed its own shell: a
// pkill -f or a kill of pgrep -f's pids whose pattern is also in the
// command line of the shell running them, so the shell dies with it and
// the call ends with a bare "Exit code 144" (143, 137) however often it is
// sent (ext-sentinellitellm #66-#67 and #86-#92, both marked by both
// judges of the thirty-eighth set).
const SelfKillKey = "pkill -f or pgrep -f matched the command's own shell and killed it"

// selfKillKey is SelfKillKey for a command with a pkill -f or pgrep -f
// that ended with nothing but a signal's exit code, else "".
func selfKillKey(command, text string) string {
	switch strings.TrimSpace(text) {
	case "Exit code 143", "Exit code 144", "Exit code 137":
	default:
		return ""
	}
	if !killsByCommandLine(command) {
		return ""
	}
	return SelfKillKey
}

// killsByCommandLine tells a command holding a pkill -f, or a pgrep -f
// whose pids it kills: one that may kill the shell running it.
func killsByCommandLine(command string) bool {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return false
	}
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || found || len(c.Args) < 2 {
			return !found
		}
		args := make([]string, len(c.Args))
		for i, w := range c.Args {
			args[i] = shellword.Lenient(w)
		}
		if name := path.Base(args[0]); name == "pkill" || name == "pgrep" {
			found = slices.ContainsFunc(args[1:], func(a string) bool {
				return strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "f")
			}) || slices.Contains(args[1:], "--full")
		}
		return !found
	})
	return found
}

// TimeoutKey is the start of the key of a command the CLI killed when its
// timeout ran out ("Command timed out after 15s"): "killed by its timeout:
// mix". A command that runs until stopped (a server, a watcher) started in
// the foreground is killed each time; the second time it is a loop
// (ShortThreshold), whatever flags or paths the runs varied.
const TimeoutKey = "killed by its timeout: "

// ShortThreshold is how many rounds of one failure make a fail-loop when
// the failure says by itself that retrying will not pass it: a program
// killed by its timeout (one kill may be a slow build; two of the same
// program are a server run the wrong way, which the agent then takes for
// running), and the failures no retry can change (SudoKey, IgnoredKey,
// RulesKey, PageTooLongKey).
const ShortThreshold = 2

// failThreshold is how many rounds of the failure with identity id make a
// fail-loop, given span, the events from the first of the last
// ShortThreshold rounds to the newest: a short-threshold failure met twice
// a loop window apart or more (two steps that each needed sudo) is no
// retry, and needs the usual threshold.
func failThreshold(id string, span uint64, cfg Config) int {
	key, isKey := strings.CutPrefix(id, "key\x00")
	if isKey && (strings.HasPrefix(key, TimeoutKey) || strings.HasPrefix(key, InterruptKey) || retryProof[key]) && span < uint64(cfg.Window) {
		return min(cfg.FailThreshold, ShortThreshold)
	}
	return cfg.FailThreshold
}

// timeoutKey is the key of a failure text that says the command timed
// out, for the command's program, or "".
func timeoutKey(command, text string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), "Command timed out after")
	if !ok {
		return ""
	}
	if limit, ok := timeoutOf(rest); ok && sleepsPast(command, limit) {
		return SleepKey
	}
	return foregroundKey(command)
}

// InterruptKey is the start of the key of a command the user stopped
// while it ran in the foreground and printed ("[Request interrupted by user
// for tool use]" and its output so far): "stopped by the user: npm". A
// server or watcher started in the foreground hangs the session until the
// user stops it; started the same way again, it is a loop at the second
// (ShortThreshold), as a timeout's kill is (ext-duckdbdemo #124, #127: tsx
// watch run in the foreground and stopped by the user each time, a loop to
// both judges of the forty-sixth set).
const InterruptKey = "stopped by the user: "

// interruptKey is the key of a failure text that says the user stopped
// the command after it had printed something, for the command's program
// when it ran in the foreground, or "". A command stopped before it
// printed anything may have been stopped for any reason.
func interruptKey(command, text string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), "[Request interrupted by user for tool use]")
	if !ok || !servesRe().MatchString(rest) {
		// Stopped before it said it serves or watches: a test run or a
		// build stopped midway may have been stopped for any reason
		// (templar #211, #214, a subagent's go test runs).
		return ""
	}
	if k := foregroundKey(command); k != "" {
		return InterruptKey + strings.TrimPrefix(k, TimeoutKey)
	}
	return ""
}

// servesRe matches what a server or a watcher prints once it runs: that it
// listens, is ready, serves a local address, watches files.
var servesRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:listening|ready in|local:\s+https?://|watching|watch mode|running on https?://|server (?:is )?(?:running|started|listening)|started server|rerunning|press ctrl\+c|hot reload|tsx watch|nodemon)\b`)
})

// SleepKey is the key of a command killed by its timeout while it slept
// for longer than the timeout allows ("sleep 180 && gh run view" under
// the CLI's two minutes): the wait itself is killed, every time, whatever
// it waits for.
const SleepKey = TimeoutKey + "sleep"

// timeoutOf reads the duration the CLI's timeout message names ("2m
// 0.0s", "15s", "10m 0.0s") from the rest of its first line.
func timeoutOf(rest string) (time.Duration, bool) {
	m := timeoutRe().FindString(rest)
	d, err := time.ParseDuration(strings.Join(strings.Fields(m), ""))
	return d, err == nil && d > 0
}

var timeoutRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(?:\d+(?:\.\d+)?[hms] ?)+`) })

// sleepsPast tells a command one of whose steps is sleep for at least
// limit (sleep 180, sleep 4m).
func sleepsPast(command string, limit time.Duration) bool {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return false
	}
	past := false
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || past {
			return !past
		}
		args, ok := shellword.Words(c.Args, false)
		if ok && len(args) == 2 && args[0] == "sleep" {
			past = sleepFor(args[1]) >= limit
		}
		return !past
	})
	return past
}

// sleepFor is the time sleep's operand names: seconds, or a number with
// s, m or h; 0 for anything else.
func sleepFor(a string) time.Duration {
	unit := time.Second
	switch {
	case strings.HasSuffix(a, "s"):
		a = strings.TrimSuffix(a, "s")
	case strings.HasSuffix(a, "m"):
		a, unit = strings.TrimSuffix(a, "m"), time.Minute
	case strings.HasSuffix(a, "h"):
		a, unit = strings.TrimSuffix(a, "h"), time.Hour
	}
	n, err := strconv.ParseFloat(a, 64)
	if err != nil || n <= 0 || n > 1e6 {
		return 0
	}
	return time.Duration(n * float64(unit))
}

// foregroundKey is TimeoutKey for the program a command line ends with,
// when it runs in the foreground; "" for one sent to the background with
// & (it runs on after the CLI gave up waiting for its output: it was not
// killed).
func foregroundKey(command string) string {
	args, background, ok := lastCall(command)
	if !ok || background || len(args) == 0 || args[0] == "cd" {
		return ""
	}
	return TimeoutKey + clip(path.Base(args[0]), 40, 30)
}
