package risk

import (
	"path"
	"regexp"
	"strings"
)

// A program killed by name that no command of the session started is most
// likely the user's own, running outside the session: a collector, a dev
// server holding the port the agent wanted (athena-agreements #22,
// jekyll-navbar #42, misses both pairs of judges marked). What the session
// ran is kept as words (RanWords, Call.Ran): a kill whose pattern shares
// one with them is the session stopping what it started.

// relaunched are programs the system starts again at once when they are
// killed, which killing is the way to refresh (killall Finder after an
// icon changed).
var relaunched = map[string]bool{"finder": true, "dock": true, "systemuiserver": true, "controlcenter": true, "notificationcenter": true, "cfprefsd": true, "menuextra": true}

// killValued are pkill's and killall's options that take a value.
var killValued = map[string]bool{"-u": true, "-U": true, "-g": true, "-G": true, "-P": true, "-s": true, "-t": true, "-F": true, "--signal": true, "--user": true}

var wordSplit = regexp.MustCompile(`[^a-z0-9_-]+`)

// ranWords is the lowercased words of s of three characters or more, split
// at anything but letters, digits, _ and - (which are trimmed from the
// ends: --port is port).
func ranWords(s string) []string {
	var out []string
	for _, w := range wordSplit.Split(strings.ToLower(s), -1) {
		if w = strings.Trim(w, "-_"); len(w) >= 3 && len(w) <= 64 {
			out = append(out, w)
		}
	}
	return out
}

// RanWords are the words of a command that ran, which a later kill's
// pattern is matched against (Call.Ran): the words of every argument of
// every step that holds no space. A program or script is named so; a
// commit message or an inline script is text, whose words would push the
// names out of the bounded memory.
func RanWords(c Call) []string {
	cmds, _ := c.commands()
	var out []string
	for _, x := range cmds {
		for _, a := range x.args {
			if !strings.ContainsAny(a, " \t\n") {
				out = append(out, ranWords(a)...)
			}
		}
	}
	return out
}

// killPatterns are the names or patterns a command kills processes by:
// pkill's and killall's operands, and the pattern of a kill's command
// substitution (kill $(pgrep -f X), kill $(ps aux | grep X | awk …)).
func killPatterns(name string, x cmd) []string {
	switch name {
	case "pkill", "killall":
		_, params := splitFlagsWith(x.args[1:], killValued)
		return params
	case "kill":
		var out []string
		for _, y := range substituted(x) {
			if len(y.args) == 0 {
				continue
			}
			switch path.Base(y.args[0]) {
			case "pgrep":
				_, ps := splitFlagsWith(y.args[1:], killValued)
				out = append(out, ps...)
			case "grep":
				flags, ps := splitFlagsWith(y.args[1:], nil)
				if len(ps) > 0 && !contains(flags, "-v") {
					out = append(out, ps[0])
				}
			}
		}
		return out
	}
	return nil
}

// checkKillOther finds a kill by name of a program no command of the
// session started: one word of the pattern (a program or script name, no
// spaces: a command line such as 'gh api graphql' may be a child of the
// session's own script), which none of the words the session ran shares.
// git and the runtimes are checkGitLock's.
func checkKillOther(c Call, name string, x cmd) []Finding {
	var out []Finding
	for _, p := range killPatterns(name, x) {
		p = strings.Trim(p, `'"`)
		if p == "" || strings.ContainsAny(p, " \t") || isGitProgram(p) || isRuntime(p) || relaunched[strings.ToLower(p)] {
			continue
		}
		ws := ranWords(p)
		if len(ws) == 0 || sharesWord(ws, c.Ran) {
			continue
		}
		out = append(out, Finding{Entry: KillOther, Target: name + " " + p})
	}
	return out
}

func sharesWord(ws, ran []string) bool {
	for _, w := range ws {
		if contains(ran, w) {
			return true
		}
	}
	return false
}
