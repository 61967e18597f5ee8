package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/state"
)

// Load builds the effective settings. Problems (an unreadable or
// invalid config.json, an unknown key, a bad value) never stop Djinn: each
// is returned as a message naming the key and the source, and the value
// already in force for that key (the default, or a lower-precedence
// source's) stays. Every source's values go through the same check
// (checkSetting: config.schema.json's bounds).
func Load(root string, getenv func(string) string, environ []string) (Settings, []string) {
	s, _, problems := load(root, environ)
	return s, problems
}

// Source is where the value in force of a setting came from: Kind is
// SourceDefault, SourceConfig, SourcePluginOption or SourceEnv; Name is the
// config file's path or the variable's name (empty for the default).
type Source struct {
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
}

// The kinds of Source, lowest precedence first.
const (
	SourceDefault      = "default"
	SourceConfig       = "config.json"
	SourcePluginOption = "plugin option"
	SourceEnv          = "environment"
)

// String is the source as the messages name it: the file or the variable.
func (src Source) String() string {
	if src.Name == "" {
		return src.Kind
	}
	return src.Name
}

// LoadSources is Load that also says, for every key Keys lists, which
// source set the value in force (the same pass: a refused value leaves the
// key's source as it was).
func LoadSources(root string, getenv func(string) string, environ []string) (Settings, map[string]Source, []string) {
	s, from, problems := load(root, environ)
	for _, k := range Keys() {
		if _, ok := from[k]; !ok {
			from[k] = Source{Kind: SourceDefault}
		}
	}
	return s, from, problems
}

// load is Load with the sources of the keys a config file or a variable
// set; the others, at their defaults, are not listed (every hook loads the
// settings, and listing them walks the settings by reflection).
func load(root string, environ []string) (Settings, map[string]Source, []string) {
	s := Default()
	from := map[string]Source{}
	var problems []string
	if root != "" {
		problems = append(problems, applyConfigFile(&s, filepath.Join(root, "config.json"), from)...)
	}
	problems = append(problems, applyEnv(&s, "CLAUDE_PLUGIN_OPTION_", environ, from)...)
	problems = append(problems, applyEnv(&s, "DJINN_", environ, from)...)
	if p := blockUnused(s); p != "" {
		problems = append(problems, p)
	}
	return s, from, problems
}

// blockUnused words loops.block switched on while no loop kind is told to
// the agent: blocking applies only to kinds in advise (or the same-call
// family of tool-loop, advisories.tool_loop_repeat), and none ships so,
// so it would do nothing, silently. The setting is kept.
func blockUnused(s Settings) string {
	a := s.Advisories
	repeats := a.ToolLoopRepeat == Advise && a.ToolLoop != Off
	if !s.Loops.Block || repeats || a.FailLoop == Advise || a.ToolLoop == Advise || a.ReadLoop == Advise || a.EditRevert == Advise {
		return ""
	}
	return "loops.block is on, but no loop kind is told to the agent (advisories.fail_loop, tool_loop, tool_loop_repeat, read_loop and edit_revert are not advise), so no loop is blocked; set the kinds to block to advise"
}

// kept says which value stays in force for a key whose new value was
// refused: from maps a key to the source that set it.
func kept(from map[string]Source, key string) string {
	if src, ok := from[key]; ok {
		return "keeping the value from " + src.String()
	}
	return "using the default"
}

// applyConfigFile merges config.json. The user's file is never moved aside:
// invalid keys are reported and skipped, valid ones applied.
func applyConfigFile(s *Settings, path string, from map[string]Source) []string {
	raw, err := state.ReadBounded(path, 1<<20)
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
	errs := applyConfig(s, raw, func(key string) { from[key] = Source{Kind: SourceConfig, Name: path} })
	for _, e := range errs {
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
// refused, which keep their value in s, and calls applied (if not nil) with
// the key of each value it set.
func applyConfig(s *Settings, raw []byte, applied func(key string)) []FieldError {
	var top map[string]json.RawMessage
	if err := state.DecodeStrict(raw, &top); err != nil {
		var inv state.Invalid
		e := FieldError{Message: "not a JSON object"}
		if errors.As(err, &inv) && len(inv) > 0 && strings.HasPrefix(inv[0].Message, "invalid JSON") {
			e = inv[0]
			if line, col, msg, ok := syntaxPosition(raw); ok {
				e.Message = fmt.Sprintf("invalid JSON at line %d, column %d: %s", line, col, msg)
			}
		}
		return []FieldError{e}
	}
	if top == nil {
		return []FieldError{{Message: "not a JSON object"}}
	}
	fields := map[string]settingField{}
	sections := map[string]bool{}
	var known []string
	for _, f := range settingFields(s) {
		fields[f.key] = f
		known = append(known, f.key)
		if sec, _, ok := strings.Cut(f.key, "."); ok {
			sections[sec] = true
		}
	}
	topNames := []string{"schema_version"}
	for _, k := range known {
		if !strings.Contains(k, ".") {
			topNames = append(topNames, k)
		}
	}
	for sec := range sections {
		topNames = append(topNames, sec)
	}
	sort.Strings(topNames)
	var errs []FieldError
	for _, name := range slices.Sorted(maps.Keys(top)) {
		switch {
		case name == "schema_version":
			var n int
			if json.Unmarshal(top[name], &n) != nil || n != state.SchemaVersion {
				errs = append(errs, FieldError{Pointer: "/" + name, Message: fmt.Sprintf("value must be %d", state.SchemaVersion)})
			}
		case sections[name]:
			var sub map[string]json.RawMessage
			if err := json.Unmarshal(top[name], &sub); err != nil || sub == nil {
				errs = append(errs, FieldError{Pointer: "/" + name, Message: "expected object"})
				continue
			}
			for _, key := range slices.Sorted(maps.Keys(sub)) {
				ptr := "/" + name + "/" + escapePointer(key)
				if f, ok := fields[name+"."+key]; !ok {
					errs = append(errs, FieldError{Pointer: ptr, Message: unknownMessage("unknown property", name+"."+key, known)})
				} else if err := setJSON(f, sub[key]); err != nil {
					errs = append(errs, FieldError{Pointer: ptr, Message: err.Error()})
				} else if applied != nil {
					applied(f.key)
				}
			}
		default:
			ptr := "/" + escapePointer(name)
			if f, ok := fields[name]; !ok {
				msg := unknownMessage("unknown property", name, topNames)
				if nested := sectionKey(name, known); nested != "" && msg == "unknown property" {
					msg = fmt.Sprintf("unknown property (did you mean %s?)", nested)
				}
				errs = append(errs, FieldError{Pointer: ptr, Message: msg})
			} else if err := setJSON(f, top[name]); err != nil {
				errs = append(errs, FieldError{Pointer: ptr, Message: err.Error()})
			} else if applied != nil {
				applied(f.key)
			}
		}
	}
	return errs
}

// setJSON sets a setting from its JSON value, if the value is of the
// setting's type and within its bounds.
func setJSON(f settingField, raw json.RawMessage) error {
	if string(raw) == "null" {
		return fmt.Errorf("expected %s, but got null", state.JSONKind(f.v.Type()))
	}
	p := reflect.New(f.v.Type())
	if err := state.DecodeStrict(raw, p.Interface()); err != nil {
		var inv state.Invalid
		if errors.As(err, &inv) && len(inv) > 0 {
			return errors.New(inv[0].Message)
		}
		return err
	}
	return assign(f, p.Elem())
}

// assign sets a setting to a decoded value if the value is within
// config.schema.json's bounds: the one check of every source.
func assign(f settingField, v reflect.Value) error {
	if err := checkSetting(f.key, v); err != nil {
		return err
	}
	f.v.Set(v)
	return nil
}

// maxTiers is config.schema.json's maxItems of pressure.tiers (and of the
// window's pressure.announced).
const maxTiers = 8

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
		"drift.prompt_grace":          {0, 1000},
		"drift.failure_grace":         {0, 1000},
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
		"pressure.min_output_share":   {0, 1},
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
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errors.New("must be a finite number")
		}
	case reflect.String:
		if m, ok := v.Interface().(Mode); ok {
			if !m.Valid() {
				return fmt.Errorf("must be one of %q, %q, %q", Advise, Observe, Off)
			}
			return nil
		}
		if n, ok := v.Interface().(Notify); ok {
			if !n.Valid() {
				return fmt.Errorf("must be one of %q, %q, %q", NotifyAll, NotifyWarnings, NotifyOff)
			}
			return nil
		}
		// stall.divergence_prompt, the one free-text setting.
		if utf8.RuneCountInString(v.String()) > 2000 {
			return errors.New("length must be <= 2000")
		}
		return nil
	case reflect.Slice:
		// pressure.tiers, the one list: the schema's 1 to maxTiers items in
		// (0, 1], and increasing (the schema's description; JSON Schema
		// cannot say it), since a tier is announced when the context
		// crosses it going up.
		tiers := v.Interface().([]float64)
		if len(tiers) < 1 || len(tiers) > maxTiers {
			return fmt.Errorf("must have 1 to %d items", maxTiers)
		}
		for i, t := range tiers {
			if !(t > 0 && t <= 1) {
				return errors.New("tiers must be in (0, 1]")
			}
			if i > 0 && t <= tiers[i-1] {
				return errors.New("tiers must be increasing")
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
	var errs state.Invalid
	for _, f := range settingFields(&s) {
		if err := checkSetting(f.key, f.v); err != nil {
			errs = append(errs, FieldError{Pointer: "/" + strings.ReplaceAll(f.key, ".", "/"), Message: err.Error()})
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
	var walk func(v reflect.Value, prefix string, engine bool)
	walk = func(v reflect.Value, prefix string, engine bool) {
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			f := v.Field(i)
			if sf.Anonymous {
				// An engine's Config: its fields are the section's keys.
				walk(f, prefix, true)
				continue
			}
			name := strings.Split(sf.Tag.Get("json"), ",")[0]
			if name == "" || name == "-" {
				continue
			}
			key := prefix + name
			if engine {
				if k, ok := engineKeys[key]; ok {
					key = k
				}
				if key == "" {
					continue
				}
			}
			if f.Kind() == reflect.Struct {
				walk(f, key+".", false)
				continue
			}
			out = append(out, settingField{key, f})
		}
	}
	walk(reflect.ValueOf(s).Elem(), "", false)
	return out
}

// engineKeys are the fields of the embedded engine Configs whose setting
// key is not their JSON name: renamed, or "" for the engines' own constants
// (and the loop engine's Enabled map, which the read_loop… switches fill),
// which config.json does not expose.
var engineKeys = map[string]string{
	"loops.cycle_max":        "loops.max_cycle",
	"loops.cooldown_stretch": "",
	"loops.cycle_min":        "",
	"loops.exempt_tools":     "",
	"loops.exempt_commands":  "",
	"loops.exempt_repeats":   "",
	"loops.enabled":          "",
	"compress.base64_min":    "",
}

// MarshalJSON writes the settings as config.json spells them: every key
// and nothing else, so the engines' constants are not written.
func (s Settings) MarshalJSON() ([]byte, error) {
	doc := map[string]any{}
	for _, f := range settingFields(&s) {
		m := doc
		key := f.key
		if sec, k, ok := strings.Cut(key, "."); ok {
			sub, _ := m[sec].(map[string]any)
			if sub == nil {
				sub = map[string]any{}
				m[sec] = sub
			}
			m, key = sub, k
		}
		m[key] = f.v.Interface()
	}
	return json.Marshal(doc)
}

// Keys lists every setting's dotted key, for documentation and tests.
func Keys() []string {
	s := Default()
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
func applyEnv(s *Settings, prefix string, environ []string, from map[string]Source) []string {
	source := SourceEnv
	if prefix == "CLAUDE_PLUGIN_OPTION_" {
		source = SourcePluginOption
	}
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
			names := slices.Sorted(maps.Keys(fields))
			problems = append(problems, fmt.Sprintf("%s %s: %s; ignored", source, name, unknownMessage("unknown setting", name, names)))
			continue
		}
		v, err := parseString(f.v.Type(), val)
		if err == nil {
			err = assign(f, v)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s %s=%q: key %s: %v; %s", source, name, clipValue(val), f.key, err, kept(from, f.key)))
			continue
		}
		from[f.key] = Source{Kind: source, Name: name}
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

// parseString decodes a variable's text as a setting of type t; bounds are
// assign's.
func parseString(t reflect.Type, s string) (reflect.Value, error) {
	s = strings.TrimSpace(s)
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return v, errors.New("not a boolean")
		}
		v.SetBool(b)
	case reflect.Int:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return v, errors.New("not an integer")
		}
		v.SetInt(n)
	case reflect.Float64:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return v, errors.New("not a number")
		}
		v.SetFloat(f)
	case reflect.String:
		v.SetString(s)
	case reflect.Slice:
		var out []float64
		for _, p := range strings.Split(s, ",") {
			f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil {
				return v, errors.New("not a comma-separated list of numbers")
			}
			out = append(out, f)
		}
		v.Set(reflect.ValueOf(out))
	default:
		return v, fmt.Errorf("unsupported setting type %s", t.Kind())
	}
	return v, nil
}

// clipValue shortens a refused value for its message.
func clipValue(s string) string {
	if r := []rune(s); len(r) > 64 {
		return string(r[:64]) + "…"
	}
	return s
}

// FieldError is one refused key: its JSON pointer and what is wrong.
type FieldError = state.FieldError

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// ValidateBytes checks raw JSON as a document of kind k the way a hook
// reads it: config.json key by key as Load applies it, every other kind
// as state reads it.
func ValidateBytes(k state.Kind, raw []byte) []FieldError {
	if k == state.KindConfig {
		s := Default()
		return applyConfig(&s, raw, nil)
	}
	return state.ValidateBytes(k, raw)
}

// KeyValue is one setting's dotted key and its value.
type KeyValue struct {
	Key   string
	Value any
}

// Values lists every setting (the keys Keys lists) with its value, sorted
// by key.
func (s Settings) Values() []KeyValue {
	var out []KeyValue
	for _, f := range settingFields(&s) {
		out = append(out, KeyValue{f.key, f.v.Interface()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
