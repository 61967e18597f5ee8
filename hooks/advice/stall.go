package advice

import (
	"fmt"
	"strings"
)

// StallFacts describe a text stall found in a finished message.
type StallFacts struct {
	Rule    string
	Start   int // rune offset where the repetition began
	Period  int
	Repeats int
	Unit    string
	// Before is the text just before the repetition: where to continue.
	Before string
	Agent  string
	// Prompt is the user's divergence prompt ("" for the default); {start}
	// and {quote} are filled in.
	Prompt         string
	Rollbacks, Max int
}

func (f StallFacts) facts() string {
	who := "Your last message"
	if f.Agent != "" {
		who = "The subagent's last message"
	}
	unit := Quote(f.Unit, 80)
	return fmt.Sprintf("%s started repeating itself at character %d: %s repeats %d times (a %d-character unit; rule %s).",
		who, f.Start, unit, f.Repeats, f.Period, f.Rule)
}

func (f StallFacts) continueFrom() string {
	if f.Prompt != "" {
		p := strings.ReplaceAll(f.Prompt, "{start}", fmt.Sprint(f.Start))
		return strings.ReplaceAll(p, "{quote}", Quote(f.Before, 80))
	}
	if strings.TrimSpace(f.Before) == "" {
		return "Start the answer again with a different approach, and do not repeat that phrase."
	}
	return fmt.Sprintf("The text before that point stands. Continue from just after %s with a different approach, without repeating that phrase.", Quote(f.Before, 80))
}

// StallRollback is the Stop block reason: the facts, where the loop began,
// and the divergence prompt.
func StallRollback(f StallFacts) Advisory {
	nums := map[string]float64{"start": float64(f.Start), "period": float64(f.Period), "repeats": float64(f.Repeats), "rollback": float64(f.Rollbacks), "max_rollbacks": float64(f.Max)}
	return finish(KindStall, Block, nums, "%s %s (Rollback %d of at most %d for this prompt.)", f.facts(), f.continueFrom(), f.Rollbacks, f.Max)
}

// StallAdvice is the same finding as advice, for the agent's next hook.
func StallAdvice(f StallFacts) Advisory {
	nums := map[string]float64{"start": float64(f.Start), "period": float64(f.Period), "repeats": float64(f.Repeats)}
	return withGist(finish(KindStall, Soft, nums, "%s If that message is still being relied on, keep only the part before the repetition. Next step: when answering again, take a different approach rather than repeating the phrase.", f.facts()),
		"its last message repeats %s", Quote(f.Unit, 60))
}

// StallUserMessage tells the user about a stall that was not rolled back.
func StallUserMessage(f StallFacts, gaveUp bool) string {
	if gaveUp {
		return fmt.Sprintf("djinn: the last message repeats %s from character %d; %d rollbacks already for this prompt, so the turn ends here.", Quote(f.Unit, 60), f.Start, f.Max)
	}
	return fmt.Sprintf("djinn: the last message repeats %s from character %d (rollback is off: advice only).", Quote(f.Unit, 60), f.Start)
}

// StallAnswer is what a Stop (or a real subagent's SubagentStop) does about
// a stall: exactly one of Block, GaveUp, Pending and Observed is set.
type StallAnswer struct {
	// Advisory is logged; with Block it is also the block's reason.
	Advisory Advisory
	// Block rolls the message back: decision "block" with the divergence
	// prompt. The caller counts the rollback.
	Block bool
	// GaveUp: this prompt's rollbacks are used up, so the turn ends and the
	// user is told.
	GaveUp bool
	// Pending: advice only (rollback off); the advisory waits for the
	// agent's next hook.
	Pending bool
	// Observed: the stall kind is in observe mode; the finding is recorded
	// and the user told, the agent neither told nor rolled back.
	Observed bool
	// UserMessage is the user's systemMessage when not rolling back (only a
	// Stop can carry it).
	UserMessage string
}

// StallObserve is what a stall comes to when its kind is in observe mode:
// no rollback and nothing for the agent, the finding recorded and the user
// told.
func StallObserve(f StallFacts) StallAnswer {
	msg := fmt.Sprintf("djinn: the last message repeats %s from character %d (stall is in observe mode: not rolled back, the agent not told).", Quote(f.Unit, 60), f.Start)
	return StallAnswer{Advisory: StallAdvice(f), Observed: true, UserMessage: msg}
}

// Stall decides about a stall given the rollbacks already made for this
// prompt and agent (f.Rollbacks, of at most f.Max) and whether rollback is
// on: roll back while rollbacks remain, give up (a hard advisory) once they
// are used up, and only advise when rollback is off.
func Stall(f StallFacts, rollback bool) StallAnswer {
	switch {
	case !rollback:
		return StallAnswer{Advisory: StallAdvice(f), Pending: true, UserMessage: StallUserMessage(f, false)}
	case f.Rollbacks >= f.Max:
		a := StallAdvice(f)
		a.Severity = Hard
		return StallAnswer{Advisory: a, GaveUp: true, UserMessage: StallUserMessage(f, true)}
	}
	f.Rollbacks++
	return StallAnswer{Advisory: StallRollback(f), Block: true}
}
