package settings

import (
	"strings"
	"testing"
)

// TestDidYouMean: an unknown key or variable near a known one is reported
// with it; one near none is reported without a guess.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		config  string
		environ []string
		want    string
	}{
		{config: `{"loops":{"read_treshold":4}}`, want: "key loops.read_treshold: unknown property (did you mean loops.read_threshold?)"},
		{config: `{"loop":{"block":true}}`, want: "key loop: unknown property (did you mean loops?)"},
		{config: `{"read_threshold":4}`, want: "key read_threshold: unknown property (did you mean loops.read_threshold?)"},
		{config: `{"notfiy":"off"}`, want: "key notfiy: unknown property (did you mean notify?)"},
		{config: `{"loops":{"zzzzzz":1}}`, want: "key loops.zzzzzz: unknown property; using the default"},
		{environ: []string{"DJINN_LOOPS_READ_TRESHOLD=4"}, want: "DJINN_LOOPS_READ_TRESHOLD: unknown setting (did you mean DJINN_LOOPS_READ_THRESHOLD?); ignored"},
		{environ: []string{"CLAUDE_PLUGIN_OPTION_NOTFY=off"}, want: "CLAUDE_PLUGIN_OPTION_NOTFY: unknown setting (did you mean CLAUDE_PLUGIN_OPTION_NOTIFY?); ignored"},
		{environ: []string{"DJINN_WHATEVER_THING=1"}, want: "DJINN_WHATEVER_THING: unknown setting; ignored"},
	} {
		_, problems := Load(configRoot(t, tc.config), nil, tc.environ)
		if len(problems) != 1 || !strings.Contains(problems[0], tc.want) {
			t.Errorf("%s %v: problems %q, want one with %q", tc.config, tc.environ, problems, tc.want)
		}
	}
}

// TestSyntaxPosition: a config.json that is not JSON is reported with the
// line and column where it stops being JSON.
func TestSyntaxPosition(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{"{\n  \"loops\": {\n    \"block\": true,\n  }\n}\n", "invalid JSON at line 4, column 3: invalid character '}'"},
		{"{\"loops\": {\"block\": tru}}", "invalid JSON at line 1, column 24: invalid character '}' in literal true"},
		{"{\n \"é\": 1 x}", "invalid JSON at line 2, column 9: invalid character 'x'"},
		{"{\"loops\":", "invalid JSON at line 1, column 10: unexpected end of the file"},
	} {
		_, problems := Load(configRoot(t, tc.config), nil, nil)
		if len(problems) != 1 || !strings.Contains(problems[0], tc.want) {
			t.Errorf("%q: problems %q, want one with %q", tc.config, problems, tc.want)
		}
	}
}

// TestNotify: the notify levels, every source's one check.
func TestNotify(t *testing.T) {
	if Default().Notify != NotifyAll {
		t.Errorf("default notify %q", Default().Notify)
	}
	s, problems := Load(t.TempDir(), nil, []string{"CLAUDE_PLUGIN_OPTION_NOTIFY=warnings"})
	if len(problems) > 0 || s.Notify != NotifyWarnings {
		t.Errorf("notify %q, problems %q", s.Notify, problems)
	}
	s, problems = Load(t.TempDir(), nil, []string{"DJINN_NOTIFY=loud"})
	if len(problems) != 1 || s.Notify != NotifyAll || !strings.Contains(problems[0], `must be one of "all", "warnings", "off"`) {
		t.Errorf("notify %q, problems %q", s.Notify, problems)
	}
	for _, c := range []struct {
		n             Notify
		info, warning bool
	}{{NotifyAll, true, true}, {NotifyWarnings, false, true}, {NotifyOff, false, false}} {
		if c.n.Shows(false) != c.info || c.n.Shows(true) != c.warning {
			t.Errorf("%s: shows info %v, warning %v", c.n, c.n.Shows(false), c.n.Shows(true))
		}
	}
}
