// Package evalset reads what the evaluation scripts share: JSON Lines
// files, the advisories scripts/judgeeval dumps, the judges' labels, and the
// join of the two.
package evalset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Label is one judge's verdict on one advisory.
type Label struct {
	Session    string `json:"session"`
	Kind       string `json:"kind"`
	ToolCall   int    `json:"tool_call"`
	TextPrefix string `json:"text_prefix"`
	Label      string `json:"label"`
	Judge      string `json:"judge"`
	Evidence   string `json:"evidence"`
}

// Advisory is one advisory Djinn gave on a session.
type Advisory struct {
	Session  string `json:"session"`
	Kind     string `json:"kind"`
	ToolCall int    `json:"tool_call"`
	Mode     string `json:"mode"`
	Text     string `json:"text"`
	// Event is the hook that gave it: one at a UserPromptSubmit after call
	// N reaches the agent before call N+1, the call judges mark for a
	// prompt's moment.
	Event string `json:"event,omitempty"`
}

// Joined is an advisory with its label, if any ("" when unlabelled).
type Joined struct {
	Advisory
	Label string
}

// ReadJSONL reads one value of T from each non-blank line of path. A
// missing file is an error that wraps fs.ErrNotExist.
func ReadJSONL[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// Join pairs each advisory with the label of the same session, kind and
// tool call; when several share that key, a label whose text_prefix starts
// the advisory's text is preferred, then labels in file order. Each label
// is used once.
func Join(advs []Advisory, labels []Label) []Joined {
	type key struct {
		s, k string
		c    int
	}
	byKey := map[key][]int{}
	for i, l := range labels {
		k := key{l.Session, l.Kind, l.ToolCall}
		byKey[k] = append(byKey[k], i)
	}
	used := make([]bool, len(labels))
	out := make([]Joined, 0, len(advs))
	for _, a := range advs {
		j := Joined{Advisory: a}
		cands := byKey[key{a.Session, a.Kind, a.ToolCall}]
		pick := -1
		for _, i := range cands {
			if !used[i] && labels[i].TextPrefix != "" && strings.HasPrefix(a.Text, labels[i].TextPrefix) {
				pick = i
				break
			}
		}
		if pick < 0 {
			for _, i := range cands {
				if !used[i] {
					pick = i
					break
				}
			}
		}
		if pick >= 0 {
			used[pick] = true
			j.Label = labels[pick].Label
		}
		out = append(out, j)
	}
	return out
}
