package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/hooks/replay"
	"github.com/djinn-cc/djinn/settings"
)

func (a *app) replayCommand() *cli.Command {
	return command("replay", "feed Claude Code transcripts through Djinn's hooks and report what it would have said", "<transcript.jsonl>...", a.replay,
		&cli.BoolFlag{Name: "json", Usage: "print one JSON report for machines"},
		&cli.BoolFlag{Name: "quiet", Usage: "print only the summaries, not each advisory"},
		&cli.BoolFlag{Name: "keep-state", Usage: "keep the replay's state in --state-dir (one session per transcript)"},
		&cli.StringFlag{Name: "report", Usage: "write each replayed session's report (djinn report) into this directory as <session id>.html"},
		&cli.StringFlag{Name: "splice", Usage: "evaluate drift: replay the first --at of each transcript's tool calls, then this transcript's work (paths moved under the first's project root, no user prompts), and report the drift advisory's lag"},
		&cli.Float64Flag{Name: "at", Value: 0.4, Usage: "with --splice: the share of the first transcript's tool calls kept"},
	)
}

// replayOutput is the --json document.
type replayOutput struct {
	Reports []*replay.Report `json:"reports"`
	Total   replayTotal      `json:"total"`
}

type replayTotal struct {
	Files        int                `json:"files"`
	Events       int                `json:"events"`
	ToolCalls    int                `json:"tool_calls"`
	ByKind       map[string]int     `json:"by_kind"`
	Per100       map[string]float64 `json:"per_100_tool_calls"`
	EventsPerSec float64            `json:"events_per_second"`
}

func (a *app) replay(c *cli.Context) error {
	if c.NArg() == 0 {
		return usagef("replay: expected one or more transcript files")
	}
	if err := flagsFirst(c); err != nil {
		return err
	}
	// Replay's heap is mostly the transcripts it holds, live to the end, so
	// it is collected less often (GOGC=400 unless GOGC is set), under a soft
	// limit (unless GOMEMLIMIT is set) that keeps a very large replay from
	// growing to five times its live heap.
	if _, set := os.LookupEnv("GOGC"); !set {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
		if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(2 << 30))
		}
	}
	var stateDir string
	if c.Bool("keep-state") {
		// Replayed sessions go where --state-dir and the environment
		// say, never into a plugin's data that store would find.
		st, err := a.storeAt(c.String("state-dir"))
		if err != nil {
			return err
		}
		stateDir = st.Root
	}
	set, problems := settings.Load(stateDir, a.getenv, a.environ)
	for _, p := range problems {
		a.tui.errorf("%s", p)
	}
	if c.String("splice") != "" {
		return a.spliceReplay(c, set)
	}
	out := replayOutput{Total: replayTotal{ByKind: map[string]int{}, Per100: map[string]float64{}}}
	// Transcripts are independent (each gets its own scratch state), so
	// they are replayed side by side, one per CPU, the largest first (the
	// longest replays then overlap the short ones instead of ending last);
	// each file's output is buffered and printed in the order given.
	paths := c.Args().Slice()
	type result struct {
		rep    *replay.Report
		out    bytes.Buffer
		err    error
		report string // the session report's path (--report)
	}
	reportDir := c.String("report")
	if reportDir != "" {
		if err := os.MkdirAll(reportDir, 0o755); err != nil {
			return fmt.Errorf("--report: %w", err)
		}
	}
	results := make([]result, len(paths))
	start := time.Now()
	workers := max(1, runtime.GOMAXPROCS(0))
	order := make([]int, len(paths))
	for i := range order {
		order[i] = i
	}
	if stateDir != "" {
		workers = 1 // one shared state dir: in the order given
	} else {
		sizes := make([]int64, len(paths))
		for i, p := range paths {
			if fi, err := os.Stat(p); err == nil {
				sizes[i] = fi.Size()
			}
		}
		sort.SliceStable(order, func(a, b int) bool { return sizes[order[a]] > sizes[order[b]] })
	}
	next := make(chan int, len(order))
	for _, i := range order {
		next <- i
	}
	close(next)
	replayOne := func(i int) {
		path := paths[i]
		r := &results[i]
		opt := replay.Options{
			StateDir: stateDir,
			Settings: set,
			Notice:   func(m string) { a.tui.errorf("%s", m) },
		}
		if !c.Bool("json") && !c.Bool("quiet") {
			opt.OnEvent = func(ev replay.Event) {
				for _, adv := range ev.Fired {
					fmt.Fprintf(&r.out, "line %d, tool call %d, %s%s%s:\n  %s\n", adv.Line, adv.Call, adv.Event, agentNote(adv.Agent), modeNote(adv.Mode), strings.ReplaceAll(adv.Text, "\n", "\n  "))
				}
			}
		}
		if reportDir != "" {
			opt.Finish = a.replayReport(reportDir, path, set, &r.report)
		}
		r.rep, r.err = replay.Run(c.Context, path, opt)
		if r.err == nil && !c.Bool("json") {
			r.rep.Summary(&r.out)
			if r.report != "" {
				fmt.Fprintf(&r.out, "  report: %s\n", r.report)
			}
		}
	}
	var wg sync.WaitGroup
	for range min(workers, len(paths)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				replayOne(i)
			}
		}()
	}
	wg.Wait()
	seconds := time.Since(start).Seconds()
	for i, r := range results {
		if r.err != nil {
			return fmt.Errorf("replay %s: %w", paths[i], r.err)
		}
		if _, err := a.stdout.Write(r.out.Bytes()); err != nil {
			return err
		}
		rep := r.rep
		out.Reports = append(out.Reports, rep)
		out.Total.Files++
		out.Total.Events += rep.EventCount
		out.Total.ToolCalls += rep.ToolCalls
		for k, n := range rep.ByKind {
			out.Total.ByKind[k] += n
		}
	}
	if out.Total.ToolCalls > 0 {
		for k, n := range out.Total.ByKind {
			out.Total.Per100[k] = float64(n) * 100 / float64(out.Total.ToolCalls)
		}
	}
	if seconds > 0 {
		out.Total.EventsPerSec = float64(out.Total.Events) / seconds
	}
	if c.Bool("json") {
		return a.printJSON(out)
	}
	if out.Total.Files > 1 {
		fmt.Fprintf(a.stdout, "total: %d files, %d events, %d tool calls, %.0f events/s\n", out.Total.Files, out.Total.Events, out.Total.ToolCalls, out.Total.EventsPerSec)
		kinds := slices.Sorted(maps.Keys(out.Total.ByKind))
		for _, k := range kinds {
			fmt.Fprintf(a.stdout, "  %-12s %3d  (%.2f per 100 tool calls)\n", k, out.Total.ByKind[k], out.Total.Per100[k])
		}
	}
	return nil
}

// modeNote marks an advisory of a kind in observe mode.
func modeNote(mode string) string {
	if mode == string(settings.Observe) {
		return " (observed, not told to the agent)"
	}
	return ""
}

func agentNote(id string) string {
	if id == "" {
		return ""
	}
	return " (subagent " + id + ")"
}

// spliceReplay runs the drift splice evaluation for each transcript.
func (a *app) spliceReplay(c *cli.Context, set settings.Settings) error {
	type result struct {
		File      string            `json:"file"`
		Splice    string            `json:"splice"`
		Info      replay.SpliceInfo `json:"info"`
		FirstCall int               `json:"first_drift_call"`
		Lag       int               `json:"lag"`
		Detected  bool              `json:"detected"`
		Before    int               `json:"drift_before_splice"`
	}
	var results []result
	if set.Advisories.Drift == settings.Off && set.Drift.Enabled {
		// The evaluation is of drift's advisory, off by default: record
		// it (observe) unless drift itself is disabled.
		set.Advisories.Drift = settings.Observe
	}
	for _, path := range c.Args().Slice() {
		data, info, err := replay.Splice(path, c.String("splice"), c.Float64("at"))
		if err != nil {
			return err
		}
		dir, err := os.MkdirTemp("", "djinn-splice-")
		if err != nil {
			return err
		}
		spliced := filepath.Join(dir, "spliced.jsonl")
		if err := os.WriteFile(spliced, data, 0o600); err != nil {
			os.RemoveAll(dir)
			return err
		}
		rep, err := replay.Run(c.Context, spliced, replay.Options{Settings: set, Notice: func(m string) { a.tui.errorf("%s", m) }})
		os.RemoveAll(dir)
		if err != nil {
			return err
		}
		r := result{File: path, Splice: c.String("splice"), Info: info, FirstCall: -1, Lag: -1}
		for _, adv := range rep.Advisories {
			if adv.Kind != "drift" {
				continue
			}
			if adv.Call <= info.CutCalls {
				r.Before++
				continue
			}
			if !r.Detected {
				r.Detected, r.FirstCall, r.Lag = true, adv.Call, adv.Call-info.CutCalls
			}
		}
		results = append(results, r)
	}
	if c.Bool("json") {
		return a.printJSON(results)
	}
	for _, r := range results {
		lag := "not detected"
		if r.Detected {
			lag = fmt.Sprintf("drift at call %d, lag %d calls", r.FirstCall, r.Lag)
		}
		fmt.Fprintf(a.stdout, "splice %s (first %d calls) + %s (%d calls): %s; drift advisories before the splice: %d\n",
			filepath.Base(r.File), r.Info.CutCalls, filepath.Base(r.Splice), r.Info.Calls, lag, r.Before)
	}
	return nil
}
