package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/hooks"
	"github.com/djinn-cc/djinn/internal/feedback"
	"github.com/djinn-cc/djinn/internal/hookmain"
	"github.com/djinn-cc/djinn/settings"
)

// configCommand is `djinn config`: every setting in force, as the hooks
// under the same state directory and environment load it, with the source
// of its value, and every value refused with why.
func (a *app) configCommand() *cli.Command {
	return command("config", "show every setting in force and where it comes from (default, config.json, plugin option, environment), and any value refused", "",
		func(c *cli.Context) error {
			st, err := a.storeNoArgs(c)
			if err != nil {
				return err
			}
			set, from, refused := hookmain.LoadSettings(st.Root, a.getenv, a.environ)
			// The settings just loaded, not reloaded (which would report
			// what they refused twice).
			env := &hooks.Env{Store: st, Settings: set, Getenv: a.getenv}
			if c.Bool("json") {
				fb := []string{}
				if prof, err := feedback.PeekProfile(st); err == nil {
					fb = append(fb, feedback.ProfileLines(env, prof)...)
				}
				return a.configJSON(set, from, refused, fb)
			}
			var b strings.Builder
			for _, kv := range set.Values() {
				v, err := json.Marshal(kv.Value)
				if err != nil {
					return err
				}
				src := from[kv.Key]
				where := src.Kind
				if src.Name != "" {
					where += " " + src.Name
				}
				fmt.Fprintf(&b, "%s = %s  (%s)\n", kv.Key, v, where)
			}
			for _, p := range refused {
				fmt.Fprintf(&b, "refused: %s\n", p)
			}
			if _, err := fmt.Fprint(a.stdout, b.String()); err != nil {
				return err
			}
			return feedback.WriteProfile(a.stdout, env)
		},
		jsonFlag())
}

// configJSON prints the settings with their sources as one JSON document.
// feedback are the developer's feedback adjustments in force
// (feedback.ProfileLines).
func (a *app) configJSON(set settings.Settings, from map[string]settings.Source, refused, feedback []string) error {
	type entry struct {
		Key    string          `json:"key"`
		Value  any             `json:"value"`
		Source settings.Source `json:"source"`
	}
	out := struct {
		Settings []entry  `json:"settings"`
		Refused  []string `json:"refused"`
		Feedback []string `json:"feedback"`
	}{Settings: []entry{}, Refused: refused, Feedback: feedback}
	if out.Refused == nil {
		out.Refused = []string{}
	}
	for _, kv := range set.Values() {
		out.Settings = append(out.Settings, entry{kv.Key, kv.Value, from[kv.Key]})
	}
	return a.printJSON(out)
}
