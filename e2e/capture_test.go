package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// payloadsDir is where captured fixtures go (the repository's testdata).
const payloadsDir = "../testdata/payloads"

// capture writes one redacted payload per event and variant, and the
// session's transcript, to payloadsDir. It runs only with -capture-payloads.
func capture(t *testing.T, env *Env, rec *Recorder, session string) {
	t.Helper()
	if env.Version != PinnedVersion {
		t.Fatalf("capture with CLI %s refused: the fixtures and their README are for %s", env.Version, PinnedVersion)
	}
	pick := func(event string, match func(Payload) bool) []byte {
		ps, err := rec.Decoded(event)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if match == nil || match(p) {
				return p.Raw
			}
		}
		t.Fatalf("capture: no %s payload to save", event)
		return nil
	}
	source := func(s string) func(Payload) bool { return func(p Payload) bool { return p.Source == s } }
	// The order fixes the fake ids: the session id becomes …0001.
	files := []struct {
		name string
		raw  []byte
	}{
		{"session-start-startup.json", pick("SessionStart", source("startup"))},
		{"user-prompt-submit.json", pick("UserPromptSubmit", nil)},
		{"post-tool-use.json", pick("PostToolUse", nil)},
		{"post-tool-use-failure.json", pick("PostToolUseFailure", nil)},
		{"stop.json", pick("Stop", nil)},
		{"session-start-resume.json", pick("SessionStart", source("resume"))},
		{"pre-compact-manual.json", pick("PreCompact", nil)},
		{"subagent-stop-compact.json", pick("SubagentStop", func(p Payload) bool { return p.AgentType == "" })},
		{"session-start-compact.json", pick("SessionStart", source("compact"))},
		{"session-end.json", pick("SessionEnd", nil)},
	}
	rd := newRedactor([][2]string{
		{ProjectKey(env.Project), ProjectKey("/work/proj")},
		{env.Project, "/work/proj"},
		{env.Home, "/home/user"},
		{rec.Dir, "/work/e2e-recorder"},
		{rec.LogDir, "/work/e2e-payloads"},
	})
	if err := os.MkdirAll(payloadsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	save := func(name string, data []byte) {
		if leak := leaked(data); leak != "" {
			t.Fatalf("capture: %s still holds a temporary path near %q", name, leak)
		}
		if err := os.WriteFile(filepath.Join(payloadsDir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("captured %s (%d bytes)", name, len(data))
	}
	for _, f := range files {
		save(f.name, append(rd.redact(f.raw), '\n'))
	}
	var transcript []byte
	for _, line := range readJSONL(t, env.Transcript(session)) {
		line, err := trimListing(line)
		if err != nil {
			t.Fatal(err)
		}
		transcript = append(transcript, rd.redact(line)...)
		transcript = append(transcript, '\n')
	}
	save("transcript-e2e.jsonl", transcript)
}

// leaked returns the text around a temporary directory left in data, or "".
func leaked(data []byte) string {
	tmp := os.TempDir()
	i := bytes.Index(data, []byte(tmp+string(filepath.Separator)))
	if i < 0 {
		return ""
	}
	return string(data[i:min(len(data), i+len(tmp)+40)])
}

var (
	uuidRE  = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	agentRE = regexp.MustCompile(`"(?:agent_id|agentId)":"([^"]+)"`)
)

// redactor replaces paths by fixed placeholders and ids by fake ones that
// depend only on the order in which they first appear, so that a recapture
// of the same scenario gives the same ids.
type redactor struct {
	paths  [][2]string // literal old → new, in order
	uuids  map[string]string
	agents map[string]string
	order  []string // agent ids, in order of appearance
}

func newRedactor(paths [][2]string) *redactor {
	return &redactor{paths: paths, uuids: map[string]string{}, agents: map[string]string{}}
}

func (r *redactor) redact(b []byte) []byte {
	s := string(b)
	// Agent ids are 17 hex-ish characters that no pattern catches safely;
	// learn them from their keys, then replace them everywhere (paths too).
	for _, m := range agentRE.FindAllStringSubmatch(s, -1) {
		if _, ok := r.agents[m[1]]; !ok {
			r.agents[m[1]] = fmt.Sprintf("a%016d", len(r.agents)+1)
			r.order = append(r.order, m[1])
		}
	}
	for _, id := range r.order {
		s = strings.ReplaceAll(s, id, r.agents[id])
	}
	for _, p := range r.paths {
		s = strings.ReplaceAll(s, p[0], p[1])
	}
	s = uuidRE.ReplaceAllStringFunc(s, func(u string) string {
		u = strings.ToLower(u)
		if f, ok := r.uuids[u]; ok {
			return f
		}
		f := fmt.Sprintf("00000000-0000-4000-8000-%012d", len(r.uuids)+1)
		r.uuids[u] = f
		return f
	})
	return []byte(s)
}

// trimListing replaces the text of the CLI's built-in skill and agent
// listings (attachment lines of several KB of Anthropic's prose that no
// Djinn test needs) by a placeholder; every other line is left byte for
// byte.
func trimListing(line []byte) ([]byte, error) {
	if !bytes.Contains(line, []byte(`"skill_listing"`)) && !bytes.Contains(line, []byte(`"agent_listing_delta"`)) {
		return line, nil
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("decode listing line: %w", err)
	}
	att, ok := m["attachment"].(map[string]any)
	if !ok {
		return line, nil
	}
	// Only the prose goes: names and types stay, so the line keeps its shape.
	const placeholder = "(redacted: Claude Code built-in listing)"
	if c, ok := att["content"].(string); ok && c != "" {
		att["content"] = placeholder
	}
	if l, ok := att["addedLines"].([]any); ok && len(l) > 0 {
		att["addedLines"] = []any{placeholder}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("encode listing line: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func TestRedactor(t *testing.T) {
	rd := newRedactor([][2]string{{"-tmp-x-proj", "-work-proj"}, {"/tmp/x/proj", "/work/proj"}, {"/tmp/x/home", "/home/user"}})
	in := `{"session_id":"88E3B24E-16e2-4b5d-b8c0-64fb4c4294dc","transcript_path":"/tmp/x/home/.claude/projects/-tmp-x-proj/88e3b24e-16e2-4b5d-b8c0-64fb4c4294dc.jsonl","cwd":"/tmp/x/proj","prompt_id":"b3ebd0bc-d93b-4fbd-bf92-6884d2a32bfc","agent_id":"a861fd247ce7d64f3","agent_transcript_path":"/tmp/x/home/subagents/agent-a861fd247ce7d64f3.jsonl"}`
	want := `{"session_id":"00000000-0000-4000-8000-000000000001","transcript_path":"/home/user/.claude/projects/-work-proj/00000000-0000-4000-8000-000000000001.jsonl","cwd":"/work/proj","prompt_id":"00000000-0000-4000-8000-000000000002","agent_id":"a0000000000000001","agent_transcript_path":"/home/user/subagents/agent-a0000000000000001.jsonl"}`
	if got := string(rd.redact([]byte(in))); got != want {
		t.Errorf("redact:\n got %s\nwant %s", got, want)
	}
	// Ids keep their fake value across calls.
	if got := string(rd.redact([]byte(`"b3ebd0bc-d93b-4fbd-bf92-6884d2a32bfc" a861fd247ce7d64f3`))); got != `"00000000-0000-4000-8000-000000000002" a0000000000000001` {
		t.Errorf("second call: %s", got)
	}

	listing := `{"type":"attachment","attachment":{"type":"agent_listing_delta","addedLines":["- Explore: <long>"],"addedTypes":["Explore"],"removedTypes":[],"isInitial":true},"uuid":"u"}`
	got, err := trimListing([]byte(listing))
	if err != nil {
		t.Fatal(err)
	}
	wantListing := `{"attachment":{"addedLines":["(redacted: Claude Code built-in listing)"],"addedTypes":["Explore"],"isInitial":true,"removedTypes":[],"type":"agent_listing_delta"},"type":"attachment","uuid":"u"}`
	if string(got) != wantListing {
		t.Errorf("trimListing:\n got %s\nwant %s", got, wantListing)
	}
	skills := `{"attachment":{"type":"skill_listing","content":"- deep-research: <long>","names":["deep-research"]}}`
	if got, _ := trimListing([]byte(skills)); !bytes.Contains(got, []byte(`"content":"(redacted`)) || !bytes.Contains(got, []byte(`"names":["deep-research"]`)) {
		t.Errorf("trimListing: %s", got)
	}
	other := []byte(`{"type":"user","message":{"content":"skill"}}`)
	if got, _ := trimListing(other); !bytes.Equal(got, other) {
		t.Errorf("trimListing changed a plain line: %s", got)
	}
}
