// Command judgeeval replays every session of the labelled evaluation set
// (testdata/eval/sessions), joins Djinn's advisories with the hand labels
// (by default the settled ones, testdata/eval/labels-settled.jsonl) by
// session, kind and tool call, scores recall over the hand-listed misses
// (misses-settled.jsonl), prints how far judges A and B agreed, and writes
// the tables to docs/judgement.md. Labels are defined in ../shared/judging.md.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/djinn-cc/djinn/hooks/replay"
	"github.com/djinn-cc/djinn/scripts/internal/evalset"
	"github.com/djinn-cc/djinn/settings"
)

// Label, Advisory and Joined are the shared evaluation types.
type (
	Label    = evalset.Label
	Advisory = evalset.Advisory
	Joined   = evalset.Joined
)

// Miss is a moment where a careful engineer would have spoken.
type Miss struct {
	Session     string `json:"session"`
	Kind        string `json:"kind"`
	StartCall   int    `json:"start_call"`
	EvidentCall int    `json:"evident_call"`
	Evidence    string `json:"evidence"`
	Judge       string `json:"judge"`
}

// at is the call at which the agent had the advisory, as misses number
// moments: a prompt's advisory, before the call that follows the prompt.
func at(a Advisory) int {
	if a.Event == "UserPromptSubmit" {
		return a.ToolCall + 1
	}
	return a.ToolCall
}

// loopKinds are the advisory and miss kinds that name a loop: a loop miss
// is caught by any of them, since the same loop can show as any.
var loopKinds = map[string]bool{
	"fail-loop": true, "tool-loop": true, "read-loop": true, "edit-revert": true, "stall": true,
}

// unaskedKinds are the advisory and miss kinds of work nobody asked for
// (issue 21): a step against an instruction in force and a risky step no
// instruction covers are one moment seen two ways, and the judges split
// on which it is (mthis-audit #286: G instruction, H risk).
var unaskedKinds = map[string]bool{"instruction": true, "risk": true}

// kindsMatch reports whether an advisory of kind adv answers a miss of kind
// miss: the loop kinds answer each other, so do the unasked-work kinds,
// any other kind only itself.
func kindsMatch(miss, adv string) bool {
	switch {
	case loopKinds[miss]:
		return loopKinds[adv]
	case unaskedKinds[miss]:
		return unaskedKinds[adv]
	}
	return miss == adv
}

// caught reports whether an advisory of a matching kind fired on the miss's
// session at a call in [start_call, evident_call+3] (Advisory.at).
func caught(m Miss, advs []Advisory) bool {
	for _, a := range advs {
		if a.Session == m.Session && kindsMatch(m.Kind, a.Kind) && at(a) >= m.StartCall && at(a) <= m.EvidentCall+3 {
			return true
		}
	}
	return false
}

// Row is one line of the precision table.
type Row struct {
	Kind                                                             string
	Advisories, Labelled, Useful, Useless, False, Unsure, Unlabelled int
	Per100                                                           float64
}

// Precision is useful/(useful+useless+false), or -1 when nothing is judged.
func (r Row) Precision() float64 {
	n := r.Useful + r.Useless + r.False
	if n == 0 {
		return -1
	}
	return float64(r.Useful) / float64(n)
}

func table(joined []Joined, calls int) []Row {
	rows := map[string]*Row{}
	total := &Row{Kind: "all"}
	for _, j := range joined {
		r := rows[j.Kind]
		if r == nil {
			r = &Row{Kind: j.Kind}
			rows[j.Kind] = r
		}
		for _, x := range []*Row{r, total} {
			x.Advisories++
			switch j.Label {
			case "":
				x.Unlabelled++
			case "useful":
				x.Useful++
			case "useless":
				x.Useless++
			case "false":
				x.False++
			default:
				x.Unsure++
			}
			if j.Label != "" {
				x.Labelled++
			}
		}
	}
	out := make([]Row, 0, len(rows)+1)
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Kind < out[b].Kind })
	out = append(out, *total)
	for i := range out {
		if calls > 0 {
			out[i].Per100 = float64(out[i].Advisories) * 100 / float64(calls)
		}
	}
	return out
}

// modeList renders the modes a kind's advisories had ("–" for none, as on
// the total row).
func modeList(ms map[string]bool) string {
	if len(ms) == 0 {
		return "–"
	}
	out := slices.Sorted(maps.Keys(ms))
	return strings.Join(out, ", ")
}

// readJSONL reads a set's optional file: a missing one is empty.
func readJSONL[T any](path string) ([]T, error) {
	out, err := evalset.ReadJSONL[T](path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return out, err
}

type sessionResult struct {
	name  string
	calls int
	advs  []Advisory
	// modes are the modes replay gave each kind's advisories (advise:
	// told; observe: recorded, the agent not told). Both are scored.
	modes map[string]map[string]bool
	err   error
}

func replayAll(ctx context.Context, paths []string) []sessionResult {
	res := make([]sessionResult, len(paths))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r := &res[i]
			r.name = filepath.Base(p)
			rep, err := replay.Run(ctx, p, replay.Options{Settings: settings.Default(), Notice: func(string) {}})
			if err != nil {
				r.err = err
				return
			}
			r.calls = rep.ToolCalls
			r.modes = map[string]map[string]bool{}
			for _, a := range rep.Advisories {
				if a.Mode == "record" {
					continue // a finding its detector only records: no advisory
				}
				r.advs = append(r.advs, Advisory{Session: r.name, Kind: a.Kind, ToolCall: a.Call, Event: a.Event, Mode: a.Mode, Text: a.Text})
				if r.modes[a.Kind] == nil {
					r.modes[a.Kind] = map[string]bool{}
				}
				r.modes[a.Kind][a.Mode] = true
			}
		}()
	}
	wg.Wait()
	return res
}

type part struct {
	title    string
	sessions map[string]bool
}

func render(w io.Writer, res []sessionResult, labels []Label, misses []Miss, p part) {
	var advs []Advisory
	modes := map[string]map[string]bool{}
	calls, n := 0, 0
	for _, r := range res {
		if !p.sessions[r.name] {
			continue
		}
		n++
		calls += r.calls
		advs = append(advs, r.advs...)
		for k, ms := range r.modes {
			if modes[k] == nil {
				modes[k] = map[string]bool{}
			}
			for m := range ms {
				modes[k][m] = true
			}
		}
	}
	fmt.Fprintf(w, "## %s: %d sessions, %d tool calls\n\n", p.title, n, calls)
	fmt.Fprintf(w, "| kind | mode | advisories | labelled | useful | useless | false | unsure | unlabelled | precision | per 100 calls |\n")
	fmt.Fprintf(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range table(evalset.Join(advs, labels), calls) {
		prec := "–"
		if pr := r.Precision(); pr >= 0 {
			prec = fmt.Sprintf("%.0f %%", pr*100)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %s | %.2f |\n", r.Kind, modeList(modes[r.Kind]), r.Advisories, r.Labelled, r.Useful, r.Useless, r.False, r.Unsure, r.Unlabelled, prec, r.Per100)
	}
	type rc struct{ n, caught int }
	byKind := map[string]*rc{}
	var missed []Miss
	for _, m := range misses {
		if !p.sessions[m.Session] {
			continue
		}
		c := byKind[m.Kind]
		if c == nil {
			c = &rc{}
			byKind[m.Kind] = c
		}
		c.n++
		if caught(m, advs) {
			c.caught++
		} else {
			missed = append(missed, m)
		}
	}
	kinds := slices.Sorted(maps.Keys(byKind))
	fmt.Fprintf(w, "\nRecall over the misses (caught: an advisory of a matching kind at a call in [start_call, evident_call+3], a prompt's advisory counted at the call after the prompt; loop kinds match each other):\n\n")
	fmt.Fprintf(w, "| miss kind | moments | caught | recall |\n|---|---:|---:|---:|\n")
	tn, tc := 0, 0
	for _, k := range kinds {
		c := byKind[k]
		tn += c.n
		tc += c.caught
		fmt.Fprintf(w, "| %s | %d | %d | %.0f %% |\n", k, c.n, c.caught, 100*float64(c.caught)/float64(c.n))
	}
	if tn > 0 {
		fmt.Fprintf(w, "| all | %d | %d | %.0f %% |\n", tn, tc, 100*float64(tc)/float64(tn))
	}
	if len(missed) > 0 {
		fmt.Fprintf(w, "\nNot caught:\n\n")
		for _, m := range missed {
			fmt.Fprintf(w, "- %s %s calls %d–%d: %s\n", m.Session, m.Kind, m.StartCall, m.EvidentCall, m.Evidence)
		}
	}
	fmt.Fprintln(w)
}

func gitHead() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	head := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		head += " (with uncommitted changes)"
	}
	return head
}

// judgePairs are the judges who labelled the same advisories
// independently, in the order they did (docs/judgement-blind.md says which
// set each pair judged). Each judge's labels and
// misses are labels-<judge>.jsonl and misses-<judge>.jsonl, lower case
// (judge A's are labels.jsonl and misses.jsonl), and the settled ones
// labels-settled.jsonl; each line names its judge, and -judge picks the lines.
var judgePairs = [][2]string{
	{"A", "B"}, {"E", "F"}, {"G", "H"}, {"I", "J"}, {"K", "L"}, {"M", "N"}, {"O", "P"}, {"Q", "R"},
	{"S", "T"}, {"U", "V"}, {"W", "X"}, {"Y", "Z"}, {"AA", "AB"}, {"AC", "AD"}, {"AE", "AF"}, {"AG", "AH"},
	{"AI", "AJ"}, {"AK", "AL"}, {"AM", "AN"}, {"AO", "AP"}, {"AQ", "AR"}, {"AS", "AT"}, {"AU", "AV"}, {"AW", "AX"}, {"AY", "AZ"}, {"BA", "BB"}, {"BC", "BD"}, {"BE", "BF"}, {"BG", "BH"}, {"BI", "BJ"}, {"BK", "BL"}, {"BM", "BN"}, {"BO", "BP"}, {"BQ", "BR"}, {"BS", "BT"}, {"BU", "BV"}, {"BW", "BX"}, {"BY", "BZ"}, {"CA", "CB"}, {"CC", "CD"}, {"CE", "CF"}, {"CG", "CH"}, {"CI", "CJ"}, {"CK", "CL"}, {"CM", "CN"}, {"CO", "CP"}, {"CQ", "CR"}, {"CS", "CT"}, {"CU", "CV"}, {"CW", "CX"}, {"CY", "CZ"}, {"DA", "DB"},
	{"DC", "DD"}, {"DE", "DF"}, {"DG", "DH"}, {"DI", "DJ"}, {"DK", "DL"}, {"DM", "DN"}, {"DO", "DP"}, {"DQ", "DR"}, {"DS", "DT"}, {"DU", "DV"}, {"DW", "DX"}, {"DY", "DZ"}, {"EA", "EB"}, {"EC", "ED"}, {"EE", "EF"}, {"EG", "EH"}, {"EI", "EJ"}, {"EK", "EL"}, {"EM", "EN"}, {"EO", "EP"}, {"EQ", "ER"}, {"ES", "ET"}, {"EU", "EV"},
	{"EW", "EX"}, {"EY", "EZ"}, {"FA", "FB"}, {"FC", "FD"}, {"FE", "FF"}, {"FG", "FH"}, {"FI", "FJ"}, {"FK", "FL"}, {"FM", "FN"}, {"FO", "FP"}, {"FQ", "FR"}, {"FS", "FT"},
	{"FU", "FV"}, {"FW", "FX"}, {"FY", "FZ"}, {"GA", "GB"}, {"GC", "GD"}, {"GE", "GF"}, {"GG", "GH"},
	{"GI", "GJ"}, {"GK", "GL"}, {"GM", "GN"}, {"GO", "GP"}, {"GQ", "GR"}, {"GS", "GT"}, {"GU", "GV"}, {"GW", "GX"},
	{"GY", "GZ"}, {"HA", "HB"}, {"HC", "HD"}, {"HE", "HF"}, {"HG", "HH"}, {"HI", "HJ"}, {"HK", "HL"}, {"HO", "HP"}, {"HQ", "HR"}, {"HS", "HT"},
	{"HU", "HV"}, {"HW", "HX"}, {"HY", "HZ"}, {"IE", "IF"}, {"IG", "IH"}, {"II", "IJ"},
	{"IK", "IL"}, {"IM", "IN"}, {"IO", "IP"},
}

// soloJudges labelled without a second judge of the same advisories.
var soloJudges = []string{"C", "D"}

// judgeFiles are the suffixes of the label and miss files of every judge,
// then the settled ones.
func judgeFiles() []string {
	var out []string
	for _, j := range judges() {
		if j == "A" {
			out = append(out, "")
		} else {
			out = append(out, "-"+strings.ToLower(j))
		}
	}
	return append(out, "-settled")
}

// judges are every judge: the pairs', then the solo ones.
func judges() []string {
	var js []string
	for _, p := range judgePairs {
		js = append(js, p[0], p[1])
	}
	return append(js, soloJudges...)
}

// judgeNames lists the judges for -judge's help.
func judgeNames() string {
	js := judges()
	return "settled, " + strings.Join(js[:len(js)-1], ", ") + " or " + js[len(js)-1]
}

// heldoutParts are the held-out lists of the set, each reported apart.
var heldoutParts = []struct{ file, title string }{
	{"heldout.txt", "Held out"},
	{"heldout-2.txt", "Second held-out set"},
	{"heldout-3.txt", "Third held-out set"},
	{"heldout-4.txt", "Fourth held-out set"},
	{"heldout-5.txt", "Fifth held-out set"},
	{"heldout-6.txt", "Sixth held-out set"},
	{"heldout-7.txt", "Seventh held-out set"},
	{"heldout-8.txt", "Eighth held-out set"},
	{"heldout-9.txt", "Ninth held-out set"},
	{"heldout-10.txt", "Tenth held-out set"},
	{"heldout-11.txt", "Eleventh held-out set"},
	{"heldout-12.txt", "Twelfth held-out set"},
	{"heldout-13.txt", "Thirteenth held-out set"},
	{"heldout-14.txt", "Fourteenth held-out set"},
	{"heldout-15.txt", "Fifteenth held-out set"},
	{"heldout-16.txt", "Sixteenth held-out set"},
	{"heldout-17.txt", "Seventeenth held-out set"},
	{"heldout-18.txt", "Eighteenth held-out set"},
	{"heldout-19.txt", "Nineteenth held-out set"},
	// testdata/eval-external's sets.
	{"heldout-20.txt", "Twentieth held-out set"},
	{"heldout-21.txt", "Twenty-first held-out set"},
	{"heldout-22.txt", "Twenty-second held-out set"},
	{"heldout-23.txt", "Twenty-third held-out set"},
	{"heldout-24.txt", "Twenty-fourth held-out set"},
	{"heldout-25.txt", "Twenty-fifth held-out set"},
	{"heldout-26.txt", "Twenty-sixth held-out set"},
	{"heldout-27.txt", "Twenty-seventh held-out set"},
	{"heldout-28.txt", "Twenty-eighth held-out set"},
	{"heldout-29.txt", "Twenty-ninth held-out set"},
	{"heldout-30.txt", "Thirtieth held-out set"},
	{"heldout-31.txt", "Thirty-first held-out set"},
	{"heldout-32.txt", "Thirty-second held-out set"},
	{"heldout-33.txt", "Thirty-third held-out set"},
	{"heldout-34.txt", "Thirty-fourth held-out set"},
	{"heldout-35.txt", "Thirty-fifth held-out set"},
	{"heldout-36.txt", "Thirty-sixth held-out set"},
	{"heldout-37.txt", "Thirty-seventh held-out set"},
	{"heldout-38.txt", "Thirty-eighth held-out set"},
	{"heldout-39.txt", "Thirty-ninth held-out set"},
	{"heldout-40.txt", "Fortieth held-out set"},
	{"heldout-41.txt", "Forty-first held-out set"},
	{"heldout-42.txt", "Forty-second held-out set"},
	{"heldout-43.txt", "Forty-third held-out set"},
	{"heldout-44.txt", "Forty-fourth held-out set"},
	{"heldout-45.txt", "Forty-fifth held-out set"},
	{"heldout-46.txt", "Forty-sixth held-out set"},
	{"heldout-47.txt", "Forty-seventh held-out set"},
	{"heldout-48.txt", "Forty-eighth held-out set"},
	{"heldout-49.txt", "Forty-ninth held-out set"},
	{"heldout-50.txt", "Fiftieth held-out set"},
	{"heldout-51.txt", "Fifty-first held-out set"},
}

func main() {
	dir := flag.String("dir", "testdata/eval", "the evaluation set: sessions/, labels*.jsonl, misses*.jsonl, heldout.txt")
	out := flag.String("out", "docs/judgement.md", "where to write the report")
	judge := flag.String("judge", "settled", "whose labels and misses to score: "+judgeNames())
	dump := flag.String("dump", "", "also write every advisory, one JSON object a line (session, kind, tool_call, mode, text), to this file")
	calls := flag.String("calls", "", "only write the tool calls of every session as replay numbers them (session, tool_call, tool, tool_use_id, agent, failed, input head), one JSON object a line, to this file, and exit")
	flag.Parse()
	if *calls != "" {
		if err := writeCalls(*dir, *calls); err != nil {
			fmt.Fprintln(os.Stderr, "judge-eval:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*dir, *out, *judge, *dump); err != nil {
		fmt.Fprintln(os.Stderr, "judge-eval:", err)
		os.Exit(1)
	}
}

// sessionFiles lists the transcripts under dir/sessions, sorted; none is
// an error.
func sessionFiles(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "sessions", "*.jsonl"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no sessions in %s/sessions", dir)
	}
	sort.Strings(paths)
	return paths, nil
}

func run(dir, out, judge, dump string) error {
	paths, err := sessionFiles(dir)
	if err != nil {
		return err
	}
	var allLabels []Label
	var allMisses []Miss
	for _, f := range judgeFiles() {
		ls, err := readJSONL[Label](filepath.Join(dir, "labels"+f+".jsonl"))
		if err != nil {
			return err
		}
		ms, err := readJSONL[Miss](filepath.Join(dir, "misses"+f+".jsonl"))
		if err != nil {
			return err
		}
		allLabels, allMisses = append(allLabels, ls...), append(allMisses, ms...)
	}
	labels, misses := byJudge(allLabels, allMisses, judge)
	res := replayAll(context.Background(), paths)
	all, tuning := part{"All sessions", map[string]bool{}}, part{"Tuning part", map[string]bool{}}
	var held []part
	heldBy := map[string]int{}
	for _, h := range heldoutParts {
		data, err := os.ReadFile(filepath.Join(dir, h.file))
		if err != nil {
			continue
		}
		p := part{h.title + " (`" + h.file + "`)", map[string]bool{}}
		for _, l := range strings.Split(string(data), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				p.sessions[l] = true
				heldBy[l] = len(held) + 1
			}
		}
		held = append(held, p)
	}
	for _, r := range res {
		if r.err != nil {
			return fmt.Errorf("replay %s: %w", r.name, r.err)
		}
		all.sessions[r.name] = true
		if heldBy[r.name] == 0 {
			tuning.sessions[r.name] = true
		}
	}
	if dump != "" {
		if err := writeDump(dump, res); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Djinn judged on real sessions\n\n")
	fmt.Fprintf(&b, "Written by `scripts/judge-eval` on %s at commit %s; labels and misses of judge \"%s\" (`-judge`) from `%s` (definitions: `testdata/eval/README.md` and the team's judging.md). Precision = useful / (useful + useless + false); unsure is left out; unlabelled advisories are new output no judge has seen. Every advisory Djinn would give is scored, whatever its mode: advise (the agent is told) or observe (recorded, the agent not told; settings `advisories.<kind>`).\n\n", time.Now().UTC().Format("2006-01-02"), gitHead(), judge, dir)
	renderAgreement(&b, allLabels, allMisses)
	for _, p := range append([]part{all, tuning}, held...) {
		render(&b, res, labels, misses, p)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return err
	}
	_, err = os.Stdout.Write(b.Bytes())
	return err
}

// writeDump writes every advisory of every session, one JSON object a line,
// for judges who label a set.
func writeDump(path string, res []sessionResult) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, r := range res {
		for _, a := range r.advs {
			if err := enc.Encode(a); err != nil {
				return err
			}
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// CallLine is one tool call as replay numbers it, for judges reading a
// session: labels and misses use these numbers.
type CallLine struct {
	Session   string `json:"session"`
	ToolCall  int    `json:"tool_call"`
	Tool      string `json:"tool"`
	ToolUseID string `json:"tool_use_id,omitempty"`
	Agent     string `json:"agent,omitempty"`
	Failed    bool   `json:"failed,omitempty"`
	Input     string `json:"input"`
}

// writeCalls replays every session and writes its tool calls, without any
// advisory, so that judges can number what they read as the scores do.
func writeCalls(dir, path string) error {
	paths, err := sessionFiles(dir)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, p := range paths {
		name := filepath.Base(p)
		var encErr error
		_, err := replay.Run(context.Background(), p, replay.Options{Settings: settings.Default(), Notice: func(string) {}, OnEvent: func(e replay.Event) {
			if e.Name != "PostToolUse" && e.Name != "PostToolUseFailure" {
				return
			}
			in := string(e.ToolInput)
			if r := []rune(in); len(r) > 400 {
				in = string(r[:400]) + "…"
			}
			if err := enc.Encode(CallLine{Session: name, ToolCall: e.ToolCalls, Tool: e.ToolName, ToolUseID: e.ToolUseID, Agent: e.AgentID, Failed: e.Name == "PostToolUseFailure", Input: in}); err != nil && encErr == nil {
				encErr = err
			}
		}})
		if err != nil {
			return fmt.Errorf("replay %s: %w", name, err)
		}
		if encErr != nil {
			return encErr
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
