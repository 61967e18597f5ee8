package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/internal/report"
	"github.com/djinn-cc/djinn/state"
)

func (a *app) logCommand() *cli.Command {
	return command("log", "list everything Djinn said in the session, oldest first, with the tool call each advisory fired at", "",
		a.onSession(func(c *cli.Context, env *hooks.Env, id string) error {
			kinds, err := logKinds(c.StringSlice("kind"))
			if err != nil {
				return err
			}
			entries, err := report.Log(env.Store, id)
			if err != nil {
				return err
			}
			entries = report.FilterKinds(entries, kinds)
			if c.Bool("json") {
				if entries == nil {
					entries = []report.Entry{}
				}
				return a.printJSON(struct {
					Session    string         `json:"session"`
					Advisories []report.Entry `json:"advisories"`
				}{id, entries})
			}
			report.WriteLog(a.stdout, id, entries, kinds)
			return nil
		}),
		&cli.StringSliceFlag{Name: "kind", Usage: "only advisories of this kind (repeatable, or a comma list): " + strings.Join(state.AdvisoryKinds(), ", ")},
		jsonFlag(),
	)
}

// logKinds checks --kind values (each may be a comma list) against the
// advisory kinds.
func logKinds(vals []string) ([]string, error) {
	known := state.AdvisoryKinds()
	var kinds []string
	for _, v := range vals {
		for _, k := range strings.Split(v, ",") {
			k = strings.TrimSpace(k)
			if k == "" {
				continue
			}
			if !slices.Contains(known, k) {
				return nil, usagef("--kind: unknown advisory kind %q (kinds: %s)", k, strings.Join(known, ", "))
			}
			if !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
	}
	return kinds, nil
}
