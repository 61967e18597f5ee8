package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/internal/feedback"
	"github.com/djinn-cc/djinn/state"
)

// feedbackCommand is `djinn feedback <advisory-id> wrong|right`: the
// user's judgement of any advisory, recorded in its session's state and
// taught to the developer's profile, as /djinn:wrong does for the latest.
func (a *app) feedbackCommand() *cli.Command {
	return command("feedback", "judge an advisory (its id from djinn status or advisories.jsonl) wrong or right: a kind judged wrong is quieted for this developer, right undoes it", "<advisory-id> wrong|right",
		func(c *cli.Context) error {
			if err := flagsFirst(c); err != nil {
				return err
			}
			if c.NArg() != 2 {
				return usagef("feedback: expected <advisory-id> wrong|right, got %d arguments", c.NArg())
			}
			id, verdict := c.Args().Get(0), c.Args().Get(1)
			if verdict != state.VerdictWrong && verdict != state.VerdictRight {
				return usagef("feedback: verdict %q: want wrong or right", verdict)
			}
			env, err := a.env(c)
			if err != nil {
				return err
			}
			session := c.String("session")
			if session != "" {
				if err := state.ValidateSessionID(session); err != nil {
					return usagef("--session: %v", err)
				}
			}
			sid, adv, err := feedback.FindAdvisory(env.Store, session, id)
			if errors.Is(err, feedback.ErrNoAdvisory) {
				return usagef("feedback: %v (the ids are in djinn status and advisories.jsonl)", err)
			}
			if err != nil {
				return err
			}
			j, err := feedback.Judge(c.Context, env, sid, adv, verdict, c.String("note"))
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.stdout, "session %s: %s\n", sid, j.Line(env.Settings))
			return err
		},
		&cli.StringFlag{Name: "note", Usage: "why, in a few words (kept with the judgement)"})
}
