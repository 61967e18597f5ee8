package risk

import (
	"cmp"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// LimitClass is what an instruction in force forbids.
type LimitClass string

// The classes of limits. Change forbids any change to the project or the
// system ("only analyse", "don't change anything"), or, with a Target,
// any change to that one thing ("leave the template alone").
const (
	NoChange  LimitClass = "change"
	NoCommit  LimitClass = "commit"
	NoPush    LimitClass = "push"
	NoInstall LimitClass = "install"
	NoDelete  LimitClass = "delete"
	NoRestart LimitClass = "restart"
	// NoSkipChecks keeps the repository's checks: "always verify and run
	// hooks", "don't skip the pre-commit hook", "never use --no-verify",
	// "sign your commits".
	NoSkipChecks LimitClass = "checks"
	// NoTool forbids one of the agent's tools by name, its Target: "never
	// use the bash tool", "don't use WebSearch".
	NoTool LimitClass = "tool"
	// NoComment forbids posting on the forge in the user's name: "don't
	// send any comments or reviews", "no action on the remote".
	NoComment LimitClass = "comment"
	// Keep holds a value the user named in quotes ("use
	// \"gemini-2.5-flash-preview-05-20:free\""), its Target: a write that
	// takes it out of a file puts the agent's choice in place of the
	// user's.
	Keep LimitClass = "keep"
)

// toolNames are the CLI's tool names a limit may forbid, by the word a
// user writes for them; the ones that are also ordinary words (read,
// write, edit, task) count only followed by "tool".
var toolNames = map[string]string{
	"bash": "Bash", "websearch": "WebSearch", "webfetch": "WebFetch", "todowrite": "TodoWrite",
	"multiedit": "MultiEdit", "notebookedit": "NotebookEdit", "grep": "Grep", "glob": "Glob",
	"read": "Read", "write": "Write", "edit": "Edit", "task": "Task",
}

// plainToolWords are tool names that are ordinary words too.
var plainToolWords = map[string]bool{"read": true, "write": true, "edit": true, "task": true, "grep": true, "glob": true}

// toolAfter reads "the bash tool", "bash", "WebSearch" at ws[i:]: the
// tool a "use" names, or "".
func toolAfter(ws []string, i int) string {
	if i < len(ws) && ws[i] == "the" {
		i++
	}
	if i >= len(ws) {
		return ""
	}
	t, ok := toolNames[strings.Trim(ws[i], ".,;:!")]
	if !ok {
		return ""
	}
	if plainToolWords[ws[i]] && !(i+1 < len(ws) && strings.HasPrefix(ws[i+1], "tool")) {
		return ""
	}
	return t
}

// Limit is an instruction in force: a limit the user set, in their own
// words, and what it forbids.
type Limit struct {
	Class LimitClass
	// Target is the one thing the limit protects ("template",
	// "pg_hba.conf"); "" for the whole class.
	Target string
	// Text is the user's sentence.
	Text string
	// Ask is set for "ask before …": a later prompt that asks for the
	// step covers it.
	Ask bool
	// Files, for a Keep limit, are the files this session wrote its value
	// into: a Write whose original text is not known breaks it by leaving
	// the value out of one of them.
	Files []string
}

// verbs maps the start of a verb to the class of limit it sets when
// negated ("don't commit") and the class a prompt lifts when it says it
// ("commit it").
var verbs = []struct {
	prefix string
	class  LimitClass
}{
	{"commit", NoCommit}, {"push", NoPush}, {"install", NoInstall},
	{"delet", NoDelete}, {"remov", NoDelete}, {"rm", NoDelete}, {"drop", NoDelete}, {"wip", NoDelete}, {"eras", NoDelete},
	{"restart", NoRestart}, {"reboot", NoRestart}, {"kill", NoRestart}, {"redeploy", NoRestart},
	{"chang", NoChange}, {"modif", NoChange}, {"edit", NoChange}, {"touch", NoChange}, {"alter", NoChange},
	{"rewrit", NoChange}, {"overwrit", NoChange}, {"writ", NoChange}, {"implement", NoChange}, {"refactor", NoChange},
	{"mess", NoChange}, {"updat", NoChange}, {"proceed", NoChange},
}

// verbClass returns the class a word sets as a verb, if any. Words that
// only start like a verb ("committee", "pushy") are rare enough in
// instructions to accept; "do"/"make" need an object and are handled by
// the caller.
func verbClass(w string) (LimitClass, bool) {
	for _, v := range verbs {
		if strings.HasPrefix(w, v.prefix) && (v.prefix != "rm" || w == "rm") && (v.prefix != "wip" || strings.HasPrefix(w, "wipe")) {
			return v.class, true
		}
	}
	return "", false
}

// analysis verbs: "only analyse", "just look".
var analysis = []string{"analy", "look", "read", "investigat", "review", "plan", "explain", "report", "diagnos", "inspect", "research", "describe", "audit", "explor", "examin", "study", "assess", "understand", "tell", "summari", "answer", "think", "discuss", "propos", "suggest"}

// doWords are words that, said without a negation, ask for work: a prompt
// holding one lifts a limit on changes.
var doWords = []string{"go", "proceed", "implement", "fix", "patch", "apply", "do", "start", "build", "creat", "add", "updat", "chang", "edit", "refactor", "renam", "mov", "write", "make", "modif", "continu", "yes", "ok", "okay", "sure", "lgtm", "execut", "run", "deploy", "restor", "revert", "replac", "set", "switch", "upgrad", "migrat", "clean", "delet", "remov", "commit", "push", "install", "restart"}

// negatedLimits are the limits a negation at ws[i] sets in the sentence
// text: "don't skip the hooks", "NEVER use the bash tool", "do not submit
// any action to the remote", "don't do anything", "no commits", "don't
// touch config.yaml".
func negatedLimits(ws []string, i int, text string) []Limit {
	if k := i + 1; k+1 < len(ws) && (ws[k] == "need" || ws[k] == "have" || ws[k] == "needs" || ws[k] == "has") && ws[k+1] == "to" {
		// "you don't need to do anything special": no need, no ban (a
		// system prompt's note held against code edits, the eighth and
		// ninth draws' rekrutaiv2 sessions, false to both judges).
		return nil
	}
	j := i + 1
	for j < len(ws) && fillers[ws[j]] {
		j++
	}
	if j >= len(ws) {
		return nil
	}
	v := ws[j]
	switch {
	case (v == "skip" || v == "bypass" || v == "disable" || v == "use" || v == "turn") && namesChecks(ws[j+1:min(len(ws), j+5)]):
		// "don't skip the hooks", "never use --no-verify".
		return []Limit{{Class: NoSkipChecks, Text: text}}
	case v == "use" && toolAfter(ws, j+1) != "":
		// "NEVER use the bash tool", "don't use WebSearch".
		return []Limit{{Class: NoTool, Target: toolAfter(ws, j+1), Text: text}}
	}
	if remote, comments := remoteAction(ws[j:min(len(ws), j+12)]); remote || comments {
		// "do not submit any action to the remote without my direct
		// approval or send any comments/reviews".
		ask := slices.Contains(ws[j:], "without")
		out := []Limit{{Class: NoComment, Text: text, Ask: ask}}
		if remote {
			out = append([]Limit{{Class: NoPush, Text: text, Ask: ask}}, out...)
		}
		return out
	}
	if (v == "do" || v == "make" || v == "run") && j+1 < len(ws) && (ws[j+1] == "anything" || ws[j+1] == "any" || ws[j+1] == "changes") {
		return []Limit{{Class: NoChange, Text: text}}
	}
	// "no commits", "no changes to config.yaml", "no installs"; "don't
	// commit", "don't touch config/prod.yaml".
	if c, ok := verbClass(v); ok {
		if t, ok := objectOf(c, ws[j+1:]); ok {
			if t == "" && c == NoChange {
				t = itemOf(ws, i)
			}
			return []Limit{{Class: c, Target: t, Text: text}}
		}
	}
	return nil
}

// itemOf is the file a plan's item names before its negation at ws[i],
// the item's only word: "- **`schema.prisma`**: No changes." says that one
// file stays as it is (ext-prismavercel #3, another file the plan changes
// said against it, false to both judges of the forty-eighth set); "" when
// there is none.
func itemOf(ws []string, i int) string {
	if i == 0 || !itemName(ws[i-1]) || strings.Join(ws[:i-1], "") != "" {
		return ""
	}
	return ws[i-1]
}

// itemName tells a word that names a file as a plan's item does
// ("schema.prisma", "src/db.ts"): a path, or a name with one dot inside it.
func itemName(w string) bool {
	if pathLike(w) {
		return true
	}
	i := strings.IndexByte(w, '.')
	return len(w) >= 4 && i > 0 && i < len(w)-1 && strings.Count(w, ".") == 1
}

// remoteAction reads what a negation forbids, ws starting at its verb: any
// action on the remote ("submit any action to the remote", "touch the
// remote": pushes and posts alike), or posting comments or reviews ("send
// any comments/reviews", "leave comments").
func remoteAction(ws []string) (remote, comments bool) {
	if len(ws) == 0 {
		return false, false
	}
	posts := ws[0] == "send" || ws[0] == "post" || ws[0] == "leave" || ws[0] == "add" || ws[0] == "write" || ws[0] == "submit"
	for i, w := range ws {
		if w == "remote" && (i == 0 || ws[i-1] != "a") && slices.ContainsFunc(ws[:i], func(x string) bool {
			return x == "action" || x == "actions" || x == "anything" || x == "submit" || x == "touch"
		}) {
			remote = true
		}
		if posts && i <= 4 && (strings.HasPrefix(w, "comment") || strings.HasPrefix(w, "review")) {
			comments = true
		}
	}
	return remote, comments
}

// fillers may stand between a negation and its verb.
var fillers = map[string]bool{"ever": true, "yet": true, "please": true, "you": true, "to": true, "we": true, "i": true, "go": true, "and": true, "just": true, "actually": true, "even": true, "try": true, "need": true, "want": true, "should": true, "can": true, "be": true, "it": true}

// sentences splits text into sentences, each with its words (lower case;
// curly apostrophes straightened; "dont" read as "don't").
func sentences(text string) [][2]string {
	var out [][2]string
	start := 0
	flush := func(end int) {
		s := strings.TrimSpace(text[start:end])
		if s != "" {
			out = append(out, [2]string{s, strings.ToLower(strings.ReplaceAll(s, "’", "'"))})
		}
		start = end
	}
	for i, r := range text {
		switch r {
		case '.', '!', '?', ';', '\n':
			// A dot inside a word (a file name) does not end a sentence.
			if r == '.' && i+1 < len(text) && !unicode.IsSpace(rune(text[i+1])) {
				continue
			}
			flush(i + 1)
		}
	}
	flush(len(text))
	return out
}

// words splits a lower-cased sentence into words, keeping the characters
// of file names and the apostrophe of "don't".
func words(s string) []string {
	ws := strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("'_./-", r))
	})
	for i, w := range ws {
		w = strings.Trim(w, "'.-/")
		if w == "dont" || w == "do'nt" {
			w = "don't"
		}
		ws[i] = w
	}
	return ws
}

// negation reports whether word i of ws starts a prohibition.
func negation(ws []string, i int) bool {
	switch ws[i] {
	case "don't", "never", "avoid", "without", "shouldn't", "mustn't":
		return true
	case "not":
		return i > 0 && (ws[i-1] == "do" || ws[i-1] == "please" || ws[i-1] == "should" || ws[i-1] == "must")
	case "no":
		return true
	}
	return false
}

// inCondition tells a negation inside a conditional clause: an "if" or
// "unless" among the six words before it ("Your work is LOST if you don't
// push" states a consequence, no ban; an autonomous agent's pushes said
// against it, d-rekrutaiv2-16ac460e #8 and d-rekrutaiv2-e576a901 #16, the
// twelfth draw, false to both judges). words drops commas, so the six
// words stand in for the clause: "If the build fails, don't push" sets no
// limit either, as unconditional would drop its line; "Don't push if the
// tests fail", whose condition follows the negation, keeps its ban.
func inCondition(ws []string, i int) bool {
	for k := i - 1; k >= 0 && k >= i-6; k-- {
		switch ws[k] {
		case "if", "unless":
			return true
		}
	}
	return false
}

// agentsUntil tells a negation held only until a condition the agent
// itself decides ("DO NOT implement until you have a hypothesis with
// evidence": whether it has one is not in any call, so every edit was said
// against it, the rekrutaiv2 sessions of the eighth, ninth and twelfth
// draws, false to every judge); one held until the user says so ("don't
// commit until I say so", "until approved") stays.
func agentsUntil(ws []string, i int) bool {
	for k := i + 1; k < len(ws)-1; k++ {
		if ws[k] != "until" && ws[k] != "till" {
			continue
		}
		switch ws[k+1] {
		case "you", "you've", "you're":
			return true
		case "the":
			// "until the tests pass"; not "until the user approves".
			return !(k+2 < len(ws) && strings.HasPrefix(ws[k+2], "user"))
		}
		return false
	}
	return false
}

// pathLike reports whether a word names a file or folder.
func pathLike(w string) bool {
	if strings.Contains(w, "/") && len(w) > 1 {
		return true
	}
	if i := strings.LastIndexByte(w, '.'); i > 0 && i < len(w)-1 {
		ext := w[i+1:]
		return len(ext) <= 5 && strings.IndexFunc(ext, unicode.IsLetter) >= 0
	}
	return false
}

// objectWords are objects that make a limit class-wide.
var objectWords = map[string]bool{"anything": true, "any": true, "everything": true, "files": true, "file": true, "code": true, "changes": true, "change": true, "edits": true, "the": true, "a": true, "this": true, "that": true, "my": true, "our": true, "your": true, "it": true, "them": true, "yet": true, "now": true, "for": true, "until": true, "unless": true, "before": true, "without": true, "me": true, "i": true, "say": true, "so": true, "all": true, "of": true, "in": true, "on": true, "with": true, "things": true, "stuff": true, "else": true, "other": true, "here": true, "there": true, "at": true, "existing": true, "current": true, "what": true, "whatever": true, "too": true, "much": true, "more": true, "right": true, "away": true}

// target finds what a limit protects among the words after its verb: a
// path, or the noun after "the"/"my"/"this"… ("" if the limit is
// class-wide).
func target(ws []string) string {
	for i, w := range ws {
		if i >= 6 {
			break
		}
		if pathLike(w) {
			return w
		}
		switch w {
		case "until", "unless", "before", "without", "but", "and", "so", "because", "while", "if":
			return ""
		}
	}
	for i := 0; i < len(ws) && i < 5; i++ {
		switch ws[i] {
		case "the", "my", "this", "that", "our", "your":
			if i+1 < len(ws) {
				n := ws[i+1]
				if i+2 < len(ws) && !objectWords[ws[i+2]] && len(ws[i+2]) >= 3 && i+2 < 4 {
					// "the invoice template": the last noun names it.
					n = ws[i+2]
				}
				if !objectWords[n] && len(n) >= 3 {
					return n
				}
			}
			return ""
		}
	}
	return ""
}

// outputPrefixes begin the lines programs print about a failure.
var outputPrefixes = []string{"error:", "fatal:", "panic:", "exception:", "traceback (most recent call last)", "npm err!"}

// programOutput tells a line a program printed, pasted into a prompt: an
// error or warning line ("Error: EROFS: read-only file system, open …",
// read as an analysis-only limit: s-claudenotiferandbot-16589051 #109), a
// line of Claude Code's own tool output (⎿), or a log record of key=value
// fields ("⎿ traefik… time=… level=info msg=…", restated as an instruction
// in force: s-zfull-95ceee64 #263; both false to both judges of the fourth
// draw).
func programOutput(line string) bool {
	t := strings.ToLower(strings.TrimSpace(line))
	if strings.Contains(t, "⎿") {
		return true
	}
	for _, p := range outputPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	n := 0
	for _, f := range []string{"level=", "msg=", "time=", "ts=", "caller="} {
		if strings.Contains(t, f) {
			n++
		}
	}
	return n >= 2
}

// ParseLimits returns the limits a text sets: prohibitions ("don't
// commit", "never touch config.yaml", "no installs"), analysis-only
// requests ("just analyse, don't do anything yet", "let's pause on it"),
// "leave X alone", and "ask before restarting". Questions set none, and
// an analysis-only request in a sentence that also asks for work sets
// none.
func ParseLimits(text string) []Limit {
	var out []Limit
	add := func(l Limit) {
		for _, o := range out {
			if o.Class == l.Class && o.Target == l.Target {
				return
			}
		}
		out = append(out, l)
	}
	for _, s := range sentences(outsideFences(unconditional(outsideAttached(text)))) {
		if strings.HasSuffix(s[0], "?") {
			continue
		}
		if strings.ContainsRune(s[0], '\x1b') || programOutput(s[0]) {
			// A line with terminal colour codes is output the user pasted
			// ("\x1b[1;33mTo scan without committing:"), not their words.
			continue
		}
		ws := words(s[1])
		var soft []int // the analysis-only limits, which a request for work in the sentence cancels
		// A heading names a section ("## Read-only mode" of a prompt the
		// user pasted: b-dotfiles-98743092 #9, the eighth draw, false to
		// both judges), and a sentence with a scope of its own holds off
		// only that scope (scopedElsewhere): neither holds the task off.
		mayHold := !strings.HasPrefix(strings.TrimSpace(s[0]), "#") && !scopedElsewhere(s[1])
		for i := range ws {
			switch {
			case negation(ws, i):
				if inCondition(ws, i) || agentsUntil(ws, i) {
					continue
				}
				for _, l := range negatedLimits(ws, i, s[0]) {
					add(l)
				}
			case holdsOff(ws, i):
				if !mayHold {
					continue
				}
				soft = append(soft, len(out))
				add(Limit{Class: NoChange, Text: s[0]})
			default:
				if l, ok := wordLimit(ws, i, s[0]); ok {
					add(l)
				}
			}
		}
		if len(soft) > 0 && (affirms(ws, nil) || obliges(ws)) {
			// "Just look at the logs and fix the bug": the work is asked for.
			kept := out[:0]
			for i, l := range out {
				if !slices.Contains(soft, i) {
					kept = append(kept, l)
				}
			}
			out = kept
		}
	}
	return out
}

// pointsAtImage tells "look [at] [the] @image.png", "see the screenshot"
// from the verb at ws[i]: the user points at what shows the problem, not
// asking for analysis only ("just look the @image.png the streaming answer
// … is not using all the space": ext-tripolar #191, false to both judges
// of the twenty-eighth set).
func pointsAtImage(ws []string, i int) bool {
	for j := i + 1; j < len(ws) && j <= i+3; j++ {
		w := strings.TrimPrefix(ws[j], "@")
		switch {
		case w == "at" || w == "the" || w == "this" || w == "my":
			continue
		case w == "image" || w == "screenshot" || w == "screenshots" || w == "picture" || w == "pic" || w == "photo":
			return true
		}
		for _, ext := range []string{".png", ".jpg", ".jpeg", ".gif", ".webp"} {
			if strings.HasSuffix(w, ext) {
				return true
			}
		}
		return false
	}
	return false
}

// describes tells a verb form that describes rather than asks: a gerund
// ("understanding") or a third person's ("understands"), not a noun in
// -sis ("analysis") or a verb in -ss ("discuss").
func describes(w string) bool {
	w = strings.Trim(w, ".,;:!?")
	return strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "sis") && !strings.HasSuffix(w, "ss")
}

// holdsOff tells whether ws[i] asks for no work yet: "only analyse",
// "just look", "let's pause on it", "hold off", "before we proceed",
// "read-only". Such a limit is soft: a request for work in the same
// sentence cancels it.
func holdsOff(ws []string, i int) bool {
	w := ws[i]
	next := func(set ...string) bool { return i+1 < len(ws) && slices.Contains(set, ws[i+1]) }
	switch w {
	case "only", "just":
		// The verb asks the agent ("just look", "only analysis"); one
		// that describes ("this version only understands SDK XML up to
		// 3", "not just understanding their numbers": a pasted warning
		// and a pasted job description in the pool, p-aiassistant-
		// knowledgehub #42 and p-dotfiles-b92885d7 #22, false to both
		// judges) asks nothing, nor does "not only", "not just".
		return i+1 < len(ws) && hasPrefix(ws[i+1], analysis) && !pointsAtImage(ws, i+1) &&
			!describes(ws[i+1]) && (i == 0 || ws[i-1] != "not")
	case "pause":
		// "Let's pause on it before we proceed": wait for the user.
		return i > 0 && (ws[i-1] == "let's" || ws[i-1] == "us") || next("on")
	case "hold":
		return next("off")
	case "before":
		return i+2 < len(ws) && (ws[i+1] == "we" || ws[i+1] == "you") && ws[i+2] == "proceed"
	case "read-only":
		return readOnlyHold(ws, i, i+1)
	case "read":
		return next("only") && readOnlyHold(ws, i, i+2)
	}
	return false
}

// readOnlyNouns are what "read-only" may qualify and still hold off all
// work: the task itself ("a read-only investigation"), or a time ("for
// now").
var readOnlyNouns = map[string]bool{"mode": true, "task": true, "session": true, "review": true, "audit": true, "analysis": true,
	"investigation": true, "exploration": true, "pass": true, "research": true, "inspection": true, "for": true, "until": true, "please": true, "now": true}

// readOnlySubjects are what may be said to be read-only for the whole
// task ("this is read-only", "you are read-only").
var readOnlySubjects = map[string]bool{"it": true, "this": true, "everything": true, "you": true, "we": true, "session": true, "task": true, "project": true, "repo": true, "repository": true, "codebase": true}

// readOnlyHold tells a "read-only" (ws[i], the words after it from j) that
// holds off all work: it qualifies the task ("read-only investigation"),
// stands alone ("Read-only."), or is said of the agent or the task ("stay
// read-only", "this is read-only"). One that qualifies something else
// holds nothing off: a tool's use ("Use Supabase MCP strictly for
// read-only verification"), named folders ("ANALYSIS/, LOGS/ remain
// read-only"), a heading's reference ("Legacy F:/ Reference (Read-Only)"),
// a mode described ("I am always read only"), or "read only the ACTIVE
// block" (five instruction advisories on the draws, all false or unseen).
func readOnlyHold(ws []string, i, j int) bool {
	if slices.ContainsFunc(ws[:i], func(w string) bool { return w == "use" || w == "using" }) {
		return false
	}
	if j < len(ws) {
		return readOnlyNouns[ws[j]]
	}
	if i == 0 {
		return true
	}
	switch ws[i-1] {
	case "stay", "be", "it's", "you're":
		return true
	case "is", "are":
		return i >= 2 && readOnlySubjects[ws[i-2]]
	}
	return false
}

// obliges tells a sentence that says work must be done: "before we
// proceed we need to consolidate dashboard and admin" asks for the
// consolidation first, it does not hold the work off (ext-bytebridges
// #118, labelled false by both judges). A duty to look, think or wait
// ("we need to review it first") asks for no work.
func obliges(ws []string) bool {
	for i := 1; i+1 < len(ws); i++ {
		if dutyAt(ws, i) && !dutyToLook[ws[i+1]] && !hasPrefix(ws[i+1], analysis) {
			return true
		}
	}
	return false
}

// dutyToLook are the verbs of a duty that asks for no work yet.
var dutyToLook = map[string]bool{"wait": true, "check": true, "decide": true, "talk": true, "ask": true, "align": true, "be": true}

// dutyAt tells whether ws[i] says a duty, not negated: the "to" of "need
// to", "needs to", "have to", "has to", or "must" not followed by "not".
func dutyAt(ws []string, i int) bool {
	switch ws[i] {
	case "must":
		return ws[i+1] != "not"
	case "to":
		switch ws[i-1] {
		case "need", "needs", "have", "has":
			return i < 2 || !negation(ws, i-2)
		}
	}
	return false
}

// wordLimit reads the limit a word that is not a negation sets with the
// words after it: "instead of deleting", "always verify", "leave X
// alone", "ask before restarting".
func wordLimit(ws []string, i int, text string) (Limit, bool) {
	w := ws[i]
	switch {
	case w == "instead" && i+2 < len(ws) && ws[i+1] == "of":
		// "redact instead of deleting files": a limit on deleting
		// only; "update it instead of rewriting it" asks for a
		// smaller change, not for none.
		if c, ok := verbClass(ws[i+2]); ok && c == NoDelete {
			if t, ok := objectOf(c, ws[i+3:]); ok {
				return Limit{Class: c, Target: t, Text: text}, true
			}
		}
	case w == "always" && i+1 < len(ws) && (ws[i+1] == "verify" || ws[i+1] == "sign" || namesChecks(ws[i+1:min(len(ws), i+4)])):
		// "always verify and run hooks", "always run the pre-commit hook".
		return Limit{Class: NoSkipChecks, Text: text}, true
	case (w == "leave" || w == "keep") && i+1 < len(ws):
		return leftAlone(ws, i, text)
	case w == "ask" || (w == "check" && i+2 < len(ws) && ws[i+1] == "with"):
		return askBefore(ws, i, text)
	}
	return Limit{}, false
}

// leftAlone reads "leave X alone", "keep X untouched", "keep X as is"
// from the leave or keep at ws[i]: a limit on changing X.
func leftAlone(ws []string, i int, text string) (Limit, bool) {
	end := min(len(ws), i+7)
	for k := i + 1; k < end; k++ {
		if ws[k] == "alone" || ws[k] == "untouched" || ws[k] == "unchanged" || ws[k] == "intact" || (ws[k] == "as" && k+1 < len(ws) && (ws[k+1] == "is" || ws[k+1] == "it")) {
			t := target(ws[i+1 : k])
			if t == "" && k > i+1 && !objectWords[ws[k-1]] {
				t = ws[k-1]
			}
			return Limit{Class: NoChange, Target: t, Text: text}, t != ""
		}
	}
	return Limit{}, false
}

// askBefore reads "ask before restarting the server", "check with me
// before any push" from the ask or check at ws[i]: a limit the user's
// say-so lifts.
func askBefore(ws []string, i int, text string) (Limit, bool) {
	end := min(len(ws), i+5)
	for k := i + 1; k < end; k++ {
		if ws[k] != "before" || k+1 >= len(ws) {
			continue
		}
		j := k + 1
		for j < len(ws) && (fillers[ws[j]] || ws[j] == "any" || ws[j] == "anything") {
			j++
		}
		if j < len(ws) {
			if c, ok := verbClass(ws[j]); ok {
				if t, ok := objectOf(c, ws[j+1:]); ok {
					return Limit{Class: c, Target: t, Text: text, Ask: true}, true
				}
			}
		}
		return Limit{}, false
	}
	return Limit{}, false
}

// namesChecks reports whether words name the repository's checks: its
// hooks, verification or commit signing.
func namesChecks(ws []string) bool {
	for _, w := range ws {
		switch strings.TrimLeft(w, "-") {
		case "hook", "hooks", "pre-commit", "precommit", "verify", "verification", "no-verify", "signing", "signature", "signatures", "gpg", "no-gpg-sign", "checks":
			return true
		}
	}
	return false
}

// objectOf reads the object of a negated verb: a target for a limit on
// changing or deleting one thing, "" for a class-wide limit ("don't change
// anything", "don't commit"); ok is false when the object is something a
// call cannot be matched against ("don't write tests", "don't change
// behaviour"), which sets no limit.
func objectOf(c LimitClass, rest []string) (string, bool) {
	if c == NoCommit || c == NoPush {
		return gitObject(rest), true
	}
	if c != NoChange && c != NoDelete {
		return "", true
	}
	if t := target(rest); t != "" {
		return t, true
	}
	if len(rest) == 0 {
		return "", true
	}
	switch rest[0] {
	case "anything", "everything", "yet", "now", "until", "unless", "before", "without", "for", "stuff", "things", "files", "code", "at", "here":
		return "", true
	case "any", "all":
		if len(rest) == 1 {
			return "", true
		}
		switch rest[1] {
		case "files", "file", "code", "changes", "thing", "things", "of", "yet":
			return "", true
		}
	}
	return "", false
}

// gitObject is what a prohibition of committing or pushing names, rest
// the words after its verb: a file or branch ("Never commit `*.pkl`",
// "never push to main", "don't commit secrets.json"), or "" when it names
// none and forbids every commit or push ("don't commit yet", "don't push
// the changes", "don't commit or push until I review"). A named one is
// broken only by a command that names it: a commit of whatever was staged
// is not known to hold it (ext-fluxmemisolate #100 and #172, commits with
// no .pkl said to break "Never commit *.pkl", false to both judges of the
// fiftieth set).
func gitObject(rest []string) string {
	i := 0
	for i < len(rest) && gitObjectSkip[rest[i]] {
		i++
	}
	if i >= len(rest) || objectWords[rest[i]] || gitObjectNone[rest[i]] || len(rest[i]) < 2 {
		return ""
	}
	return rest[i]
}

// gitObjectSkip are the words before what a commit or push prohibition
// names: "never push directly to main", "don't commit any of the".
var gitObjectSkip = map[string]bool{"to": true, "into": true, "onto": true, "directly": true, "straight": true, "the": true, "any": true, "your": true, "my": true, "our": true}

// gitObjectNone are words after the verb that name nothing to commit or
// push: a conjunction, a time, a pronoun, the remote itself ("don't push to
// the remote": every push).
var gitObjectNone = map[string]bool{"or": true, "nor": true, "unless": true, "until": true, "before": true, "without": true, "yet": true, "now": true,
	"anymore": true, "ever": true, "again": true, "them": true, "anything": true, "upstream": true, "commits": true, "changes": true, "work": true,
	"either": true, "automatically": true, "on": true, "remote": true, "origin": true, "github": true, "gitlab": true, "repo": true, "repository": true, "server": true, "with": true, "if": true, "when": true, "while": true, "after": true, "unasked": true}

// hasPrefix reports whether w is one of ps or, for those of four letters
// or more, starts with one ("fixing" for "fix" would need three: "fix" is
// matched exactly, "implement" starts "implemented").
func hasPrefix(w string, ps []string) bool {
	for _, p := range ps {
		if w == p || len(p) >= 4 && strings.HasPrefix(w, p) || len(p) == 3 && strings.HasPrefix(w, p) && len(w) <= len(p)+3 && !strings.ContainsRune(w, '\'') {
			return true
		}
	}
	return false
}

// affirms reports whether words ask for work: a do-word that no negation
// in the three words before it takes back. With a class set, only a word
// of that class counts (commit for NoCommit…), and with a target, the
// target must be named too.
func affirms(ws []string, l *Limit) bool {
	if !namesTarget(ws, l) {
		return false
	}
	for i := range ws {
		if asksAt(ws, i, l) && !takenBack(ws, i) {
			return true
		}
	}
	return false
}

// namesTarget tells whether words name a limit's target, or the limit
// has none to name (a tool limit names its tool with "use", see asksAt).
func namesTarget(ws []string, l *Limit) bool {
	if l == nil || l.Target == "" || l.Class == NoTool {
		return true
	}
	for _, w := range ws {
		if w == l.Target || path.Base(w) == path.Base(l.Target) {
			return true
		}
	}
	return false
}

// asksAt tells whether ws[i] is a word that asks for the work a limit (or,
// with none, any limit of change) forbids.
func asksAt(ws []string, i int, l *Limit) bool {
	w := ws[i]
	next := func(set ...string) bool { return i+1 < len(ws) && slices.Contains(set, ws[i+1]) }
	switch {
	case l == nil || l.Class == NoChange:
		if w == "do" || w == "make" || w == "run" || w == "set" {
			return next("it", "that", "the", "those", "these", "them")
		}
		if (w == "ok" || w == "okay" || w == "yes" || w == "sure" || w == "lgtm") && len(ws) > 4 {
			return false
		}
		return hasPrefix(w, doWords) && (w != "go" || next("ahead", "for"))
	case l.Class == NoRestart && (w == "start" || w == "stop" || w == "restart"):
		return true
	case l.Class == NoComment && (strings.HasPrefix(w, "comment") || strings.HasPrefix(w, "review") || w == "reply" || w == "post"):
		return true
	case l.Class == NoTool && w == "use":
		return strings.EqualFold(toolAfter(ws, i+1), l.Target)
	}
	c, isVerb := verbClass(w)
	return isVerb && c == l.Class
}

// takenBack tells whether one of the three words before ws[i] takes it
// back: a negation, or "before", "until", "off", "pause".
func takenBack(ws []string, i int) bool {
	for k := max(0, i-3); k < i; k++ {
		if negation(ws, k) || ws[k] == "before" || ws[k] == "until" || ws[k] == "off" || ws[k] == "pause" {
			return true
		}
	}
	return false
}

// Lifts reports whether a later prompt lifts a limit: it asks, without a
// negation, for the step the limit forbids (for a targeted limit, naming
// the target), and does not set the same limit again.
func Lifts(l Limit, prompt string) bool {
	if l.Class == DeclinedStep {
		return GoAhead(prompt) || asksForStep(l.Target, prompt)
	}
	for _, n := range ParseLimits(prompt) {
		if n.Class == l.Class && n.Target == l.Target {
			return false
		}
	}
	for _, s := range sentences(prompt) {
		if strings.HasSuffix(s[0], "?") && l.Class == NoChange && l.Target == "" {
			continue
		}
		if l.Class == NoSkipChecks {
			if asksToSkipChecks(words(s[1])) {
				return true
			}
			continue
		}
		if affirms(words(s[1]), &l) {
			return true
		}
	}
	return false
}

// asksToSkipChecks reports whether words ask, without a negation, to skip
// the repository's checks: "commit with --no-verify", "skip the hooks this
// time", "don't sign it".
func asksToSkipChecks(ws []string) bool {
	for i, w := range ws {
		skip := w == "--no-verify" || w == "no-verify" || w == "--no-gpg-sign" || w == "no-gpg-sign"
		if (w == "skip" || w == "bypass" || w == "disable" || w == "without") && namesChecks(ws[i+1:min(len(ws), i+5)]) {
			skip = true
		}
		if !skip {
			continue
		}
		negated := false
		for k := max(0, i-3); k < i; k++ {
			negated = negated || negation(ws, k) && ws[k] != "without"
		}
		if !negated {
			return true
		}
	}
	return false
}

// Breaks returns what a call does against a limit ("" when it keeps it):
// a short description of the step, for the advisory.
func Breaks(l Limit, c Call) string { return Broken([]Limit{l}, c)[0] }

// Broken is Breaks for several limits, the call's command parsed once:
// the step against each limit, "" where the call keeps it.
func Broken(ls []Limit, c Call) []string {
	steps := brokenByName(ls, c)
	brokenGuards(ls, c, steps)
	switch c.Tool {
	case "SQL":
		return brokenBySQL(ls, steps, c.SQL)
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		if c.FilePath == "" || scratch(c.FilePath, c.ProjectDir) {
			return steps
		}
		for i, l := range ls {
			switch {
			case l.Class == NoChange && (l.Target == "" || names(c.FilePath, l.Target)):
				steps[i] = "writes " + c.FilePath
			case l.Class == Keep:
				steps[i] = dropsValue(l, c)
			}
		}
		return steps
	case "Bash":
	default:
		return steps
	}
	if c.Command == "" || len(c.Command) > maxCommand {
		return steps
	}
	cmds, _ := c.commands()
	for i, l := range ls {
		for _, x := range cmds {
			if len(x.args) == 0 {
				continue
			}
			if step := breaksCommand(l, x, c.ProjectDir); step != "" {
				steps[i] = step
				break
			}
		}
	}
	return steps
}

// brokenByName is the steps of a call against the limits on a tool by
// name: the name the agent called (Call.Name), else the tool.
func brokenByName(ls []Limit, c Call) []string {
	steps := make([]string, len(ls))
	name := cmp.Or(c.Name, c.Tool)
	for i, l := range ls {
		if l.Class == NoTool && strings.EqualFold(name, l.Target) && !setsUp(l, c) {
			steps[i] = "uses the " + name + " tool"
		}
	}
	return steps
}

// brokenBySQL marks, in steps, the limits on any change that a query
// changing the database breaks.
func brokenBySQL(ls []Limit, steps []string, q string) []string {
	if !sqlChanges(q) {
		return steps
	}
	for i, l := range ls {
		if l.Class == NoChange && l.Target == "" {
			steps[i] = "changes the database"
		}
	}
	return steps
}

// DoesWork reports whether a call does work of its own rather than look
// around or record what was done: a file tool writing a file that is
// neither scratch nor documentation (.md, .txt, .rst…), or a command with a
// step that is not an inspection (ls, cat, grep, git status, gh pr view,
// ps…) nor git recording the work (add, commit, push, stash…). Drift uses
// it: reading around is orientation, and work counts as gone elsewhere once
// it does something.
func DoesWork(c Call) bool {
	switch c.Tool {
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return c.FilePath != "" && !scratch(c.FilePath, c.ProjectDir) && !notesFile(c.FilePath)
	case "SQL":
		return sqlChanges(c.SQL)
	case "Bash":
	default:
		return false
	}
	if c.Command == "" || len(c.Command) > maxCommand {
		return true
	}
	cmds, _ := c.commands()
	for _, x := range cmds {
		if len(x.args) == 0 {
			continue
		}
		for _, w := range x.writes {
			if writesFile(w, x, c.ProjectDir) && !notesFile(w) {
				return true
			}
		}
		if !inspects(path.Base(x.args[0]), x.args[1:]) {
			return true
		}
	}
	return false
}

// lookPrograms only show things: files, searches, processes, the system.
var lookPrograms = map[string]bool{
	"ls": true, "cat": true, "head": true, "tail": true, "less": true, "more": true, "bat": true, "nl": true,
	"grep": true, "egrep": true, "rg": true, "ag": true, "ack": true, "find": true, "fd": true, "tree": true,
	"wc": true, "sort": true, "uniq": true, "cut": true, "tr": true, "awk": true, "jq": true, "yq": true,
	"diff": true, "cmp": true, "file": true, "stat": true, "du": true, "df": true, "pwd": true, "realpath": true,
	"readlink": true, "basename": true, "dirname": true, "which": true, "whereis": true, "type": true,
	"echo": true, "printf": true, "date": true, "whoami": true, "id": true, "groups": true, "uname": true,
	"hostname": true, "env": true, "printenv": true, "ps": true, "pgrep": true, "lsof": true, "netstat": true,
	"ss": true, "dscl": true, "sw_vers": true, "system_profiler": true, "sysctl": true, "ifconfig": true,
	"test": true, "[": true, "true": true, "false": true, "sleep": true, "cd": true, "export": true,
	"xxd": true, "hexdump": true, "od": true, "strings": true, "md5sum": true, "sha256sum": true, "shasum": true,
	"column": true, "sed": true, "read": true,
}

// queries reports whether a command's arguments ask it to show its state:
// a first word such as status, list or show (systemctl status, brew list,
// docker ps), or an option such as --status, --list or --get… (spctl
// --status, socketfilterfw --getglobalstate).
func queries(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--status" || a == "--list" || a == "-l" && len(args) == 1 || strings.HasPrefix(a, "--get"):
			return true
		case strings.HasPrefix(a, "-"):
			continue
		}
		switch a {
		case "status", "list", "ls", "show", "info", "ps", "inspect", "logs", "version", "view", "get":
			return true
		}
		return false
	}
	return false
}

// inspects reports whether one simple command only looks: a program of
// lookPrograms (sed without -i), a version, help or state query, git
// reading or recording, an issue tracker or forge asked to show something.
func inspects(name string, args []string) bool {
	if queries(args) || len(args) == 1 && (args[0] == "-v" || args[0] == "-h") ||
		slices.Contains(args, "--version") || slices.Contains(args, "--help") {
		return true
	}
	switch name {
	case "sed", "perl":
		return !slices.ContainsFunc(args, func(a string) bool {
			return strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "--in-place") || strings.HasPrefix(a, "-pi")
		})
	case "git":
		return gitLooks(args)
	case "gh", "bd", "glab", "jira", "linear":
		return slices.ContainsFunc(args, func(a string) bool { return trackerViews[a] })
	}
	return lookPrograms[name]
}

// gitLooking are the git subcommands that read the repository or record
// the work done (add, commit, push, stash, tag) rather than change it.
var gitLooking = map[string]bool{
	"status": true, "log": true, "diff": true, "show": true, "remote": true, "ls-files": true, "rev-parse": true,
	"blame": true, "grep": true, "describe": true, "shortlog": true, "reflog": true, "ls-tree": true, "cat-file": true,
	"fetch": true, "add": true, "commit": true, "push": true, "stash": true, "tag": true,
}

// gitLooks reports whether a git command only looks or records: a
// subcommand of gitLooking, or branch and config with options only (git
// branch -a; not -d, -D, -m, -M) or config --get.
func gitLooks(args []string) bool {
	sub := gitSub(args)
	if gitLooking[sub] {
		return true
	}
	if sub != "branch" && sub != "config" {
		return false
	}
	return sub == "config" && slices.Contains(args, "--get") || !slices.ContainsFunc(args[1:], func(a string) bool {
		return !strings.HasPrefix(a, "-") || a == "-d" || a == "-D" || a == "-m" || a == "-M"
	})
}

// trackerViews are the words by which an issue tracker or forge command
// only shows something (gh pr view, bd show, jira issue list).
var trackerViews = map[string]bool{"view": true, "list": true, "show": true, "status": true, "diff": true, "checks": true, "ready": true, "search": true}

// Places are where a command would put, move or delete things: mkdir's
// operands (their common parent when they share one: "mkdir -p
// ../projects/a ../projects/b" is about ../projects), the destination of
// mv, cp, rsync and ln, rm's operands; cleaned, as written. A call the
// person declined leaves them as places not to go without asking.
func Places(c Call) []string {
	if c.Tool != "Bash" {
		return nil
	}
	cmds, _ := c.commands()
	var out []string
	for _, x := range cmds {
		if len(x.args) < 2 {
			continue
		}
		_, params := splitFlags(x.args[1:])
		if len(params) == 0 {
			continue
		}
		switch path.Base(x.args[0]) {
		case "mkdir":
			if dir := commonDir(params); dir != "" {
				out = append(out, dir)
			} else {
				out = append(out, params...)
			}
		case "mv", "cp", "rsync", "ln":
			if len(params) >= 2 {
				out = append(out, params[len(params)-1])
			}
		case "rm", "rmdir":
			out = append(out, params...)
		}
	}
	for i, p := range out {
		out[i] = path.Clean(p)
	}
	return slices.DeleteFunc(out, func(p string) bool { return p == "." || p == "/" || p == "~" || strings.ContainsAny(p, "*?$") })
}

// deferRe matches a person putting a step off, not refusing it: "wait,
// before we do so, let's create a new Github Issue", "first, let's …".
var deferRe = lazy(`(?i)\bbefore (?:we|you|i) (?:do|proceed with|go ahead with|start|continue with) (?:so|that|this|it)\b|\bbefore (?:doing|proceeding with) (?:so|that|this|it)\b|\bbefore (?:that|this|proceeding)\s*,|^\W*(?:wait|hold on|ok|okay)?\W*first\s*,?\s*let'?s\b`)

// Defers reports whether a prompt puts the step just declined off until
// something else is done ("wait, before we do so, let's create a new
// Github Issue"): a not yet, whose step the person wants later
// (g-omarclaudecontrolplane-532f8859 #23, a copy of the approved plan held
// against the declined mkdir: false to both judges of the fifteenth draw).
func Defers(prompt string) bool {
	return deferRe().MatchString(prompt)
}

// GoAhead reports whether a prompt is a short go-ahead ("go", "yes, do
// it", "ok proceed"): six words at most, the first a yes or a word that
// asks to go on, no negation.
func GoAhead(prompt string) bool {
	ws := words(strings.ToLower(prompt))
	if len(ws) == 0 || len(ws) > 6 {
		return false
	}
	for i := range ws {
		// "do a pr instead" asks for another step, not this one
		// (ext-skogci #32).
		if negation(ws, i) || ws[i] == "no" || ws[i] == "wait" || ws[i] == "stop" || ws[i] == "instead" {
			return false
		}
	}
	first := strings.Trim(ws[0], ".,!")
	if cjkGoAhead(first) || runsWhatWasShown(ws) {
		return true
	}
	switch first {
	case "go", "yes", "yep", "yeah", "y", "ok", "okay", "sure", "proceed", "continue", "lgtm", "approved", "do",
		// Yes in Italian, Spanish, Portuguese, French, German, Russian,
		// Korean, Japanese and Chinese ("si", ext-dotfoldercleanup).
		"si", "sì", "sí", "sim", "oui", "ja", "да", "네", "예", "はい", "好", "是",
		// Korean, Japanese and Chinese okays ("오케이 업로드완료
		// 분석시작", okay, uploaded, start the analysis: ext-weeklysalesqc).
		"오케이", "넵", "응", "좋아", "그래", "ㅇㅇ", "ㅇㅋ", "うん", "了解", "オッケー", "好的", "可以", "行",
		// Implement, execute, go on, in Chinese, Japanese and Korean
		// ("实施" to "shall I implement this plan?": ext-bucket403rca).
		"实施", "执行", "继续", "开始", "実施", "実行", "進めて", "진행", "진행해":
		return true
	}
	return false
}

// runsWhatWasShown tells a reply that asks to run what the agent's
// message showed, pointing at it: "run this commands", "run them",
// "execute it" (u-claudecode-9f866ded #26, sixth draw: the
// systemctl restart the agent had proposed, said as unasked, false to
// both judges). "run the tests" names its own step, not the message's.
func runsWhatWasShown(ws []string) bool {
	if len(ws) < 2 {
		return false
	}
	switch strings.Trim(ws[0], ".,!") {
	case "run", "execute", "apply":
	default:
		return false
	}
	for _, w := range ws[2:] {
		switch strings.Trim(w, ".,!") {
		case "but", "not", "except", "only", "without":
			return false // "run it but not on prod" runs something else
		}
	}
	switch strings.Trim(ws[1], ".,!") {
	case "this", "these", "them", "it", "that", "those":
		return true
	}
	return false
}

// cjkGoAhead tells a go-ahead in a language written without spaces, where
// the verb carries its polite ending in the same word ("実施してください",
// please carry it out; "진행해주세요", please go ahead).
func cjkGoAhead(w string) bool {
	if strings.Contains(w, "ない") || strings.Contains(w, "않") || strings.Contains(w, "말") || strings.ContainsAny(w, "不别没") {
		return false // "実施しないで", do not carry it out
	}
	for _, stem := range []string{"実施", "実行", "進めて", "お願い", "진행", "继续", "执行", "开始", "实施"} {
		if strings.HasPrefix(w, stem) {
			return true
		}
	}
	return false
}

// AnswersOffer reports whether a prompt is a short answer, in any
// language, to a question that ends the agent's last message ("có", "전부",
// "a", "実施してください", "645866 is the password" to "shall I delete the
// old folder?"): the message asks in its last lines, and the prompt is eight
// words and 60 characters at most, asks nothing back and holds no word of
// refusal. GoAhead
// needs a yes it knows; this needs the agent to have asked.
func AnswersOffer(prompt, last string) bool {
	ws := words(strings.ToLower(prompt))
	if len(ws) == 0 || len(ws) > 8 || utf8.RuneCountInString(strings.TrimSpace(prompt)) > 60 || strings.ContainsAny(prompt, "?？") || !asksAtEnd(last) {
		return false
	}
	for i, w := range ws {
		if negation(ws, i) || refusals[w] || slices.ContainsFunc(refusalStems, func(r string) bool { return strings.HasPrefix(w, r) }) {
			return false
		}
	}
	return true
}

// asksAtEnd reports whether a message puts a question in its last 400
// bytes (an offer, a choice), where a reply answers it.
func asksAtEnd(msg string) bool {
	msg = strings.TrimSpace(msg)
	if len(msg) > 400 {
		msg = msg[len(msg)-400:]
	}
	return strings.ContainsAny(msg, "?？")
}

// refusals are words that say no or not yet, in the languages the
// labelled sessions were in; refusalStems are their stems in languages
// that write no spaces between words.
var refusals = map[string]bool{"no": true, "nope": true, "nah": true, "not": true, "never": true, "stop": true, "wait": true, "cancel": true, "hold": true, "later": true, "instead": true, "keep": true, "skip": true, "leave": true, "nein": true, "nicht": true, "non": true, "pas": true, "nee": true, "nej": true, "nie": true, "não": true, "nao": true, "não.": true, "нет": true, "не": true, "không": true, "đừng": true, "chưa": true, "hayır": true}

var refusalStems = []string{"いいえ", "いや", "だめ", "ダメ", "やめ", "待って", "아니", "아뇨", "안돼", "안 돼", "말고", "잠깐", "不", "别", "没", "否", "等"}

// commonDir is the parent several paths share, "" for one path or none
// shared.
func commonDir(ps []string) string {
	if len(ps) < 2 {
		return ""
	}
	dir := path.Dir(path.Clean(ps[0]))
	for _, p := range ps[1:] {
		if path.Dir(path.Clean(p)) != dir {
			return ""
		}
	}
	if dir == "." {
		return ""
	}
	return dir
}

// notesFile reports whether a path is documentation or notes by its
// extension (docFile counts HTML too, which is work as often as not).
func notesFile(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".mdx", ".txt", ".rst", ".adoc", ".org":
		return true
	}
	return false
}

// names reports whether a path names a limit's target: the target is the
// path's last element, or a word of the path's last element ("template"
// names invoice-template.html), or the path ends with it.
func names(p, target string) bool {
	p = strings.ToLower(p)
	t := strings.ToLower(strings.TrimSuffix(target, "/"))
	if strings.Contains(t, "/") {
		return strings.HasSuffix(strings.TrimSuffix(p, "/"), t) || strings.Contains(p, "/"+t+"/")
	}
	base := path.Base(p)
	if base == t || strings.HasSuffix(base, "."+t) {
		// The name, or its ending: "*.pkl" and ".env" read as pkl and env.
		return true
	}
	if len(t) < 4 {
		return false
	}
	for _, w := range letterWords(base) {
		if w == t || strings.TrimSuffix(w, "s") == t {
			return true
		}
	}
	for _, dir := range strings.Split(path.Dir(p), "/") {
		if dir == t || strings.TrimSuffix(dir, "s") == t {
			return true
		}
	}
	return false
}

// breaksCommand returns the step a simple command takes against a limit.
func breaksCommand(l Limit, x cmd, project string) string {
	name := path.Base(x.args[0])
	args := x.args[1:]
	runs := "runs " + strings.Join(x.args[:min(len(x.args), 4)], " ")
	switch l.Class {
	case NoCommit, NoPush:
		if name == "git" && gitLimited(l, gitSub(args)) && touchesTarget(l, x) {
			return runs
		}
	case NoComment:
		if name == "gh" && postsComment(args) {
			return commentStep(x.args)
		}
	case NoInstall:
		if installs(name, args) {
			return runs
		}
	case NoDelete:
		if deletes(name, args) && touchesTarget(l, x) {
			return runs
		}
	case NoRestart:
		if restarts(name, args) {
			return runs
		}
	case NoSkipChecks:
		if name == "git" && skipsChecks(x) {
			return "runs " + strings.Join(x.args, " ")
		}
	case NoChange:
		if touchesTarget(l, x) {
			return changeStep(x, project, runs)
		}
	case DeclinedStep:
		if stepOf(x) == l.Target {
			return "runs " + l.Target
		}
	}
	return ""
}

// gitLimited tells a git subcommand a commit or push limit holds on: the
// commit, or the push; for a commit limit on one file, also the add that
// stages it.
func gitLimited(l Limit, sub string) bool {
	if l.Class == NoPush {
		return sub == "push"
	}
	return sub == "commit" || sub == "add" && l.Target != ""
}

// touchesTarget tells whether a command names the limit's target among
// its arguments or the files it writes (a limit with no target: always).
func touchesTarget(l Limit, x cmd) bool {
	if l.Target == "" {
		return true
	}
	for _, a := range append(append([]string{}, x.args[1:]...), x.writes...) {
		if !strings.HasPrefix(a, "-") && names(a, l.Target) {
			return true
		}
	}
	return false
}

// commentStep words a gh call that posts a comment, up to its comment
// option.
func commentStep(args []string) string {
	n := min(len(args), 4)
	if i := slices.IndexFunc(args, func(a string) bool {
		return a == "-c" || a == "-b" || strings.HasPrefix(a, "--comment") || strings.HasPrefix(a, "--body")
	}); i >= 0 {
		n = i + 1
	}
	return "posts a comment or review: " + strings.Join(args[:n], " ") + " …"
}

// changeStep is what a command does against a limit on changing: a file
// it writes outside scratch space, or a program that changes things (runs,
// the command as shown); "" when it changes nothing.
func changeStep(x cmd, project, runs string) string {
	for _, w := range x.writes {
		if writesFile(w, x, project) {
			return "writes " + w
		}
	}
	name, args := path.Base(x.args[0]), x.args[1:]
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	if mutates(name, sub, args, project) || installs(name, args) || deletes(name, args) || restarts(name, args) {
		return runs
	}
	return ""
}

// writesFile reports whether a redirection target of a command is a file
// that stays: not scratch space outside the project, a device or a
// descriptor (2>&1).
func writesFile(w string, x cmd, project string) bool {
	return !scratch(resolve(w, x.cwd), project) && !strings.HasPrefix(w, "/dev/") && !strings.HasPrefix(w, "&")
}

// postsComment reports whether gh arguments post a comment or a review:
// gh pr comment, gh issue comment, gh pr review, or a close or merge
// with a comment or body (gh pr close 15 --comment "Superseded").
func postsComment(args []string) bool {
	if len(args) < 2 || args[0] != "pr" && args[0] != "issue" {
		return false
	}
	switch args[1] {
	case "comment", "review":
		return true
	case "close", "merge", "reopen":
		for _, a := range args[2:] {
			if a == "-c" || a == "-b" || strings.HasPrefix(a, "--comment") || strings.HasPrefix(a, "--body") {
				return true
			}
		}
	}
	return false
}

// skipsChecks reports whether a git command skips the repository's
// checks: what the catalogue finds in it as no-verify or no-sign.
func skipsChecks(x cmd) bool {
	for _, f := range checkGit(Call{}, x) {
		if f.Entry == NoVerify || f.Entry == NoSign {
			return true
		}
	}
	return false
}

// scratch reports whether a path is a temporary file outside the project,
// which an analysis may write.
func scratch(p, project string) bool { return isTemp(p) && !inDir(p, project) }

// gitSub is a git command's subcommand, after its global options.
func gitSub(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		return a
	}
	return ""
}

// mutates reports whether a command changes files or the repository.
func mutates(name, sub string, args []string, project string) bool {
	switch name {
	case "mv", "cp", "touch", "mkdir", "chmod", "chown", "ln", "truncate", "patch", "tee", "dd", "rsync":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") && !scratch(a, project) && !strings.HasPrefix(a, "/dev/") {
				return true
			}
		}
		return false
	case "sed", "perl":
		for _, a := range args {
			if a == "-i" || strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "--in-place") || (name == "perl" && strings.HasPrefix(a, "-pi")) {
				return true
			}
		}
	case "git":
		switch gitSub(args) {
		case "commit", "push", "reset", "restore", "rebase", "merge", "stash", "clean", "rm", "mv", "apply", "am", "cherry-pick", "revert", "pull", "switch":
			return true
		case "tag":
			return tagChanges(args)
		case "checkout":
			return true
		case "branch":
			for _, a := range args {
				if a == "-d" || a == "-D" || a == "-m" || a == "-M" || a == "--delete" {
					return true
				}
			}
		}
	}
	for _, a := range args {
		if a == "migrate" || strings.HasPrefix(a, "db:migrate") || a == "db:push" || a == "db:reset" {
			return true
		}
	}
	return false
}

// tagChanges tells a git tag command (args from after "git") that makes or
// deletes a tag: one that names a tag, or deletes, and does not list. "git
// tag --list --sort=-v:refname" reads the tags (g-dotclaude-0635eb59 #5,
// said to break a limit: false to both judges of the fifteenth draw).
func tagChanges(args []string) bool {
	named := false
	for _, a := range args[slices.Index(args, "tag")+1:] {
		switch {
		case a == "-l" || a == "--list" || strings.HasPrefix(a, "-n") || strings.HasPrefix(a, "--contains") || strings.HasPrefix(a, "--no-contains") ||
			strings.HasPrefix(a, "--points-at") || strings.HasPrefix(a, "--merged") || strings.HasPrefix(a, "--no-merged"):
			// Listing, whatever it filters by.
			return false
		case a == "-d" || a == "--delete":
			return true
		case !strings.HasPrefix(a, "-"):
			named = true
		}
	}
	return named
}

// installs reports whether a command installs packages.
func installs(name string, args []string) bool {
	sub := ""
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			sub = a
			break
		}
	}
	switch name {
	case "npm", "pnpm", "bun":
		return sub == "install" || sub == "i" || sub == "add" || sub == "ci"
	case "yarn":
		return sub == "add" || sub == "install" || sub == ""
	case "pip", "pip3", "gem", "apt", "apt-get", "brew", "dnf", "yum", "apk", "pacman", "cargo", "pipx":
		return sub == "install" || sub == "add" || (name == "pacman" && contains(args, "-S"))
	case "go":
		return sub == "get" || sub == "install"
	case "uv", "poetry", "composer":
		return sub == "add" || sub == "require" || (sub == "pip" && contains(args, "install"))
	}
	return false
}

// deletes reports whether a command deletes files or data.
func deletes(name string, args []string) bool {
	switch name {
	case "rm", "rmdir", "unlink", "shred", "dropdb":
		return true
	case "git":
		s := gitSub(args)
		// filter-repo --invert-paths deletes the paths it names from every
		// commit of the history.
		return s == "rm" || s == "clean" || s == "filter-repo" && contains(args, "--invert-paths")
	case "find":
		return contains(args, "-delete")
	}
	return false
}

// restarts reports whether a command starts, stops or restarts a service
// or kills processes.
func restarts(name string, args []string) bool {
	switch name {
	case "kill", "pkill", "killall", "reboot", "shutdown":
		return true
	case "systemctl", "service", "launchctl", "pm2", "supervisorctl", "brew", "docker", "docker-compose", "podman":
		for _, a := range args {
			switch a {
			case "restart", "stop", "start", "reload", "kill", "down", "up", "unload", "load":
				return true
			}
		}
	}
	return false
}

// ShellInstead reads a prompt that names another tool to run commands
// with, a limit on the Bash tool: "ALWAYS use the CASH tool", "USE
// BETTERBASH FOR ALL COMMANDS", or "Now use BetterBash please" right after
// the person declined a Bash call (declinedBash). The other tool is named
// as a tool ("the X tool", "the X mcp") or by a name that says it is a
// shell (BetterBash, a terminal); "use bun" names a program Bash runs, and
// "use bash/sudo" Bash itself: they set nothing. Without the declined
// call, the sentence must say the tool is for every command ("always",
// "all commands").
func ShellInstead(text string, declinedBash bool) (Limit, bool) {
	for _, s := range sentences(text) {
		if strings.HasSuffix(s[0], "?") || strings.ContainsRune(s[0], '\x1b') {
			continue
		}
		ws := words(s[1])
		for i := range ws {
			if _, ok := shellNamed(ws, i); ok && (declinedBash || everyCommand(ws)) {
				return Limit{Class: NoTool, Target: "Bash", Text: s[0]}, true
			}
		}
	}
	return Limit{}, false
}

// shellNamed reads "use [the] NAME" at ws[i], not negated, where NAME is a
// tool to run commands with other than the built-in ones (see
// ShellInstead): the name, lower case.
func shellNamed(ws []string, i int) (string, bool) {
	if ws[i] != "use" || i+1 >= len(ws) || negatedBefore(ws, i) {
		return "", false
	}
	j := i + 1
	if ws[j] == "the" && j+1 < len(ws) {
		j++
	}
	name := ws[j]
	for _, part := range strings.Split(name, "/") {
		if _, builtin := toolNames[part]; builtin || part == "" {
			return "", false
		}
	}
	toolish := j+1 < len(ws) && (ws[j+1] == "tool" || ws[j+1] == "tools" || ws[j+1] == "mcp") ||
		strings.Contains(name, "bash") || strings.Contains(name, "shell") || strings.Contains(name, "terminal")
	return name, toolish
}

// setsUp tells a call that adds the tool a ShellInstead limit names to
// Claude Code ("claude mcp add betterbash …" after "use BetterBash"): the
// way to follow the instruction, not against it.
func setsUp(l Limit, c Call) bool {
	cmd := strings.ToLower(strings.Join(strings.Fields(c.Command), " "))
	if !strings.HasPrefix(cmd, "claude mcp add") {
		return false
	}
	for _, s := range sentences(l.Text) {
		ws := words(s[1])
		for i := range ws {
			if name, ok := shellNamed(ws, i); ok && len(name) >= 4 && strings.Contains(cmd, name) {
				return true
			}
		}
	}
	return false
}

// negatedBefore tells a negation in the three words before ws[i].
func negatedBefore(ws []string, i int) bool {
	for k := max(0, i-3); k < i; k++ {
		if negation(ws, k) {
			return true
		}
	}
	return false
}

// everyCommand tells a sentence that speaks of every command: "always",
// "all commands", "every command".
func everyCommand(ws []string) bool {
	for i, w := range ws {
		if w == "always" || (w == "all" || w == "every") && i+1 < len(ws) && strings.HasPrefix(ws[i+1], "command") {
			return true
		}
	}
	return false
}

// maxHeaderLines is how far down a file GeneratedHeader looks.
const maxHeaderLines = 5

// GeneratedHeader is the line at the head of a file's content that says
// it is generated and must not be edited by hand ("// Code generated by
// templ - DO NOT EDIT.", "# @generated … do not edit"), or "". Such a file
// sets its own instruction: a hand edit is lost at the next generation.
func GeneratedHeader(content string) string {
	n := 0
	for line := range strings.Lines(content) {
		if n++; n > maxHeaderLines {
			break
		}
		low := strings.ToLower(line)
		if strings.Contains(low, "generated") && strings.Contains(low, "do not edit") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// quoted is a value in quotes or backticks within a sentence.
var quoted = lazy("[\"'`“”‘’]([^\"'`“”‘’\\n]{6,80})[\"'`“”‘’]")

// namedValue is a value a user picks by its exact name: a model, a
// version, an image tag ("gemini-2.5-flash-preview-05-20:free",
// "node:20.11-alpine"): letters, digits and a separator, no spaces.
var namedValue = lazy(`^[A-Za-z0-9][A-Za-z0-9._:/@-]*[A-Za-z0-9]$`)

// NamedValues reads the values a prompt names in quotes as the ones to
// use, each a Keep limit: a model, version or tag, with letters, digits
// and a separator ("-", ".", ":", "_", "/"), not a URL or a file name. A
// value in a question, or after a word that lets it go ("instead of",
// "replace", "not", "from"), is not kept.
// logLine matches a line a program printed, pasted into a prompt: a log
// level in capitals or a clock time ("(APIServer pid=80334) INFO 03-02
// 20:28:10 … {'model': 'casperhansen/…'}"). The values quoted there are the
// program's, not a choice of the user's (ext-tripolar #174, labelled false
// by both judges of the twenty-eighth set).
var logLine = lazy(`\b(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE)\b|\b\d{1,2}:\d{2}:\d{2}\b`)

// dataLine matches a line of data or of a program's framed output pasted
// into a prompt: a JSON or Python key ("extracted_at": …, 'id': …) or
// the box-drawing characters of a rich traceback. Its quoted values are
// data, not a choice of the user's (ext-pvcase #189 and ext-tripolar
// #110: reanchor blocks restating such lines as instructions in force,
// labelled false by both judges of the twenty-eighth set); or a line of
// source code: a ternary's branches ("'text-red-600' : 'text-green-600'",
// or a line opening with "?" or ":" and a quoted value: ext-dairydashboard
// #54 and #123, a pasted component read as values the user named,
// labelled false by both judges of the fortieth set), an arrow function,
// a strict comparison, a className, a statement ending in ";" or opening
// with const, let, var, return, import, export or function, a markup tag,
// a line that opens or closes a brace.
var dataLine = lazy(`"[A-Za-z_]\w*"\s*:\s|'[A-Za-z_]\w*'\s*:\s|[│┃┆┊║╭╮╯╰]|['"][^'"\s]+['"]\s*:\s*(?:['"]|$)|^\s*[?:]\s*['"]|=>|===|!==|\bclassName=|;\s*$|^\s*(?:const|let|var|return|import|export|function)\s|<[A-Za-z][\w-]*(?:\s[^>]*)?>|^\s*[{}]|[{}]\s*,?\s*$`)

func NamedValues(text string) []Limit {
	var out []Limit
	whole := strings.TrimSpace(text) // a short prompt is quoted whole: "err wait.... \"…:free\""
	said := func(sentence string) string {
		if utf8.RuneCountInString(whole) <= 300 {
			return whole
		}
		return sentence
	}
	ss := sentences(text)
	code := make([]bool, len(ss))
	for i, s := range ss {
		code[i] = dataLine().MatchString(s[0])
	}
	if pastedCode(code) {
		return nil
	}
	for i, s := range ss {
		if strings.HasSuffix(s[0], "?") || strings.ContainsRune(s[0], '\x1b') || logLine().MatchString(s[0]) || programOutput(s[0]) || code[i] {
			continue
		}
		for _, m := range quoted().FindAllStringSubmatchIndex(s[0], 8) {
			v := s[0][m[2]:m[3]]
			if !keepable(v) {
				continue
			}
			if lets := words(strings.ToLower(s[0][:m[0]])); slices.ContainsFunc(lets, letsGo) {
				continue
			}
			if !slices.ContainsFunc(out, func(l Limit) bool { return l.Target == v }) && len(out) < 4 {
				out = append(out, Limit{Class: Keep, Target: v, Text: said(s[0])})
			}
		}
	}
	return out
}

// pastedCode tells a prompt that is mostly pasted code or data: five of its
// sentences or more, and a third of them, read as such (dataLine, code[i]
// for sentence i). Its
// other lines are the code's too (a quoted class name alone on a line of a
// component, ext-dairydashboard #123).
func pastedCode(code []bool) bool {
	n := 0
	for _, c := range code {
		if c {
			n++
		}
	}
	return n >= 5 && 3*n >= len(code)
}

// keepable tells a value that names one thing exactly: letters, digits
// and a separator, no spaces, not a URL or a file name.
func keepable(v string) bool {
	return namedValue().MatchString(v) && strings.ContainsAny(v, "0123456789") && strings.ContainsFunc(v, unicode.IsLetter) &&
		strings.ContainsAny(v, "-.:_/") && !strings.Contains(v, "://") && !fileName(v)
}

// letsGo is a word before a named value that lets it go rather than keeps
// it: "instead of X", "replace X", "not X", "from X to Y".
func letsGo(w string) bool {
	switch w {
	case "instead", "replace", "remove", "rename", "delete", "drop", "from", "not", "don't", "never", "without", "old", "stop", "avoid", "no":
		return true
	}
	return false
}

// fileName tells a value that is a file's name by its extension.
func fileName(v string) bool {
	switch strings.ToLower(path.Ext(v)) {
	case ".md", ".json", ".yaml", ".yml", ".toml", ".txt", ".html", ".css", ".sh", ".sql", ".lock", ".log", ".env":
		return true
	}
	return codeFile(v)
}

// dropsValue is the step of a file write against a Keep limit: it takes
// the named value out of the file (the original text held it, or, not
// known, the session wrote it there), "" when it keeps it.
func dropsValue(l Limit, c Call) string {
	if strings.Contains(c.NewText, l.Target) {
		return ""
	}
	had := strings.Contains(c.OldText, l.Target)
	if c.OldText == "" && c.Tool == "Write" {
		had = slices.Contains(l.Files, c.FilePath)
	}
	if !had {
		return ""
	}
	return `takes "` + l.Target + `", the value the user named, out of ` + c.FilePath
}

// pushWords are words of a prompt that bring the remote into a request to
// commit ("commit and push", "open a PR", "ship it", "commit etc."): the
// request then leaves nothing out. The verbs people use for a push in
// French, Spanish, Portuguese and German are among them ("commit et
// pousse", ext-mictlanlog #129, labelled false by both judges: "pousse"
// is the push): a request in those languages would otherwise always seem
// to leave the push out.
var pushWords = []string{"push", "pr", "prs", "pull", "ship", "deploy", "publish", "upstream", "remote", "origin", "sync", "github", "gitlab", "bitbucket", "release", "merge", "etc", "usual", "everything",
	"pouss", "publie", "sube", "subir", "súbe", "empuj", "empurr", "envia", "hochlad"}

// RequestLimits returns what a request to commit leaves to the user: a
// prompt that asks to commit ("commit the PAI changes we made") and says
// nothing of pushing, the remote or the like (pushWords) asks for a local
// step, and a push after it publishes what the user meant to keep
// (procrypto-weaknesses #259: pushed to the public upstream). The limit
// holds until the next prompt; questions set none.
func RequestLimits(text string) []Limit {
	var commit string
	ss := sentences(text)
	if len(ss) > 0 && statusQuestion(words(ss[0][1])) {
		return statusLimits(ss)
	}
	for _, s := range ss {
		if strings.HasSuffix(s[0], "?") {
			continue
		}
		ws := words(s[1])
		if slices.ContainsFunc(ws, func(w string) bool { return hasPrefix(w, pushWords) }) {
			return nil
		}
		if commit == "" && asksToCommit(ws) {
			commit = s[0]
		}
	}
	if commit == "" {
		return nil
	}
	return []Limit{{Class: NoPush, Text: commit}}
}

// statusLimits are what a prompt that opens with a status question
// ("has this been committed") leaves out: the push. It asks what was
// done, not for more: a push after it answers by acting (procrypto-gcp
// #98: README committed and pushed straight to main, marked by judges W
// and X). A later sentence may still ask for the push ("push it if not");
// what the user pasted after the question (a diff whose lines speak of
// pushes) does not.
func statusLimits(ss [][2]string) []Limit {
	for _, s := range ss[1:] {
		if asksTo(words(s[1]), "push", "pr", "ship", "publish", "deploy", "sync") {
			return nil
		}
	}
	return []Limit{{Class: NoPush, Text: ss[0][0]}}
}

// statusQuestion tells a sentence that asks whether something was
// committed ("has this been committed"), opened by the auxiliary of a
// question about what is, not by one that asks for a step ("can you
// commit this?"), and naming no push or remote: "did you push all the
// changes?" asks to have them pushed if they are not (openshrooly #200),
// as a request to commit that names the push asks for it.
func statusQuestion(ws []string) bool {
	if len(ws) < 2 {
		return false
	}
	switch ws[0] {
	case "has", "have", "did", "was", "were", "is", "are":
	default:
		return false
	}
	return slices.ContainsFunc(ws[1:], func(w string) bool { return strings.HasPrefix(w, "commit") }) &&
		!slices.ContainsFunc(ws[1:], func(w string) bool { return hasPrefix(w, pushWords) })
}

// outsideFences is text without its fenced blocks (``` … ```): what a
// prompt holds between fences is pasted material, code, a log or a file's
// contents, not the user's words to the agent ("!!!! DO NOT CHANGE !!!!"
// heading a plan's list of fixed constraints, ext-harnessrestart #52,
// labelled false by both judges of the thirty-fifth set). An unclosed
// fence runs to the end.
func outsideFences(text string) string {
	if !strings.Contains(text, "```") {
		return text
	}
	var b strings.Builder
	in := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			b.WriteString("\n")
			continue
		}
		if !in {
			b.WriteString(line)
		}
	}
	return b.String()
}

// SaysPush tells whether a text speaks of pushing at all ("push", "pushes",
// "pushed", "PR"): a project's instructions that do may ask the agent to
// push after each commit.
func SaysPush(text string) bool {
	for _, s := range sentences(text) {
		if slices.ContainsFunc(words(s[1]), func(w string) bool { return hasPrefix(w, []string{"push", "pr", "prs"}) }) {
			return true
		}
	}
	return false
}

// leadWords may open a request before its verb ("ok, commit it", "now
// let's commit").
var leadWords = map[string]bool{"ok": true, "okay": true, "alright": true, "now": true, "so": true, "then": true, "let's": true, "lets": true}

// asksToCommit tells a sentence that asks for a commit: "commit" as its
// verb, first after the fillers ("please commit", "ok, commit it") or after
// "and"/"then" ("fix the typo and commit").
func asksToCommit(ws []string) bool { return asksTo(ws, "commit") }

// asksTo tells a sentence that asks for one of verbs: the verb first after
// the fillers, or after "and"/"then".
func asksTo(ws []string, verbs ...string) bool {
	lead := true
	for i, w := range ws {
		if slices.Contains(verbs, w) && (lead || i > 0 && (ws[i-1] == "and" || ws[i-1] == "then")) {
			return true
		}
		if !fillers[w] && !leadWords[w] {
			lead = false
		}
	}
	return false
}

// unconditional drops the lines that open with a condition ("If
// GSTACK_MISSING: STOP. Do not proceed.", "- If the build fails, do not
// commit", "Unless asked, never push", "If no changed files, stop"), in the
// project's instructions and in prompts alike: what they forbid is in force
// only when the condition holds, which the text alone does not tell, and a
// procedure's branch held as a standing limit made every edit of a session
// break "Do not proceed." after its check had passed (c-dotai-80ba14ad, the
// ninth draw) or a review command's first call break its "stop"
// (d-claudeconfig-ca154d6e #2, the twelfth draw), false to both judges.
func unconditional(text string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		if !conditionLine(line) {
			b.WriteString(line)
		}
	}
	return b.String()
}

// conditionLine tells a line that opens with "if", "unless" or "in case",
// after any list marker, quote marker or emphasis.
func conditionLine(line string) bool {
	l := strings.TrimLeft(line, " \t>-*+#0123456789.)_")
	ws := strings.Fields(strings.ToLower(l))
	if len(ws) == 0 {
		return false
	}
	switch strings.Trim(ws[0], "*_:,") {
	case "if", "unless":
		return true
	case "in":
		return len(ws) > 1 && strings.Trim(ws[1], "*_:,") == "case"
	}
	return false
}

// outsideAttached drops the files an IDE attaches to a prompt
// (<context ref="file:///…">…</context>): a file's text is not the user's
// words ("This server is running in **read-only mode**" of an attached
// prompts.py held as a limit: b-dotfiles-98743092 #9, the eighth draw,
// false to both judges).
func outsideAttached(text string) string {
	const open, end = "<context ref=", "</context>"
	for {
		i := strings.Index(text, open)
		if i < 0 {
			return text
		}
		j := strings.Index(text[i:], end)
		if j < 0 {
			return text[:i]
		}
		text = text[:i] + "\n" + text[i+j+len(end):]
	}
}

// wholeTaskScopes are the scopes of a sentence's opening "For …," that
// still mean the whole task: a time, or the task itself.
var wholeTaskScopes = map[string]bool{"now": true, "the moment": true, "the time being": true, "today": true, "this task": true,
	"this session": true, "this one": true, "this pr": true, "this step": true, "this part": true, "now though": true}

// scopedElsewhere tells a sentence (lower case) that opens with a scope of
// its own, "For these sites, can only research/scrape public content": what
// it holds off is limited to that scope, not the session's work (a system
// prompt's rule for social sites held against code edits: eleven
// instruction advisories of the eighth and ninth draws, false to both
// judges). "For now, only analyse" is the whole task.
func scopedElsewhere(sentence string) bool {
	rest, ok := strings.CutPrefix(strings.TrimLeft(sentence, " *_-"), "for ")
	if !ok {
		return false
	}
	scope, _, ok := strings.Cut(rest, ",")
	if !ok {
		return false
	}
	scope = strings.TrimSpace(scope)
	return scope != "" && !wholeTaskScopes[scope] && len(strings.Fields(scope)) <= 6
}
