package advice

// KindInstruction is a call that goes against an instruction in force: a
// limit the user set ("just analyse", "don't commit", "leave the template
// alone"), in a prompt or in the project's CLAUDE.md.
const KindInstruction = "instruction"

// InstructionFacts are what an instruction advisory states.
type InstructionFacts struct {
	Call int    // the call's number
	Tool string // Bash, Edit…
	// Step is what the call did against the instruction ("runs git
	// commit -m wip", "writes invoice-template.html").
	Step string
	// Said is the instruction in the user's words; Source where it was
	// said ("prompt" or "CLAUDE.md").
	Said, Source string
	// Failed: the call reported a failure, so the step may not have run.
	Failed bool
	// Named: the instruction is a value the user named (a model, a
	// version), which the step took out.
	Named bool
	// Again: the instruction is a step of a command the user declined,
	// which the call runs again.
	Again bool
}

// Instruction words the advisory: the step, the instruction it goes
// against, in the user's words, and one next step.
func Instruction(f InstructionFacts) Advisory {
	where := "the user said"
	lifted := "No later prompt lifted that."
	next := "stop and tell the user in one sentence what was done; undo it if they did not want it, and ask before going further."
	switch f.Source {
	case "CLAUDE.md":
		where = "the project's CLAUDE.md says"
	case "declined":
		where = "the user declined the same place"
		if f.Again {
			where = "the user declined the same step"
		}
	case "request":
		where, lifted = "the user asked only", "That leaves this step to the user."
	case "hook":
		where, lifted = "the user's own hook refused", "Doing it another way goes round the user's rule."
		next = "stop and tell the user in one sentence what the hook refused and what was done instead; undo it if they did not want it, and ask before going further."
	case "file":
		where = "the file itself says"
		next = "a hand edit of a generated file is lost when it is generated again: undo it, and change what it is generated from (its template or schema) and regenerate, or ask the user."
	}
	if f.Named {
		next = "tell the user in one sentence that what they chose was replaced and why, and ask whether to keep the change or put their value back."
	}
	failed := ""
	if f.Failed {
		failed = " The call reported a failure, so the step may not have run."
	}
	return withGist(finish(KindInstruction, Hard, map[string]float64{"call": float64(f.Call)},
		"Call #%d (%s) %s, but %s: %s. %s%s Next step: %s",
		f.Call, f.Tool, Clean(f.Step, 200), where, Quote(f.Said, 300), lifted, failed, next),
		"call #%d %s, against %s", f.Call, Clean(f.Step, 80), Quote(f.Said, 80))
}
