package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A state file is checked in two steps: a strict decode into its Go type
// (DecodeStrict: unknown fields, trailing data and wrong types refused) and
// the type's Validate method, which enforces the rest of what the embedded
// schema says (required members, schema_version, ranges, enums, patterns,
// lengths and bounds). TestValidateMatchesSchema holds the two to the
// schemas, with jsonschema/v5 as the oracle; the differences it allows are
// listed there.

// FieldError is one violation: the JSON pointer of the offending value
// (empty for the document itself) and what is wrong with it.
type FieldError struct {
	Pointer string
	Message string
}

func (e FieldError) Error() string {
	return orRoot(e.Pointer) + ": " + e.Message
}

// Invalid is the error of a document that fails its check: every
// violation found, in document order.
type Invalid []FieldError

// Error renders the first few violations on one line.
func (e Invalid) Error() string {
	const max = 3
	parts := make([]string, 0, max+1)
	for i, f := range e {
		if i == max {
			parts = append(parts, fmt.Sprintf("and %d more", len(e)-max))
			break
		}
		parts = append(parts, f.Error())
	}
	return strings.Join(parts, "; ")
}

// fieldErrors returns the violations of err: its own when it is Invalid,
// else err as one violation of the whole document.
func fieldErrors(err error) []FieldError {
	if err == nil {
		return nil
	}
	var inv Invalid
	if errors.As(err, &inv) {
		return inv
	}
	return []FieldError{{"", err.Error()}}
}

// validator is a state document: Validate enforces its schema on a value
// decoded by DecodeStrict (or built by Djinn, before it is written).
type validator interface{ Validate() error }

// newDoc returns a fresh value of the Go type of a document kind.
func newDoc(k Kind) (validator, error) {
	switch k {
	case KindWindow:
		return &Window{}, nil
	case KindAnchor:
		return &Anchor{}, nil
	case KindReservoir:
		return &Reservoir{}, nil
	case KindPosteriors:
		return &Posteriors{}, nil
	case KindTurn:
		return &Turn{}, nil
	case KindAdvisory:
		return &Advisory{}, nil
	case KindLearning:
		return &Learning{}, nil
	case KindProfile:
		return &Profile{}, nil
	}
	return nil, fmt.Errorf("no document type for kind %q", k)
}

// ValidateBytes checks raw JSON as a document of kind k the way a hook
// reads it, and returns every violation (nil when valid). config.json is
// the settings package's (settings.ValidateBytes), not a state document.
func ValidateBytes(k Kind, raw []byte) []FieldError {
	v, err := newDoc(k)
	if err != nil {
		return []FieldError{{"", err.Error()}}
	}
	return fieldErrors(decodeValid(raw, v))
}

// decodeValid decodes raw strictly into v and validates the result. On an
// error v may be half-decoded; callers start afresh.
func decodeValid(raw []byte, v any) error {
	if err := DecodeStrict(raw, v); err != nil {
		return err
	}
	return validate(v)
}

// validate runs v's Validate method.
func validate(v any) error {
	d, ok := v.(validator)
	if !ok {
		return fmt.Errorf("%T is not a state document", v)
	}
	return d.Validate()
}

// DecodeStrict decodes exactly one JSON value into v with encoding/json,
// refusing unknown fields and anything after the value; its error is
// Invalid.
func DecodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Invalid{decodeProblem(err)}
	}
	if len(bytes.TrimLeft(raw[dec.InputOffset():], " \t\r\n")) > 0 {
		return Invalid{{"", "invalid JSON: trailing data after the JSON value"}}
	}
	return nil
}

// decodeProblem words an encoding/json error as a violation, at the field
// encoding/json names (it names no array index).
func decodeProblem(err error) FieldError {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		ptr := ""
		if te.Field != "" {
			ptr = "/" + strings.ReplaceAll(te.Field, ".", "/")
		}
		got, _, _ := strings.Cut(te.Value, " ")
		if got == "bool" {
			got = "boolean"
		}
		return FieldError{ptr, fmt.Sprintf("expected %s, but got %s", JSONKind(te.Type), got)}
	case errors.As(err, &se), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return FieldError{"", "invalid JSON: " + err.Error()}
	}
	return FieldError{"", strings.TrimPrefix(err.Error(), "json: ")}
}

// JSONKind names the JSON type a Go type decodes from, as the messages
// of a decoded value of the wrong type say it ("expected integer, …").
func JSONKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return "object"
}

// vet collects violations while a Validate method walks a document. The
// path is kept as steps and rendered only for a violation, so a valid
// document costs no allocation.
type vet struct {
	path []step
	errs Invalid
}

type step struct {
	key string
	idx int // -1 for an object member
}

func (v *vet) in(key string) { v.path = append(v.path, step{key, -1}) }
func (v *vet) at(i int)      { v.path = append(v.path, step{idx: i}) }
func (v *vet) out()          { v.path = v.path[:len(v.path)-1] }

func (v *vet) err() error {
	if len(v.errs) == 0 {
		return nil
	}
	return v.errs
}

// fail records a violation at member key of the current value ("" for the
// value itself).
func (v *vet) fail(key, format string, args ...any) {
	var b strings.Builder
	for _, s := range v.path {
		b.WriteByte('/')
		if s.idx >= 0 {
			b.WriteString(strconv.Itoa(s.idx))
		} else {
			b.WriteString(escapePointer(s.key))
		}
	}
	if key != "" {
		b.WriteByte('/')
		b.WriteString(escapePointer(key))
	}
	v.errs = append(v.errs, FieldError{b.String(), fmt.Sprintf(format, args...)})
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func (v *vet) version(n int) {
	if n != SchemaVersion {
		v.fail("schema_version", "value must be %d", SchemaVersion)
	}
}

// required: a member the schema requires whose Go value is nil (absent, or
// null, which no schema allows).
func (v *vet) required(key string, present bool) {
	if !present {
		v.fail(key, "missing property %q", key)
	}
}

func (v *vet) min(key string, n, lo int64) {
	if n < lo {
		v.fail(key, "must be >= %d", lo)
	}
}

func (v *vet) intRange(key string, n, lo, hi int64) {
	v.min(key, n, lo)
	if n > hi {
		v.fail(key, "must be <= %d", hi)
	}
}

func (v *vet) minNum(key string, f, lo float64) {
	if f < lo {
		v.fail(key, "must be >= %v", lo)
	}
}

// unit checks a number in [0, 1].
func (v *vet) unit(key string, f float64) {
	v.minNum(key, f, 0)
	if f > 1 {
		v.fail(key, "must be <= 1")
	}
}

// maxLen counts runes, as JSON Schema's maxLength does.
func (v *vet) maxLen(key, s string, max int) {
	if len(s) > max && utf8.RuneCountInString(s) > max {
		v.fail(key, "length must be <= %d", max)
	}
}

func (v *vet) maxItems(key string, n, max int) {
	if n > max {
		v.fail(key, "must have <= %d items", max)
	}
}

func (v *vet) maxProps(key string, n, max int) {
	if n > max {
		v.fail(key, "must have <= %d properties", max)
	}
}

// obj checks the object at member key with check.
func (v *vet) obj(key string, check func()) {
	v.in(key)
	check()
	v.out()
}

// each checks an array at member key: at most max of its n items, and
// item(i) on each with the path at the item.
func (v *vet) each(key string, n, max int, item func(i int)) {
	v.maxItems(key, n, max)
	v.in(key)
	for i := 0; i < n; i++ {
		v.at(i)
		item(i)
		v.out()
	}
	v.out()
}

// members checks a map at member key: at most max members, and member on
// each with the path at the map.
func members[V any](v *vet, key string, m map[string]V, max int, member func(name string, val V)) {
	v.maxProps(key, len(m), max)
	v.in(key)
	for name, val := range m {
		member(name, val)
	}
	v.out()
}

// objects is members for a map of objects: a null member is a violation,
// and check runs on each other with the path at the member.
func objects[V any](v *vet, key string, m map[string]*V, max int, check func(*V)) {
	members(v, key, m, max, func(name string, val *V) {
		if val == nil {
			v.fail(name, "expected object, but got null")
			return
		}
		v.obj(name, func() { check(val) })
	})
}

// strs checks an array of strings: at most maxN, each at most maxL runes.
func (v *vet) strs(key string, list []string, maxN, maxL int) {
	v.each(key, len(list), maxN, func(i int) { v.maxLen("", list[i], maxL) })
}

func (v *vet) enum(key, s string, allowed []string) {
	for _, a := range allowed {
		if s == a {
			return
		}
	}
	v.fail(key, "value must be one of %q", allowed)
}

// hex checks a lower-case hexadecimal string of exactly n digits.
func (v *vet) hex(key, s string, n int) {
	ok := len(s) == n
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
	}
	if !ok {
		v.fail(key, "must be %d lower-case hexadecimal digits", n)
	}
}

func (v *vet) sessionID(key, id string) {
	if err := ValidateSessionID(id); err != nil {
		v.fail(key, "%v", err)
	}
}

// The enums of the schemas.
var (
	intentTypes   = []string{"feature", "bugfix", "refactor", "research", "docs", "unknown"}
	topics        = []string{"anchored", "unanchored", "conflict", "neutral"}
	limitClasses  = []string{"change", "commit", "push", "install", "delete", "restart", "checks", "tool", "comment", "keep", "guard-access", "declined-step"}
	limitSources  = []string{"prompt", "CLAUDE.md", "file", "declined", "request", "hook"}
	detectors     = append([]string{"all"}, Detectors()...)
	verdictKinds  = []string{"no_anchor", "insufficient_data", "on_task", "tolerable_side_quest", "refocus_moment", "real_drift"}
	outcomes      = []string{"replaced", "constraint", "refused", "empty"}
	anchorSources = []string{"prompt", "pivot", "reorient"}
	taskSources   = []string{"goal", "prompt", "proposed"}
	adviceModes   = []string{"advise", "observe"}
	adviceKinds   = []string{"drift", "read-loop", "edit-revert", "fail-loop", "tool-loop", "stall", "pressure", "reanchor", "compacted", "risk", "repeat-complaint", "instruction"}
	severities    = []string{"info", "soft", "hard", "block"}
)

// Validate enforces window.schema.json.
func (w Window) Validate() error {
	var v vet
	v.version(w.SchemaVersion)
	v.sessionID("session_id", w.SessionID)
	v.maxLen("project_dir", w.ProjectDir, 4096)
	v.maxLen("transcript_path", w.TranscriptPath, 4096)
	v.required("events", w.Events != nil)
	members(&v, "events", w.Events, 16, func(name string, n int) { v.min(name, int64(n), 0) })
	v.min("tool_calls", int64(w.ToolCalls), 0)
	v.maxLen("prompt_id", w.PromptID, 128)
	v.each("disabled", len(w.Disabled), 16, func(i int) { v.enum("", w.Disabled[i], detectors) })
	objects(&v, "loops", w.Loops, 16, func(st *LoopState) { validateLoops(&v, st) })
	v.strs("loop_agents", w.LoopAgents, 16, 128)
	v.strs("tool_use_ids", w.ToolUseIDs, 32, 128)
	v.maxLen("last_assistant", w.LastAssistant, 2000)
	v.maxLen("pending_reanchor", w.PendingReanchor, 7000)
	if w.Drift != nil {
		v.obj("drift", func() { w.Drift.validate(&v) })
	}
	if p := w.Pressure; p != nil {
		v.obj("pressure", func() {
			if len(p.Cursor) > 0 && p.Cursor[0] != '{' {
				v.fail("cursor", "expected object")
			}
			v.min("tokens", p.Tokens, 0)
			v.min("limit", p.Limit, 0)
			v.maxLen("window", p.Window, 200)
			v.maxLen("model", p.Model, 200)
			v.maxLen("configured", p.Configured, 200)
			v.required("announced", p.Announced != nil)
			v.maxItems("announced", len(p.Announced), 8)
			v.min("peak", p.Peak, 0)
			v.intRange("pending", int64(p.Pending), 0, 8)
			v.min("compacted", int64(p.Compacted), 0)
		})
	}
	if s := w.Stall; s != nil {
		v.obj("stall", func() {
			v.maxLen("prompt_id", s.PromptID, 128)
			v.min("rollbacks", int64(s.Rollbacks), 0)
			v.min("total", int64(s.Total), 0)
			members(&v, "agents", s.Agents, 8, func(agent string, n int) { v.min(agent, int64(n), 0) })
			v.maxLen("pending", s.Pending, 4000)
		})
	}
	v.each("recent", len(w.Recent), 16, func(i int) {
		r := &w.Recent[i]
		v.min("seq", int64(r.Seq), 0)
		v.maxLen("kind", r.Kind, 32)
		v.maxLen("text", r.Text, 2000)
		if r.Mode != "" {
			v.enum("mode", r.Mode, adviceModes)
		}
		if r.ID != "" {
			v.hex("id", r.ID, 12)
		}
	})
	v.each("failures", len(w.Failures), 16, func(i int) {
		f := &w.Failures[i]
		v.min("seq", int64(f.Seq), 0)
		v.maxLen("tool", f.Tool, 256)
		v.maxLen("target", f.Target, 1024)
		v.maxLen("error", f.Error, 1024)
		v.min("count", int64(f.Count), 0)
	})
	if r := w.Risk; r != nil {
		v.obj("risk", func() {
			v.strs("prompts", r.Prompts, 3, 4000)
			v.maxLen("plan", r.Plan, 4000)
			v.maxLen("answered", r.Answered, 4000)
			v.strs("written", r.Written, 64, 1024)
			v.strs("secrets", r.Secrets, 8, 1024)
			v.strs("unread", r.Unread, 8, 1024)
			v.strs("denied", r.Denied, MaxDenied, 1024)
			v.strs("given", r.Given, MaxGiven, 16)
			v.strs("ran", r.Ran, MaxRan, 64)
			v.strs("tables", r.Tables, MaxTables, 128)
			v.strs("branches", r.Branches, MaxBranches, 256)
			v.min("rejected_commit", int64(r.RejectedCommit), 0)
			v.maxLen("refused", r.Refused, 1024)
			members(&v, "advised", r.Advised, 32, func(id string, n int) { v.min(id, int64(n), 0) })
			v.each("limits", len(r.Limits), MaxLimits, func(i int) {
				l := &r.Limits[i]
				v.enum("class", l.Class, limitClasses)
				v.maxLen("target", l.Target, 256)
				v.required("text", l.Text != "")
				v.maxLen("text", l.Text, 500)
				v.enum("source", l.Source, limitSources)
				v.min("advised", int64(l.Advised), 0)
				v.strs("files", l.Files, MaxKeptFiles, 1024)
			})
			v.each("asked", len(r.Asked), MaxAsked, func(i int) {
				a := &r.Asked[i]
				v.required("id", a.ID != "")
				v.maxLen("id", a.ID, 128)
				v.required("key", a.Key != "")
				v.maxLen("key", a.Key, 64)
				v.min("call", int64(a.Call), 0)
			})
		})
	}
	if r := w.Reorient; r != nil {
		v.obj("reorient", func() {
			v.maxLen("prompt_id", r.PromptID, 128)
			v.enum("outcome", r.Outcome, outcomes)
			v.maxLen("old_hash", r.OldHash, 12)
			v.maxLen("new_hash", r.NewHash, 12)
			v.maxLen("text", r.Text, 4000)
		})
	}
	if l := w.Logged; l != nil {
		// The schema bounds the lines only; each is checked as a line of
		// its log when it is appended (Reconcile).
		v.obj("logged", func() {
			v.maxItems("turns", len(l.Turns), 64)
			v.maxItems("advisories", len(l.Advisories), 64)
		})
	}
	if c := w.Complaints; c != nil {
		v.obj("complaints", func() {
			v.min("clock", int64(c.Clock), 0)
			v.min("said", int64(c.Said), 0)
			v.each("reports", len(c.Reports), 8, func(i int) {
				r := &c.Reports[i]
				v.min("clock", int64(r.Clock), 0)
				v.min("seq", int64(r.Seq), 0)
				v.maxLen("text", r.Text, 300)
				v.required("stems", r.Stems != nil)
				v.strs("stems", r.Stems, 48, 64)
			})
			v.each("claims", len(c.Claims), 8, func(i int) { validateClaim(&v, &c.Claims[i]) })
			v.maxLen("asked", c.Asked, 300)
			if d := c.Done; d != nil {
				v.obj("done", func() { validateClaim(&v, d) })
			}
		})
	}
	if f := w.Feedback; f != nil {
		v.obj("feedback", func() { f.validate(&v) })
	}
	// pending_anchor is checked as an anchor when the next hook writes it
	// to anchor.json.
	return v.err()
}

// validateLoops enforces the schema's loop_state on the pattern engine's
// state of one agent.
func validateLoops(v *vet, s *LoopState) {
	v.required("events", s.Events != nil)
	v.each("events", len(s.Events), 256, func(i int) { validateLoopEvent(v, &s.Events[i]) })
	v.each("failures", len(s.Failures), 16, func(i int) { validateLoopEvent(v, &s.Failures[i].LoopEvent) })
	members(v, "patterns", s.Patterns, 32, func(name string, p LoopPattern) {
		v.obj(name, func() {
			v.unit("ema", p.EMA)
			v.min("alerts", int64(p.Alerts), 0)
		})
	})
}

// validateLoopEvent enforces the schema's loop_event bounds.
func validateLoopEvent(v *vet, e *LoopEvent) {
	v.maxLen("tool", e.Tool, 256)
	v.maxLen("target", e.Target, 1024)
	v.maxLen("range", e.Range, 256)
	v.maxLen("input", e.Input, 64)
	v.maxLen("error", e.Error, 1024)
	v.maxLen("fail", e.Fail, 1024)
	v.maxLen("result", e.Result, 64)
	v.maxLen("before", e.Before, 64)
	v.maxLen("after", e.After, 64)
	v.maxLen("shown", e.Shown, 64)
	v.maxLen("batch", e.Batch, 16)
	v.maxLen("printed", e.Printed, 16)
	v.maxLen("wrote", e.Wrote, 1024)
	v.maxLen("run", e.Run, 160)
	v.maxLen("look", e.Look, 1024)
}

func (d *Drift) validate(v *vet) {
	v.maxLen("anchor_hash", d.AnchorHash, 12)
	v.required("anchor_tokens", d.AnchorTokens != nil)
	v.strs("anchor_tokens", d.AnchorTokens, 512, 256)
	v.enum("intent", d.Intent, intentTypes)
	v.unit("threshold", d.Threshold)
	v.maxLen("threshold_source", d.ThresholdSource, 64)
	v.min("posterior_n", int64(d.PosteriorN), 0)
	v.min("calls", int64(d.Calls), 0)
	v.required("vocab", d.Vocab != nil)
	v.strs("vocab", d.Vocab, 1024, 256)
	v.required("files", d.Files != nil)
	v.strs("files", d.Files, 256, 4096)
	v.required("recent", d.Recent != nil)
	v.each("recent", len(d.Recent), 64, func(i int) {
		c := &d.Recent[i]
		v.min("seq", int64(c.Seq), 0)
		v.required("tokens", c.Tokens != nil)
		v.strs("tokens", c.Tokens, 64, 256)
		v.strs("files", c.Files, 16, 4096)
		v.enum("topic", c.Topic, topics)
		v.intRange("narr", int64(c.Narr), 0, 64)
	})
	v.required("obs", d.Obs != nil)
	v.strs("obs", d.Obs, 1024, 64)
	if r := d.Reservoir; r != nil {
		v.obj("reservoir", func() { validateSamples(v, r) })
	}
	if x := d.Verdict; x != nil {
		v.obj("verdict", func() {
			v.enum("kind", x.Kind, verdictKinds)
			v.unit("score", x.Score)
			v.min("n", int64(x.N), 0)
			v.maxLen("threshold_source", x.ThresholdSource, 64)
			v.maxLen("tail", x.Tail, 32)
			v.min("lost", int64(x.Lost), 0)
			v.min("side", int64(x.Side), 0)
			v.min("call", int64(x.Call), 0)
		})
	}
	v.min("last_advised", int64(d.LastAdvised), 0)
	v.min("refocus_streak", int64(d.RefocusStreak), 0)
	v.min("advised", int64(d.Advised), 0)
	v.min("off_goal", int64(d.OffGoal), 0)
	v.min("off_changes", int64(d.OffChanges), 0)
	v.min("repeated", int64(d.Repeated), 0)
	v.min("prompt_at", int64(d.PromptAt), 0)
	v.min("failed_at", int64(d.FailedAt), 0)
	v.maxLen("text_mark", d.TextMark, 256)
	v.strs("idents", d.Idents, 32, 64)
	v.maxLen("switched", d.Switched, 128)
}

// validateClaim enforces the window schema's bounds on a claim of the
// repeat-complaint detector: each of complaints.claims, and complaints.done.
func validateClaim(v *vet, c *Claim) {
	v.min("clock", int64(c.Clock), 0)
	v.min("seq", int64(c.Seq), 0)
	v.maxLen("text", c.Text, 300)
}

// validateSamples enforces the schemas' reservoir: k, n_seen and items.
func validateSamples(v *vet, r *Samples) {
	v.intRange("k", int64(r.K), 1, 1024)
	v.min("n_seen", r.NSeen, 0)
	v.required("items", r.Items != nil)
	v.each("items", len(r.Items), 1024, func(i int) {
		s := &r.Items[i]
		v.min("seq", int64(s.Seq), 0)
		v.unit("score", s.Score)
		v.maxLen("tool", s.Tool, 256)
	})
}

// Validate enforces turn.schema.json.
func (t Turn) Validate() error {
	var v vet
	v.version(t.SchemaVersion)
	v.min("seq", int64(t.Seq), 0)
	v.maxLen("prompt_id", t.PromptID, 128)
	v.maxLen("agent_id", t.AgentID, 128)
	v.maxLen("tool", t.Tool, 256)
	v.strs("files", t.Files, 64, 4096)
	v.maxLen("summary", t.Summary, 400)
	v.min("output_chars", int64(t.OutputChars), 0)
	if t.Score != nil {
		v.unit("score", *t.Score)
	}
	if t.Topic != "" {
		v.enum("topic", t.Topic, topics)
	}
	return v.err()
}

// AdvisoryKinds returns the kinds an advisories.jsonl line may have: every
// advisory kind Djinn can record.
func AdvisoryKinds() []string { return slices.Clone(adviceKinds) }

// LimitClasses lists the classes a window's limit may have (the schema's
// enum of risk.limits[].class).
func LimitClasses() []string { return slices.Clone(limitClasses) }

// Validate enforces advisory.schema.json.
func (a Advisory) Validate() error {
	var v vet
	v.version(a.SchemaVersion)
	v.maxLen("event", a.Event, 64)
	v.maxLen("prompt_id", a.PromptID, 128)
	v.maxLen("agent_id", a.AgentID, 128)
	v.enum("kind", a.Kind, adviceKinds)
	v.enum("severity", a.Severity, severities)
	v.maxLen("text", a.Text, 10000)
	v.maxProps("numbers", len(a.Numbers), 32)
	v.min("seq", int64(a.Seq), 0)
	if a.Mode != "" {
		v.enum("mode", a.Mode, adviceModes)
	}
	if a.ID != "" {
		v.hex("id", a.ID, 12)
	}
	v.each("loop", len(a.Loop), 64, func(i int) { v.min("", int64(a.Loop[i]), 1) })
	return v.err()
}

// Validate enforces anchor.schema.json.
func (a Anchor) Validate() error {
	var v vet
	v.version(a.SchemaVersion)
	v.sessionID("session_id", a.SessionID)
	v.maxLen("text", a.Text, 4000)
	v.hex("hash", a.Hash, 12)
	v.enum("intent_type", a.IntentType, intentTypes)
	v.required("tokens", a.Tokens != nil)
	v.strs("tokens", a.Tokens, 512, 256)
	v.maxLen("prompt_id", a.PromptID, 128)
	v.enum("source", a.Source, anchorSources)
	v.required("deltas", a.Deltas != nil)
	v.each("deltas", len(a.Deltas), 20, func(i int) { validateDelta(&v, &a.Deltas[i]) })
	v.min("delta_count", int64(a.DeltaCount), 0)
	v.min("pivots", int64(a.Pivots), 0)
	v.min("reorients", int64(a.Reorients), 0)
	if t := a.Task; t != nil {
		v.obj("task", func() {
			v.maxLen("text", t.Text, 4000)
			v.maxLen("prompt_id", t.PromptID, 128)
			v.enum("source", t.Source, taskSources)
			v.strs("words", t.Words, 512, 256)
		})
	}
	v.each("instructions", len(a.Instructions), 8, func(i int) { validateDelta(&v, &a.Instructions[i]) })
	v.strs("words", a.Words, 512, 256)
	return v.err()
}

// validateDelta enforces the anchor schema's delta, the type of both
// deltas and instructions.
func validateDelta(v *vet, d *Delta) {
	v.maxLen("text", d.Text, 4000)
	v.unit("ratio", d.Ratio)
	v.maxLen("prompt_id", d.PromptID, 128)
}

// Validate enforces reservoir.schema.json.
func (r Reservoir) Validate() error {
	var v vet
	v.version(r.SchemaVersion)
	v.sessionID("session_id", r.SessionID)
	v.maxLen("anchor_hash", r.AnchorHash, 12)
	validateSamples(&v, &Samples{K: r.K, NSeen: int64(r.NSeen), Items: r.Items})
	return v.err()
}

// Validate enforces posteriors.schema.json.
func (p Posteriors) Validate() error {
	var v vet
	v.version(p.SchemaVersion)
	v.required("entries", p.Entries != nil)
	objects(&v, "entries", p.Entries, 4096, func(e *Posterior) {
		v.enum("intent_type", e.IntentType, intentTypes)
		v.hex("developer", e.Developer, 16)
		v.minNum("var", e.Var, 0)
		v.min("n", int64(e.N), 0)
		v.minNum("mean_len", e.MeanLen, 0)
	})
	v.each("learned", len(p.Learned), MaxLearned, func(i int) { v.sessionID("", p.Learned[i]) })
	// logged is checked as a learnings.jsonl line when it is appended.
	return v.err()
}

// Validate enforces learning.schema.json.
func (l Learning) Validate() error {
	var v vet
	v.version(l.SchemaVersion)
	v.sessionID("session_id", l.SessionID)
	v.enum("intent_type", l.IntentType, intentTypes)
	v.hex("developer", l.Developer, 16)
	v.unit("mean_score", l.MeanScore)
	v.min("samples", int64(l.Samples), 0)
	v.min("session_len", int64(l.SessionLen), 0)
	v.maxLen("reason", l.Reason, 200)
	return v.err()
}

// Clone returns a deep copy of w: what encoding/json decodes from w's
// encoding. A window encoding/json cannot encode (a NaN score, which Save
// refuses too) clones to the zero Window.
func (w *Window) Clone() Window {
	return clone(w)
}

// Clone returns a deep copy of a: what encoding/json decodes from a's
// encoding (the zero Anchor if it cannot be encoded).
func (a *Anchor) Clone() Anchor {
	return clone(a)
}

func clone[T any](v *T) T {
	var c T
	if raw, err := json.Marshal(v); err == nil {
		if err := json.Unmarshal(raw, &c); err != nil {
			var zero T
			return zero
		}
	}
	return c
}
