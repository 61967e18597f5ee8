package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/djinn-cc/djinn/hooks/transcript"
)

// SpliceInfo describes a spliced transcript.
type SpliceInfo struct {
	// CutCalls is the number of the first transcript's tool calls kept:
	// the drift detector's lag is measured from this call.
	CutCalls int `json:"cut_calls"`
	// Calls is the number of tool calls in the spliced-in work.
	Calls int `json:"calls"`
	// FromRoot and ToRoot are the project roots the second transcript's
	// paths were moved from and to.
	FromRoot string `json:"from_root"`
	ToRoot   string `json:"to_root"`
}

// Splice builds the drift detector's test case: the first frac of the tool
// calls of transcript a (a real on-task session), then the work of
// transcript b (a session about another task) without its user prompts,
// with b's project root replaced by a's everywhere, so that nothing but the
// work itself changes.
func Splice(aPath, bPath string, frac float64) ([]byte, SpliceInfo, error) {
	var info SpliceInfo
	aLines, err := fileLines(aPath)
	if err != nil {
		return nil, info, err
	}
	bLines, err := fileLines(bPath)
	if err != nil {
		return nil, info, err
	}
	aCwd, aSession := rootOf(aLines)
	bCwd, _ := rootOf(bLines)
	if aCwd == "" || bCwd == "" {
		return nil, info, fmt.Errorf("splice: no cwd in %s or %s", aPath, bPath)
	}
	info.FromRoot, info.ToRoot = bCwd, aCwd
	total := countCalls(aLines, len(aLines))
	want := int(frac * float64(total))
	var out bytes.Buffer
	calls := 0
	for _, l := range aLines {
		if calls >= want {
			if e, err := transcript.Decode(l); err == nil && isResultLine(&e) {
				break
			}
		}
		if e, err := transcript.Decode(l); err == nil && isResultLine(&e) && !e.IsSidechain {
			calls += resultCount(&e)
		}
		out.Write(l)
		out.WriteByte('\n')
	}
	info.CutCalls = calls
	for _, l := range bLines {
		e, err := transcript.Decode(l)
		if err != nil {
			continue
		}
		switch {
		case e.Type != "user" && e.Type != "assistant":
			continue // b's own boundaries, summaries, snapshots, hook lines
		case e.Type == "user" && e.Message != nil && !e.IsSidechain:
			if _, prompt := userPrompt(&e); prompt || e.IsMeta || e.IsCompactSummary {
				continue
			}
		}
		var v any
		if json.Unmarshal(l, &v) != nil {
			continue
		}
		v = rewrite(v, bCwd, aCwd)
		if m, ok := v.(map[string]any); ok && aSession != "" {
			m["sessionId"] = aSession
		}
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		if isResultLine(&e) && !e.IsSidechain {
			info.Calls += resultCount(&e)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes(), info, nil
}

// fileLines reads the file at path as readLines does; its size, when Stat
// gives it, only sizes the buffer.
func fileLines(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(0)
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	return readLines(f, size)
}

// rootOf returns the first main-chain cwd and session id.
func rootOf(lines [][]byte) (cwd, session string) {
	for _, l := range lines {
		e, err := transcript.Decode(l)
		if err != nil || e.IsSidechain {
			continue
		}
		if cwd == "" && e.CWD != "" {
			cwd = e.CWD
		}
		if session == "" && e.SessionID != "" {
			session = e.SessionID
		}
		if cwd != "" && session != "" {
			break
		}
	}
	return cwd, session
}

func isResultLine(e *transcript.Entry) bool {
	return e.Type == "user" && e.Message != nil && resultCount(e) > 0
}

func resultCount(e *transcript.Entry) int {
	n := 0
	for _, b := range e.Message.Content.Blocks {
		if b.Type == "tool_result" {
			n++
		}
	}
	return n
}

func countCalls(lines [][]byte, upto int) int {
	n := 0
	for _, l := range lines[:upto] {
		if e, err := transcript.Decode(l); err == nil && isResultLine(&e) && !e.IsSidechain {
			n += resultCount(&e)
		}
	}
	return n
}

// rewrite replaces the project root in every string of a decoded line.
func rewrite(v any, from, to string) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, from, to)
	case map[string]any:
		for k, c := range x {
			x[k] = rewrite(c, from, to)
		}
	case []any:
		for i, c := range x {
			x[i] = rewrite(c, from, to)
		}
	}
	return v
}
