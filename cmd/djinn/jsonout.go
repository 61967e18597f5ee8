package main

import (
	"encoding/json"

	"github.com/urfave/cli/v2"
)

// jsonFlag is the --json flag of the commands that print their report as
// JSON instead of text.
func jsonFlag() cli.Flag { return &cli.BoolFlag{Name: "json", Usage: "print JSON"} }

// printJSON prints v on stdout as one indented JSON document: the form of
// every command's --json output.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
