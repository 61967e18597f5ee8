// Command benchcompare prints, as a Markdown table, the hook latency ratios
// (hook over floor, p50, p95, and p99 with the p99's 95% interval) of two
// hookbench -json reports side by side: a "before" tree and an "after" one
// measured in the same scripts/bench-compare run.
package main

import (
	"encoding/json"
	"fmt"
	"os"
)

type result struct {
	Calls    int        `json:"prior_tool_calls"`
	Event    string     `json:"event"`
	RatioP50 float64    `json:"ratio_p50"`
	RatioP95 float64    `json:"ratio_p95"`
	RatioP99 float64    `json:"ratio_p99"`
	P99CI    [2]float64 `json:"ratio_p99_ci95"`
	Hook     struct {
		P50 float64 `json:"p50"`
		P99 float64 `json:"p99"`
	} `json:"hook_ms"`
	Errors int `json:"errors"`
}

type report struct {
	Results []result `json:"latency"`
}

func load(path string) ([]result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r.Results, nil
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: benchcompare before.json after.json")
		os.Exit(2)
	}
	before, err := load(os.Args[1])
	if err == nil {
		var after []result
		after, err = load(os.Args[2])
		if err == nil {
			print(before, after)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "benchcompare:", err)
	os.Exit(1)
}

func print(before, after []result) {
	type key struct {
		calls int
		event string
	}
	old := map[key]result{}
	for _, r := range before {
		old[key{r.Calls, r.Event}] = r
	}
	fmt.Println("| prior calls | event | before p50 ms | after p50 ms | before p50/floor | after p50/floor | before p95/floor | after p95/floor | before p99/floor (95% CI) | after p99/floor (95% CI) |")
	fmt.Println("|---:|---|---:|---:|---:|---:|---:|---:|---|---|")
	worst := 0.0
	// ratio is a ratio, or "–" where the tree's hookbench did not report it.
	ratio := func(x float64) string {
		if x == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f", x)
	}
	for _, a := range after {
		b, ok := old[key{a.Calls, a.Event}]
		bp50, br50, br95, bs := "–", "–", "–", "–"
		if ok {
			bp50 = fmt.Sprintf("%.2f", b.Hook.P50)
			br50 = fmt.Sprintf("%.2f", b.RatioP50)
			br95 = ratio(b.RatioP95)
			bs = fmt.Sprintf("%.2f (%.2f–%.2f)", b.RatioP99, b.P99CI[0], b.P99CI[1])
		}
		fmt.Printf("| %d | %s | %s | %.2f | %s | %.2f | %s | %s | %s | %.2f (%.2f–%.2f) |\n", a.Calls, a.Event, bp50, a.Hook.P50, br50, a.RatioP50, br95, ratio(a.RatioP95), bs, a.RatioP99, a.P99CI[0], a.P99CI[1])
		worst = max(worst, a.RatioP99)
	}
	fmt.Printf("\nHighest p99 ratio after: %.2f (target: at most 3).\n", worst)
}
