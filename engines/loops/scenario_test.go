package loops

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A scenario is a sequence of tool calls, written as the hook sees them
// (tool_name, tool_input, error text, a result label, file hashes), and the
// alerts expected at each step. Every alert the engine raises must be
// expected, so a scenario with no expectations asserts silence.
type scenario struct {
	About  string          `json:"about"`
	Config json.RawMessage `json:"config"`
	Events []scenarioEvent `json:"events"`
	Expect []expectation   `json:"expect"`
}

type scenarioEvent struct {
	// Agent keys the State, as the hook keys it on agent_id ("" is the
	// main agent).
	Agent string          `json:"agent"`
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input"`
	// Error, when present, makes the call a PostToolUseFailure with this
	// error text.
	Error *string `json:"error"`
	// Output, when present, is the output of a call that succeeded, read
	// for a failure it reports (OutputFailureKey), for whether it was
	// empty and for the lines a windowed command shows (Event.Output).
	Output      *string `json:"output"`
	Interrupted bool    `json:"interrupted"`
	// Result labels the output: equal labels are equal outputs.
	Result string `json:"result"`
	Before string `json:"before"`
	After  string `json:"after"`
	// Prompt is the number of user prompts so far (Event.Prompt).
	Prompt uint64 `json:"prompt"`
}

type expectation struct {
	At          int      `json:"at"` // 1-based index into events
	Agent       string   `json:"agent"`
	Pattern     string   `json:"pattern"`
	Severity    Severity `json:"severity"`
	Count       *int     `json:"count"`
	Target      *string  `json:"target"`
	Range       *string  `json:"range"`
	Events      []uint64 `json:"events"`
	Since       *uint64  `json:"since"`
	RevertTo    *uint64  `json:"revert_to"`
	FromBefore  *bool    `json:"from_before"`
	Original    *bool    `json:"original"`
	Undone      *int     `json:"undone"`
	Asked       *bool    `json:"asked"`
	Once        *bool    `json:"once"`
	Rollback    *bool    `json:"rollback"`
	Fingerprint *string  `json:"fingerprint"`
	Edits       *int     `json:"edits"`
	Cycle       *int     `json:"cycle"`
	Key         *string  `json:"key"`
	Empty       *bool    `json:"empty"`
}

func loadScenario(t *testing.T, path string) scenario {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var sc scenario
	if err := dec.Decode(&sc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return sc
}

func TestScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "scenarios", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("found %d scenarios, want the whole suite", len(files))
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			sc := loadScenario(t, path)
			if sc.About == "" {
				t.Error("scenario has no about")
			}
			cfg := DefaultConfig()
			if len(sc.Config) > 0 {
				if err := json.Unmarshal(sc.Config, &cfg); err != nil {
					t.Fatalf("config: %v", err)
				}
				if err := cfg.Validate(); err != nil {
					t.Fatalf("config: %v", err)
				}
			}
			runScenario(t, sc, cfg)
		})
	}
}

type gotAlert struct {
	at    int
	agent string
	f     Finding
}

func runScenario(t *testing.T, sc scenario, cfg Config) {
	t.Helper()
	// The hook stores one State per agent in window.json between calls;
	// round-trip it through JSON at every step to do the same.
	states := map[string][]byte{}
	var got []gotAlert
	for i, se := range sc.Events {
		e := NewEvent(se.Tool, se.Input)
		if se.Error != nil {
			e.Failed = true
			e.Error = ErrorFingerprint(*se.Error)
			e.Fail = FailureKey(*se.Error)
			var in struct{ Command string }
			if se.Tool == "Bash" && json.Unmarshal(se.Input, &in) == nil {
				// As the hook reads a shell command's failure: with the
				// command (a timeout's kill, a stopped watcher).
				e.Fail = CommandFailureKeys(in.Command, *se.Error, false)
			}
		}
		if se.Output != nil {
			e.Fail = OutputFailureKey(e.Target, *se.Output)
			var view View
			if se.Tool == "Bash" {
				var in struct{ Command string }
				if err := json.Unmarshal(se.Input, &in); err != nil {
					t.Fatalf("event %d: %v", i+1, err)
				}
				_, view = ShellKey(in.Command, "")
			}
			e.Output(*se.Output, view)
		}
		e.Interrupted = se.Interrupted
		if se.Interrupted {
			e.Failed = true
		}
		if se.Result != "" {
			e.Result = ShortHash([]byte(se.Result))
		}
		e.Before, e.After, e.Prompt = se.Before, se.After, se.Prompt

		var st State
		if raw, ok := states[se.Agent]; ok {
			if err := json.Unmarshal(raw, &st); err != nil {
				t.Fatalf("event %d: state: %v", i+1, err)
			}
		}
		for _, f := range st.Record(e, cfg) {
			got = append(got, gotAlert{at: i + 1, agent: se.Agent, f: f})
		}
		raw, err := json.Marshal(&st)
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) > 12000 {
			t.Errorf("event %d: state is %d bytes", i+1, len(raw))
		}
		states[se.Agent] = raw
	}

	key := func(at int, agent, pattern string, sev Severity) string {
		return fmt.Sprintf("event %d agent %q %s (%s)", at, agent, pattern, sev)
	}
	want := map[string]expectation{}
	for _, x := range sc.Expect {
		want[key(x.At, x.Agent, x.Pattern, x.Severity)] = x
	}
	seen := map[string]bool{}
	for _, g := range got {
		k := key(g.at, g.agent, g.f.Pattern, g.f.Severity)
		x, ok := want[k]
		if !ok {
			t.Errorf("unexpected alert: %s: %+v", k, g.f)
			continue
		}
		seen[k] = true
		checkFacts(t, k, x, g.f)
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("missing alert: %s", k)
		}
	}
}

func checkFacts(t *testing.T, k string, x expectation, f Finding) {
	t.Helper()
	eq(t, k, "count", x.Count, f.Count)
	eq(t, k, "target", x.Target, f.Target)
	eq(t, k, "range", x.Range, f.Range)
	eq(t, k, "since", x.Since, f.Since)
	eq(t, k, "revert_to", x.RevertTo, f.RevertTo)
	eq(t, k, "from_before", x.FromBefore, f.FromBefore)
	eq(t, k, "original", x.Original, f.Original)
	eq(t, k, "undone", x.Undone, f.Undone)
	eq(t, k, "asked", x.Asked, f.Asked)
	eq(t, k, "once", x.Once, f.Once)
	eq(t, k, "rollback", x.Rollback, f.Rollback)
	eq(t, k, "fingerprint", x.Fingerprint, f.Fingerprint)
	eq(t, k, "edits", x.Edits, f.Edits)
	eq(t, k, "cycle", x.Cycle, f.Cycle)
	eq(t, k, "key", x.Key, f.Key)
	eq(t, k, "empty", x.Empty, f.Empty)
	if x.Events != nil && fmt.Sprint(x.Events) != fmt.Sprint(f.Events) {
		t.Errorf("%s: events = %v, want %v", k, f.Events, x.Events)
	}
}

// eq reports a fact of finding k that is not the expected one (want nil:
// not checked).
func eq[T comparable](t *testing.T, k, name string, want *T, got T) {
	t.Helper()
	if want != nil && *want != got {
		t.Errorf("%s: %s = %#v, want %#v", k, name, got, *want)
	}
}
