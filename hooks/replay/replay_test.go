package replay

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/settings"
)

// corpusDir holds the team's corpus of real Claude Code transcripts
// (shared, read-only, not part of the repository); tests and benchmarks
// that need it skip without it, or use the copies in testdata.
const corpusDir = "../../../shared/corpus/transcripts"

// corpus returns the transcripts to evaluate on: the team's corpus beside
// the repository when it is there (CI clones the repository with ../shared
// beside it), else the copies shipped in testdata/transcripts.
func corpusFiles(t *testing.T) (dir string, files []string) {
	t.Helper()
	for _, d := range []string{corpusDir, "../../testdata/transcripts"} {
		m, _ := filepath.Glob(filepath.Join(d, "*.jsonl"))
		if len(m) > 0 {
			sort.Strings(m)
			return d, m
		}
	}
	t.Fatal("no transcripts found in ../shared/corpus/transcripts or testdata/transcripts")
	return "", nil
}

// sharedCorpus returns the team corpus, which holds the second long session
// the same-repository splices need; outside CI its absence skips, in CI it
// fails.
func sharedCorpus(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(corpusDir, "spotter-258c7280-ae70-4798-800f-63464d01a85d.jsonl")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the shared corpus is missing (%v): CI runs with ../shared beside the repository", err)
		}
		t.Skip("the shared corpus (../shared/corpus/transcripts) is not beside the repository")
	}
	return corpusDir
}

func replayFile(t *testing.T, path string) *Report {
	t.Helper()
	rep, err := Run(context.Background(), path, Options{Settings: driftOn()})
	if err != nil {
		t.Fatalf("replay %s: %v", path, err)
	}
	return rep
}

// driftOn is the default settings with drift's advisory recorded
// (observe), as the evaluations of drift need it: its default is off.
func driftOn() settings.Settings {
	set := settings.Default()
	set.Advisories.Drift = settings.Observe
	return set
}

var measured = map[string]bool{
	hooks.UserPromptSubmit: true, hooks.PostToolUse: true, hooks.PostToolUseFailure: true, hooks.Stop: true, hooks.PreCompact: true,
}

// TestMeterMatchesTranscript: at every hook that reads the meter, its
// reading equals the usage of the last main-chain assistant line the
// transcript held at that moment (replay tracks that independently, from
// the lines it writes), and is unknown after a compaction.
func TestMeterMatchesTranscript(t *testing.T) {
	_, files := corpusFiles(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			rep := replayFile(t, f)
			checked := 0
			for _, c := range rep.Context {
				if !measured[c.Event] {
					continue
				}
				checked++
				switch {
				case c.Expected < 0 && !c.Stale:
					t.Errorf("line %d %s: meter says %d tokens, the transcript shows nothing current (compacted)", c.Line, c.Event, c.Tokens)
				case c.Expected >= 0 && (c.Stale || c.Tokens != c.Expected):
					t.Errorf("line %d %s: meter %d (stale %v), transcript %d", c.Line, c.Event, c.Tokens, c.Stale, c.Expected)
				}
			}
			if rep.ToolCalls > 0 && checked == 0 {
				t.Errorf("no meter readings checked")
			}
			t.Logf("%d readings checked", checked)
		})
	}
}

// TestCorpusQuiet: the corpus is real, on-task work. Over all of it there
// is at most one drift advisory per 200 tool calls and at most one loop
// advisory per 100 (issue figures), and no stall rollback.
func TestCorpusQuiet(t *testing.T) {
	_, files := corpusFiles(t)
	calls, drift, loops, stalls := 0, 0, 0, 0
	for _, f := range files {
		rep := replayFile(t, f)
		calls += rep.ToolCalls
		drift += rep.ByKind["drift"]
		loops += rep.ByKind["read-loop"] + rep.ByKind["edit-revert"] + rep.ByKind["fail-loop"] + rep.ByKind["tool-loop"]
		stalls += rep.ByKind["stall"]
		t.Logf("%s: %d tool calls, drift %d, loops %d, stall %d", filepath.Base(f), rep.ToolCalls, rep.ByKind["drift"],
			rep.ByKind["read-loop"]+rep.ByKind["edit-revert"]+rep.ByKind["fail-loop"]+rep.ByKind["tool-loop"], rep.ByKind["stall"])
	}
	t.Logf("corpus: %d tool calls, %d drift, %d loop, %d stall advisories", calls, drift, loops, stalls)
	if calls == 0 {
		t.Fatal("no tool calls replayed")
	}
	if drift*200 > calls {
		t.Errorf("%d drift advisories over %d tool calls: more than one per 200", drift, calls)
	}
	if loops*100 > calls {
		t.Errorf("%d loop advisories over %d tool calls: more than one per 100", loops, calls)
	}
	if stalls > 0 {
		t.Errorf("%d stall rollbacks on ordinary assistant messages", stalls)
	}
}

// TestSplicesDrift: the first 40% of a real session, then the work of a
// session about another task (paths moved under the first project's root,
// no user prompts) gets [djinn:drift] within 15 tool calls of the splice,
// and nothing before it. Two pairs are sessions of the same repository.
func TestSplicesDrift(t *testing.T) {
	d := sharedCorpus(t)
	a := filepath.Join(d, "spotter-4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
	b := filepath.Join(d, "spotter-258c7280-ae70-4798-800f-63464d01a85d.jsonl")
	for _, tc := range []struct{ first, then string }{
		{a, b}, // same repository
		{b, a}, // same repository
		{a, filepath.Join(d, "spotter-subagent.jsonl")},
		{b, filepath.Join(d, "spotter-subagent.jsonl")},
		{a, filepath.Join(d, "agentlogs-crud.jsonl")},
		{b, filepath.Join(d, "agentlogs-crud.jsonl")},
	} {
		name := filepath.Base(tc.first)[:16] + "+" + filepath.Base(tc.then)
		t.Run(name, func(t *testing.T) {
			data, info, err := Splice(tc.first, tc.then, 0.4)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "spliced.jsonl")
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			rep := replayFile(t, p)
			lag := -1
			for _, adv := range rep.Advisories {
				if adv.Kind != "drift" {
					continue
				}
				if adv.Call <= info.CutCalls {
					t.Errorf("drift advisory at call %d, before the splice at %d", adv.Call, info.CutCalls)
					continue
				}
				lag = adv.Call - info.CutCalls
				break
			}
			t.Logf("splice after call %d (%d calls spliced in): lag %d", info.CutCalls, info.Calls, lag)
			if lag < 0 || lag > 15 {
				t.Errorf("drift lag %d, want 1..15", lag)
			}
		})
	}
}

// TestMillis: the summary's duration is in milliseconds below a second,
// also when it rounds to none.
func TestMillis(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0ms"},
		{400 * time.Microsecond, "0ms"},
		{500 * time.Microsecond, "1ms"},
		{12*time.Millisecond + 300*time.Microsecond, "12ms"},
		{999 * time.Millisecond, "999ms"},
		{999*time.Millisecond + 600*time.Microsecond, "1s"},
		{1234567 * time.Microsecond, "1.235s"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := millis(tc.d); got != tc.want {
				t.Errorf("millis(%v) = %q, want %q", tc.d, got, tc.want)
			}
		})
	}
}
