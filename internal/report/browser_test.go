package report_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/djinn-cc/djinn/hooks/replay"
	"github.com/djinn-cc/djinn/internal/report"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// spotter is the shipped transcript the report is checked on: a real
// session with a compaction, failed calls and two advisories.
const spotter = "../../testdata/transcripts/spotter-4d5611e5-241a-462a-8d15-5122611a9569.jsonl"

// chromiumPath finds Debian's chromium: the test skips without it, except
// in CI (CI=true), whose .ci/run installs it.
func chromiumPath(tb testing.TB) string {
	tb.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		tb.Fatal("chromium is not installed (CI=true): .ci/run installs Debian's chromium package")
	}
	tb.Skip("chromium is not installed (apt-get install -y chromium); the report is not opened in a browser")
	return ""
}

// browser is a headless chromium driven over the DevTools protocol, with
// what the page logged: console errors, uncaught exceptions, and every
// request it made.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	errors   []string
	requests []string
}

func newBrowser(tb testing.TB) *browser {
	tb.Helper()
	exe := chromiumPath(tb)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		chromedp.WindowSize(1400, 1000),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	tb.Cleanup(func() { cancelC(); cancelA() })
	b := &browser{ctx: ctx}
	// chromedp enables the runtime, log and network domains of the tab.
	err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			b.errors = append(b.errors, "exception: "+ev.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				b.errors = append(b.errors, fmt.Sprintf("console.%s", ev.Type))
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				b.errors = append(b.errors, fmt.Sprintf("log %s: %s (%s)", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, ev.Request.URL)
		}
	})
	if err != nil {
		tb.Fatalf("start chromium: %v", err)
	}
	return b
}

// open loads a file; Navigate waits for the page's load event.
func (b *browser) open(tb testing.TB, path string) {
	tb.Helper()
	u := (&url.URL{Scheme: "file", Path: path}).String()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(u)); err != nil {
		tb.Fatalf("open %s: %v", path, err)
	}
}

// replayReport replays a transcript and writes its report into dir; it
// returns the report's path and the session as the report read it.
func replayReport(tb testing.TB, transcript, dir string) (string, *report.Session, []report.Entry) {
	tb.Helper()
	var path string
	var sess *report.Session
	var log []report.Entry
	_, err := replay.Run(context.Background(), transcript, replay.Options{
		Settings: settings.Default(),
		Finish: func(st *state.Store, id string) error {
			var err error
			if sess, err = report.LoadSession(st, id); err != nil {
				return err
			}
			// What djinn log prints for the session.
			if log, err = report.Log(st, id); err != nil {
				return err
			}
			path, err = report.WriteFile(st, id, filepath.Join(dir, id+".html"), report.HTMLOptions{Tiers: settings.Default().Pressure.Tiers, Source: filepath.Base(transcript)})
			return err
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return path, sess, log
}

// pageFacts is what the test reads from the rendered DOM.
type pageFacts struct {
	Title       string         `json:"title"`
	Markers     map[string]int `json:"markers"`
	Rows        int            `json:"rows"`
	Points      int            `json:"points"`
	Calls       int            `json:"calls"`
	Failed      int            `json:"failed"`
	Compactions int            `json:"compactions"`
	Prompts     int            `json:"prompts"`
	SVGWidth    float64        `json:"svgWidth"`
	MarkerTitle string         `json:"markerTitle"`
}

const factsJS = `(() => {
  const m = {};
  document.querySelectorAll('#markers .marker').forEach(e => { m[e.dataset.kind] = (m[e.dataset.kind] || 0) + 1; });
  let points = 0;
  document.querySelectorAll('#context-curve polyline').forEach(p => { points += p.points.numberOfItems; });
  points += document.querySelectorAll('#context-curve .ctx-unknown').length;
  const first = document.querySelector('#markers .marker[data-kind="edit-revert"] title');
  return {
    title: document.title,
    markers: m,
    rows: document.querySelectorAll('#advisories tbody tr').length,
    points: points,
    calls: document.querySelectorAll('#calls-lane rect').length,
    failed: document.querySelectorAll('#calls-lane rect.failed').length,
    compactions: document.querySelectorAll('#rules .compaction').length,
    prompts: document.querySelectorAll('#rules .prompt').length,
    svgWidth: document.getElementById('timeline').getBoundingClientRect().width,
    markerTitle: first ? first.textContent : '',
  };
})()`

// TestReportInChromium renders the replayed spotter session's report and
// opens it in headless chromium: no console error, no request but the
// file itself, one marker per advisory djinn log lists, by kind, one
// context point and one call tick per turn.
func TestReportInChromium(t *testing.T) {
	b := newBrowser(t)
	// The listener sees what it must: a control page's console error and
	// its request to the network.
	control := filepath.Join(t.TempDir(), "control.html")
	if err := os.WriteFile(control, []byte(`<!DOCTYPE html><title>c</title><img src="http://127.0.0.1:9/x.png"><script>console.error("control")</script>`), 0o600); err != nil {
		t.Fatal(err)
	}
	b.open(t, control)
	b.mu.Lock()
	if len(b.errors) == 0 || !slices.ContainsFunc(b.requests, func(u string) bool { return strings.HasPrefix(u, "http://127.0.0.1:9/") }) {
		t.Fatalf("the listener missed the control page's console error or request: errors %q, requests %q", b.errors, b.requests)
	}
	b.errors, b.requests = nil, nil
	b.mu.Unlock()

	path, sess, log := replayReport(t, spotter, t.TempDir())
	b.open(t, path)
	f, err := chromedp.Run(b.ctx, chromedp.Evaluate[pageFacts](factsJS))
	if err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.errors) > 0 {
		t.Errorf("console errors: %q", b.errors)
	}
	for _, u := range b.requests {
		if !strings.HasPrefix(u, "file://") {
			t.Errorf("the report fetched %s: it must work offline", u)
		}
	}
	// The markers are djinn log's advisories, kind for kind.
	want := map[string]int{}
	for _, e := range log {
		want[e.Kind]++
	}
	if len(log) != len(sess.Advisories) || len(sess.Advisories) == 0 || len(sess.Turns) != 150 {
		t.Fatalf("replayed session: %d advisories (djinn log: %d), %d turns; want some advisories, the same in the log, and 150 turns", len(sess.Advisories), len(log), len(sess.Turns))
	}
	if fmt.Sprint(f.Markers) != fmt.Sprint(want) {
		t.Errorf("markers by kind %v, djinn log by kind %v", f.Markers, want)
	}
	if f.Rows != len(sess.Advisories) {
		t.Errorf("%d advisory rows, %d advisories", f.Rows, len(sess.Advisories))
	}
	if f.Points != len(sess.Turns) || f.Calls != len(sess.Turns) {
		t.Errorf("context points %d, call ticks %d; want one per turn, %d", f.Points, f.Calls, len(sess.Turns))
	}
	failed := 0
	for _, tu := range sess.Turns {
		if tu.Failed {
			failed++
		}
	}
	if f.Failed != failed || failed == 0 {
		t.Errorf("failed call ticks %d, failed turns %d", f.Failed, failed)
	}
	// The transcript compacts once, after call 69, and has three prompts
	// with tool calls after them.
	if f.Compactions != 1 || f.Prompts != 3 {
		t.Errorf("compaction rules %d, prompt rules %d; want 1 and 3", f.Compactions, f.Prompts)
	}
	if !strings.Contains(f.MarkerTitle, "call #82: edit-revert") || !strings.Contains(f.MarkerTitle, "count=1") {
		t.Errorf("the edit-revert marker's tooltip does not give its call, text and numbers: %q", f.MarkerTitle)
	}
	if f.SVGWidth < 1000 || !strings.Contains(f.Title, sess.ID) {
		t.Errorf("title %q, timeline width %.0f px in a 1400 px window", f.Title, f.SVGWidth)
	}
}

// BenchmarkReportOpen opens the report of a synthetic 1,000-call session
// (with an advisory every five calls) in headless chromium, to its load
// event: the time a person waits for it. It reports the file's size too.
func BenchmarkReportOpen(b *testing.B) {
	br := newBrowser(b)
	path := syntheticReport(b, b.TempDir(), 1000)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	var ms float64
	b.ResetTimer()
	for b.Loop() {
		br.open(b, path)
		t, err := chromedp.Run(br.ctx, chromedp.Evaluate[float64](`performance.getEntriesByType('navigation')[0].loadEventEnd`))
		if err != nil {
			b.Fatal(err)
		}
		ms += t
	}
	b.ReportMetric(ms/float64(b.N), "load-ms/op")
	b.ReportMetric(float64(fi.Size())/1e6, "MB")
}
