package pressure

import "testing"

var firstParty = EnvFrom(func(string) string { return "" })

func env(kv ...string) Env {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return EnvFrom(func(k string) string { return m[k] })
}

func TestFamily(t *testing.T) {
	for in, want := range map[string]string{
		"claude-opus-4-6":                   "claude-opus-4-6",
		"claude-opus-4-6[1m]":               "claude-opus-4-6",
		"claude-sonnet-4-20250514":          "claude-sonnet-4",
		"claude-sonnet-4-5-20250929":        "claude-sonnet-4-5",
		"us.anthropic.claude-opus-4-8-v1:0": "claude-opus-4-8",
		"claude-opus-4-1@20250805":          "claude-opus-4-1",
		"claude-3-5-haiku-20241022":         "claude-3",
		"claude-opus-4-9":                   "claude-opus-4-9", // not opus 4 (0)
		"claude-opus-4.6-1m":                "claude-opus-4-6", // a gateway's name (ext-nvfp4)
		"claude-sonnet-4.5":                 "claude-sonnet-4-5",
		"gpt-5":                             "",
		"opus":                              "",
	} {
		if got := Family(in); got != want {
			t.Errorf("Family(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWindow: the CLI's rule, both ways for each class of model.
func TestWindow(t *testing.T) {
	c := DefaultConfig()
	const (
		small   = DefaultLimit
		large   = LargeWindow
		unknown = -1
	)
	for _, tc := range []struct {
		name, model, configured string
		peak                    int64
		e                       Env
		want                    int64
	}{
		{"native 1M (2.1.197's default)", "claude-opus-4-8", "", 0, firstParty, large},
		{"native 1M, Sonnet 5", "claude-sonnet-5", "", 0, firstParty, large},
		{"native 1M, disabled", "claude-opus-4-8", "", 0, env("CLAUDE_CODE_DISABLE_1M_CONTEXT", "1"), small},
		{"native 1M behind a gateway", "claude-opus-4-8", "", 0, env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"), unknown},
		{"native 1M on the first-party URL", "claude-opus-4-8", "", 0, env("ANTHROPIC_BASE_URL", "https://api.anthropic.com"), large},
		{"native 1M on Bedrock", "claude-opus-4-8", "", 0, env("CLAUDE_CODE_USE_BEDROCK", "true"), unknown},
		{"Sonnet 5 on Vertex", "claude-sonnet-5", "", 0, env("CLAUDE_CODE_USE_VERTEX", "1"), large},
		{"200k only", "claude-opus-4-1-20250805", "", 0, firstParty, small},
		{"200k only, even with [1m]", "claude-haiku-4-5-20251001", "claude-haiku-4-5[1m]", 0, firstParty, small},
		{"opt-in, not chosen", "claude-sonnet-4-20250514", "", 0, firstParty, small},
		{"opt-in, chosen in the setting", "claude-sonnet-4-20250514", "claude-sonnet-4-20250514[1m]", 0, firstParty, large},
		{"opt-in, chosen in ANTHROPIC_MODEL", "claude-sonnet-4-5-20250929", "", 0, env("ANTHROPIC_MODEL", "claude-sonnet-4-5[1m]"), large},
		{"Opus 4.6 from the transcript alone", "claude-opus-4-6", "", 0, firstParty, unknown},
		{"Opus 4.6 with [1m]", "claude-opus-4-6", "claude-opus-4-6[1m]", 0, firstParty, large},
		{"Opus 4.6, setting without [1m]", "claude-opus-4-6", "claude-opus-4-6", 0, firstParty, small},
		{"a [1m] setting for another model tells nothing", "claude-opus-4-6", "claude-sonnet-4-6[1m]", 0, firstParty, unknown},
		{"no model yet", "", "", 0, firstParty, unknown},
		{"setting before the first response", "", "claude-opus-4-6[1m]", 0, firstParty, large},
		{"a model Djinn does not know", "claude-opus-6", "", 0, firstParty, unknown},
		{"not a Claude model", "gpt-5", "", 0, firstParty, unknown},
		{"not a Claude model, CLAUDE_CODE_MAX_CONTEXT_TOKENS", "gpt-5", "", 0, env("CLAUDE_CODE_MAX_CONTEXT_TOKENS", "400000"), 400_000},
		{"DISABLE_COMPACT with CLAUDE_CODE_MAX_CONTEXT_TOKENS", "claude-opus-4-8", "", 0, env("DISABLE_COMPACT", "1", "CLAUDE_CODE_MAX_CONTEXT_TOKENS", "300000"), 300_000},
		{"usage proves 1M", "claude-opus-4-6", "", 200_001, firstParty, large},
		{"usage proves 1M against the rule", "claude-sonnet-4-20250514", "", 332_701, firstParty, large},
		{"usage at 200k proves nothing", "claude-opus-4-6", "", 200_000, firstParty, unknown},
		// A served id that names the 1M variant (ext-nvfp4: pressure at
		// "42%" of 200,000 with a 1M window, false to judge BO).
		{"a served id naming 1M", "claude-opus-4.6-1m", "", 0, firstParty, large},
		{"a served id naming 1M for a 200k-only model", "claude-haiku-4.5-1m", "", 0, firstParty, small},
	} {
		w := c.Window(tc.model, tc.configured, tc.peak, tc.e)
		switch {
		case tc.want == unknown && w.Known():
			t.Errorf("%s: window %+v, want unknown", tc.name, w)
		case tc.want == unknown && (w.Min != small || w.Max != large):
			t.Errorf("%s: unknown window %+v, want the range 200,000–1,000,000", tc.name, w)
		case tc.want != unknown && (!w.Known() || w.Limit() != tc.want):
			t.Errorf("%s: window %+v, want %d", tc.name, w, tc.want)
		}
		if w.Why == "" {
			t.Errorf("%s: no reason given", tc.name)
		}
	}
	c.Limit = 500_000
	if w := c.Window("claude-opus-4-6", "", 0, firstParty); w.Limit() != 500_000 || w.Why != "pressure.limit" {
		t.Errorf("pressure.limit: %+v", w)
	}
}

// TestObserveByWindow: 90,000 tokens cross the first tier (40 %) of a
// 200,000-token window, not of a 1M one, nor of an unknown one until the
// context shows which.
func TestObserveByWindow(t *testing.T) {
	c := DefaultConfig()
	for _, tc := range []struct {
		model, configured string
		want              int
		limit             int64
	}{
		{"claude-sonnet-4-5-20250929", "", 0, DefaultLimit},
		{"claude-opus-4-8", "", -1, LargeWindow},
		{"claude-opus-4-6", "claude-opus-4-6[1m]", -1, LargeWindow},
		{"claude-opus-4-6", "", -1, 0},
	} {
		s := State{Configured: tc.configured}
		if got := s.Observe(90_000, tc.model, c, firstParty); got != tc.want || s.Limit != tc.limit {
			t.Errorf("%s (%q) at 90,000: tier %d, limit %d; want %d, %d", tc.model, tc.configured, got, s.Limit, tc.want, tc.limit)
		}
	}
	// Unknown, then proven 1M: 450,000 tokens is 45 % of it.
	var s State
	if got := s.Observe(190_000, "claude-opus-4-6", c, firstParty); got != -1 || s.Limit != 0 {
		t.Fatalf("190,000 on an unknown window: tier %d, limit %d", got, s.Limit)
	}
	if got := s.Observe(450_000, "", c, firstParty); got != 0 || s.Limit != LargeWindow {
		t.Fatalf("450,000 after the window proved 1M: tier %d, limit %d", got, s.Limit)
	}
}
