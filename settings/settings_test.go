package settings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/djinn-cc/djinn/state"
	"github.com/google/go-cmp/cmp"
)

func TestDefaultSettingsMatchSeeds(t *testing.T) {
	s := Default()
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"drift.threshold", s.Drift.Threshold, 0.7},
		{"drift.side_threshold", s.Drift.SideThreshold, 0.4},
		{"drift.delta_ratio", s.Drift.DeltaRatio, 0.5},
		{"drift.min_samples", s.Drift.MinSamples, 5},
		{"drift.reservoir_k", s.Drift.ReservoirK, 32},
		{"drift.bootstrap_resamples", s.Drift.BootstrapResamples, 1000},
		{"drift.hmm_window", s.Drift.HMMWindow, 64},
		{"drift.alpha", s.Drift.Alpha, 0.3},
		{"drift.min_sessions", s.Drift.MinSessions, 3},
		{"loops.window", s.Loops.Window, 20},
		{"loops.alpha", s.Loops.Alpha, 0.3},
		{"loops.cooldown", s.Loops.Cooldown, 5},
		{"loops.hard_ema", s.Loops.HardEMA, 0.5},
		{"loops.block", s.Loops.Block, false},
		{"stall.window", s.Stall.Window, 64},
		{"stall.k", s.Stall.K, 8},
		{"stall.min_entropy", s.Stall.MinEntropy, 1.5},
		{"stall.drop_threshold", s.Stall.DropThreshold, 0.3},
		{"stall.max_rollbacks", s.Stall.MaxRollbacks, 3},
		{"pressure.tiers", s.Pressure.Tiers, []float64{0.4, 0.55, 0.7}},
		{"compress.cap", s.Compress.Cap, 200000},
		{"compress.snapshot_threshold", s.Compress.SnapshotThreshold, 20000},
		{"compress.snapshot_desired", s.Compress.SnapshotDesired, 16000},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestConfigSchemaCoversSettings: every setting is in config.schema.json
// and the schema has no key that is not a setting.
func TestConfigSchemaCoversSettings(t *testing.T) {
	raw, _ := state.Schema(state.KindConfig)
	var schema struct {
		Properties map[string]struct {
			Properties map[string]any `json:"properties"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	var inSchema []string
	for k, v := range schema.Properties {
		if k == "schema_version" {
			continue
		}
		if v.Properties == nil {
			inSchema = append(inSchema, k)
			continue
		}
		for sub := range v.Properties {
			inSchema = append(inSchema, k+"."+sub)
		}
	}
	sort.Strings(inSchema)
	if got, want := strings.Join(inSchema, " "), strings.Join(Keys(), " "); got != want {
		t.Fatalf("schema keys:\n%s\nsetting keys:\n%s", got, want)
	}
	// The defaults themselves are a valid config.
	b, _ := json.Marshal(Default())
	if errs := ValidateBytes(state.KindConfig, b); len(errs) > 0 {
		t.Fatalf("defaults fail the check: %v", errs)
	}
	if err := Default().Validate(); err != nil {
		t.Fatalf("defaults out of bounds: %v", err)
	}
}

// TestSettingLimitsMatchSchema: settingLimits and exclusiveMin are
// config.schema.json's minimum, exclusiveMinimum and maximum of every
// numeric setting.
func TestSettingLimitsMatchSchema(t *testing.T) {
	raw, _ := state.Schema(state.KindConfig)
	type bounds struct {
		Type             string   `json:"type"`
		Minimum          *float64 `json:"minimum"`
		ExclusiveMinimum *float64 `json:"exclusiveMinimum"`
		Maximum          *float64 `json:"maximum"`
	}
	var schema struct {
		Properties map[string]struct {
			bounds
			Properties map[string]bounds `json:"properties"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]float64{}
	wantExcl := map[string]bool{}
	add := func(key string, b bounds) {
		if b.Type != "integer" && b.Type != "number" {
			return
		}
		var lim [2]float64
		switch {
		case b.Minimum != nil:
			lim[0] = *b.Minimum
		case b.ExclusiveMinimum != nil:
			lim[0] = *b.ExclusiveMinimum
			wantExcl[key] = true
		default:
			t.Errorf("%s: no minimum in the schema", key)
		}
		if b.Maximum == nil {
			t.Errorf("%s: no maximum in the schema", key)
		} else {
			lim[1] = *b.Maximum
		}
		want[key] = lim
	}
	for k, v := range schema.Properties {
		add(k, v.bounds)
		for sub, b := range v.Properties {
			add(k+"."+sub, b)
		}
	}
	if diff := cmp.Diff(want, settingLimits); diff != "" {
		t.Errorf("settingLimits differ from the schema (-schema +settingLimits):\n%s", diff)
	}
	if diff := cmp.Diff(wantExcl, exclusiveMin); diff != "" {
		t.Errorf("exclusiveMin differs from the schema (-schema +exclusiveMin):\n%s", diff)
	}
}

// configRoot returns a new state root whose config.json holds config, or
// one with no config.json when config is "".
func configRoot(t *testing.T, config string) string {
	t.Helper()
	root := t.TempDir()
	if config != "" {
		if err := os.WriteFile(filepath.Join(root, "config.json"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		name     string
		config   string
		environ  []string
		check    func(Settings) bool
		problems []string // substrings, one per expected problem
	}{
		{name: "defaults", check: func(s Settings) bool { return reflect.DeepEqual(s, Default()) }},
		{name: "file", config: `{"loops":{"block":true,"cooldown":9},"advisories":{"fail_loop":"advise"}}`,
			check: func(s Settings) bool { return s.Loops.Block && s.Loops.Cooldown == 9 && s.Loops.Window == 20 }},
		{name: "env wins over plugin option wins over file", config: `{"stall":{"max_rollbacks":1}}`,
			environ: []string{"CLAUDE_PLUGIN_OPTION_STALL_MAX_ROLLBACKS=2", "DJINN_STALL_MAX_ROLLBACKS=5"},
			check:   func(s Settings) bool { return s.Stall.MaxRollbacks == 5 }},
		{name: "plugin option", environ: []string{"CLAUDE_PLUGIN_OPTION_LOOPS_BLOCK=true", "CLAUDE_PLUGIN_OPTION_ADVISORIES_TOOL_LOOP=advise"},
			check: func(s Settings) bool { return s.Loops.Block && s.Advisories.ToolLoop == Advise }},
		{name: "block with no loop kind told", environ: []string{"CLAUDE_PLUGIN_OPTION_LOOPS_BLOCK=true", "CLAUDE_PLUGIN_OPTION_ADVISORIES_TOOL_LOOP_REPEAT=observe"},
			check:    func(s Settings) bool { return s.Loops.Block },
			problems: []string{"no loop is blocked"}},
		{name: "unknown key keeps the rest", config: `{"loops":{"blok":true,"cooldown":9}}`,
			check:    func(s Settings) bool { return s.Loops.Cooldown == 9 && !s.Loops.Block },
			problems: []string{"loops.blok"}},
		{name: "bad value keeps the default", config: `{"stall":{"max_rollbacks":"three"},"enabled":false}`,
			check:    func(s Settings) bool { return s.Stall.MaxRollbacks == 3 && !s.Enabled },
			problems: []string{"stall.max_rollbacks"}},
		{name: "null keeps the default, named by the setting's JSON type", config: `{"loops":{"cooldown":null},"pressure":{"tiers":null}}`,
			check:    func(s Settings) bool { return reflect.DeepEqual(s, Default()) },
			problems: []string{"loops.cooldown: expected integer, but got null", "pressure.tiers: expected array, but got null"}},
		{name: "invalid json", config: `{"loops":`,
			check:    func(s Settings) bool { return reflect.DeepEqual(s, Default()) },
			problems: []string{"invalid JSON"}},
		{name: "bad env", environ: []string{"DJINN_LOOPS_COOLDOWN=-3", "DJINN_NOPE=1", "DJINN_STATE_DIR=/x"},
			check:    func(s Settings) bool { return s.Loops.Cooldown == 5 },
			problems: []string{"DJINN_LOOPS_COOLDOWN", "DJINN_NOPE"}},
		{name: "tiers env", environ: []string{"DJINN_PRESSURE_TIERS=0.5,0.9"},
			check: func(s Settings) bool { return reflect.DeepEqual(s.Pressure.Tiers, []float64{0.5, 0.9}) }},
		{name: "all off", environ: []string{"DJINN_ENABLED=false"}, check: func(s Settings) bool { return !s.Enabled }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := configRoot(t, tc.config)
			s, problems := Load(root, nil, tc.environ)
			if !tc.check(s) {
				t.Errorf("settings not as expected: %+v", s)
			}
			if len(problems) != len(tc.problems) {
				t.Fatalf("problems = %q, want %d", problems, len(tc.problems))
			}
			for i, want := range tc.problems {
				if !strings.Contains(problems[i], want) {
					t.Errorf("problem %q does not name %q", problems[i], want)
				}
			}
			if tc.config != "" {
				// The user's config is never moved aside.
				if _, err := os.Stat(filepath.Join(root, "config.json")); err != nil {
					t.Errorf("config.json disappeared: %v", err)
				}
			}
		})
	}
}

// TestNotASettingDisjoint: applyEnv skips the names of notASetting before
// it looks settings up, so none may be a setting's variable.
func TestNotASettingDisjoint(t *testing.T) {
	s := Default()
	for _, f := range settingFields(&s) {
		if name := envName("DJINN_", f.key); notASetting[name] {
			t.Errorf("%s is both a setting (%s) and listed in notASetting", name, f.key)
		}
	}
}

// TestConfigBOM: a config.json saved with a UTF-8 byte order mark applies.
func TestConfigBOM(t *testing.T) {
	root := configRoot(t, "\xef\xbb\xbf{\"lock_wait_ms\": 1234}\n")
	s, problems := Load(root, nil, nil)
	if len(problems) > 0 || s.LockWaitMS != 1234 {
		t.Errorf("lock_wait_ms %d, problems %v", s.LockWaitMS, problems)
	}
}

// TestHostileValuesEverySource: a value outside config.schema.json's bounds
// is refused the same way from config.json, a plugin option and a DJINN_
// variable; the message names the key and the source, and the default
// stays in force.
func TestHostileValuesEverySource(t *testing.T) {
	for _, tc := range []struct {
		key  string
		json string // "" when JSON cannot spell the value (NaN, Inf)
		env  string
	}{
		{"drift.reservoir_k", "1000000000", "1000000000"},
		{"drift.bootstrap_resamples", "2000000000", "2000000000"},
		{"drift.threshold", "", "NaN"},
		{"drift.threshold", "", "+Inf"},
		{"drift.threshold", "1.5", "1.5"},
		{"drift.alpha", "0", "0"},
		{"drift.hmm_window", "1000000000", "1000000000"},
		{"loops.window", "0", "0"},
		{"loops.window", "1000000000", "1000000000"},
		{"loops.alpha", "", "NaN"},
		{"loops.hard_ema", "", "-Inf"},
		{"loops.max_cycle", "0", "0"},
		{"stall.window", "0", "0"},
		{"stall.min_entropy", "", "NaN"},
		{"stall.max_rollbacks", "1000000000", "1000000000"},
		{"lock_wait_ms", "1000000000", "1000000000"},
		{"lock_wait_ms", "-1", "-1"},
		{"pressure.rearm_drop", "", "NaN"},
		{"pressure.tiers", "[0.9,0.5]", "0.9,0.5"},
		{"pressure.tiers", "[0.5,0.5]", "0.5,0.5"},
		{"pressure.tiers", "[0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9]", "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9"},
		{"pressure.tiers", "[0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.85,0.9,0.95,1]", "0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.85,0.9,0.95,1"},
		{"pressure.tiers", "[0,0.5]", "0,0.5"},
		{"pressure.tiers", "[0.5,1.5]", "0.5,1.5"},
		{"pressure.tiers", "", "0.4,NaN"},
		{"compress.cap", "0", "0"},
		{"compress.head_share", "", "NaN"},
		{"advisories.drift", `"loud"`, "loud"},
		{"advisories.fail_loop", `"Advise"`, "Advise"},
		{"advisories.stall", `""`, "quiet"},
		{"advisories.compacted", `true`, "true"},
	} {
		sec, sub, nested := strings.Cut(tc.key, ".")
		envVar := strings.ToUpper(strings.ReplaceAll(tc.key, ".", "_"))
		sources := []struct {
			name, config string
			environ      []string
			says         string
		}{
			{name: "plugin option", environ: []string{"CLAUDE_PLUGIN_OPTION_" + envVar + "=" + tc.env}, says: "plugin option CLAUDE_PLUGIN_OPTION_" + envVar},
			{name: "environment", environ: []string{"DJINN_" + envVar + "=" + tc.env}, says: "environment DJINN_" + envVar},
		}
		if tc.json != "" {
			doc := `{"` + tc.key + `":` + tc.json + `}`
			if nested {
				doc = `{"` + sec + `":{"` + sub + `":` + tc.json + `}}`
			}
			sources = append(sources, struct {
				name, config string
				environ      []string
				says         string
			}{name: "config.json", config: doc, says: "config.json: key " + tc.key})
		}
		for _, src := range sources {
			t.Run(tc.key+"="+tc.env+"/"+src.name, func(t *testing.T) {
				s, problems := Load(configRoot(t, src.config), nil, src.environ)
				if diff := cmp.Diff(Default(), s); diff != "" {
					t.Errorf("a refused value changed the settings (-default +got):\n%s", diff)
				}
				if len(problems) != 1 {
					t.Fatalf("problems = %q, want one", problems)
				}
				for _, want := range []string{src.says, tc.key, "using the default"} {
					if !strings.Contains(problems[0], want) {
						t.Errorf("problem %q does not say %q", problems[0], want)
					}
				}
			})
		}
	}
}

// TestModes: each advisory kind's mode is set from every source, and the
// defaults follow the README's table: under 90 % measured precision (or
// unmeasured), observe; never useful on the labelled sessions, off.
func TestModes(t *testing.T) {
	want := map[string]Mode{
		"drift": Off, "read-loop": Observe, "edit-revert": Observe, "fail-loop": Observe,
		"tool-loop": Observe, "stall": Advise, "pressure": Observe, "reanchor": Observe, "compacted": Advise,
		"repeat-complaint": Observe,
		"no-such-kind":     Advise,
	}
	d := Default().Advisories
	for kind, m := range want {
		if got := d.Mode(kind); got != m {
			t.Errorf("default mode of %s = %s, want %s", kind, got, m)
		}
	}
	root := configRoot(t, `{"advisories":{"drift":"advise","pressure":"off","edit_revert":"advise"}}`)
	s, problems := Load(root, nil, []string{"CLAUDE_PLUGIN_OPTION_ADVISORIES_FAIL_LOOP=advise", "DJINN_ADVISORIES_EDIT_REVERT= off "})
	if len(problems) > 0 {
		t.Fatalf("problems: %q", problems)
	}
	for kind, m := range map[string]Mode{"drift": Advise, "pressure": Off, "fail-loop": Advise, "edit-revert": Off, "tool-loop": Observe} {
		if got := s.Advisories.Mode(kind); got != m {
			t.Errorf("mode of %s = %s, want %s", kind, got, m)
		}
	}
	// A kind spelt with its tag's "-" is not a key.
	_, problems = Load(t.TempDir(), nil, []string{"DJINN_ADVISORIES_READ-LOOP=advise"})
	if len(problems) != 1 || !strings.Contains(problems[0], "unknown setting") {
		t.Errorf("problems = %q, want one unknown setting", problems)
	}
	bad := Default()
	bad.Advisories.Reanchor = "shout"
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "advisories/reanchor") {
		t.Errorf("Validate() = %v, want advisories/reanchor refused", err)
	}
}

// TestRefusedKeepsLowerSource: a refused value keeps the value of the
// source below it, and the message says so.
func TestRefusedKeepsLowerSource(t *testing.T) {
	root := configRoot(t, `{"drift":{"threshold":0.6}}`)
	s, problems := Load(root, nil, []string{"CLAUDE_PLUGIN_OPTION_DRIFT_THRESHOLD=0.5", "DJINN_DRIFT_THRESHOLD=NaN"})
	if s.Drift.Threshold != 0.5 {
		t.Errorf("drift.threshold = %v, want the plugin option's 0.5", s.Drift.Threshold)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "keeping the value from CLAUDE_PLUGIN_OPTION_DRIFT_THRESHOLD") {
		t.Errorf("problems = %q, want one keeping the plugin option's value", problems)
	}
	s, problems = Load(root, nil, []string{"DJINN_DRIFT_THRESHOLD=2"})
	if s.Drift.Threshold != 0.6 {
		t.Errorf("drift.threshold = %v, want config.json's 0.6", s.Drift.Threshold)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "keeping the value from "+filepath.Join(root, "config.json")) {
		t.Errorf("problems = %q, want one keeping config.json's value", problems)
	}
}

// TestAdvisoryMode: a kind's mode is its own field's (the key with "-"
// for "_"); a kind that is no field, or spelled with "_", is advised.
func TestAdvisoryMode(t *testing.T) {
	fields := reflect.VisibleFields(reflect.TypeOf(Advisories{}))
	for i, f := range fields {
		var a Advisories
		a.SetAll(Observe)
		reflect.ValueOf(&a).Elem().Field(i).Set(reflect.ValueOf(Off))
		for j, g := range fields {
			want := Observe
			if j == i {
				want = Off
			}
			if kind := strings.ReplaceAll(g.Tag.Get("json"), "_", "-"); a.Mode(kind) != want {
				t.Errorf("with %s off, Mode(%q) = %q, want %q", f.Name, kind, a.Mode(kind), want)
			}
		}
	}
	var a Advisories
	a.SetAll(Off)
	for _, kind := range []string{"read_loop", "unknown", ""} {
		if m := a.Mode(kind); m != Advise {
			t.Errorf("Mode(%q) = %q, want advise", kind, m)
		}
	}
}

// TestBlockUnused: loops.block with every loop kind observed (the
// defaults) blocks nothing, and says so; with one kind, or the same-call
// tool-loop family, told to the agent it is quiet, unless the kind is off.
func TestBlockUnused(t *testing.T) {
	const repeats = "DJINN_ADVISORIES_TOOL_LOOP_REPEAT=advise"
	for _, tc := range []struct {
		env  []string
		want bool
	}{
		{[]string{"DJINN_LOOPS_BLOCK=true"}, true},
		{[]string{"DJINN_LOOPS_BLOCK=true", repeats}, false},
		{[]string{"DJINN_LOOPS_BLOCK=true", repeats, "DJINN_ADVISORIES_TOOL_LOOP=off"}, true},
		{[]string{"DJINN_LOOPS_BLOCK=true", "DJINN_ADVISORIES_FAIL_LOOP=advise"}, false},
		{[]string{"DJINN_LOOPS_BLOCK=true", "DJINN_ADVISORIES_TOOL_LOOP=advise"}, false},
		{[]string{"DJINN_ADVISORIES_FAIL_LOOP=observe"}, false},
	} {
		_, problems := Load(t.TempDir(), nil, tc.env)
		got := slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, "no loop is blocked") })
		if got != tc.want || len(problems) > 1 {
			t.Errorf("%q: problems %q, want the block note %v", tc.env, problems, tc.want)
		}
	}
}
