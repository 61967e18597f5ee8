package loops

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	tests := []struct {
		key    string
		mutate func(*Config)
	}{
		{"window", func(c *Config) { c.Window = 1 }},
		{"window", func(c *Config) { c.Window = MaxWindow + 1 }},
		{"alpha", func(c *Config) { c.Alpha = 0 }},
		{"alpha", func(c *Config) { c.Alpha = 1.5 }},
		{"cooldown", func(c *Config) { c.Cooldown = -1 }},
		{"cooldown_stretch", func(c *Config) { c.CooldownStretch = 0 }},
		{"hard_ema", func(c *Config) { c.HardEMA = 2 }},
		{"read_threshold", func(c *Config) { c.ReadThreshold = 1 }},
		{"fail_threshold", func(c *Config) { c.FailThreshold = 0 }},
		{"tool_repeats", func(c *Config) { c.ToolRepeats = 1 }},
		{"cycle_min", func(c *Config) { c.CycleMin = 1 }},
		{"cycle_max", func(c *Config) { c.CycleMax = 0 }},
		{"cycle_max", func(c *Config) { c.CycleMax = 7 }}, // 3 × 7 > 20
		{"enabled.read-lop", func(c *Config) { c.Enabled["read-lop"] = true }},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			c := DefaultConfig()
			tt.mutate(&c)
			err := c.Validate()
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.key+" =") {
				t.Errorf("Validate() = %v, want an ErrConfig naming %q", err, tt.key)
			}
		})
	}
}

func TestConfigJSON(t *testing.T) {
	raw, err := json.Marshal(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(maps.Keys(m))
	want := []string{"alpha", "cooldown", "cooldown_stretch", "cycle_max", "cycle_min", "enabled", "exempt_commands", "exempt_repeats", "exempt_tools", "fail_threshold", "hard_ema", "read_threshold", "tool_repeats", "window"}
	if !slices.Equal(keys, want) {
		t.Errorf("config keys %v, want %v", keys, want)
	}
	c := DefaultConfig()
	if err := json.Unmarshal([]byte(`{"read_threshold":4,"enabled":{"tool-loop":false}}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.ReadThreshold != 4 || c.On(ToolLoop) || !c.On(ReadLoop) || c.Window != 20 {
		t.Errorf("partial override gave %+v", c)
	}
}

// readTimes records n reads of one file with one content.
func readTimes(s *State, n int, cfg Config) [][]Finding {
	var out [][]Finding
	for range n {
		out = append(out, s.Record(Event{Tool: "Read", Target: "/a", After: "h0", Input: "i", Result: "r"}, cfg))
	}
	return out
}

func TestRecordBadConfigUsesDefaults(t *testing.T) {
	for _, cfg := range []Config{{}, {Window: -3, Alpha: 9, ReadThreshold: 1, Cooldown: -1, HardEMA: -1}} {
		var s State
		got := readTimes(&s, 3, cfg)
		if len(got[1]) != 0 || len(got[2]) != 1 || got[2][0].Pattern != ReadLoop {
			t.Errorf("config %+v: alerts %v, want one read-loop at the third read", cfg, got)
		}
	}
}

func TestRecordRepairsDamagedState(t *testing.T) {
	var s State
	if err := json.Unmarshal([]byte(`{"n":2,"events":[`+strings.Repeat(`{"n":7,"tool":"Bash","target":"x"},`, 40)+`{"n":50,"tool":"Bash","target":"x"}],"patterns":{"read-loop":{"ema":7,"last":900,"last_hard":true},"gone":{"ema":0.5}}}`), &s); err != nil {
		t.Fatal(err)
	}
	got := readTimes(&s, 3, DefaultConfig())
	if len(s.Events) != 20 {
		t.Errorf("window holds %d events, want 20", len(s.Events))
	}
	if s.Seq != 53 || s.Events[19].Seq != 53 {
		t.Errorf("numbering: state n=%d, last event %d; want 53", s.Seq, s.Events[19].Seq)
	}
	if _, ok := s.Patterns["gone"]; ok {
		t.Error("state kept a pattern nobody runs")
	}
	if len(got[2]) != 1 || got[2][0].Severity != Soft {
		t.Errorf("alerts %v: want a soft read-loop (a bad EMA counts as 0, a future last alert as none)", got)
	}
}

func TestStateStaysSmall(t *testing.T) {
	long := strings.Repeat("x", 5000)
	var s State
	for i := range 200 {
		e := NewEvent("mcp__"+long, json.RawMessage(`{"command":"`+long+`","n":`+string(rune('0'+i%10))+`}`))
		e.Failed = true
		e.Error = ErrorFingerprint(long + " failed")
		e.Result, e.Before, e.After = ShortHash([]byte{1}), ShortHash([]byte{2}), ShortHash([]byte{3})
		s.Record(e, DefaultConfig())
	}
	raw, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 16000 {
		t.Errorf("state of 20 worst-case events and %d remembered failures is %d bytes", len(s.Failures), len(raw))
	}
	t.Logf("worst-case state: %d bytes", len(raw))
}

// everyEvent is a pattern from outside the package: it holds on every
// event whose tool matches. The engine runs it without knowing it.
type everyEvent struct{ name, tool string }

func (p everyEvent) Name() string { return p.name }
func (p everyEvent) Check(w []Event, _ Config) (Finding, bool) {
	cur := w[len(w)-1]
	if cur.Tool != p.tool {
		return Finding{}, false
	}
	return Finding{Tool: cur.Tool, Target: cur.Target, Count: 1, Events: []uint64{cur.Seq}}, true
}

func TestRecordWithNewPattern(t *testing.T) {
	cfg := DefaultConfig()
	bash := everyEvent{"every-bash", "Bash"}
	grep := everyEvent{"every-grep", "Grep"}
	patterns := append(Builtin(), grep, bash)
	var s State
	var got [][]Finding
	for i := range 7 {
		tool := "Bash"
		if i == 6 {
			tool = "Grep" // and Bash's pattern stays quiet
		}
		got = append(got, s.RecordWith(Event{Tool: tool, Target: "t", Input: "i"}, cfg, patterns))
	}
	// every-bash: soft at 1, quiet 2..6 (cooldown 5). At 7 no Bash.
	if len(got[0]) != 1 || got[0][0].Pattern != "every-bash" || got[0][0].Severity != Soft {
		t.Fatalf("event 1: %v", got[0])
	}
	for i := 1; i < 6; i++ {
		for _, f := range got[i] {
			if f.Pattern == "every-bash" {
				t.Errorf("event %d: every-bash alerted inside its cooldown", i+1)
			}
		}
	}
	if len(got[6]) != 1 || got[6][0].Pattern != "every-grep" {
		t.Errorf("event 7: %v", got[6])
	}
	if _, ok := s.Patterns["every-bash"]; !ok {
		t.Error("the engine keeps no state for the new pattern")
	}

	// Hard before soft whatever the registration order: every-grep
	// registered first is soft, every-bash (chronic by now) hard.
	s = State{}
	for range 6 {
		s.RecordWith(Event{Tool: "Bash"}, cfg, patterns)
	}
	both := []Pattern{everyEvent{"first-soft", "Bash"}}
	both = append(both, bash)
	s.Patterns["first-soft"] = PatternState{}
	out := s.RecordWith(Event{Tool: "Bash"}, cfg, both)
	if len(out) != 2 || out[0].Pattern != "every-bash" || out[0].Severity != Hard || out[1].Severity != Soft {
		t.Errorf("order: %+v", out)
	}

	// A disabled pattern is neither run nor remembered.
	cfg.Enabled["every-grep"] = false
	s = State{}
	s.RecordWith(Event{Tool: "Grep"}, cfg, patterns)
	if _, ok := s.Patterns["every-grep"]; ok {
		t.Error("a disabled pattern was run")
	}
}
