package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

var errNotYet = errors.New("not implemented yet")

func (a *app) replayCommand() *cli.Command {
	return &cli.Command{Name: "replay", Flags: commonFlags(), Action: func(*cli.Context) error { return errNotYet }}
}
func (a *app) rankCommand() *cli.Command {
	return &cli.Command{Name: "rank", Flags: commonFlags(), Action: func(*cli.Context) error { return errNotYet }}
}
func (a *app) reorientCommand() *cli.Command {
	return &cli.Command{Name: "reorient", Flags: commonFlags(), Action: func(*cli.Context) error { return errNotYet }}
}
func (a *app) statusCommand() *cli.Command {
	return &cli.Command{Name: "status", Flags: commonFlags(), Action: func(*cli.Context) error { return errNotYet }}
}
