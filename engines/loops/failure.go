package loops

import (
	"maps"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/djinn-cc/djinn/internal/termcode"
)

// maxFailureInput bounds the text FailureKey scans: its head and tail, where
// commands print their errors.
const maxFailureInput = 64 << 10

// maxFailureLine bounds the length of a line FailureKey reads: a longer one
// is data (a minified bundle, a JSON dump), not an error report.
const maxFailureLine = 400

// FailureKey names what a failure is about, whichever command or tool
// reported it: the error's class and its target, such as "address in use
// :3000", "module not found 'express'", "authentication failed for user
// \"app\"", "permission denied /etc/x", "no such file ./a.txt" or "unknown
// revision v0.6.1". It returns "" unless a line clearly reports one of
// these classes; shells' start-up complaints (.bashrc and the like) are
// skipped. Two failures with one key are the same failure even when the
// commands that met it differ, so fail-loop counts them together.
func FailureKey(text string) string {
	if waitsAtPrompt(text) {
		return PromptKey
	}
	if classifierDenied(text) {
		return ClassifierKey
	}
	if changedSinceRead(text) {
		return ChangedKey
	}
	if storePython(text) {
		return StorePythonKey
	}
	return scanFailure(text, nil)
}

// storePython tells the failure of Windows' app-execution alias for
// python: no Python is installed, and the alias exits 49 printing only
// "Python" (or says so in full when run from a console). Every python,
// python3 or pip call meets it until a real one is installed
// (ext-weeklypdca #66-#73, a loop to both judges of the forty-third set).
func storePython(text string) bool {
	t := strings.TrimSpace(text)
	if strings.Contains(t, "Python was not found; run without arguments to install from the Microsoft Store") {
		return true
	}
	rest, ok := strings.CutPrefix(t, "Exit code 49")
	return ok && strings.TrimSpace(rest) == "Python"
}

// classifierDenied tells the error of a call the CLI's auto mode refused
// (ext-harnesslab #24, #25, #31, #32: a wrapper its classifier distrusts,
// prefixed to every command, a loop to both judges of the twentieth set):
// the same step sent again is refused again, whatever its spelling, until
// what the reason names is gone. The refusal is one long line, longer
// than any failure line scanFailure reads.
func classifierDenied(text string) bool {
	head := strings.TrimPrefix(strings.TrimSpace(text), "Error: ")
	return strings.HasPrefix(head, "Permission for this action was denied by the Claude Code auto mode classifier")
}

// PromptKey is the key of a command whose output ends at a question it
// asks and no one can answer: it has no terminal (create-next-app's
// "? Would you like to use React Compiler? › No / Yes"), whatever is piped
// into it or whichever question it stops at.
const PromptKey = "an interactive question, with no terminal to answer it"

// yesNoAtEnd is compiled on first use: most outputs end with no question
// and never need it.
var yesNoAtEnd = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)[\[(]\s*y(es)?\s*/\s*no?\s*[\])]\s*[:?]?$`)
})

// waitsAtPrompt tells output whose last line, terminal codes aside, is a
// question still waiting for its answer: a prompts-style "? question ›
// choices" ("»" in a Windows console; not one answered, "✔ question …
// No"), or a line ending in
// "(y/N)" or "[Y/n]"; warnings printed after it ("npm warn exec …") aside.
func waitsAtPrompt(text string) bool {
	// The question is on the last lines: 1 KB holds it, its codes and a
	// warning or two the command printed on stderr.
	text = text[max(0, len(text)-1024):]
	if !strings.Contains(text, "?") && !strings.Contains(text, "/") {
		return false
	}
	lines := strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' })
	for i := len(lines) - 1; i >= 0; i-- {
		last := strings.TrimSpace(termcode.Strip(lines[i]))
		if last == "" || warningLine(strings.ToLower(last)) {
			continue
		}
		return strings.HasPrefix(last, "? ") && strings.ContainsAny(last, "›»") || yesNoAtEnd().MatchString(last)
	}
	return false
}

// scanFailure is the key of the first line of text (its head and tail) that
// reports a failure, skipping lines too long to be one, those skip tells,
// and those a build prints under its warnings ("⚠ Compiled with warnings",
// webpack's "WARNING in"), up to where its errors start: a missing
// optional module a bundler warns about is printed by every build, failed
// or not (ext-solsmile #102-#106, three builds that failed differently).
func scanFailure(text string, skip func(string) bool) string {
	if len(text) > maxFailureInput {
		text = text[:maxFailureInput/2] + "\n" + text[len(text)-maxFailureInput/2:]
	}
	warnings := false
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || len(line) > maxFailureLine || skip != nil && skip(line) {
			continue
		}
		low := strings.ToLower(line)
		switch {
		case strings.Contains(low, "compiled with warnings") || strings.HasPrefix(low, "warning in "):
			warnings = true
			continue
		case strings.Contains(low, "failed to compile") || strings.HasPrefix(low, "error in ") || strings.HasPrefix(low, "error:"):
			warnings = false
		case warnings:
			continue
		}
		if k := lineFailureKey(line); k != "" {
			return clip(strings.ToValidUTF8(k, "\uFFFD"), MaxFingerprint, 100)
		}
	}
	return ""
}

// OutputFailureKey is FailureKey for the output of a command that exited 0:
// only lines that read as an error report count (not a source line printed
// by a search, which may quote the same words), and only for commands whose
// output is their own, not a file's or a search's.
func OutputFailureKey(command, output string) string {
	if waitsAtPrompt(output) {
		// A question left waiting is the command's own, whatever is
		// piped into it (echo N | npx create-next-app).
		return PromptKey
	}
	if !ownOutput(command) {
		return ""
	}
	return outputFailureKey(output)
}

// outputFailureKey is OutputFailureKey for a command known to print its
// own output.
func outputFailureKey(output string) string {
	return scanFailure(output, sourceLine)
}

// readerPrograms print files, searches or history: what they show may
// quote a failure without being one.
var readerPrograms = map[string]bool{
	"grep": true, "rg": true, "ag": true, "ack": true, "git": true, "cat": true, "less": true,
	"more": true, "sed": true, "awk": true, "find": true, "ls": true, "head": true, "tail": true,
	"diff": true, "jq": true, "echo": true, "printf": true, "journalctl": true, "docker": true,
	"kubectl": true, "gh": true, "bat": true, "nl": true, "wc": true, "sort": true, "uniq": true,
}

// ownOutput tells whether a command's first program (past cd and
// environment assignments) prints its own work rather than a file's or a
// search's.
func ownOutput(command string) bool {
	for _, seg := range strings.FieldsFunc(command, func(r rune) bool { return r == '&' || r == ';' || r == '\n' }) {
		fields := strings.Fields(seg)
		for len(fields) > 0 && strings.Contains(fields[0], "=") && !strings.HasPrefix(fields[0], "=") {
			fields = fields[1:]
		}
		if len(fields) == 0 || fields[0] == "cd" || fields[0] == "export" || fields[0] == "source" {
			continue
		}
		prog := fields[0]
		if i := strings.LastIndexByte(prog, '/'); i >= 0 {
			prog = prog[i+1:]
		}
		return !readerPrograms[prog]
	}
	return false
}

// sourceLine tells a line that shows code, a search hit (file:line:
// prefix) or a passing test's name rather than reports an error.
func sourceLine(l string) bool {
	if i := strings.IndexByte(l, ':'); i > 0 && i+1 < len(l) && isDigit(l[i+1]) && !strings.ContainsAny(l[:i], " \t") {
		return true // path:12: …
	}
	for _, p := range []string{"✓", "✔", "√", "PASS", "ok ", "pass ", "passed", "//", "#", "*", "throw ", "raise ", "return ", "const ", "let ", "var ", "if ", "case ", "console.", "print(", "log."} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// tokenKeys are the failures a line names by the word after a phrase: the
// phrase, and the key that word follows (several phrases, one failure).
var tokenKeys = []struct{ phrase, key string }{
	{"authentication failed for user", "authentication failed for user"},
	{"access denied for user", "access denied for user"},
	{"cannot find module", missingKey},
	{"cannot find package", missingKey},
	{"no module named", missingKey},
	{"can't resolve", missingKey},
	{"unknown revision", "unknown revision"},
}

// missingKey is the class of a missing dependency: a module or package
// that cannot be found and a program the shell cannot find are one failure
// when they name the same thing ("vitest: command not found", then
// "Cannot find package 'vitest'": it was never installed).
const missingKey = "missing"

// missingName is the name a missing-dependency key carries: the token
// without its quotes.
func missingName(tok string) string {
	return strings.Trim(tok, "'\"`")
}

// installedBin finds, in a "no such file" subject, the package an absent
// node_modules path belongs to ("node_modules/.bin/vitest" → vitest,
// "node_modules/@scope/pkg/x.js" → @scope/pkg), or "".
func installedBin(subject string) string {
	i := strings.LastIndex(subject, "node_modules/")
	if i < 0 {
		return ""
	}
	rest := subject[i+len("node_modules/"):]
	if b, ok := strings.CutPrefix(rest, ".bin/"); ok {
		rest = b
	}
	parts := strings.Split(rest, "/")
	if parts[0] == "" {
		return ""
	}
	if strings.HasPrefix(parts[0], "@") && len(parts) > 1 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// LineKey is the failure key one line of output gives, or "": the line an
// advisory should quote when the key is what the calls had in common.
func LineKey(line string) string {
	line = strings.TrimSpace(line)
	if line == "" || len(line) > maxFailureLine || sourceLine(line) {
		return ""
	}
	return lineFailureKey(line)
}

// lineFailureKey gives the key of one line, or "".
func lineFailureKey(line string) string {
	low := strings.ToLower(line)
	if k := classKey(line, low); k != "" {
		return k
	}
	if warningLine(low) || StartupComplaint(low) {
		// A warning, or a shell's complaint about its start-up files, is
		// printed whatever failed, often on every call ("warning: unable
		// to access '~/.gitignore_global'").
		return ""
	}
	if strings.Contains(low, "eaddrinuse") || strings.Contains(low, "address already in use") {
		return PortBusyKey + portOf(low)
	}
	if _, rng, ok := strings.Cut(low, "cannot find empty port in range:"); ok {
		// Gradio: "Cannot find empty port in range: 7888-7888."
		if d := digitsAt0(strings.TrimSpace(rng)); d != "" {
			return PortBusyKey + " :" + d
		}
		return PortBusyKey
	}
	for _, k := range tokenKeys {
		if strings.Contains(low, k.phrase) {
			tok := tokenAfter(line, low, k.phrase)
			if k.key == missingKey {
				tok = missingName(tok)
			}
			return k.key + " " + tok
		}
	}
	switch {
	case strings.Contains(low, "permission denied"):
		if t := subjectOf(line, low, "permission denied"); t != "" {
			return "permission denied " + t
		}
	case strings.Contains(low, "operation not permitted"):
		// EPERM is the same failure as EACCES to the agent: the file
		// cannot be had this way ("chmod: changing permissions of 'x':
		// Operation not permitted", then a Read of x: "EACCES").
		if t := subjectOf(line, low, "operation not permitted"); t != "" {
			return "permission denied " + t
		}
	case strings.Contains(low, "no such file or directory"):
		if t := subjectOf(line, low, "no such file or directory"); t != "" {
			if pkg := installedBin(t); pkg != "" {
				return missingKey + " " + pkg
			}
			return "no such file " + t
		}
	}
	if name := missingProgram(line, low); name != "" {
		return missingKey + " " + name
	}
	return ""
}

// missingProgram is the program a shell says it cannot find, or "": bash's
// "gh: command not found", and PowerShell's and cmd.exe's "gh : The term
// 'gh' is not recognized…", "& : The term 'C:\Program Files\GitHub
// CLI\bin\gh.exe' is not recognized…" (ext-firstpr #4-#6, gh not found
// by bash, PowerShell and its full path, marked by both judges of the
// thirty-seventh set).
func missingProgram(line, low string) string {
	if strings.HasSuffix(low, ": command not found") {
		seg := strings.Split(line[:len(line)-len(": command not found")], ": ")
		return path.Base(seg[len(seg)-1])
	}
	if strings.Contains(low, "is not recognized as the name of a cmdlet") || strings.Contains(low, "is not recognized as an internal or external command") {
		return windowsProgram(line)
	}
	return ""
}

// windowsProgram is the program a PowerShell or cmd.exe "is not
// recognized" line names, in quotes: its file name, without its folders
// and its .exe, .cmd, .bat or .ps1; "" if none is quoted.
func windowsProgram(line string) string {
	_, rest, ok := strings.Cut(line, "'")
	if !ok {
		return ""
	}
	term, _, ok := strings.Cut(rest, "'")
	if !ok {
		return ""
	}
	term = term[strings.LastIndexAny(term, `\/`)+1:]
	for _, ext := range []string{".exe", ".cmd", ".bat", ".ps1"} {
		if len(term) > len(ext) && strings.EqualFold(term[len(term)-len(ext):], ext) {
			term = term[:len(term)-len(ext)]
			break
		}
	}
	return term
}

// warningLine tells a line (lower case) that only warns: "warning: …",
// "npm warn …", "hint: …".
func warningLine(low string) bool {
	for _, w := range []string{"warning:", "warning ", "warn:", "warn ", "npm warn", "hint:"} {
		if strings.HasPrefix(low, w) {
			return true
		}
	}
	return false
}

// StartupComplaint tells a line (lower case) in which a shell complains
// about its start-up files or its terminal, or Claude Code's Bash tool
// about its own set-up: its shell snapshot gone ("zsh:source:1: no such
// file or directory: ~/.claude/shell-snapshots/snapshot-zsh-….sh"), its
// temporary folder refused ("EACCES: permission denied, mkdir
// '/tmp/claude-10603'"), Git Bash without cygpath. Printed on every
// command, whatever the command did: no command the agent writes gets past
// it, and all eight fail-loops the draws' judges saw on it were idle (the
// agent had said the tool was broken; "change the command" cannot help).
func StartupComplaint(low string) bool {
	for _, p := range []string{".bashrc", ".bash_profile", ".zshrc", ".zshenv", ".zprofile", ".profile:",
		"no job control in this shell", "cannot set terminal process group", "setlocale:",
		"/shell-snapshots/snapshot-", "mkdir '/tmp/claude-", "cygpath: command not found"} {
		if strings.Contains(low, p) {
			return true
		}
	}
	return false
}

// sudoRefusal tells a line (lower case) in which sudo says it cannot ask
// for the password: no terminal, no askpass program.
func sudoRefusal(low string) bool {
	return strings.HasPrefix(low, "sudo: a terminal is required") || strings.HasPrefix(low, "sudo: a password is required") ||
		strings.HasPrefix(low, "sudo: no tty present")
}

// SudoRefused tells a command's output or error with a line in which sudo
// refused for want of a password or a terminal (SudoKey's line).
func SudoRefused(text string) bool {
	if !strings.Contains(text, "sudo: ") {
		return false
	}
	for l := range strings.Lines(text) {
		if sudoRefusal(strings.ToLower(strings.TrimSpace(l))) {
			return true
		}
	}
	return false
}

// classKey gives the key of a line that reports one of a few failures
// whose words say it whatever printed them, even inside a warning: sudo
// unable to ask for a password, a bad escape sequence in a string or a
// pattern, a push the remote refused, a git add of ignored paths. (A
// shell that cannot fork is not one: Git Bash prints it on Windows now and
// then while its commands run.) These come back unchanged however the
// command around them is varied.
func classKey(line, low string) string {
	switch {
	case sudoRefusal(low):
		return SudoKey
	case strings.Contains(low, "escape") && (strings.Contains(low, "bad escape") || strings.Contains(low, "incomplete escape") ||
		strings.Contains(low, "invalid escape") || strings.Contains(low, "truncated \\")):
		// The sequence follows the word ("bad escape \\U at position 2",
		// "truncated \\UXXXXXXXX escape"), not a path before it.
		from := strings.Index(low, "escape ")
		if t := strings.Index(low, "truncated \\"); t >= 0 {
			from = t
		}
		if from >= 0 {
			if i := strings.IndexByte(line[from:], '\\'); i >= 0 && from+i+1 < len(line) && isLetter(line[from+i+1]) {
				return "bad escape " + line[from+i:from+i+2]
			}
		}
		return "bad escape"
	case strings.Contains(low, "\\: no such file or directory"):
		// "ls: /Users/j/Library/Group\: No such file or directory": the
		// shell that ran the command split a path at its escaped space, so
		// the same escape fails again however the command is varied.
		return SplitPathKey
	case strings.Contains(low, "missing script:") && (strings.HasPrefix(low, "npm err") || strings.Contains(low, "err_pnpm_no_script")),
		strings.HasPrefix(low, "npm err") && strings.HasSuffix(low, "to see a list of scripts, run:"):
		// The line npm prints under a missing script's, all that is left
		// when the output was cut to its tail (npm run lint:tw | tail -3,
		// ext-agilepain #128-#131).
		// "npm error Missing script: \"lint\"": the package.json of the
		// directory npm runs in has no such script, whichever script is
		// asked for and however often.
		return MissingScriptKey
	case strings.Contains(low, "no changes to make: old_string and new_string are exactly the same"):
		// An Edit whose new text is its old text: the CLI refuses it
		// the same way however often it is sent (ext-n8njson #3, #5).
		return NoChangeKey
	case strings.Contains(low, "no task found with id") && agentID(tokenAfter(line, low, "no task found with id:")):
		// TaskOutput given the agentId of a Task call that has already
		// returned: it reads background tasks only, whatever the id. Not
		// another id (a background shell's, "bxlj7393q", from another
		// session: g-claudeconfig-81398a09 #19, false to both judges of
		// the fifteenth draw), of which the advice says nothing.
		return TaskNotFoundKey
	case strings.HasPrefix(low, "warning: not upgrading ") && strings.HasSuffix(low, "the latest version is already installed"):
		// Homebrew's package is behind the release the agent wants: a
		// brew update, upgrade or reinstall gets the same version.
		return BrewLatestKey
	case strings.HasPrefix(low, "the following paths are ignored by one of your .gitignore files"):
		// git add refusing ignored paths, the same however the add is
		// spelled (cd x && git add d/, git add d/ && git commit …).
		return IgnoredKey
	case strings.Contains(low, "gh013: repository rule violations") || strings.Contains(low, "push declined due to repository rule violations"):
		return RulesKey
	case strings.HasPrefix(low, "! [rejected]") || strings.HasPrefix(low, "! [remote rejected]"):
		// "! [rejected]        main -> main (fetch first)"
		f := strings.Fields(line[strings.IndexByte(line, ']')+1:])
		if len(f) >= 3 && f[1] == "->" {
			return "push rejected " + f[2]
		}
		return "push rejected"
	}
	return ""
}

// PortBusyKey starts the key of a program that could not listen on its
// port because something else holds it ("address in use :3000").
const PortBusyKey = "address in use"

// The keys of failures no retry can change until someone acts on their
// cause: the page is too long for WebFetch, sudo has no terminal to ask
// for the password on, .gitignore ignores the path, the remote's rules
// refuse the push, the shell splits an escaped path, brew has nothing
// newer, TaskOutput has no such task, npm's package.json has no such
// script, an Edit changes nothing. Met a second time, however the
// command was varied, they are a loop (ShortThreshold).
const (
	// PageTooLongKey: WebFetch answers "Prompt is too long" when the page
	// it fetched does not fit its model's prompt, whatever the prompt
	// asks (WebFetchKey).
	PageTooLongKey = "the page is too long for WebFetch"
	SudoKey        = "sudo cannot ask for the password"
	IgnoredKey     = "git add refused: the path is ignored by .gitignore"
	RulesKey       = "push refused by the repository's rules"
	// SplitPathKey: a path escaped with a backslash before a space
	// reached the command in two pieces.
	SplitPathKey = "a path with an escaped space was split in two"
	// BrewLatestKey: brew upgrade finds nothing newer than what is installed.
	BrewLatestKey = "brew has no newer version to upgrade to"
	// TaskNotFoundKey: TaskOutput finds no task by the id a Task call gave.
	TaskNotFoundKey = "TaskOutput finds no task by a subagent's id"
	// MissingScriptKey: npm (or pnpm) finds no such script in the
	// package.json where it runs.
	MissingScriptKey = "npm finds no such script in the package.json where it runs"
	// NoChangeKey: an Edit whose new_string is its old_string.
	NoChangeKey = "an Edit whose new text is the same as the old"
	// ChangedKey: a write the CLI refused because the file changed on
	// disk since it was read, whichever file.
	ChangedKey = "the file changed on disk after it was read"
	// ClassifierKey: a call the CLI's auto-mode classifier denied.
	ClassifierKey = "denied by Claude Code's auto-mode classifier"
	// StorePythonKey: Windows' Microsoft Store alias answered for python.
	StorePythonKey = "python is Windows' Microsoft Store alias, not an installed Python"
)

// retryProof are those keys, for failThreshold.
var retryProof = map[string]bool{SelfKillKey: true, PageTooLongKey: true, SudoKey: true, IgnoredKey: true, RulesKey: true, SplitPathKey: true, BrewLatestKey: true, TaskNotFoundKey: true, MissingScriptKey: true, NoChangeKey: true, ClassifierKey: true, StorePythonKey: true}

// agentID tells a subagent's id as Claude Code gives it: "a" and hex
// digits ("a6c7885", "a2c2ff0b877db3be8"), not a background shell's
// ("bxlj7393q").
func agentID(id string) bool {
	id = strings.TrimSuffix(strings.TrimSpace(id), "</tool_use_error>")
	if len(id) < 7 || id[0] != 'a' {
		return false
	}
	for _, r := range id[1:] {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// RetryProofKeys are the keys of failures no retry changes, sorted: each
// needs the step that does change it (hooks/advice).
func RetryProofKeys() []string {
	keys := slices.Sorted(maps.Keys(retryProof))
	return keys
}

// WebFetchKey is the failure key of a WebFetch result that reports one
// though the call succeeded: "Prompt is too long" (PageTooLongKey); "" for
// anything else.
func WebFetchKey(result string) string {
	if strings.TrimSpace(result) == "Prompt is too long" {
		return PageTooLongKey
	}
	return ""
}

// MissingPageKey and RefusedPageKey start the keys of WebFetch failures
// by their HTTP status, ended by the site's host: pages guessed on one site
// that are not there (404, 410), or a site that refuses WebFetch (401,
// 403). Another address on the same site fails the same way, so three are
// a loop however the paths vary (ext-plugininstall #4-#6, three guessed
// docs pages, marked by both judges of the thirty-seventh set).
const (
	MissingPageKey = "no such page (HTTP 404) on "
	RefusedPageKey = "the site refuses the fetch (HTTP 403) at "
)

// WebFetchFailureKey is the failure key of a WebFetch call that failed
// with an HTTP status ("Request failed with status code 404") on the page
// at address: MissingPageKey or RefusedPageKey and its host; "" for any
// other failure, or an address with no host.
func WebFetchFailureKey(address, errText string) string {
	code, ok := strings.CutPrefix(strings.TrimSpace(errText), "Request failed with status code ")
	if !ok {
		return ""
	}
	u, err := url.Parse(strings.TrimSpace(address))
	if err != nil || u.Hostname() == "" {
		return ""
	}
	switch strings.TrimSpace(code) {
	case "404", "410":
		return MissingPageKey + u.Hostname()
	case "401", "403":
		return RefusedPageKey + u.Hostname()
	}
	return ""
}

// portOf finds the port of an address-in-use line: the digits after the
// last colon, or after "port".
func portOf(low string) string {
	if i := strings.LastIndex(low, "port "); i >= 0 {
		if d := digitsAt0(low[i+5:]); d != "" {
			return " :" + d
		}
	}
	for i := len(low) - 1; i >= 0; i-- {
		if low[i] == ':' {
			if d := digitsAt0(low[i+1:]); d != "" {
				return " :" + d
			}
		}
	}
	return ""
}

func digitsAt0(s string) string {
	j := 0
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return s[:j]
}

// tokenAfter returns the word that follows phrase in line (quotes kept, a
// trailing comma or period dropped).
func tokenAfter(line, low, phrase string) string {
	i := strings.Index(low, phrase) + len(phrase)
	rest := strings.Fields(line[i:])
	if len(rest) == 0 {
		return ""
	}
	return strings.TrimRight(rest[0], ",.;:)]")
}

// subjectOf finds what a "permission denied" or "no such file" line is
// about: a quoted name on the line, or the part before the phrase
// ("bash: ./x.sh: Permission denied").
func subjectOf(line, low, phrase string) string {
	for _, q := range []byte{'\'', '"', '`'} {
		if i := strings.IndexByte(line, q); i >= 0 {
			if j := strings.IndexByte(line[i+1:], q); j > 0 {
				return line[i+1 : i+1+j]
			}
		}
	}
	before := strings.TrimRight(line[:strings.Index(low, phrase)], ": ,")
	seg := strings.Split(before, ": ")
	t := strings.TrimSpace(seg[len(seg)-1])
	if t == "" || strings.ContainsAny(t, " \t") && !strings.ContainsRune(t, '/') {
		return ""
	}
	return t
}

// UnfinishedKey is the key of a git command that had not finished when it
// was sent to the background (Claude Code moves a command there when it
// runs too long, or the user does): "git commit did not finish". A git
// command finishes in seconds unless something blocks it (a hook, an
// editor, a signing prompt, a lock), so the same one hanging again is the
// same failure, however it was spelled. Other commands (builds, servers,
// test suites) may rightly run long, and give "".
func UnfinishedKey(command string) string {
	words := strings.Fields(command)
	for i, w := range words {
		if path.Base(strings.Trim(w, `'"`)) != "git" {
			continue
		}
		rest := words[i+1:]
		for j := 0; j < len(rest); j++ {
			sub := strings.Trim(rest[j], `'"`)
			if sub == "-C" || sub == "-c" || sub == "--git-dir" || sub == "--work-tree" {
				j++ // the option's value
				continue
			}
			if strings.HasPrefix(sub, "-") {
				continue
			}
			if sub == "" || !isLetter(sub[0]) {
				break
			}
			return "git " + sub + " did not finish"
		}
	}
	return ""
}
