package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkStatusline is one status line of a real session, in process: the
// shipped spotter transcript (150 tool calls) replayed into a state root,
// then the whole command (flags, payload, two state files, the line) per
// iteration. Claude Code runs the command on every status refresh.
func BenchmarkStatusline(b *testing.B) {
	const sid = "4d5611e5-241a-462a-8d15-5122611a9569"
	dir := b.TempDir()
	transcript := filepath.Join("..", "..", "testdata", "transcripts", "spotter-"+sid+".jsonl")
	var out, errs bytes.Buffer
	if code := run(context.Background(), []string{"djinn", "replay", "--quiet", "--keep-state", "--state-dir", dir, transcript}, strings.NewReader(""), &out, &errs); code != 0 {
		b.Fatalf("replay: exit %d: %s", code, errs.String())
	}
	payload := `{"session_id":"` + sid + `","transcript_path":"` + transcript + `","cwd":"/work/proj","model":{"id":"claude-opus-4-6","display_name":"Opus 4.6"},"workspace":{"current_dir":"/work/proj","project_dir":"/work/proj","added_dirs":[]},"version":"2.1.197","output_style":{"name":"default"},"context_window":{"total_input_tokens":106060,"total_output_tokens":10,"context_window_size":200000,"used_percentage":53,"remaining_percentage":47},"exceeds_200k_tokens":false}`
	args := []string{"djinn", "statusline", "--state-dir", dir}
	for b.Loop() {
		out.Reset()
		errs.Reset()
		run(context.Background(), args, strings.NewReader(payload), &out, &errs)
		if out.Len() == 0 || errs.Len() != 0 {
			b.Fatalf("stdout %q, stderr %q", out.String(), errs.String())
		}
	}
}
