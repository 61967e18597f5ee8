package hooks

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/djinn-cc/djinn/engines/lcs"
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

// maxCallTokens bounds the distinct words kept per call.
const maxCallTokens = 32

var camelRe = regexp.MustCompile(`([a-z0-9])([A-Z])`)

// words splits text into signal words, in order of first appearance,
// without duplicates.
func words(text string) []string {
	text = camelRe.ReplaceAllString(text, "$1 $2")
	var out []string
	seen := map[string]bool{}
	for _, tok := range lcs.Normalize(text) {
		for _, w := range strings.FieldsFunc(tok, func(r rune) bool { return r == '_' || r == '.' }) {
			if !isSignalWord(w) || seen[w] {
				continue
			}
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func isSignalWord(w string) bool {
	if len(w) < 3 || genericWords[w] {
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

// genericWords carry no topic: function words, narration verbs, and the
// names every project shares.
var genericWords = setOf(`
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
let's i'll i'm we'll it's that's there's don't doesn't can't won't isn't
check checking checked look looking looks see seeing run running ran runs try trying tried
start starting started continue continuing now step steps done finish finished work working
works worked update updating updated change changes changing changed add adding added new
file files code line lines read reading write writing wrote edit editing edited create
creating created show showing find finding found call calls called task tasks let note
test tests testing fix fixing fixed error errors issue issues problem problems result results
output input value values return returns function method type types name names data
src lib pkg cmd internal app apps main index utils util common core base home user users usr
tmp var etc opt bin dev local share projects project repo repos worktree worktrees
go mod sum json yaml yml toml txt log logs lock ts tsx js jsx mjs cjs py rb rs ex exs erl
java kt swift cpp hpp html css scss md rst sh bash zsh cfg conf ini xml csv sql
true false null nil none yes
`)

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// callSignal extracts the words and project-relative files of one tool
// call from its name and input.
func callSignal(tool string, input json.RawMessage, project string) (toks []string, files []string) {
	var in map[string]json.RawMessage
	_ = json.Unmarshal(input, &in)
	str := func(k string) string {
		var s string
		if raw, ok := in[k]; ok {
			_ = json.Unmarshal(raw, &s)
		}
		return s
	}
	var text []string
	addFile := func(p string) {
		if p == "" {
			return
		}
		rel := relPath(p, project)
		files = append(files, rel)
		text = append(text, rel)
	}
	switch tool {
	case "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead":
		addFile(str("file_path"))
		addFile(str("notebook_path"))
	case "Bash", "PowerShell":
		text = append(text, commandWords(str("command"), project), str("description"))
	case "Grep", "Glob":
		text = append(text, str("pattern"), str("glob"))
		if p := str("path"); p != "" {
			text = append(text, relPath(p, project))
		}
	case "WebFetch":
		text = append(text, str("prompt"))
	case "WebSearch":
		text = append(text, str("query"))
	case "Task", "Agent":
		text = append(text, str("description"), clipRunes(str("prompt"), 2000))
	case "TodoWrite":
		var todos []struct {
			Content    string `json:"content"`
			ActiveForm string `json:"activeForm"`
			Status     string `json:"status"`
		}
		if raw, ok := in["todos"]; ok {
			_ = json.Unmarshal(raw, &todos)
		}
		for _, t := range todos {
			if t.Status != "completed" {
				text = append(text, t.Content)
			}
		}
	default:
		// MCP and other tools: their string arguments, briefly.
		keys := make([]string, 0, len(in))
		for k := range in {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if s := str(k); s != "" {
				text = append(text, clipRunes(s, 300))
			}
		}
	}
	toks = words(strings.Join(text, "\n"))
	if len(toks) > maxCallTokens {
		toks = toks[:maxCallTokens]
	}
	if len(files) > 4 {
		files = files[:4]
	}
	return toks, files
}

// commandWords keeps a shell command's words, with paths made
// project-relative so the project's own location adds nothing.
func commandWords(cmd, project string) string {
	cmd = clipRunes(cmd, 1000)
	if project != "" {
		cmd = strings.ReplaceAll(cmd, project+"/", "")
		cmd = strings.ReplaceAll(cmd, project, "")
	}
	return cmd
}

// relPath makes p relative to the project when it is inside it.
func relPath(p, project string) string {
	p = filepath.Clean(p)
	if project != "" {
		if r, err := filepath.Rel(project, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}
