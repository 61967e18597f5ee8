package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompactionSummaryReachesOnlyPostCompact records what a hook can know
// of the compaction summary, with the real CLI: when SessionStart(compact)
// runs, the transcript holds neither the compact_boundary nor the summary
// yet, so a SessionStart(compact) hook cannot tell what the summary kept;
// PostCompact, which runs after it, gets the summary itself
// (compact_summary). A probe plugin beside Djinn copies the transcript at
// SessionStart(compact) and keeps PostCompact's payload.
func TestCompactionSummaryReachesOnlyPostCompact(t *testing.T) {
	t.Parallel()
	stub, env, _ := djinnScratch(t)
	probe := t.TempDir()
	out := filepath.Join(probe, "out")
	writeFile(t, filepath.Join(probe, ".claude-plugin", "plugin.json"), `{"name":"probe","version":"0.0.1","description":"keeps what hooks see around compaction"}`)
	atStart := `mkdir -p "$0" && cat > "$0/start.json" && tp=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["transcript_path"])' "$0/start.json") && cp "$tp" "$0/transcript.jsonl"`
	atPost := `mkdir -p "$0" && cat > "$0/post.json"`
	hook := func(script string) string {
		return `{"type":"command","command":"/bin/sh","args":["-c",` + jsonQuote(t, script) + `,` + jsonQuote(t, out) + `]}`
	}
	writeFile(t, filepath.Join(probe, "hooks", "hooks.json"), `{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[`+hook(atStart)+`]}],"PostCompact":[{"hooks":[`+hook(atPost)+`]}]}}`)
	limiterWork(t, stub, env)
	run1 := env.MustClaude(pluginRun(t, Run{Prompt: "Add a rate limiter to the upload handler in server.go", PluginDirs: []string{probe}}))
	env.MustClaude(pluginRun(t, Run{Prompt: "/compact", Resume: run1.SessionID, PluginDirs: []string{probe}}))

	b, err := os.ReadFile(filepath.Join(out, "transcript.jsonl"))
	if err != nil {
		t.Fatalf("the probe did not run at SessionStart(compact): %v", err)
	}
	if text := string(b); strings.Contains(text, `"compact_boundary"`) || strings.Contains(text, `"isCompactSummary":true`) {
		t.Errorf("the transcript already holds the compaction at SessionStart(compact); a hook there could read the summary")
	}
	var post struct {
		Event   string `json:"hook_event_name"`
		Summary string `json:"compact_summary"`
	}
	b, err = os.ReadFile(filepath.Join(out, "post.json"))
	if err == nil {
		err = json.Unmarshal(b, &post)
	}
	if err != nil || post.Event != "PostCompact" {
		t.Fatalf("PostCompact payload: %v %+v", err, post)
	}
	want := strings.TrimSuffix(strings.TrimPrefix(CompactSummary, "<summary>"), "</summary>")
	if !strings.Contains(post.Summary, want) {
		t.Errorf("PostCompact's compact_summary = %q, want the compactor's summary %q", post.Summary, want)
	}
}

func jsonQuote(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
