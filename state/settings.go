package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Settings are every threshold Djinn uses, with the seeds' defaults. They
// come from config.json in the state root, then the plugin's userConfig
// options (CLAUDE_PLUGIN_OPTION_<SECTION>_<KEY>), then DJINN_<SECTION>_<KEY>
// environment variables; later sources win. A key is its JSON path with dots
// turned into underscores, upper-cased: loops.block is DJINN_LOOPS_BLOCK.
type Settings struct {
	// Enabled turns all of Djinn on or off.
	Enabled bool `json:"enabled"`
	// LockWaitMS is how long a hook waits for the session lock before it
	// gives up (quietly, with a stderr line).
	LockWaitMS int `json:"lock_wait_ms"`
	// RetentionDays: a session untouched for longer is pruned when a new
	// session starts (a bounded number per start; `djinn state prune` does
	// it by hand). 0 keeps every session.
	RetentionDays int              `json:"retention_days"`
	Drift         DriftSettings    `json:"drift"`
	Loops         LoopSettings     `json:"loops"`
	Stall         StallSettings    `json:"stall"`
	Pressure      PressureSettings `json:"pressure"`
	Compress      CompressSettings `json:"compress"`
}

// DriftSettings configure goal anchoring and drift (seed 003).
type DriftSettings struct {
	Enabled bool `json:"enabled"`
	// Threshold is the on-task cutoff used until the developer's posterior
	// has MinSessions sessions for the intent type (seed: 0.7).
	Threshold float64 `json:"threshold"`
	// SideThreshold separates a side quest from being lost (seed: 0.4).
	SideThreshold float64 `json:"side_threshold"`
	// DeltaRatio: a later prompt whose ratio to the anchor is below it is a
	// constraint delta (seed: 0.5).
	DeltaRatio float64 `json:"delta_ratio"`
	// MinSamples gates every verdict on the reservoir size (seed: 5).
	MinSamples int `json:"min_samples"`
	// MinAnchorTokens: shorter anchors give insufficient data (seed: 5).
	MinAnchorTokens    int `json:"min_anchor_tokens"`
	ReservoirK         int `json:"reservoir_k"`
	BootstrapResamples int `json:"bootstrap_resamples"`
	HMMWindow          int `json:"hmm_window"`
	// SignalWindow is how many recent tool calls the drift score covers.
	SignalWindow int `json:"signal_window"`
	// LearnCalls is how many early tool calls teach the anchor its on-task
	// vocabulary.
	LearnCalls int `json:"learn_calls"`
	// Cooldown is the number of tool calls between two drift advisories.
	Cooldown int `json:"cooldown"`
	// RefocusStreak: a refocus moment is advised only after this many
	// consecutive refocus verdicts (design: 3).
	RefocusStreak int `json:"refocus_streak"`
	// MinSessions before the posterior's p10 replaces Threshold (seed: 3).
	MinSessions int `json:"min_sessions"`
	// Alpha is the D5 EMA weight (seed: 0.3).
	Alpha float64 `json:"alpha"`
	// MaxDeltas: a session with more constraint deltas is pivot-heavy and
	// left out of learning (seed: "many refresh deltas"; design: 3).
	MaxDeltas int `json:"max_deltas"`
}

// LoopSettings configure the Markov pattern detector (seed 002).
type LoopSettings struct {
	Enabled  bool    `json:"enabled"`
	Window   int     `json:"window"`
	Alpha    float64 `json:"alpha"`
	Cooldown int     `json:"cooldown"`
	HardEMA  float64 `json:"hard_ema"`
	// ReadThreshold, FailThreshold, ToolRepeats: occurrences that make a
	// loop (seed: 3 each).
	ReadThreshold int `json:"read_threshold"`
	FailThreshold int `json:"fail_threshold"`
	ToolRepeats   int `json:"tool_repeats"`
	MaxCycle      int `json:"max_cycle"`
	// Block turns a hard loop into a PostToolUse decision "block" (off by
	// default: advisories only).
	Block      bool `json:"block"`
	ReadLoop   bool `json:"read_loop"`
	EditRevert bool `json:"edit_revert"`
	FailLoop   bool `json:"fail_loop"`
	ToolLoop   bool `json:"tool_loop"`
	// HashMaxBytes bounds how much of a file is read to hash it.
	HashMaxBytes int `json:"hash_max_bytes"`
}

// StallSettings configure the text stall detector and rollback (seed 000).
type StallSettings struct {
	Enabled       bool    `json:"enabled"`
	Window        int     `json:"window"`
	K             int     `json:"k"`
	MinEntropy    float64 `json:"min_entropy"`
	DropThreshold float64 `json:"drop_threshold"`
	WarmUp        int     `json:"warm_up"`
	// ConfirmMaxPeriod and ConfirmMinRunes confirm an entropy trigger: the
	// run must repeat a unit of at most that many runes over at least that
	// many runes (the seed's rules alone fire on ordinary prose).
	ConfirmMaxPeriod int `json:"confirm_max_period"`
	ConfirmMinRunes  int `json:"confirm_min_runes"`
	// MaxPeriod, MinRepeats and MinRunes define the repetition rule that
	// catches sentence-level chanting, which character entropy cannot see.
	MaxPeriod  int `json:"max_period"`
	MinRepeats int `json:"min_repeats"`
	MinRunes   int `json:"min_runes"`
	// MaxBytes bounds the text examined (its end).
	MaxBytes int `json:"max_bytes"`
	// Rollback blocks the Stop that ends a stalled message so the model
	// continues from before the loop; false makes it advice only.
	Rollback     bool `json:"rollback"`
	MaxRollbacks int  `json:"max_rollbacks"`
	// DivergencePrompt replaces the default wording of the rollback request;
	// {start} and {quote} are filled in.
	DivergencePrompt string `json:"divergence_prompt"`
}

// PressureSettings configure the context-pressure tiers (seed 004).
type PressureSettings struct {
	Enabled bool      `json:"enabled"`
	Tiers   []float64 `json:"tiers"`
	// RearmDrop re-arms a tier once the context falls this far below it.
	RearmDrop float64 `json:"rearm_drop"`
	// Limit is the context window in tokens; 0 means automatic: 200,000,
	// switched to LargeLimit once the observed context exceeds 200,000.
	Limit      int `json:"limit"`
	LargeLimit int `json:"large_limit"`
}

// CompressSettings configure the tool-result compressor (seed 004).
type CompressSettings struct {
	Enabled bool `json:"enabled"`
	// BuiltinTools applies the compressor to built-in tools' output too, not
	// only MCP tools'.
	BuiltinTools      bool    `json:"builtin_tools"`
	Cap               int     `json:"cap"`
	SnapshotThreshold int     `json:"snapshot_threshold"`
	SnapshotDesired   int     `json:"snapshot_desired"`
	HeadShare         float64 `json:"head_share"`
	HeadMin           int     `json:"head_min"`
	HeadMax           int     `json:"head_max"`
	TailMax           int     `json:"tail_max"`
}

// DefaultSettings returns the seeds' defaults.
func DefaultSettings() Settings {
	return Settings{
		Enabled:       true,
		LockWaitMS:    5000,
		RetentionDays: 30,
		Drift: DriftSettings{
			Enabled: true, Threshold: 0.7, SideThreshold: 0.4, DeltaRatio: 0.5,
			MinSamples: 5, MinAnchorTokens: 5, ReservoirK: 32, BootstrapResamples: 1000,
			HMMWindow: 64, SignalWindow: 10, LearnCalls: 12, Cooldown: 15,
			RefocusStreak: 3, MinSessions: 3, Alpha: 0.3, MaxDeltas: 3,
		},
		Loops: LoopSettings{
			Enabled: true, Window: 20, Alpha: 0.3, Cooldown: 5, HardEMA: 0.5,
			ReadThreshold: 3, FailThreshold: 3, ToolRepeats: 3, MaxCycle: 5,
			ReadLoop: true, EditRevert: true, FailLoop: true, ToolLoop: true,
			HashMaxBytes: 8 << 20,
		},
		Stall: StallSettings{
			Enabled: true, Window: 64, K: 8, MinEntropy: 1.5, DropThreshold: 0.3, WarmUp: 16,
			ConfirmMaxPeriod: 8, ConfirmMinRunes: 48, MaxPeriod: 512, MinRepeats: 4, MinRunes: 192, MaxBytes: 64 << 10,
			Rollback: true, MaxRollbacks: 3,
		},
		Pressure: PressureSettings{
			Enabled: true, Tiers: []float64{0.4, 0.55, 0.7}, RearmDrop: 0.05,
			Limit: 0, LargeLimit: 1_000_000,
		},
		Compress: CompressSettings{
			Enabled: true, BuiltinTools: false, Cap: 200_000, SnapshotThreshold: 20_000,
			SnapshotDesired: 16_000, HeadShare: 0.7, HeadMin: 500, HeadMax: 10_000, TailMax: 3_000,
		},
	}
}

// LoadSettings builds the effective settings. Problems (an unreadable or
// invalid config.json, an unknown key, a bad value) never stop Djinn: each
// is returned as a message naming the key, and the defaults stay in force
// for that key.
func LoadSettings(root string, getenv func(string) string, environ []string) (Settings, []string) {
	s := DefaultSettings()
	var problems []string
	if root != "" {
		problems = append(problems, applyConfigFile(&s, filepath.Join(root, "config.json"))...)
	}
	problems = append(problems, applyEnv(&s, "CLAUDE_PLUGIN_OPTION_", environ)...)
	problems = append(problems, applyEnv(&s, "DJINN_", environ)...)
	return s, problems
}

// applyConfigFile merges config.json. The user's file is never moved aside:
// invalid keys are reported and skipped, valid ones applied.
func applyConfigFile(s *Settings, path string) []string {
	raw, err := readBounded(path, 1<<20)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		// No config (the root may not exist yet, or be unusable: the hook
		// reports that once, itself).
		return nil
	}
	if err != nil {
		return []string{fmt.Sprintf("config %s: %v; using defaults", path, err)}
	}
	// Some editors save a UTF-8 byte order mark; JSON has none, but the
	// file means the same without it.
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	var problems []string
	for _, e := range applyConfig(s, raw) {
		if e.Pointer == "" {
			problems = append(problems, fmt.Sprintf("config %s: %s; using defaults", path, e.Message))
			continue
		}
		problems = append(problems, fmt.Sprintf("config %s: key %s: %s; using the default", path, keyOf(e.Pointer), e.Message))
	}
	return problems
}

// applyConfig merges a config.json document into s key by key, each
// decoded strictly into its setting's Go type and held to
// config.schema.json's bounds (settingLimits). It returns the keys it
// refused, which keep their value in s.
func applyConfig(s *Settings, raw []byte) []FieldError {
	var top map[string]json.RawMessage
	if err := decodeStrict(raw, &top); err != nil {
		e := fieldErrors(err)[0]
		if !strings.HasPrefix(e.Message, "invalid JSON") {
			e = FieldError{"", "not a JSON object"}
		}
		return []FieldError{e}
	}
	if top == nil {
		return []FieldError{{"", "not a JSON object"}}
	}
	fields := map[string]settingField{}
	sections := map[string]bool{}
	for _, f := range settingFields(s) {
		fields[f.key] = f
		if sec, _, ok := strings.Cut(f.key, "."); ok {
			sections[sec] = true
		}
	}
	var errs []FieldError
	for _, name := range sortedKeys(top) {
		switch {
		case name == "schema_version":
			var n int
			if json.Unmarshal(top[name], &n) != nil || n != SchemaVersion {
				errs = append(errs, FieldError{"/" + name, fmt.Sprintf("value must be %d", SchemaVersion)})
			}
		case sections[name]:
			var sub map[string]json.RawMessage
			if err := json.Unmarshal(top[name], &sub); err != nil || sub == nil {
				errs = append(errs, FieldError{"/" + name, "expected object"})
				continue
			}
			for _, key := range sortedKeys(sub) {
				ptr := "/" + name + "/" + escapePointer(key)
				if f, ok := fields[name+"."+key]; !ok {
					errs = append(errs, FieldError{ptr, "unknown property"})
				} else if err := setJSON(f, sub[key]); err != nil {
					errs = append(errs, FieldError{ptr, err.Error()})
				}
			}
		default:
			ptr := "/" + escapePointer(name)
			if f, ok := fields[name]; !ok {
				errs = append(errs, FieldError{ptr, "unknown property"})
			} else if err := setJSON(f, top[name]); err != nil {
				errs = append(errs, FieldError{ptr, err.Error()})
			}
		}
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// setJSON sets a setting from its JSON value, if the value is of the
// setting's type and within its bounds.
func setJSON(f settingField, raw json.RawMessage) error {
	if string(raw) == "null" {
		return fmt.Errorf("expected %s, but got null", jsonKind(f.v.Type()))
	}
	p := reflect.New(f.v.Type())
	if err := json.Unmarshal(raw, p.Interface()); err != nil {
		return errors.New(decodeProblem(err).Message)
	}
	if err := checkSetting(f.key, p.Elem()); err != nil {
		return err
	}
	f.v.Set(p.Elem())
	return nil
}

// settingLimits are config.schema.json's bounds of the numeric settings,
// minimum and maximum; exclusiveMin lists those whose minimum is excluded.
var (
	settingLimits = map[string][2]float64{
		"lock_wait_ms":                {0, 600000},
		"retention_days":              {0, 36500},
		"drift.threshold":             {0, 1},
		"drift.side_threshold":        {0, 1},
		"drift.delta_ratio":           {0, 1},
		"drift.min_samples":           {1, 1024},
		"drift.min_anchor_tokens":     {1, 1000},
		"drift.reservoir_k":           {1, 1024},
		"drift.bootstrap_resamples":   {10, 100000},
		"drift.hmm_window":            {5, 1024},
		"drift.signal_window":         {1, 256},
		"drift.learn_calls":           {0, 1000},
		"drift.cooldown":              {0, 100000},
		"drift.refocus_streak":        {1, 1000},
		"drift.min_sessions":          {1, 1000},
		"drift.alpha":                 {0, 1},
		"drift.max_deltas":            {0, 1000},
		"loops.window":                {3, 1000},
		"loops.alpha":                 {0, 1},
		"loops.cooldown":              {0, 100000},
		"loops.hard_ema":              {0, 1},
		"loops.read_threshold":        {2, 1000},
		"loops.fail_threshold":        {2, 1000},
		"loops.tool_repeats":          {2, 1000},
		"loops.max_cycle":             {1, 20},
		"loops.hash_max_bytes":        {0, 17179869184},
		"stall.window":                {8, 4096},
		"stall.k":                     {1, 4096},
		"stall.min_entropy":           {0, 16},
		"stall.drop_threshold":        {0, 16},
		"stall.warm_up":               {1, 4096},
		"stall.confirm_max_period":    {1, 64},
		"stall.confirm_min_runes":     {2, 4096},
		"stall.max_period":            {1, 16384},
		"stall.min_repeats":           {2, 1000},
		"stall.min_runes":             {1, 100000},
		"stall.max_bytes":             {0, 67108864},
		"stall.max_rollbacks":         {0, 8},
		"pressure.rearm_drop":         {0, 1},
		"pressure.limit":              {0, 100000000},
		"pressure.large_limit":        {1, 100000000},
		"compress.cap":                {1000, 100000000},
		"compress.snapshot_threshold": {1000, 100000000},
		"compress.snapshot_desired":   {1000, 100000000},
		"compress.head_share":         {0, 1},
		"compress.head_min":           {0, 100000000},
		"compress.head_max":           {0, 100000000},
		"compress.tail_max":           {0, 100000000},
	}
	exclusiveMin = map[string]bool{"drift.alpha": true, "loops.alpha": true}
)

// checkSetting holds one setting's value to config.schema.json.
func checkSetting(key string, v reflect.Value) error {
	var x float64
	switch v.Kind() {
	case reflect.Int:
		x = float64(v.Int())
	case reflect.Float64:
		x = v.Float()
	case reflect.String:
		// stall.divergence_prompt, the one string setting.
		if utf8.RuneCountInString(v.String()) > 2000 {
			return errors.New("length must be <= 2000")
		}
		return nil
	case reflect.Slice:
		// pressure.tiers, the one list.
		tiers := v.Interface().([]float64)
		if len(tiers) < 1 || len(tiers) > 8 {
			return errors.New("must have 1 to 8 items")
		}
		for _, t := range tiers {
			if t <= 0 || t > 1 {
				return errors.New("tiers must be in (0, 1]")
			}
		}
		return nil
	default:
		return nil
	}
	lim, ok := settingLimits[key]
	if !ok {
		return fmt.Errorf("no bounds for %s", key)
	}
	switch {
	case exclusiveMin[key] && x <= lim[0]:
		return fmt.Errorf("must be > %v", lim[0])
	case x < lim[0]:
		return fmt.Errorf("must be >= %v", lim[0])
	case x > lim[1]:
		return fmt.Errorf("must be <= %v", lim[1])
	}
	return nil
}

// Validate holds every setting to config.schema.json's bounds.
func (s Settings) Validate() error {
	var errs Invalid
	for _, f := range settingFields(&s) {
		if err := checkSetting(f.key, f.v); err != nil {
			errs = append(errs, FieldError{"/" + strings.ReplaceAll(f.key, ".", "/"), err.Error()})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// keyOf turns a JSON pointer into the dotted key users write.
func keyOf(ptr string) string {
	k := strings.ReplaceAll(strings.TrimPrefix(ptr, "/"), "/", ".")
	if k == "" {
		return "(document)"
	}
	return k
}

// settingField is one leaf setting reachable by environment variable.
type settingField struct {
	key string // dotted JSON key, e.g. loops.block
	v   reflect.Value
}

func settingFields(s *Settings) []settingField {
	var out []settingField
	var walk func(v reflect.Value, prefix string)
	walk = func(v reflect.Value, prefix string) {
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			name := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
			if name == "" || name == "-" {
				continue
			}
			f := v.Field(i)
			if f.Kind() == reflect.Struct {
				walk(f, prefix+name+".")
				continue
			}
			out = append(out, settingField{prefix + name, f})
		}
	}
	walk(reflect.ValueOf(s).Elem(), "")
	return out
}

// SettingKeys lists every setting's dotted key, for documentation and tests.
func SettingKeys() []string {
	s := DefaultSettings()
	var keys []string
	for _, f := range settingFields(&s) {
		keys = append(keys, f.key)
	}
	sort.Strings(keys)
	return keys
}

func envName(prefix, key string) string {
	return prefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// applyEnv applies PREFIX_<KEY> variables. Variables with the prefix that
// name no setting are reported, except the few that are not settings.
func applyEnv(s *Settings, prefix string, environ []string) []string {
	// Most hooks have no such variable (the launcher's own DJINN_ ones
	// aside): the table of settings, built by reflection, is made only
	// when there is one to look up.
	var fields map[string]settingField
	var problems []string
	for _, kv := range environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, prefix) || strings.TrimSpace(val) == "" {
			// An empty variable is unset, as in most shells' idiom.
			continue
		}
		if prefix == "DJINN_" && notASetting[name] {
			continue
		}
		if fields == nil {
			fields = map[string]settingField{}
			for _, f := range settingFields(s) {
				fields[envName(prefix, f.key)] = f
			}
		}
		f, known := fields[strings.ToUpper(name)]
		if !known {
			problems = append(problems, fmt.Sprintf("environment %s: unknown setting; ignored", name))
			continue
		}
		if err := setFromString(f.v, val); err != nil {
			problems = append(problems, fmt.Sprintf("environment %s=%q: %v; using the default for %s", name, val, err, f.key))
		}
	}
	return problems
}

// notASetting lists DJINN_ variables that configure something else.
var notASetting = map[string]bool{
	"DJINN_STATE_DIR": true, "DJINN_SESSION": true, "DJINN_CLAUDE_BIN": true,
	"DJINN_CACHE_DIR": true, "DJINN_BIN_DIR": true, "DJINN_NOW": true, "DJINN_GO": true,
	"DJINN_DEVELOPER": true, "DJINN_LAUNCHER_ROOT": true, "DJINN_LAUNCHER_BIN": true, "DJINN_LAUNCHER_INPUTS": true, "DJINN_REBUILD": true,
	"DJINN_UPDATE_SCRIPTS": true,
}

func setFromString(v reflect.Value, s string) error {
	s = strings.TrimSpace(s)
	switch v.Kind() {
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("not a boolean")
		}
		v.SetBool(b)
	case reflect.Int:
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return fmt.Errorf("not a non-negative integer")
		}
		v.SetInt(int64(n))
	case reflect.Float64:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 {
			return fmt.Errorf("not a non-negative number")
		}
		v.SetFloat(f)
	case reflect.String:
		v.SetString(s)
	case reflect.Slice:
		var out []float64
		for _, p := range strings.Split(s, ",") {
			f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || f <= 0 || f >= 1 {
				return fmt.Errorf("not a comma-separated list of fractions")
			}
			out = append(out, f)
		}
		if !sort.Float64sAreSorted(out) {
			return fmt.Errorf("tiers must be increasing")
		}
		v.Set(reflect.ValueOf(out))
	default:
		return fmt.Errorf("unsupported setting type %s", v.Kind())
	}
	return nil
}
