package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/state"
)

// Entry is one advisory of a session's history, with the tool call it fired
// at: what `djinn log` prints and what a timeline marks, so both read
// advisories.jsonl the same way.
type Entry struct {
	// Call is the session's tool-call count when the advisory was given
	// (state.Advisory.Seq): the call it fired at on PostToolUse, the latest
	// call before it on other events (0: before the first call).
	Call int       `json:"call"`
	Time time.Time `json:"time"`
	Kind string    `json:"kind"`
	// Mode is "advise" (the agent was told) or "observe" (recorded only);
	// lines written before modes existed were all told, and read as advise.
	Mode     string `json:"mode"`
	Severity string `json:"severity"`
	// Event is the hook event it was given on (PostToolUse, Stop, …).
	Event string `json:"event"`
	Agent string `json:"agent_id,omitempty"`
	// Tool and Target describe call #Call from turns.jsonl (empty when the
	// call is not there: before the first call, or rotated out).
	Tool   string `json:"tool,omitempty"`
	Target string `json:"target,omitempty"`
	// Loop are the calls that make a loop advisory's loop.
	Loop []int              `json:"loop,omitempty"`
	Text string             `json:"text"`
	Nums map[string]float64 `json:"numbers,omitempty"`
}

// logMaxBytes bounds how much of each log Log reads (the last part).
const logMaxBytes = 32 << 20

// Log reads a session's advisory history, oldest first, from its
// advisories.jsonl, each entry with its call's tool and target from
// turns.jsonl. A session without advisories has none; a session with no
// state at all is an error naming the state root.
func Log(st *state.Store, id string) ([]Entry, error) {
	dir, err := st.SessionDir(id)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("session %s: no state under %s", id, st.Root)
	}
	var out []Entry
	_, err = st.ReadLines(filepath.Join(dir, "advisories.jsonl"), state.KindAdvisory, logMaxBytes, func(raw []byte) error {
		var a state.Advisory
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil // validated already; a line that still fails is skipped
		}
		mode := a.Mode
		if mode == "" {
			mode = "advise"
		}
		out = append(out, Entry{
			Call: a.Seq, Time: a.Time, Kind: a.Kind, Mode: mode, Severity: a.Severity,
			Event: a.Event, Agent: a.AgentID, Loop: a.Loop, Text: a.Text, Nums: a.Numbers,
		})
		return nil
	})
	if err != nil || len(out) == 0 {
		return out, err
	}
	// The calls the entries fired at, from the turns log.
	at := map[int][]int{}
	for i := range out {
		at[out[i].Call] = append(at[out[i].Call], i)
	}
	_, err = st.ReadLines(filepath.Join(dir, "turns.jsonl"), state.KindTurn, logMaxBytes, func(raw []byte) error {
		var t state.Turn
		if json.Unmarshal(raw, &t) != nil {
			return nil
		}
		for _, i := range at[t.Seq] {
			out[i].Tool, out[i].Target = t.Tool, shortTarget(t.Tool, t.Summary)
		}
		return nil
	})
	return out, err
}

// shortTarget is a call's summary without its tool name, at most 60 runes.
func shortTarget(tool, summary string) string {
	s := strings.TrimSpace(strings.TrimPrefix(summary, tool))
	return advice.Clean(s, 60)
}

// FilterKinds keeps the entries of the given kinds (all when kinds is
// empty).
func FilterKinds(entries []Entry, kinds []string) []Entry {
	if len(kinds) == 0 {
		return entries
	}
	var out []Entry
	for _, e := range entries {
		if slices.Contains(kinds, e.Kind) {
			out = append(out, e)
		}
	}
	return out
}

// WriteLog renders entries for people: one heading line per advisory (time,
// call, kind, mode), then its text without the tag, cut at a word.
func WriteLog(w io.Writer, id string, entries []Entry, kinds []string) {
	what := "advisories"
	if len(kinds) > 0 {
		what = strings.Join(kinds, ", ") + " advisories"
	}
	if len(entries) == 0 {
		fmt.Fprintf(w, "djinn log: session %s, no %s\n", id, what)
		return
	}
	fmt.Fprintf(w, "djinn log: session %s, %d %s (advise: the agent was told; observe: recorded, the agent not told)\n", id, len(entries), what)
	for _, e := range entries {
		at := "before the first tool call"
		if e.Call > 0 {
			at = fmt.Sprintf("call #%d", e.Call)
			if e.Tool != "" {
				at += " " + advice.Clean(e.Tool, 40)
				if e.Target != "" {
					at += " " + e.Target
				}
			}
			if e.Event != "PostToolUse" && e.Event != "PostToolUseFailure" {
				at = "after " + at
			}
		}
		who := ""
		if e.Agent != "" {
			who = ", subagent " + advice.Clean(e.Agent, 40)
		}
		fmt.Fprintf(w, "%s  %s  %s (%s, %s%s)\n", e.Time.UTC().Format("2006-01-02 15:04:05"), at,
			advice.Clean(e.Kind, 40), advice.Clean(e.Mode, 20), advice.Clean(e.Event, 40), who)
		text := strings.TrimSpace(strings.TrimPrefix(e.Text, advice.Tag(e.Kind)))
		fmt.Fprintf(w, "    %s\n", clipWords(text, 300))
		if len(e.Loop) > 0 {
			fmt.Fprintf(w, "    the loop's calls in this session's numbering: %s\n", callIDs(e.Loop))
		}
	}
}

// clipWords cleans s (no control characters) and cuts it to at most n
// runes at a word boundary, marking the cut with "…".
func clipWords(s string, n int) string {
	r := []rune(advice.Clean(s, len(s)+1))
	if len(r) <= n {
		return string(r)
	}
	cut := n - 1
	for i := cut; i > n/2; i-- {
		if unicode.IsSpace(r[i]) {
			cut = i
			break
		}
	}
	return strings.TrimRightFunc(string(r[:cut]), unicode.IsSpace) + "…"
}

// callIDs lists call numbers as "#3 #4 #5".
func callIDs(calls []int) string {
	ids := make([]string, len(calls))
	for i, n := range calls {
		ids[i] = fmt.Sprintf("#%d", n)
	}
	return strings.Join(ids, " ")
}
