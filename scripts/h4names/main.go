// Command h4names measures the fail-loop split stated as H4 in
// docs/preregistered.md: whether the agent's own text, between a loop's
// first and last failing call, already names a word of the error the
// advisory quotes. It reads what scripts/judgeeval writes for one set (the
// advisories, -dump, and the calls as replay numbers them, -calls), the
// set's transcripts and its settled labels, and prints, for the fail-loops
// that carry a label, how many were useful in each half of the split. With
// -out it also writes one JSON object per fail-loop advisory.
//
//	go run ./scripts/judgeeval -dir testdata/eval-pool7 -dump /tmp/d.jsonl -out /tmp/d.md
//	go run ./scripts/judgeeval -dir testdata/eval-pool7 -calls /tmp/c.jsonl
//	go run ./scripts/h4names -dir testdata/eval-pool7 -dump /tmp/d.jsonl -calls /tmp/c.jsonl
//
// The measure was written down before the draw it is tested on:
//   - the error is the advisory's quoted error (`The error: "…"`) or, for the
//     wordings that quote none, its first quoted string (the failure key);
//   - its words are runs of letters of four or more, lower-cased, minus the
//     stop list below;
//   - the stretch is every assistant text and thinking block after the line
//     of the first cited call up to the line of the last, in the transcript
//     (main or subagent) that holds them;
//   - the stretch names the error when one of its words, tokenised the same
//     way, equals one of the error's words.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/djinn-cc/djinn/scripts/internal/evalset"
)

// stop lists words that name no particular error: English function words
// and the words every failure report shares.
var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		this that with from have been will would should could there their they them then than
		when what which where while your into only also some more most other such these those
		were does doesn must make made just like very each both same after before about over
		under because using used instead here need needs still again want sure look looks let
		error errors failed fail fails failure command commands line lines exit code status
		found cannot unable please file files call calls tool tools true false none null`) {
		stop[w] = true
	}
}

// words returns the distinct words of s as the measure counts them.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
		f = strings.ToLower(f)
		if len([]rune(f)) >= 4 && !stop[f] {
			out[f] = true
		}
	}
	return out
}

var (
	errQuote   = regexp.MustCompile(`The error: "(.*?)"\. (?:Next step|$)`)
	firstQuote = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	cited      = regexp.MustCompile(`calls? (#\d+(?:, #\d+)*(?:,? and #\d+)?)`)
	callNum    = regexp.MustCompile(`#(\d+)`)
)

// errorText is the advisory's quoted error or, failing that, its first
// quoted string.
func errorText(adv string) string {
	if m := errQuote.FindStringSubmatch(adv); m != nil {
		return m[1]
	}
	if m := firstQuote.FindStringSubmatch(adv); m != nil {
		return m[1]
	}
	return ""
}

// span is the first and last call number the advisory cites.
func span(adv string) (first, last int, ok bool) {
	m := cited.FindStringSubmatch(adv)
	if m == nil {
		return 0, 0, false
	}
	ns := callNum.FindAllStringSubmatch(m[1], -1)
	first, _ = strconv.Atoi(ns[0][1])
	last, _ = strconv.Atoi(ns[len(ns)-1][1])
	return first, last, true
}

type call struct {
	Session   string `json:"session"`
	ToolCall  int    `json:"tool_call"`
	ToolUseID string `json:"tool_use_id"`
}

// line is what the measure reads of one transcript line.
type line struct {
	text string   // assistant text and thinking
	ids  []string // tool_use ids the line carries
}

type transcript []line

// readTranscript keeps, per line, the assistant's text and thinking and the
// ids of its tool calls.
func readTranscript(path string) (transcript, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out transcript
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for sc.Scan() {
		var l struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		var got line
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Type == "assistant" {
			var blocks []struct {
				Type     string `json:"type"`
				ID       string `json:"id"`
				Text     string `json:"text"`
				Thinking string `json:"thinking"`
			}
			if json.Unmarshal(l.Message.Content, &blocks) == nil {
				var b strings.Builder
				for _, bl := range blocks {
					switch bl.Type {
					case "text":
						b.WriteString(bl.Text + "\n")
					case "thinking":
						b.WriteString(bl.Thinking + "\n")
					case "tool_use":
						got.ids = append(got.ids, bl.ID)
					}
				}
				got.text = b.String()
			}
		}
		out = append(out, got)
	}
	return out, sc.Err()
}

// where finds the transcript and line that hold a tool_use id.
type where struct {
	file string
	at   int
}

func main() {
	dir := flag.String("dir", "", "the evaluation set (its sessions/ and labels-settled.jsonl)")
	dump := flag.String("dump", "", "the advisories, as scripts/judgeeval -dump writes them")
	callsPath := flag.String("calls", "", "the calls, as scripts/judgeeval -calls writes them")
	labelsPath := flag.String("labels", "", "the labels (default: DIR/labels-settled.jsonl)")
	out := flag.String("out", "", "also write one JSON object per fail-loop advisory here")
	flag.Parse()
	if *dir == "" || *dump == "" || *callsPath == "" {
		fmt.Fprintln(os.Stderr, "h4names: -dir, -dump and -calls are required")
		os.Exit(2)
	}
	if *labelsPath == "" {
		*labelsPath = filepath.Join(*dir, "labels-settled.jsonl")
	}
	if err := run(*dir, *dump, *callsPath, *labelsPath, *out); err != nil {
		fmt.Fprintln(os.Stderr, "h4names:", err)
		os.Exit(1)
	}
}

func run(dir, dumpPath, callsPath, labelsPath, outPath string) error {
	advs, err := evalset.ReadJSONL[evalset.Advisory](dumpPath)
	if err != nil {
		return err
	}
	calls, err := evalset.ReadJSONL[call](callsPath)
	if err != nil {
		return err
	}
	read, err := evalset.ReadJSONL[evalset.Label](labelsPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	// The settled labels of fail-loops, joined as scripts/judgeeval joins
	// them.
	var labels []evalset.Label
	for _, l := range read {
		if l.Kind == "fail-loop" && (l.Judge == "" || l.Judge == "settled") {
			labels = append(labels, l)
		}
	}
	advs = slices.DeleteFunc(advs, func(a evalset.Advisory) bool { return a.Kind != "fail-loop" })
	joined := evalset.Join(advs, labels)
	idOf := map[string]string{}
	for _, c := range calls {
		idOf[c.Session+"#"+strconv.Itoa(c.ToolCall)] = c.ToolUseID
	}
	// Every transcript of the set, and where each tool_use id sits.
	files := map[string]transcript{}
	at := map[string]where{}
	err = filepath.WalkDir(filepath.Join(dir, "sessions"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		t, err := readTranscript(p)
		if err != nil {
			return err
		}
		files[p] = t
		for i, l := range t {
			for _, id := range l.ids {
				if _, seen := at[id]; !seen {
					at[id] = where{p, i}
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var w *json.Encoder
	if outPath != "" {
		f, err := os.Create(outPath)
		if err != nil {
			return err
		}
		defer f.Close()
		w = json.NewEncoder(f)
	}
	type tally struct{ useful, labelled int }
	var names, quiet tally
	unplaced := 0
	for _, j := range joined {
		a, lab := j.Advisory, j.Label
		first, last, ok := span(a.Text)
		errWords := words(errorText(a.Text))
		named, placed := false, false
		var shared []string
		if ok {
			w1, ok1 := at[idOf[a.Session+"#"+strconv.Itoa(first)]]
			w2, ok2 := at[idOf[a.Session+"#"+strconv.Itoa(last)]]
			if ok1 && ok2 && w1.file == w2.file && w1.at <= w2.at {
				placed = true
				t := files[w1.file]
				for i := w1.at + 1; i <= w2.at; i++ {
					for wd := range words(t[i].text) {
						if errWords[wd] {
							named = true
							shared = append(shared, wd)
						}
					}
				}
			}
		}
		if !placed {
			unplaced++
		}
		slices.Sort(shared)
		shared = slices.Compact(shared)
		if lab != "" {
			t := &quiet
			if named {
				t = &names
			}
			t.labelled++
			if lab == "useful" {
				t.useful++
			}
		}
		if w != nil {
			if err := w.Encode(map[string]any{
				"session": a.Session, "tool_call": a.ToolCall, "named": named, "placed": placed,
				"shared": shared, "label": lab,
			}); err != nil {
				return err
			}
		}
	}
	fmt.Printf("fail-loops whose stretch names an error word: %d useful of %d labelled\n", names.useful, names.labelled)
	fmt.Printf("fail-loops whose stretch names none:          %d useful of %d labelled\n", quiet.useful, quiet.labelled)
	all := names.labelled + quiet.labelled
	if all > 0 && quiet.labelled > 0 {
		fmt.Printf("precision of the kind: %.0f %% as said, %.0f %% with the first half dropped\n",
			100*float64(names.useful+quiet.useful)/float64(all), 100*float64(quiet.useful)/float64(quiet.labelled))
	}
	if unplaced > 0 {
		fmt.Printf("(%d fail-loops whose cited calls were not found in one transcript count as naming none)\n", unplaced)
	}
	return nil
}
