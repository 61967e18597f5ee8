// Command hookbench is the load generator of scripts/bench-hooks. It
// measures Djinn's hook latency as Claude Code pays it: each sample starts
// the commands hooks.json names for the event (SessionStart's startup and
// clear: the POSIX launcher hooks/djinn, which execs the cached binary;
// SessionStart(resume): the link to that binary in the plugin data
// directory and, beside it, `hooks/djinn ensure`, timed until both have
// exited; every other event: the link), each under the /bin/sh guard
// hooks.json wraps it in, as new processes with the payload on stdin, the
// plugin's environment set, and the state on the given directory (the
// machine's real disk, fsync on). Every sample is paired with a run of the
// floor (scripts/floor: a bare Go process that decodes the same stdin and
// prints {}), alternating which goes first, so both see the same machine;
// and the events' samples are taken in rounds, one pair of each event per
// round, so a burst of load lasting seconds falls on every event alike.
//
// Sessions of each requested length are grown in process first through the
// same handlers (hooks.Run) with a synthetic transcript; before every
// sample the session is put back exactly as it was (whole files rewritten,
// append-only logs cut back, new files removed, everything fsynced outside
// the timed span), so every sample measures the same event on the same
// state.
//
// It also records the state's bytes on disk per file as the longest session
// grows.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/djinn-cc/djinn/internal/synth"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hookbench:", err)
		os.Exit(1)
	}
}

type result struct {
	Calls    int       `json:"prior_tool_calls"`
	Event    string    `json:"event"`
	Hot      bool      `json:"hot"`
	Samples  int       `json:"samples"`
	Hook     quantiles `json:"hook_ms"`
	Floor    quantiles `json:"floor_ms"`
	RatioP50 float64   `json:"ratio_p50"`
	RatioP95 float64   `json:"ratio_p95"`
	RatioP99 float64   `json:"ratio_p99"`
	// P99CI is a 95% interval for the p99 ratio: the paired samples
	// resampled (bootstrap), so a run's figure can be told from the noise
	// of a few slow samples on a shared machine.
	P99CI  [2]float64 `json:"ratio_p99_ci95"`
	Errors int        `json:"errors"`
}

type quantiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

type sizePoint struct {
	Calls int              `json:"tool_calls"`
	Files map[string]int64 `json:"bytes"`
}

type report struct {
	Results    []result    `json:"latency"`
	Sizes      []sizePoint `json:"state_bytes"`
	FirstBuild float64     `json:"first_build_seconds"`
}

func run() error {
	var (
		pluginRoot = flag.String("plugin-root", ".", "the plugin (repository) root: CLAUDE_PLUGIN_ROOT")
		data       = flag.String("data", "", "scratch directory on the disk to measure: CLAUDE_PLUGIN_DATA (the state root and the binary cache) and the sessions' projects")
		floor      = flag.String("floor", "", "the floor binary")
		lengths    = flag.String("calls", "10,1000,10000", "session lengths (prior tool calls) to measure at")
		hotN       = flag.Int("samples", 400, "samples per per-call event and length")
		rareN      = flag.Int("rare-samples", 400, "samples per rare event (resume, PreCompact, compact, SessionEnd) and length")
		out        = flag.String("json", "", "write the results as JSON to this file")
		md         = flag.String("md", "", "write the results as Markdown tables to this file")
	)
	flag.Parse()
	if *data == "" || *floor == "" {
		return errors.New("-data and -floor are required")
	}
	root, err := filepath.Abs(*pluginRoot)
	if err != nil {
		return err
	}
	var sizes []int
	for _, f := range strings.Split(*lengths, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("-calls: %w", err)
		}
		sizes = append(sizes, n)
	}
	pluginData := filepath.Join(*data, "plugin-data")
	if err := os.MkdirAll(pluginData, 0o700); err != nil {
		return err
	}
	var rep report

	// The first hook builds the binary, as on a user's first SessionStart.
	env := append(os.Environ(), "CLAUDE_PLUGIN_ROOT="+root, "CLAUDE_PLUGIN_DATA="+pluginData)
	start := time.Now()
	cmds, err := hookCommands(root, pluginData, "SessionStart", "startup")
	if err != nil {
		return err
	}
	if len(cmds) != 1 {
		return fmt.Errorf("SessionStart(startup) runs %d commands; the first build expects one", len(cmds))
	}
	argv := cmds[0]
	warm := exec.Command(argv[0], argv[1:]...)
	warm.Env = append(env, "CLAUDE_PROJECT_DIR="+*data)
	warm.Stdin = strings.NewReader(`{"session_id":"warm-up","hook_event_name":"SessionStart","source":"startup","cwd":"/"}`)
	// Its only output is the notice that Djinn was built.
	if b, err := warm.CombinedOutput(); err != nil || len(b) > 0 && !strings.Contains(string(b), "djinn: built Djinn ") {
		return fmt.Errorf("first hook (build): %v: %s", err, b)
	}
	rep.FirstBuild = time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "first hook, including the build: %.1f s\n", rep.FirstBuild)

	for _, n := range sizes {
		dir := filepath.Join(*data, fmt.Sprintf("len-%d", n))
		s, err := synth.New(dir, pluginData, fmt.Sprintf("bench-%d", n), os.Getenv)
		if err != nil {
			return err
		}
		marks := map[int]bool{10: true, 100: true, 1000: true, 3000: true, 10000: true, 30000: true}
		sessDir, _ := s.Env.Store.SessionDir(s.ID)
		t0 := time.Now()
		if err := s.Grow(n, func(calls int) error {
			if marks[calls] && n == sizes[len(sizes)-1] {
				rep.Sizes = append(rep.Sizes, sizePoint{Calls: calls, Files: dirBytes(sessDir)})
			}
			return nil
		}); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "grew a session of %d tool calls in %.1f s\n", n, time.Since(t0).Seconds())
		events, err := nextEvents(s)
		if err != nil {
			return err
		}
		if err := s.Close(); err != nil {
			return err
		}
		snap, err := takeSnapshot(sessDir, pluginData)
		if err != nil {
			return err
		}
		henv := append(env, "CLAUDE_PROJECT_DIR="+s.Project)
		ms := make([]*measurement, len(events))
		for i, ev := range events {
			payload, err := wirePayload(ev.p)
			if err != nil {
				return err
			}
			samples := *rareN
			if ev.hot {
				samples = *hotN
			}
			// What Claude Code matches each event's matcher against.
			matchOn := ev.p.ToolName
			switch ev.p.HookEventName {
			case "SessionStart":
				matchOn = ev.p.Source
			case "PreCompact", "PostCompact":
				matchOn = ev.p.Trigger
			case "SessionEnd":
				matchOn = ev.p.Reason
			}
			cmds, err := hookCommands(root, pluginData, ev.p.HookEventName, matchOn)
			if err != nil {
				return err
			}
			ms[i] = &measurement{cmds: cmds, floor: *floor, env: henv, event: ev.p.HookEventName, payload: payload, samples: samples}
		}
		if err := measureInterleaved(ms, snap); err != nil {
			return fmt.Errorf("%d calls: %w", n, err)
		}
		for i, ev := range events {
			r := ms[i].result()
			r.Calls, r.Event, r.Hot = n, ev.name, ev.hot
			rep.Results = append(rep.Results, r)
			fmt.Fprintf(os.Stderr, "%6d calls  %-22s hook p50 %6.2f p99 %6.2f ms  floor p50 %5.2f p99 %5.2f ms  ratio p50 %.2f p99 %.2f (%.2f-%.2f)  errors %d\n",
				n, ev.name, r.Hook.P50, r.Hook.P99, r.Floor.P50, r.Floor.P99, r.RatioP50, r.RatioP99, r.P99CI[0], r.P99CI[1], r.Errors)
		}
		if err := snap.restore(); err != nil {
			return err
		}
	}
	if *md != "" {
		if err := os.WriteFile(*md, []byte(rep.markdown()), 0o644); err != nil {
			return err
		}
	}
	if *out != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*out, append(b, '\n'), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// wirePayload renders a payload as Claude Code sends it: only the fields
// the event carries (no nulls, no empty strings).
func wirePayload(p any) ([]byte, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range m {
		if v == nil || v == "" || v == false {
			delete(m, k)
		}
	}
	return json.Marshal(m)
}

// measurement is one event's samples: pairs of (hook, floor) runs.
type measurement struct {
	cmds    [][]string
	floor   string
	env     []string
	event   string
	payload []byte
	samples int

	hook, base []float64
	errs       int
}

// measureInterleaved takes the events' samples in rounds, one pair of each
// event per round (the session restored before each), so that a burst of
// load on the machine, which lasts seconds here, falls on all the events
// alike instead of on the tail of whichever was being measured.
func measureInterleaved(ms []*measurement, snap *snapshot) error {
	most := 0
	for _, m := range ms {
		most = max(most, m.samples)
	}
	for i := range most {
		for _, m := range ms {
			if i >= m.samples {
				continue
			}
			if err := snap.restore(); err != nil {
				return err
			}
			if err := m.pair(i); err != nil {
				return fmt.Errorf("%s: %w", m.event, err)
			}
		}
	}
	return nil
}

// pair runs the hook and the floor once each, the hook first on even
// samples.
func (m *measurement) pair(i int) error {
	runHook := func() error {
		d, stdout, stderr, err := timedAll(m.env, m.payload, m.cmds)
		if err != nil {
			return fmt.Errorf("hook: %w (stderr %q)", err, stderr)
		}
		if len(stderr) > 0 || (len(stdout) > 0 && stdout[0] == '{' && !json.Valid(stdout)) {
			m.errs++
			if m.errs == 1 {
				fmt.Fprintf(os.Stderr, "  hook %s said on stderr: %s\n", m.event, bytes.TrimSpace(stderr))
			}
		}
		m.hook = append(m.hook, d)
		return nil
	}
	runFloor := func() error {
		d, _, _, err := timed(m.env, m.payload, m.floor)
		if err != nil {
			return fmt.Errorf("floor: %w", err)
		}
		m.base = append(m.base, d)
		return nil
	}
	first, second := runHook, runFloor
	if i%2 == 1 {
		first, second = runFloor, runHook
	}
	if err := first(); err != nil {
		return err
	}
	return second()
}

// result summarises the samples.
func (m *measurement) result() result {
	r := result{Samples: len(m.hook), Hook: quantilesOf(m.hook), Floor: quantilesOf(m.base), Errors: m.errs}
	r.RatioP50 = round2(r.Hook.P50 / r.Floor.P50)
	r.RatioP95 = round2(r.Hook.P95 / r.Floor.P95)
	r.RatioP99 = round2(r.Hook.P99 / r.Floor.P99)
	lo, hi := ratioCI(m.hook, m.base, 0.99, 2000, rand.New(rand.NewPCG(uint64(len(m.hook)), 99)))
	r.P99CI = [2]float64{round2(lo), round2(hi)}
	return r
}

// timedAll starts the commands at once, each with payload on stdin, as
// Claude Code starts the hooks of an event, and returns the time until the
// last has exited, in milliseconds, with their outputs joined in order.
func timedAll(env []string, payload []byte, cmds [][]string) (float64, []byte, []byte, error) {
	if len(cmds) == 1 {
		return timed(env, payload, cmds[0][0], cmds[0][1:]...)
	}
	errs := make([]error, len(cmds))
	procs := make([]*exec.Cmd, len(cmds))
	bufs := make([][2]bytes.Buffer, len(cmds))
	for i, argv := range cmds {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(payload)
		cmd.Stdout, cmd.Stderr = &bufs[i][0], &bufs[i][1]
		procs[i] = cmd
	}
	t := time.Now()
	for i, cmd := range procs {
		errs[i] = cmd.Start()
	}
	for i, cmd := range procs {
		if errs[i] == nil {
			errs[i] = cmd.Wait()
		}
	}
	d := time.Since(t)
	var stdout, stderr []byte
	var first error
	for i := range procs {
		stdout = append(stdout, bufs[i][0].Bytes()...)
		stderr = append(stderr, bufs[i][1].Bytes()...)
		if errs[i] != nil && first == nil {
			first = fmt.Errorf("%s: %w", cmds[i][0], errs[i])
		}
	}
	return float64(d.Nanoseconds()) / 1e6, stdout, stderr, first
}

// timed starts one process with payload on stdin and returns its wall time
// in milliseconds, from start to exit.
func timed(env []string, payload []byte, name string, args ...string) (float64, []byte, []byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t := time.Now()
	err := cmd.Run()
	d := time.Since(t)
	return float64(d.Nanoseconds()) / 1e6, stdout.Bytes(), stderr.Bytes(), err
}

func quantilesOf(xs []float64) quantiles {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	q := func(p float64) float64 {
		// Nearest rank.
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return round2(s[max(0, min(i, len(s)-1))])
	}
	return quantiles{P50: q(0.50), P90: q(0.90), P95: q(0.95), P99: q(0.99), Max: q(1)}
}

// ratioCI is the percentile bootstrap's 95% interval for the ratio of the
// q-quantiles of hook and floor: the sample pairs (one hook and one floor
// run at the same moment) are drawn with replacement rounds times.
func ratioCI(hook, floor []float64, q float64, rounds int, rng *rand.Rand) (lo, hi float64) {
	n := len(hook)
	if n == 0 || len(floor) != n {
		return 0, 0
	}
	h, f := make([]float64, n), make([]float64, n)
	ratios := make([]float64, rounds)
	nearest := func(s []float64) float64 {
		slices.Sort(s)
		return s[max(0, min(int(math.Ceil(q*float64(n)))-1, n-1))]
	}
	for i := range ratios {
		for j := range n {
			k := rng.IntN(n)
			h[j], f[j] = hook[k], floor[k]
		}
		ratios[i] = nearest(h) / nearest(f)
	}
	slices.Sort(ratios)
	return ratios[int(0.025*float64(rounds))], ratios[int(math.Ceil(0.975*float64(rounds)))-1]
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// dirBytes returns the size of every file under dir, by name relative to
// it.
func dirBytes(dir string) map[string]int64 {
	out := map[string]int64{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			rel, _ := filepath.Rel(dir, p)
			out[rel] = fi.Size()
		}
		return nil
	})
	return out
}

// markdown renders the latency table and the state size table.
func (rep *report) markdown() string {
	var b strings.Builder
	b.WriteString("| prior tool calls | event | samples | hook p50 ms | hook p99 ms | floor p50 ms | floor p99 ms | p50 ratio | p99 ratio | p99 ratio, 95% CI | hook errors |\n")
	b.WriteString("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|\n")
	for _, r := range rep.Results {
		name := r.Event
		if !r.Hot {
			name += " (rare)"
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f to %.2f | %d |\n",
			r.Calls, name, r.Samples, r.Hook.P50, r.Hook.P99, r.Floor.P50, r.Floor.P99, r.RatioP50, r.RatioP99, r.P99CI[0], r.P99CI[1], r.Errors)
	}
	// The verdict on the target (p99 <= 3x the floor at the longest
	// session), event by event.
	longest := 0
	for _, r := range rep.Results {
		longest = max(longest, r.Calls)
	}
	var over, unsure []string
	worst := 0.0
	for _, r := range rep.Results {
		if r.Calls != longest {
			continue
		}
		worst = max(worst, r.RatioP99)
		if r.RatioP99 > 3 {
			over = append(over, fmt.Sprintf("%s (%.2f)", r.Event, r.RatioP99))
		}
		if r.P99CI[0] <= 3 && r.P99CI[1] > 3 {
			unsure = append(unsure, fmt.Sprintf("%s (%.2f to %.2f)", r.Event, r.P99CI[0], r.P99CI[1]))
		}
	}
	if len(over) == 0 {
		fmt.Fprintf(&b, "\nAt %d prior tool calls every event's p99 is at most 3x the floor's (highest ratio %.2f): target met in this run.\n", longest, worst)
	} else {
		fmt.Fprintf(&b, "\nAt %d prior tool calls the p99 ratio is above 3 for %s: target not met in this run.\n", longest, strings.Join(over, ", "))
	}
	if len(unsure) > 0 {
		fmt.Fprintf(&b, "The 95%% interval of the p99 ratio reaches past 3 for %s: with this many samples, this run cannot tell those from 3x.\n", strings.Join(unsure, ", "))
	}
	if len(rep.Sizes) > 0 {
		names := map[string]bool{}
		for _, sp := range rep.Sizes {
			for k := range sp.Files {
				names[k] = true
			}
		}
		var cols []string
		for k := range names {
			if k != "lock" {
				cols = append(cols, k)
			}
		}
		sort.Strings(cols)
		b.WriteString("\n| tool calls | " + strings.Join(cols, " | ") + " |\n|---:|" + strings.Repeat("---:|", len(cols)) + "\n")
		for _, sp := range rep.Sizes {
			fmt.Fprintf(&b, "| %d |", sp.Calls)
			for _, c := range cols {
				fmt.Fprintf(&b, " %d |", sp.Files[c])
			}
			b.WriteString("\n")
		}
		if n := len(rep.Sizes); n >= 2 {
			first, last := rep.Sizes[0], rep.Sizes[n-1]
			per := float64(last.Files["turns.jsonl"]-first.Files["turns.jsonl"]) / float64(last.Calls-first.Calls)
			fmt.Fprintf(&b, "\nturns.jsonl grows by %.0f bytes per tool call (one line each); advisories.jsonl by one line (about 0.5 to 1 KB) per advisory given.\n", per)
		}
	}
	fmt.Fprintf(&b, "\nFirst hook of a fresh install, including the build of the binary (Go build cache warm): %.1f s.\n", rep.FirstBuild)
	return b.String()
}
