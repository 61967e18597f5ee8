package pressure

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// The context window, mirroring how Claude Code chooses it (docs/context-window.md):
// a model setting ending in [1m] runs with 1,000,000 tokens; models with a
// native 1M window have it on the first-party API; the others have 200,000
// unless the 1M variant was chosen, which the transcript cannot show (the
// API's model id never carries [1m]). CLAUDE_CODE_DISABLE_1M_CONTEXT holds
// every model to 200,000. Where the rule cannot decide, the window is
// unknown: a range, narrowed by what the session shows (a context above
// 200,000 tokens proves the larger window).

// Window is the context window a reading is measured against: Min == Max
// when known, else the range it lies in.
type Window struct {
	Min, Max int64
	// Why says where the window comes from, for status and tests.
	Why string
}

// Known reports whether the window is one size.
func (w Window) Known() bool { return w.Min == w.Max && w.Max > 0 }

// Limit is the window's size when known, else 0.
func (w Window) Limit() int64 {
	if w.Known() {
		return w.Max
	}
	return 0
}

// Env is what the CLI's environment says about the window (the hooks
// inherit it).
type Env struct {
	// Disable1M: CLAUDE_CODE_DISABLE_1M_CONTEXT is set.
	Disable1M bool
	// Provider is firstParty, bedrock, vertex, foundry, anthropicAws or
	// mantle (CLAUDE_CODE_USE_*).
	Provider string
	// Gateway: ANTHROPIC_BASE_URL points somewhere other than
	// api.anthropic.com, where the CLI does not assume native 1M windows.
	Gateway bool
	// Model is ANTHROPIC_MODEL, the session's model setting if no other.
	Model string
	// MaxContextTokens is CLAUDE_CODE_MAX_CONTEXT_TOKENS, which the CLI
	// takes as the window when DISABLE_COMPACT is set, or for a model id
	// that is not Claude's.
	MaxContextTokens int64
	DisableCompact   bool
}

// EnvFrom reads Env through getenv.
func EnvFrom(getenv func(string) string) Env {
	on := func(k string) bool {
		switch strings.ToLower(strings.TrimSpace(getenv(k))) {
		case "1", "true", "yes", "on":
			return true
		}
		return false
	}
	e := Env{Disable1M: on("CLAUDE_CODE_DISABLE_1M_CONTEXT"), Model: strings.TrimSpace(getenv("ANTHROPIC_MODEL")), DisableCompact: on("DISABLE_COMPACT")}
	switch {
	case on("CLAUDE_CODE_USE_BEDROCK"):
		e.Provider = "bedrock"
	case on("CLAUDE_CODE_USE_FOUNDRY"):
		e.Provider = "foundry"
	case on("CLAUDE_CODE_USE_ANTHROPIC_AWS"):
		e.Provider = "anthropicAws"
	case on("CLAUDE_CODE_USE_MANTLE"):
		e.Provider = "mantle"
	case on("CLAUDE_CODE_USE_VERTEX"):
		e.Provider = "vertex"
	default:
		e.Provider = "firstParty"
	}
	if u := strings.TrimSpace(getenv("ANTHROPIC_BASE_URL")); u != "" {
		host := u
		if i := strings.Index(host, "://"); i >= 0 {
			host = host[i+3:]
		}
		host, _, _ = strings.Cut(host, "/")
		e.Gateway = host != "api.anthropic.com"
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(getenv("CLAUDE_CODE_MAX_CONTEXT_TOKENS")), 10, 64); err == nil && n > 0 {
		e.MaxContextTokens = n
	}
	return e
}

// Model classes, by what the CLI (2.1.197's catalogue) lets them have.
const (
	classUnknown = iota
	classSmall   // 200,000 only
	classOptIn   // 200,000 unless the 1M variant was chosen ([1m])
	classEither  // 1M was a plan default (Opus 4.6, Sonnet 4.6): either
	classNative  // 1M natively
)

// The model-id patterns are compiled on first use: most hooks read no
// model id, and a hook process should not pay for them at start.
var (
	one1m = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\[1m\]`) })
	// idOf1m is a served model id that names the 1M variant by a suffix
	// ("claude-opus-4.6-1m", as a gateway may name it).
	idOf1m    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)[-_]1m$`) })
	dottedVer = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d)\.(\d)`) })
	dateTail  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-\d{8}$|@\d{8}$|-v\d+(:\d+)?$`) })
	familyOf  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`claude-[a-z0-9-]+`) })
	knownFams = []struct {
		prefix string
		class  int
		exact  bool // the id itself, not a prefix of newer ones
	}{
		// Longest first within a family.
		{"claude-opus-4-8", classNative, false}, {"claude-opus-4-7", classNative, false},
		{"claude-opus-4-6", classEither, false}, {"claude-opus-4-5", classSmall, false},
		{"claude-opus-4-1", classSmall, false}, {"claude-opus-4-0", classSmall, false},
		{"claude-opus-4", classSmall, true}, {"claude-opus-5", classNative, false},
		{"claude-sonnet-5", classNative, false}, {"claude-sonnet-4-6", classEither, false},
		{"claude-sonnet-4-5", classOptIn, false}, {"claude-sonnet-4-0", classOptIn, false},
		{"claude-sonnet-4", classOptIn, true},
		{"claude-haiku-4-5", classSmall, false}, {"claude-3-7-sonnet", classSmall, false},
		{"claude-3-5-sonnet", classSmall, false}, {"claude-3", classSmall, false},
		{"claude-fable-5", classNative, false}, {"claude-mythos", classNative, false},
	}
)

// Family is a model id's canonical family, e.g. claude-opus-4-6 for
// "us.anthropic.claude-opus-4-6-v1:0" or "claude-opus-4-6[1m]"; "" when it
// is not a Claude model id.
func Family(model string) string {
	m := strings.ToLower(one1m().ReplaceAllString(strings.TrimSpace(model), ""))
	// "claude-opus-4.6" is claude-opus-4-6 written with a dot.
	m = dottedVer().ReplaceAllString(m, "$1-$2")
	f := familyOf().FindString(m)
	if f == "" {
		return ""
	}
	for dateTail().MatchString(f) {
		f = dateTail().ReplaceAllString(f, "")
	}
	for _, k := range knownFams {
		if f == k.prefix || (!k.exact && strings.HasPrefix(f, k.prefix+"-")) {
			return k.prefix
		}
	}
	return f
}

func classOf(family string) int {
	for _, k := range knownFams {
		if family == k.prefix {
			return k.class
		}
	}
	return classUnknown
}

// LargeWindow is the 1M window.
const LargeWindow = 1_000_000

// Window is the window for a session whose latest main-chain response came
// from model (the transcript's id; "" if none yet), whose model setting is
// configured (the SessionStart payload's model, else ANTHROPIC_MODEL; "" if
// neither is known) and whose context has reached peak tokens.
func (c Config) Window(model, configured string, peak int64, e Env) Window {
	if c.Limit > 0 {
		return Window{int64(c.Limit), int64(c.Limit), "pressure.limit"}
	}
	w := c.ruleWindow(model, configured, e)
	large := int64(c.LargeLimit)
	if large <= DefaultLimit {
		large = LargeWindow
	}
	// A context larger than the window's low end proves a larger one.
	if peak > w.Min && peak > DefaultLimit && (w.Max < large || !w.Known()) {
		return Window{large, large, "observed above 200,000 tokens"}
	}
	return w
}

func (c Config) ruleWindow(model, configured string, e Env) Window {
	if configured == "" {
		configured = e.Model
	}
	if e.DisableCompact && e.MaxContextTokens > 0 {
		return Window{e.MaxContextTokens, e.MaxContextTokens, "CLAUDE_CODE_MAX_CONTEXT_TOKENS"}
	}
	fam := Family(model)
	cfam := Family(configured)
	// The setting tells only if it is the model that answered (a /model
	// switch or an alias may have changed it).
	sameModel := configured != "" && (model == "" || cfam == fam || cfam == "")
	if fam == "" {
		fam = cfam
	}
	small := Window{DefaultLimit, DefaultLimit, ""}
	large := Window{LargeWindow, LargeWindow, ""}
	unknown := Window{DefaultLimit, LargeWindow, "window unknown"}
	if e.Disable1M {
		small.Why = "CLAUDE_CODE_DISABLE_1M_CONTEXT"
		return small
	}
	if sameModel && one1m().MatchString(configured) && classOf(fam) != classSmall {
		large.Why = "model setting " + configured
		return large
	}
	if idOf1m().MatchString(strings.TrimSpace(model)) && fam != "" && classOf(fam) != classSmall {
		large.Why = "model id " + model
		return large
	}
	if fam == "" {
		if model != "" && e.MaxContextTokens > 0 {
			return Window{e.MaxContextTokens, e.MaxContextTokens, "CLAUDE_CODE_MAX_CONTEXT_TOKENS"}
		}
		unknown.Why = "no model seen yet"
		if model != "" {
			unknown.Why = "not a Claude model id: " + model
		}
		return unknown
	}
	switch classOf(fam) {
	case classSmall:
		small.Why = fam + " (200,000 only)"
		return small
	case classOptIn:
		small.Why = fam + " without [1m]"
		return small
	case classEither:
		if sameModel {
			small.Why = fam + " without [1m] in the model setting"
			return small
		}
		unknown.Why = fam + ": 1M or 200,000 by plan and setting"
		return unknown
	case classNative:
		native := !e.Gateway && (e.Provider == "firstParty" || e.Provider == "anthropicAws" || e.Provider == "mantle")
		if fam == "claude-sonnet-5" && (e.Provider == "bedrock" || e.Provider == "vertex" || e.Provider == "foundry") {
			native = true
		}
		if native {
			large.Why = fam + " (native 1M)"
			return large
		}
		unknown.Why = fam + " on " + e.Provider + ": 1M only with [1m]"
		return unknown
	}
	unknown.Why = fam + ": not a model Djinn knows"
	return unknown
}
