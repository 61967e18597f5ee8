package replay

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/hooks/transcript"
	"github.com/djinn-cc/djinn/state"
)

// corpus returns the transcripts to evaluate on: the team's corpus beside
// the repository when it is there (CI clones the repository with ../shared
// beside it), else the copies shipped in testdata/transcripts.
func corpusFiles(t *testing.T) (dir string, files []string) {
	t.Helper()
	for _, d := range []string{"../../../shared/corpus/transcripts", "../../testdata/transcripts"} {
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
	d := "../../../shared/corpus/transcripts"
	if _, err := os.Stat(filepath.Join(d, "spotter-258c7280-ae70-4798-800f-63464d01a85d.jsonl")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the shared corpus is missing (%v): CI runs with ../shared beside the repository", err)
		}
		t.Skip("the shared corpus (../shared/corpus/transcripts) is not beside the repository")
	}
	return d
}

func replayFile(t *testing.T, path string) *Report {
	t.Helper()
	rep, err := Run(context.Background(), path, Options{Settings: state.DefaultSettings()})
	if err != nil {
		t.Fatalf("replay %s: %v", path, err)
	}
	return rep
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

// TestTranscriptView holds transcriptView.LineType to transcript.PeekType
// on every line of the corpus and testdata, as the meter asks about them
// (the line with its newline, in a view that ends with it or later), and
// to known=false for anything that is not one whole line in the view;
// LineEntry to Decode likewise; and ViewAt to ReadAt within the view,
// refusing anything past it.
func TestTranscriptView(t *testing.T) {
	n, entries := 0, 0
	for _, f := range oracleFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, lines, err := readData(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(data, '\r') >= 0 || (len(data) > 0 && data[len(data)-1] != '\n') {
			continue // not shared: replay gives no view of types then
		}
		d := newDecoder(lines, "/tmp/replay-fs", false)
		d.peekLines(data)
		done := make(chan struct{})
		d.run(done)
		close(done)
		off := int64(0)
		for i, l := range lines {
			end := off + int64(len(l)) + 1
			want, werr := transcript.Decode(data[off:end])
			if werr == nil {
				entries++
			}
			for _, size := range []int64{end, min(end+int64(len(l))/2+1, int64(len(data)))} {
				v := &transcriptView{Reader: bytes.NewReader(data[:size]), buf: data[:size], size: size, d: d}
				// ViewAt gives what ReadAt reads, within the view only,
				// with no room to append into what follows.
				for _, q := range [][2]int64{{off, int64(len(l)) + 1}, {max(0, off-8), min(size-max(0, off-8), int64(len(l))+17)}, {size, 0}, {off, size - off + 1}, {-1, 2}} {
					b, ok := v.ViewAt(q[0], int(q[1]))
					want := q[0] >= 0 && q[0]+q[1] <= size
					if ok != want {
						t.Fatalf("%s line %d: ViewAt(%d, %d) ok %v in a view of %d bytes", f, i+1, q[0], q[1], ok, size)
					}
					if !ok {
						continue
					}
					r := make([]byte, q[1])
					if n, _ := v.ReadAt(r, q[0]); n != len(r) || !bytes.Equal(b, r) || cap(b) != len(b) {
						t.Fatalf("%s line %d: ViewAt(%d, %d) = %d bytes (cap %d), ReadAt %d", f, i+1, q[0], q[1], len(b), cap(b), n)
					}
				}
				// LineEntry gives Decode of the line, or nothing for a
				// line that does not decode.
				if e, known := v.LineEntry(off, len(l)+1); known != (werr == nil) || (known && !reflect.DeepEqual(*e, want)) {
					t.Fatalf("%s line %d: LineEntry known %v, differs from Decode (error %v)", f, i+1, known, werr)
				}
				wantTyp, wantOK := transcript.PeekType(data[off:end])
				if typ, ok, known := v.LineType(off, len(l)+1); !known || typ != wantTyp || ok != wantOK {
					t.Fatalf("%s line %d: LineType %q, %v, known %v; PeekType %q, %v", f, i+1, typ, ok, known, wantTyp, wantOK)
				}
				for _, q := range [][2]int64{{off + 1, int64(len(l))}, {off, int64(len(l))}, {off, int64(len(l)) + 2}, {off - 1, int64(len(l)) + 2}, {end, 1}} {
					if q[0] >= 0 && q[0]+q[1] <= size && q[1] > 0 && q[0]+q[1] <= int64(len(data)) {
						if _, _, known := v.LineType(q[0], int(q[1])); known && !(q[0] == end && size > end && len(lines) > i+1 && len(lines[i+1]) == 0) {
							t.Fatalf("%s line %d: LineType(%d, %d) known in a view of %d bytes; the line is [%d, %d)", f, i+1, q[0], q[1], size, off, end)
						}
						if _, known := v.LineEntry(q[0], int(q[1])); known && !(q[0] == end && size > end && len(lines) > i+1 && len(lines[i+1]) == 0) {
							t.Fatalf("%s line %d: LineEntry(%d, %d) known in a view of %d bytes; the line is [%d, %d)", f, i+1, q[0], q[1], size, off, end)
						}
					}
				}
			}
			off = end
			n++
		}
	}
	if n == 0 {
		t.Fatal("no transcript with a shared view")
	}
	if entries == 0 {
		t.Fatal("no line decoded")
	}
	t.Logf("%d lines, %d decoded", n, entries)
}

// TestFileMatchesDisk: every file content the fast path hands the hooks
// from memory (hooks.Env.File, for the loop detector's content hash) is
// the regular file on disk at that moment, byte for byte, over the corpus
// and testdata; TestFastPathMatchesPlain holds the hashes' effect on the
// reports to the path that reads every file.
func TestFileMatchesDisk(t *testing.T) {
	seen := 0
	for _, f := range oracleFiles(t) {
		opt := Options{Settings: state.DefaultSettings(), WorkDir: t.TempDir()}
		opt.fileSeen = func(path string, content []byte) {
			seen++
			fi, err := os.Lstat(path)
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("%s: Env.File has %s, which is not a regular file on disk (%v)", filepath.Base(f), path, err)
			}
			disk, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(disk, content) {
				t.Fatalf("%s: Env.File gives %d bytes for %s, the disk holds %d (%v)", filepath.Base(f), len(content), path, len(disk), err)
			}
		}
		if _, err := Run(context.Background(), f, opt); err != nil {
			t.Fatal(err)
		}
	}
	if seen == 0 {
		t.Fatal("no hook took a file from memory")
	}
	t.Logf("%d file contents from memory", seen)
}
