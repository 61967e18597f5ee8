package settings

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestPluginUserConfig: every userConfig option in plugin.json is a
// setting. Claude Code exports an option as CLAUDE_PLUGIN_OPTION_<KEY>
// (the key upper-cased), which must be the variable Load reads for that
// setting; its type must be the setting's; and a value as Claude Code
// exports it (String(value)) must be accepted, with the plugin option as
// its source. No option carries a default: Claude Code would export it
// even when the person set nothing, and it would then win over
// config.json.
func TestPluginUserConfig(t *testing.T) {
	raw, err := os.ReadFile("../.claude-plugin/plugin.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		UserConfig map[string]map[string]any `json:"userConfig"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.UserConfig) == 0 {
		t.Fatal("plugin.json declares no userConfig")
	}
	s := Default()
	byVar := map[string]settingField{}
	for _, f := range settingFields(&s) {
		byVar[envName("CLAUDE_PLUGIN_OPTION_", f.key)] = f
	}
	samples := map[string]string{"boolean": "true", "number": "7", "string": ""}
	for key, opt := range m.UserConfig {
		name := "CLAUDE_PLUGIN_OPTION_" + strings.ToUpper(key)
		f, ok := byVar[name]
		if !ok {
			t.Errorf("option %s: %s is no setting's variable", key, name)
			continue
		}
		if _, has := opt["default"]; has {
			t.Errorf("option %s has a default", key)
		}
		typ, _ := opt["type"].(string)
		want := map[reflect.Kind]string{reflect.Bool: "boolean", reflect.Int: "number", reflect.Float64: "number", reflect.String: "string"}[f.v.Kind()]
		if typ != want {
			t.Errorf("option %s: type %q, the setting %s is a %s", key, typ, f.key, want)
		}
		val := samples[typ]
		switch f.v.Interface().(type) {
		case Mode:
			val = string(Advise)
		case Notify:
			val = string(NotifyWarnings)
		}
		env := []string{name + "=" + val}
		if f.key == "loops.block" {
			// Blocking needs a loop kind told to the agent (blockUnused).
			env = append(env, "CLAUDE_PLUGIN_OPTION_ADVISORIES_FAIL_LOOP=advise")
		}
		_, from, problems := LoadSources("", nil, env)
		if len(problems) > 0 || from[f.key].Kind != SourcePluginOption {
			t.Errorf("option %s=%s: problems %q, source %+v", key, val, problems, from[f.key])
		}
		for _, field := range []string{"title", "description"} {
			if v, _ := opt[field].(string); v == "" || !strings.Contains(opt["description"].(string), f.key) {
				t.Errorf("option %s: %s empty, or the description does not name the setting %s", key, field, f.key)
			}
		}
	}
}
