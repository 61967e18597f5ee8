package drift

import (
	"encoding/json"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/djinn-cc/djinn/engines/lcs"
	"github.com/djinn-cc/djinn/internal/fit"
)

// Signal words are what the drift detector compares with the goal. They
// come only from what the agent itself authors and touches: the paths of the
// files a call touches, its command, description, pattern or query, the
// TodoWrite items and Task prompts it writes, and its own prose from the
// transcript. Tool output is never used: one long payload would dilute
// everything else (the original Djinn's defect, prior-art §1.6).
//
// Words are lcs.Normalize's tokens, split further at underscores, dots and
// camelCase humps (session_live.ex gives session, live), without the words
// that say nothing about a topic: English function words, the verbs agents
// narrate with, file extensions and directory names every project has.

// MaxCallTokens bounds the distinct words kept per call.
const MaxCallTokens = 32

// splitCamel puts a space at each camelCase hump (darkTheme → dark Theme).
func splitCamel(text string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range text {
		if r >= 'A' && r <= 'Z' && (prev >= 'a' && prev <= 'z' || prev >= '0' && prev <= '9') {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// Words splits text into signal words, in order of first appearance, one
// per stem: a path or identifier is split into its words (db/pool7.go gives
// db, pool; ReadTimeout gives read, timeout; snake_case and kebab-case at
// their separators), digits are stripped from the ends of each word, and of
// the words that share a stem (scope, scopes) only the first is kept. The
// words stay as written, so they can be shown as evidence; Stem gives what
// is compared.
func Words(text string) []string {
	text = splitCamel(text)
	var out []string
	seen := map[string]bool{}
	for _, tok := range lcs.Normalize(text) {
		for _, w := range strings.FieldsFunc(tok, func(r rune) bool { return r == '_' || r == '.' }) {
			if !isSignalWord(w) {
				continue
			}
			w = strings.TrimFunc(w, unicode.IsDigit)
			if len(w) < 2 || isGenericWord(w) {
				continue
			}
			st := Stem(w)
			if seen[st] || isGenericWord(st) {
				continue
			}
			seen[st] = true
			out = append(out, w)
		}
	}
	return out
}

// Stems returns the stems of words, deduplicated, in order.
func Stems(words []string) []string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		out = appendNew(out, Stem(w))
	}
	return out
}

func isSignalWord(w string) bool {
	if len(w) < 2 || isGenericWord(w) {
		return false
	}
	digits, hex := 0, 0
	for _, r := range w {
		if unicode.IsDigit(r) {
			digits++
		}
		if unicode.IsDigit(r) || (r >= 'a' && r <= 'f') {
			hex++
		}
	}
	// Numbers, hashes and ids name no topic.
	if digits*2 >= len(w) || (hex == len(w) && len(w) >= 7) {
		return false
	}
	return true
}

// genericWordsText lists the words that carry no topic: function words,
// narration verbs, and the names every project shares. isGenericWord tests
// membership.
const genericWordsText = `
about above after again against all also already always and another any anything are around
because been before being below between both but can cannot could did does doing done down
during each either else enough even ever every few first for from further get gets getting
got had has have having here how however into its itself just keep last later least less let
lets like likely made make makes making many may maybe might more most much must need needs
next not now off once one only onto other others our out over own per perhaps please quite
rather really same see seems should since some something still such sure than that the their
them then there these they thing things this those though through thus too two under until
upon use used uses using very via want was way well were what when where whether which while
who whom whose why will with within without would yet you your yes okay great good fine
pls plz thx thanks take stab
let's i'll i'm we'll it's that's there's don't doesn't can't won't isn't
check checking checked look looking looks see seeing run running ran runs try trying tried
start starting started continue continuing now step steps done finish finished work working
works worked update updating updated change changes changing changed add adding added new
file files code line lines read reading write writing wrote edit editing edited create
creating created show showing find finding found call calls called task tasks let note
delete deleting deleted remove removing removed rename renaming renamed move moving moved
final finally actually again
test tests testing fix fixing fixed error errors issue issues problem problems result results
output input value values return returns function method type types name names data
src lib pkg cmd internal app apps main index utils util common core base home user users usr
tmp var etc opt bin dev local share projects project repo repos worktree worktrees
go mod sum json yaml yml toml txt log logs lock ts tsx js jsx mjs cjs py rb rs ex exs erl
java kt swift cpp hpp html css scss md rst sh bash zsh cfg conf ini xml csv sql
true false null nil none yes
to of in on at by an as be do if is it me my no or so up us we am he hi ok id vs eg ie re un
push pull fetch commit commits stage staged merge rebase stash branch branches remote origin upstream
sync status stat diff oneline verify verbose build compile compiling lint format install clean
ready list show open closed close reason progress
`

// CallSig is what one tool call says about its topic. Object words name
// what the call acts on (paths, command arguments, patterns, queries, todo
// items, task prompts); narrative words only describe it (a Bash
// description, the agent's prose). Narrative words can show a call is about
// the goal but never that it is not: descriptions and prose are full of
// workflow phrases ("Push to remote", "All tests pass") that name no topic.
type CallSig struct {
	Object    []string
	Narrative []string
	Files     []string
	// Acts is the actionable text (commands, todo items, task prompts) that
	// the ticket-identifier check reads.
	Acts string
}

// Extract reads a call's signal from its tool name and input; project is
// the project directory, which paths are made relative to.
func Extract(tool string, input json.RawMessage, project string) CallSig {
	if Bookkeeping(tool) {
		return CallSig{}
	}
	var in map[string]json.RawMessage
	_ = json.Unmarshal(input, &in)
	str := func(k string) string {
		var s string
		if raw, ok := in[k]; ok {
			_ = json.Unmarshal(raw, &s)
		}
		return s
	}
	var sig CallSig
	var obj, narr []string
	addFile := func(p string) {
		if p == "" {
			return
		}
		rel := RelPath(p, project)
		sig.Files = append(sig.Files, rel)
		obj = append(obj, rel)
	}
	switch tool {
	case "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead":
		addFile(str("file_path"))
		addFile(str("notebook_path"))
	case "Bash", "PowerShell":
		cmd := str("command")
		obj = append(obj, commandWords(cmd, project))
		narr = append(narr, str("description"))
		// The project's own path can name the ticket (a worktree per
		// ticket): it says nothing about what this command is on.
		sig.Acts = withoutProject(cmd, project)
	case "Grep", "Glob":
		obj = append(obj, str("pattern"), str("glob"))
		if p := str("path"); p != "" {
			obj = append(obj, RelPath(p, project))
		}
	case "WebFetch":
		obj = append(obj, str("url"), str("prompt"))
	case "WebSearch":
		obj = append(obj, str("query"))
	case "Task", "Agent":
		narr = append(narr, str("description"))
		obj = append(obj, fit.Runes(str("prompt"), 2000))
		sig.Acts = str("description") + "\n" + fit.Runes(str("prompt"), 2000)
	default:
		// MCP and other tools: their string arguments, briefly.
		keys := slices.Sorted(maps.Keys(in))
		for _, k := range keys {
			if s := str(k); s != "" {
				obj = append(obj, fit.Runes(s, 300))
			}
		}
	}
	sig.Object = capStrings(Words(strings.Join(obj, "\n")), MaxCallTokens)
	sig.Narrative = capStrings(Words(strings.Join(narr, "\n")), MaxCallTokens)
	if len(sig.Files) > 4 {
		sig.Files = sig.Files[:4]
	}
	return sig
}

// Bookkeeping tools keep the agent's own plan (todo lists, tasks, plan
// mode) or load its tools (ToolSearch): they say nothing about what the work is on, so they carry no
// evidence either way, and their words (completed, in_progress) are never
// shown as evidence.
func Bookkeeping(tool string) bool {
	switch tool {
	case "TodoWrite", "TodoRead", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet", "ExitPlanMode", "exit_plan_mode", "EnterPlanMode", "ToolSearch":
		return true
	}
	return false
}

// StateDocs reports whether every file of a file tool's call is one where
// the agent keeps its own plan and progress (anything under .planning/,
// STATE.md, ROADMAP.md, TODO.md, PROGRESS.md): like a todo list, updating
// or reading it is a step of the workflow the user started, evidence
// neither way (procrypto-cicd #69, procrypto-milestone21 #33,
// procrypto-screenerstyle #99: drift false to both judges of the sixteenth
// held-out set).
func StateDocs(tool string, files []string) bool {
	switch tool {
	case "Read", "Write", "Edit", "MultiEdit":
	default:
		return false
	}
	for _, f := range files {
		b := path.Base(f)
		if !strings.Contains("/"+f, "/.planning/") && b != "STATE.md" && b != "ROADMAP.md" && b != "TODO.md" && b != "PROGRESS.md" {
			return false
		}
	}
	return len(files) > 0
}

// NoEvidence reports whether a call says nothing either way about what the
// work is on: bookkeeping tools and the agent's own state documents.
func NoEvidence(tool string, sig CallSig) bool {
	return Bookkeeping(tool) || StateDocs(tool, sig.Files)
}

// commandWords keeps what a shell command is about: its arguments, not the
// program that runs them or the options. The program and, for tools with
// subcommands, the subcommand say how work is done (git push, npm test, bd
// sync), the same for every task; the arguments (paths, identifiers,
// patterns) say on what. Paths are made project-relative so the project's
// own location adds nothing.
func commandWords(cmd, project string) string {
	cmd = withoutProject(fit.Runes(cmd, 1000), project)
	var out []string
	for _, seg := range shellSegments(cmd) {
		fields := strings.Fields(seg)
		// Skip leading variable assignments (FOO=bar cmd …).
		for len(fields) > 0 && strings.Contains(fields[0], "=") && !strings.HasPrefix(fields[0], "-") {
			fields = fields[1:]
		}
		if len(fields) == 0 {
			continue
		}
		prog := filepath.Base(fields[0])
		fields = fields[1:]
		if isSubcommandTool(prog) && len(fields) > 0 && !strings.HasPrefix(fields[0], "-") {
			fields = fields[1:]
		}
		for _, f := range fields {
			if strings.HasPrefix(f, "-") {
				// An option; keep the value of --opt=value.
				if _, v, ok := strings.Cut(f, "="); ok {
					out = append(out, v)
				}
				continue
			}
			out = append(out, f)
		}
	}
	return strings.Join(out, " ")
}

// withoutProject removes the project directory from a command, so paths
// in it read project-relative.
func withoutProject(cmd, project string) string {
	if project == "" {
		return cmd
	}
	cmd = strings.ReplaceAll(cmd, project+"/", "")
	return strings.ReplaceAll(cmd, project, "")
}

// shellSegments separates the commands of a pipeline or list (at | || &&
// ; & ( ) $( and newlines).
func shellSegments(cmd string) []string {
	return strings.FieldsFunc(cmd, func(r rune) bool {
		return r == '|' || r == '&' || r == ';' || r == '(' || r == ')' || r == '\n' || r == '$'
	})
}

// subcommandToolsText lists the programs that take a subcommand first (git
// push, npm test); isSubcommandTool tests membership.
const subcommandToolsText = `git gh bd npm npx yarn pnpm mix cargo go make docker kubectl pip pip3 poetry
uv bundle rake rails dotnet mvn gradle terraform helm brew apt apt-get systemctl tmux bun deno swift`

// RelPath makes p relative to the project when it is inside it.
func RelPath(p, project string) string {
	p = filepath.Clean(p)
	if project != "" {
		if r, err := filepath.Rel(project, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}
