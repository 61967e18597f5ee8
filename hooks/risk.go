package hooks

import (
	"cmp"
	"encoding/json"
	"path"
	"slices"
	"strings"

	"github.com/djinn-cc/djinn/engines/drift"
	"github.com/djinn-cc/djinn/engines/loops"
	"github.com/djinn-cc/djinn/engines/risk"
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/hooks/transcript"
	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// Bounds of the risk catalogue's memory (state.Risk).
const (
	riskPrompts      = 3
	riskPromptRunes  = 4000
	riskWritten      = 64
	riskSecrets      = 8
	riskAdvisedKinds = 32
)

// riskInput is what the catalogue reads of a call's input.
type riskInput struct {
	Command   string `json:"command"`
	NoSandbox bool   `json:"dangerouslyDisableSandbox"`
	// RunInBackground: a Bash call the agent sent to the background itself.
	RunInBackground bool   `json:"run_in_background"`
	FilePath        string `json:"file_path"`
	NotebookPath    string `json:"notebook_path"`
	Content         string `json:"content"`
	OldString       string `json:"old_string"`
	NewString       string `json:"new_string"`
	Edits           []struct {
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
	} `json:"edits"`
	// Path, Query and SQL are MCP servers' names for a file tool's file
	// and a database tool's query (mcpAs). PathInProject, Text, OldText
	// and NewText are the JetBrains server's: a file relative to the
	// project, the text create_new_file writes, what replace_text_in_file
	// replaces.
	Path          string `json:"path"`
	PathInProject string `json:"pathInProject"`
	Text          string `json:"text"`
	OldText       string `json:"oldText"`
	NewText       string `json:"newText"`
	Query         string `json:"query"`
	SQL           string `json:"sql"`
	// Plan is ExitPlanMode's plan.
	Plan string `json:"plan"`
	// URL is WebFetch's address.
	URL string `json:"url"`
}

// mcpAs is what an MCP server's tool does as the catalogue reads it,
// told by its name's last part and its input: a command to run (Bash), a
// file to write or edit, a query that changes a database (SQL); "" for
// anything else. mcp__desktop-commander__write_file writes a file as Write
// does and is as risky (ext-voicehooks #46 rewrote the user's
// ~/.claude/settings.json so).
func mcpAs(tool string, in *riskInput) string {
	if !strings.HasPrefix(tool, "mcp__") {
		return ""
	}
	has := func(ws ...string) bool { return mcpSays(tool, ws...) }
	file := in.FilePath != "" || in.Path != "" || in.PathInProject != ""
	for _, k := range []struct {
		as   string
		ok   bool
		says []string
	}{
		{"Bash", in.Command != "", []string{"run", "exec", "command", "shell", "process", "bash", "terminal"}},
		{"Write", file && !has("dir", "folder"), []string{"write", "create", "save", "put"}},
		{"Edit", file, []string{"edit", "replace", "patch", "update", "block"}},
		{"SQL", in.Query != "" || in.SQL != "", []string{"sql", "migration", "query", "execute"}},
	} {
		if k.ok && has(k.says...) {
			return k.as
		}
	}
	return ""
}

// mcpSays reports whether an MCP tool's own name (after its server's,
// lowercased) holds one of words: what mcpAs and readsDocument read of it.
func mcpSays(tool string, words ...string) bool {
	if !strings.HasPrefix(tool, "mcp__") {
		return false
	}
	op := strings.ToLower(tool[strings.LastIndex(tool, "__")+2:])
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(op, w) })
}

// riskPrompt keeps the latest user prompts, which may cover a risky step:
// typed prompts only, not slash commands or machine-injected text; and,
// for a prompt that picks one of the options the agent's last message
// offered by its number, that option's text.
func (s *session) riskPrompt(p *Payload) {
	t := strings.TrimSpace(p.Prompt)
	if t == "" || p.Source != "" || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "<") {
		return
	}
	s.riskText(t)
}

// riskText reads a text the person typed (a prompt, or what they said as
// they declined a call) for the risk catalogue and the instructions in
// force.
func (s *session) riskText(t string) {
	s.keepPrompt(t)
	if opt, ok := risk.PickedOption(t, s.w.LastAssistant); ok {
		// "Option 1 of course": what the agent offered as option 1 is
		// what the person asked for.
		s.keepPrompt(opt)
	} else if s.w.LastAssistant != "" && (risk.GoAhead(t) || risk.AnswersOffer(t, s.w.LastAssistant) || risk.AsksToDelete(t)) {
		// "yes", "có", "cancella i file orfani", "remove them": the person
		// answers the agent's last message (instructions).
		r := s.riskState()
		r.Answered, r.AnsweredPrompt = s.w.LastAssistant, s.w.UserPrompts
	}
	for _, item := range risk.ItemsNamed(t, s.w.LastAssistant) {
		// "version managers ok cancella": the item of the agent's list
		// the person names by its title is what they ask to delete, with
		// the words they asked it in.
		s.keepPrompt(item + "\n" + t)
	}
	s.limitsFromPrompt(t)
	s.noteGiven(t)
	if l, ok := risk.ShellInstead(t, s.declinedBash()); ok {
		s.addLimit(l, fromPrompt)
		// "Now use BetterBash please" after a declined push: the No was
		// to the tool, not the step (athena-camera #44, the push run
		// again, the user's next words "great, nice work").
		r := s.riskState()
		r.Limits = slices.DeleteFunc(r.Limits, func(l state.Limit) bool { return l.Class == string(risk.DeclinedStep) })
	}
}

// noteAnswers keeps what the person chose in answer to the agent's
// questions (AskUserQuestion) with the prompts that may cover a risky
// step: the question and the option chosen, with its description. A step
// the person picked is asked for (ext-webtech #24: "--no-verify" chosen
// for a worktree without its hooks, labelled false by both judges of the
// twenty-fifth set).
func (s *session) noteAnswers(p *Payload) {
	if p.ToolName != "AskUserQuestion" || p.HookEventName != PostToolUse {
		return
	}
	var resp struct {
		Questions []struct {
			Question string `json:"question"`
			Options  []struct {
				Label       string `json:"label"`
				Description string `json:"description"`
			} `json:"options"`
		} `json:"questions"`
		Answers map[string]string `json:"answers"`
	}
	if json.Unmarshal(p.ToolResponse, &resp) != nil || len(resp.Answers) == 0 {
		return
	}
	var b strings.Builder
	for _, q := range resp.Questions {
		a, ok := resp.Answers[q.Question]
		if !ok {
			continue
		}
		b.WriteString(q.Question + "\n" + a + "\n")
		for _, o := range q.Options {
			if o.Label == a {
				b.WriteString(o.Description + "\n")
			}
		}
	}
	if t := strings.TrimSpace(b.String()); t != "" {
		s.keepPrompt(t)
	}
}

// keepPrompt keeps a text that may cover a risky step with the latest
// prompts (the newest riskPrompts, each clipped to riskPromptRunes).
func (s *session) keepPrompt(t string) {
	r := s.riskState()
	r.Prompts = append(r.Prompts, fit.Runes(t, riskPromptRunes))
	if len(r.Prompts) > riskPrompts {
		r.Prompts = r.Prompts[len(r.Prompts)-riskPrompts:]
	}
}

// declinedBash tells whether the main agent's last call was a Bash call
// the person declined.
func (s *session) declinedBash() bool {
	ls := s.w.Loops["main"]
	if ls == nil || len(ls.Events) == 0 {
		return false
	}
	e := ls.Events[len(ls.Events)-1]
	return e.Tool == "Bash" && e.Failed && userRejected(e.Error)
}

func (s *session) riskState() *state.Risk {
	if s.w.Risk == nil {
		s.w.Risk = &state.Risk{}
	}
	return s.w.Risk
}

// instructions are what may cover a risky step: the latest user prompts,
// and the last plan the person approved while it is as recent as they are.
func (s *session) instructions() []risk.Instruction {
	if s.w.Risk == nil {
		return nil
	}
	r := s.w.Risk
	out := make([]risk.Instruction, len(r.Prompts), len(r.Prompts)+3)
	for i, t := range r.Prompts {
		out[i] = risk.Instruction{Text: t}
	}
	if r.Plan != "" && s.w.UserPrompts-r.PlanPrompt < riskPrompts {
		out = append(out, risk.Instruction{Text: r.Plan, Plan: true})
	}
	if r.Answered != "" && s.w.UserPrompts-r.AnsweredPrompt < riskPrompts {
		// What a reply said yes to, for as long as that reply is one of
		// the recent prompts, as an approved plan is: a prompt that steps
		// aside ("wait, before we do so, let's create a new Github
		// Issue") does not take the yes back (g-omarclaudecontrolplane-
		// 532f8859 #33, the approved plan's rm -rf, false to both judges
		// of the fifteenth draw). It is the question the agent's
		// message ended on, read as a prompt ("Should I delete
		// Concept_Clarification.md now?", "yes": ext-splicepricing #32),
		// and the files and folders the message names, for their
		// deletion only (a cleanup proposed as lists under headings,
		// approved in Italian by heading or "si": ext-dotfoldercleanup
		// #32-#106; both labelled false by both judges of the
		// thirty-fifth and thirty-sixth sets). The message's other words
		// ask for nothing.
		if q := risk.LastQuestion(r.Answered); q != "" {
			out = append(out, risk.Instruction{Text: q})
		}
		out = append(out, risk.Instruction{Text: r.Answered, Answered: true})
	}
	return out
}

// approvedPlan is the plan the person just approved: ExitPlanMode
// (exit_plan_mode in CLI 1.0.53 transcripts) reaches PostToolUse only when they
// said yes to it. Subagents' plans are not the person's.
func (s *session) approvedPlan(p *Payload) (string, bool) {
	if p.ToolName != "ExitPlanMode" && p.ToolName != "exit_plan_mode" || p.HookEventName != PostToolUse || p.AgentID != "" {
		return "", false
	}
	in, ok := s.callInput(p)
	if !ok || strings.TrimSpace(in.Plan) == "" {
		return "", false
	}
	return in.Plan, true
}

// notePlan keeps the plan the person just approved, which may cover risky
// steps (instructions).
func (s *session) notePlan(p *Payload) {
	plan, ok := s.approvedPlan(p)
	if !ok {
		return
	}
	r := s.riskState()
	r.Plan, r.PlanPrompt = fit.Runes(plan, riskPromptRunes), s.w.UserPrompts
	// Approving a plan is the go-ahead to change what it says: a limit on
	// changes the user set while it was made ("don't change any code, just
	// diagnose") is lifted (ext-adhs #52, twenty-third set, labelled false
	// by both judges). A limit on one target, or of another class, stays.
	r.Limits = slices.DeleteFunc(r.Limits, func(l state.Limit) bool {
		return l.Source == fromPrompt && l.Class == string(risk.NoChange) && l.Target == ""
	})
}

// riskCall matches a call against the risk catalogue and words an
// advisory for each risky step no recent instruction covers, each entry at
// most once per advice.RiskCooldown calls. It also remembers the files the
// call creates and those it writes a literal secret into.
func (s *session) riskCall(p *Payload) []advice.Advisory {
	s.forgetRead(p)
	s.noteGenerated(p)
	s.noteGivenRead(p)
	s.notePlan(p)
	s.noteAnswers(p)
	c, in, ok := s.riskCallOf(p)
	if !ok {
		defer s.noteDeclineReason(p)
		// The catalogue reads shell commands and file writes only; a limit
		// on a tool by name ("don't use WebSearch") applies to any tool.
		if p.ToolName != "" && s.mode(advice.KindInstruction) != settings.Off && !s.approved(p.ToolUseID) {
			return s.limitCall(p, risk.Call{Tool: p.ToolName})
		}
		return nil
	}
	defer s.noteRefused(p)
	defer s.noteDenied(p, c)
	defer func() {
		// What the person typed as they declined lifts and sets limits
		// before this call's own steps are kept: it cannot lift them.
		s.noteDeclineReason(p)
		s.noteDeclined(p, c)
		s.noteNotRun(p, c)
	}()
	if s.approved(p.ToolUseID) {
		// The person said yes to this very call when Djinn asked
		// (PreToolUse): saying it again after is noise.
		return nil
	}
	project := c.ProjectDir
	r := s.riskState()
	failed := p.HookEventName == PostToolUseFailure
	if failed && hookBlocked(p.Error) {
		// The user's own hook refused the call: it never ran, and the
		// agent was told why by the hook itself; what it refused stays
		// refused.
		s.noteHookRefused(p, c)
		return nil
	}
	findings := append(risk.Check(c), s.committedPrivate(p, c, failed)...)
	if !failed {
		s.riskRemember(p, c)
		if len(r.Unread) > 0 && p.ToolName == "Write" {
			r.Unread = slices.DeleteFunc(r.Unread, func(f string) bool { return f == c.FilePath })
		}
	} else if c.Tool == "Bash" && !neverRan(p.Error) {
		// A command that failed after its first steps ran (echo x > f &&
		// git add f && a hook that refuses) made what those steps made:
		// deleting it later is the session cleaning up after itself.
		s.riskRemember(p, c)
	}
	var advs []advice.Advisory
	if s.mode(advice.KindInstruction) != settings.Off {
		advs = s.limitCall(p, c)
	}
	if !failed {
		s.noteKept(c)
	}
	if len(advs) > 0 || s.retriedAfterYes(c) {
		// The broken instruction says more than the catalogue would; a
		// step retried after the person's yes is theirs.
		findings = nil
	}
	ins := s.instructions()
	said := map[string]bool{} // the targets this call's advisories name
	for _, f := range findings {
		// A refused attempt counts though nothing ran (attemptCounts),
		// and is worded so.
		refused := s.attemptCounts(p, f, failed)
		fellBack := !refused && s.killFellBack(p, f)
		if !refused && !fellBack && !s.tookEffect(p, f, failed) || said[f.Target] {
			continue
		}
		if f.Entry == risk.SecretFile && !failed {
			r.Secrets = appendBounded(r.Secrets, fit.Bytes(in.FilePath, 1024), riskSecrets)
		}
		if f.Entry == risk.SecretCommit {
			r.Secrets = removeBase(r.Secrets, f.Target)
		}
		key := riskKey(f.Entry, p.AgentID)
		if s.stepCovered(f, ins) || !s.riskDue(f.Entry, key) {
			continue
		}
		r.Advised[key] = s.w.ToolCalls
		said[f.Target] = true
		advs = append(advs, advice.Risk(advice.RiskFacts{
			Call: s.w.ToolCalls, Tool: p.ToolName, Target: relTargets(f.Target, project),
			Entry: f.Entry.ID, Category: string(f.Entry.Category), What: f.Entry.What, Failed: failed,
			Refused: refused, FellBack: fellBack,
		}))
	}
	return advs
}

// noteNotRun keeps a shell command that never ran because the person
// declined it or the CLI refused it (not the user's hook, which refuses
// it again), for retriedAfterYes.
func (s *session) noteNotRun(p *Payload, c risk.Call) {
	if p.HookEventName == PostToolUseFailure && c.Tool == "Bash" && neverRan(p.Error) && !hookBlocked(p.Error) {
		r := s.riskState()
		r.Refused, r.RefusedPrompt = commandKey(c.Command), s.w.UserPrompts
	}
}

// commandKey is a command's words joined by single spaces, at most 1 KiB.
func commandKey(command string) string {
	return fit.Bytes(strings.Join(strings.Fields(command), " "), 1024)
}

// retriedAfterYes tells a shell command run again, word for word, after
// it was declined or refused and the person then said yes to the agent's
// question (ext-fluxmemisolate #69: the deletion the auto mode classifier
// refused at #68, the agent asking "Want me to retry the deletion?", the
// user answering "Go ahead with this"; false to both judges of the
// fiftieth set). The step is what the person said yes to.
func (s *session) retriedAfterYes(c risk.Call) bool {
	r := s.riskState()
	return c.Tool == "Bash" && r.Refused != "" && r.AnsweredPrompt == s.w.UserPrompts && r.AnsweredPrompt > r.RefusedPrompt &&
		commandKey(c.Command) == r.Refused
}

// riskKey is the key under which Risk.Advised remembers an entry said: its
// id for the main agent, and apart for subagents, whose context the main
// agent does not share: a habit said to a subagent is news to the main
// agent (ext-hasuraauthaudit #50 and #112: .env.local read whole by a
// subagent, then by the main agent, both marked by judges of the
// forty-sixth set).
func riskKey(e *risk.Entry, agent string) string {
	if agent != "" {
		return e.ID + "@subagent"
	}
	return e.ID
}

// riskDue tells whether an entry may be said now: not within its
// cooldown, not again in the session for a habit, and not a new entry once
// riskAdvisedKinds are kept. It makes sure Risk.Advised exists.
func (s *session) riskDue(e *risk.Entry, key string) bool {
	r := s.riskState()
	if r.Advised == nil {
		r.Advised = map[string]int{}
	}
	last, said := r.Advised[key]
	switch {
	case said && e.Habit:
		return false
	case !said && len(r.Advised) >= riskAdvisedKinds:
		return false
	}
	return advice.RiskDue(last, s.w.ToolCalls)
}

// committedPrivate is the commit-private finding of a successful command
// that committed files kept local, and the stage-private one of a git
// status that lists them staged: what a commit added is in its output
// ("create mode … .bashrc"), what is staged in git status's.
func (s *session) committedPrivate(p *Payload, c risk.Call, failed bool) []risk.Finding {
	if failed || c.Tool != "Bash" {
		return nil
	}
	out, ok := s.shellOutput(p)
	if !ok {
		return nil
	}
	// A script that commits (a dotfiles sync) shows git's summary of the
	// commit it made, "[main a7ae41a] …", though its command does not say
	// commit (ext-skillcreator #28).
	commit := strings.Contains(c.Command, "commit") || risk.CommitSummary(out)
	status := strings.Contains(c.Command, "status")
	if !commit && !status {
		return nil
	}
	if files := risk.PrivateCommitted(out, cmp.Or(p.Cwd, c.ProjectDir)); commit && len(files) > 0 {
		return []risk.Finding{{Entry: risk.CommitPrivate, Target: strings.Join(files, " ")}}
	}
	if files := risk.PrivateStaged(out); status && len(files) > 0 {
		return []risk.Finding{{Entry: risk.StagePrivate, Target: strings.Join(files, " ")}}
	}
	return nil
}

// pushFastForward tells, from a successful git push's output, that every
// ref it updated moved forward ("b47e1f4..46daca0  a -> a"), none was
// replaced ("+ 1a2b...3c4d  a -> a (forced update)"): a force flag that
// replaced nothing lost nothing. Without such lines it is not known.
func (s *session) pushFastForward(p *Payload) bool {
	out, ok := s.shellOutput(p)
	if !ok || strings.Contains(out, "forced update") {
		return false
	}
	seen := false
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) >= 4 && f[2] == "->" {
			if strings.HasPrefix(f[0], "+") || !strings.Contains(f[0], "..") || strings.Contains(f[0], "...") {
				return false
			}
			seen = true
		}
	}
	return seen
}

// tookEffect tells whether a finding's step did what its entry warns of,
// as the call's outcome shows. It did not when the person declined the
// call or the CLI's permission rules refused it (they know of it; an
// instruction it broke is still said, as the agent may have lost it at a
// /clear); when a write refused again
// overwrote nothing; when a force push only moved refs forward; when a
// step after a && never ran (the error is another step's: rm, chmod…
// name themselves in theirs, while git's errors name no program, so a git
// step that may have run before a later one failed is kept); when a
// secrets file printed nothing or no value; when sudo, given a wrong
// password, ran none of the command (sudoWrongPassword), bar the password
// it was given.
func (s *session) tookEffect(p *Payload, f risk.Finding, failed bool) bool {
	switch {
	case s.ranNothing(p, failed):
		return false
	case f.Entry == risk.OverwriteUnread && failed:
		return false
	case s.sudoStoppedFor(p, f, sudoStoppedStep):
		return false
	case f.Entry == risk.GitPushForce && !failed && s.pushFastForward(p):
		return false
	case failed && f.Guarded && f.Program != "git" && !strings.Contains(p.Error, f.Program+":"):
		return false
	case failed && f.Program == "rm" && risk.RemovedNothing(p.Error):
		return false
	case f.Entry == risk.SecretPrint && (failed || s.printedNoSecret(p)):
		return false
	case f.Entry == risk.SecretEnv && (failed || !s.printedEnvSecret(p)):
		return false
	case f.Entry == risk.KillOther && failed:
		// pkill and killall fail when no process matched: nothing was
		// killed.
		return false
	}
	return true
}

// attemptCounts tells a step that counts though it never ran: a system
// install sudo refused for want of a password is still the step the agent
// took unasked (three pairs of judges marked one: ext-githublogin #5,
// ext-kakurosolver #14, ext-tab5emulator #10, the thirty-third,
// thirty-sixth and forty-first sets). One the person declined, they know
// of.
func (s *session) attemptCounts(p *Payload, f risk.Finding, failed bool) bool {
	return f.Entry == risk.SudoInstall && s.sudoStoppedFor(p, f, loops.SudoRefused) && !(failed && neverRan(p.Error))
}

// killFellBack tells a kill by name whose || echo printed: the kill
// failed and killed nothing, and the attempt is what is said. Two pairs of
// judges read such a call: taskkill /F /IM node.exe 2>&1 || echo …, its
// /F turned into F:/ by Git Bash, was worth saying as an attempt to kill
// every Node process unasked (ext-materialtailwind #101, thirty-fifth
// set), and false said as done (u-plcautopilotcom25dec2025-1f4625ee #54,
// sixth draw).
func (s *session) killFellBack(p *Payload, f risk.Finding) bool {
	return (f.Entry == risk.KillOther || f.Entry == risk.KillRuntime) && f.Fallback != "" &&
		s.says(p, func(t string) bool { return strings.Contains(t, f.Fallback) })
}

// sudoStoppedFor tells a finding whose step sudo stopped, as said reads
// the call's error and output (refused for want of a password or a
// terminal, or given a wrong one): the step runs under sudo itself, and
// never ran though steps that do not hang on it did (fifth draw,
// t-claudeskills-7110d6fc #6: sudo dnf install … | tail -5 && pip3 install
// --user …, said to install system packages that never were, false to
// both judges); or it hangs on a first step under sudo (risk.SudoGate;
// third draw, r-dotfiles-7fd05a63 #88: echo … | sudo -S pacman -S sshpass
// with a wrong password, said to install a package that never was). The
// password a secret-sudo finding put on the command line was put there
// all the same.
func (s *session) sudoStoppedFor(p *Payload, f risk.Finding, said func(string) bool) bool {
	if f.Entry == risk.SecretSudo || loops.KindOf(p.ToolName) != loops.KindShell || !s.says(p, said) {
		return false
	}
	if f.Sudo {
		return true
	}
	c, _, ok := s.riskCallOf(p)
	return ok && risk.SudoGate(c)
}

// sudoStoppedStep tells a text in which sudo refused a step or was given
// a wrong password (sudoStoppedFor).
func sudoStoppedStep(t string) bool { return loops.SudoRefused(t) || wrongSudoPassword(t) }

// ranNothing tells a call that did nothing at all: the person declined it
// or the CLI refused it (neverRan); a file tool that failed ("File has not
// been read yet") wrote nothing (ext-omega #14, a .env never written, idle
// to both judges of the twenty-fifth set); sudo refused the step the rest
// hangs on (sudoRefused).
func (s *session) ranNothing(p *Payload, failed bool) bool {
	return failed && (neverRan(p.Error) || loops.KindOf(p.ToolName) == loops.KindWrite) ||
		loops.KindOf(p.ToolName) == loops.KindShell && s.sudoRefused(p)
}

// wrongSudoPassword tells a text with sudo's line that the password it was
// given was wrong.
func wrongSudoPassword(text string) bool {
	for l := range strings.Lines(text) {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "sudo: ") && strings.Contains(l, "incorrect password attempt") {
			return true
		}
	}
	return false
}

// sudoRefused tells a command whose first step, under sudo, was refused
// for want of a password or a terminal, and whose later steps hang on it
// (risk.SudoGate): nothing of it ran, whether the CLI reports the call as
// failed or not.
func (s *session) sudoRefused(p *Payload) bool {
	if !s.says(p, loops.SudoRefused) {
		return false
	}
	c, _, ok := s.riskCallOf(p)
	return ok && risk.SudoGate(c)
}

// says tells a call whose error or output says what said looks for.
func (s *session) says(p *Payload, said func(string) bool) bool {
	text := p.Error
	if out, ok := s.shellOutput(p); ok {
		text += "\n" + out
	}
	return said(text)
}

// userRejected tells the error of a call the person declined when the
// CLI asked ("The user doesn't want to proceed with this tool use", "…
// doesn't want to take this action right now").
// noteDeclineReason reads what the person typed when they declined a
// call ("The user doesn't want to proceed with this tool use. … To tell
// you how to proceed, the user said:\nuse the rules created in the
// wazuh-rac directory instead") as a prompt of theirs: it may cover a
// risky step, lift a limit, or set one. Claude Code sends it in the
// call's error, not as a prompt, so no UserPromptSubmit carries it.
func (s *session) noteDeclineReason(p *Payload) {
	if p.HookEventName != PostToolUseFailure || !userRejected(p.Error) {
		return
	}
	if t := declineReason(p.Error); t != "" {
		s.riskText(t)
	}
}

// maxQueuedBytes bounds what noteQueued reads of the transcript: the
// newest of the lines written since it was last read, usually a tool
// result, the queued message and the agent's next message, in that order;
// queuedLookback, what it reads before them for the texts an older CLI
// queued before the last hook ran (transcript.QueuedPrompts).
const (
	maxQueuedBytes = 256 << 10
	queuedLookback = 64 << 10
)

// noteQueued makes sure the transcript was read at this hook, which reads
// what the person typed while the agent worked (takeQueued): handlers call
// it before they read the prompts, so that such a message comes before
// what they do.
func (s *session) noteQueued(p *Payload) {
	if p.AgentID == "" && p.TranscriptPath != "" {
		s.measure(p)
	}
}

// takeQueued reads what the person typed while the agent worked, handed to
// the model between two calls (transcript.QueuedPrompts), as a prompt of
// theirs: for the risk catalogue and the instructions in force it may ask
// for a step, approve one, or set a limit; a follow-up becomes the current
// task, as a typed prompt does (queuedTask). Claude Code runs no
// UserPromptSubmit hook for it. measure calls it, for the main agent, with
// the lines written since the transcript was last read, whatever the event:
// each message is read once, and none is passed over by a hook that reads
// the meter (PreCompact, SessionEnd); the first read of a session reads
// none. It counts no prompt: the work it came into goes on, and a go-ahead
// before it still holds.
func (s *session) takeQueued(p *Payload, boundary int64) {
	texts, recorded, err := transcript.QueuedPrompts(p.TranscriptPath, s.scanFrom, boundary, maxQueuedBytes, queuedLookback)
	if err != nil {
		return
	}
	set := s.env.Settings
	for _, t := range texts {
		switch {
		case !set.Enabled || s.disabled("risk"):
		case recorded:
			s.riskText(t)
		default:
			// Inferred from an older CLI's queue, the text may not have
			// reached the model yet (it can come back as the next
			// prompt): it may ask for a step, but a limit it sets would
			// be held against calls the agent made before it saw it.
			s.keepPrompt(t)
		}
		if set.Drift.Enabled && !s.disabled("drift") {
			// Its own prompt id: the report shows a prompt's words at the
			// calls of that prompt, and these are not the typed prompt's.
			s.queuedTask(t, "queued:"+p.PromptID)
		}
	}
}

// queuedTask reads a message typed while the agent worked against the
// goal, as handleUserPrompt reads a prompt: a follow-up (not a short reply,
// a pivot or a command) becomes the current task. A message of two words
// ("no wait", "stop that") says to stop, not what to do next; and before
// the goal has words enough to measure against, the message is left to the
// next prompt.
func (s *session) queuedTask(t, promptID string) {
	prompt := withoutPlaceholders(t)
	if classifyPrompt(prompt, "") != promptGoal ||
		len(strings.Fields(prompt)) < 3 && drift.UnsegmentedLetters(fit.Runes(prompt, 64)) <= maxIdeographReply {
		return
	}
	a, err := s.loadAnchor()
	if err != nil || a == nil || len(a.Tokens) < s.env.Settings.Drift.MinAnchorTokens {
		return
	}
	s.userSpoke()
	s.followUp(a, prompt, promptID)
}

// declineReason is the text after "the user said:" in a declined call's
// error, up to the CLI's own note after it; "" when the person typed none.
func declineReason(errText string) string {
	_, t, ok := strings.Cut(errText, "To tell you how to proceed, the user said:")
	if !ok {
		return ""
	}
	t, _, _ = strings.Cut(t, "\n\nNote: The user's next message")
	return strings.TrimSpace(t)
}

func userRejected(errText string) bool {
	return strings.Contains(errText, "The user doesn't want to proceed with this tool use") ||
		strings.Contains(errText, "The user doesn't want to take this action")
}

// batchCancelled tells the error of a call the CLI cancelled because the
// person declined another call of the same batch ("The user doesn't want
// to take this action right now").
func batchCancelled(errText string) bool {
	return strings.Contains(errText, "The user doesn't want to take this action")
}

// hookBlocked tells the error of a call a PreToolUse hook of the user's
// refused before it ran: "Bash operation blocked by hook:\n- [cmd]: reason"
// (CLI 1.0 and 2.1), "PreToolUse:Bash hook error: [cmd]: reason" (2.0).
func hookBlocked(errText string) bool {
	t := strings.TrimSpace(errText)
	return strings.Contains(strings.ToLower(t), "blocked by hook") ||
		strings.HasPrefix(t, "PreToolUse:") && strings.Contains(t, " hook error: [")
}

// neverRan tells the error of a call that did nothing: the person declined
// it (userRejected), the user's hook refused it (hookBlocked), or the CLI's
// permission rules refused it before it ran ("Permission to use Bash with
// command rm -rf x has been denied."), or its auto mode classifier did
// ("Permission for this action was denied by the Claude Code auto mode
// classifier": ext-fluxmemisolate #68, a deletion said though nothing of it
// ran, false to the judges of the fiftieth set), or the tool was not enabled
// for the agent ("No such tool available: Bash": a subagent's rm said though
// it never ran, r-claudeagents-fd3434e5 #29 and #91, false to the judges of
// the seventh draw; live, no hook fires for such a call).
func neverRan(errText string) bool {
	t := strings.TrimSpace(errText)
	return userRejected(errText) || hookBlocked(errText) || siblingErrored(errText) ||
		strings.HasPrefix(t, "Permission to use ") && strings.Contains(errText, " has been denied") ||
		strings.HasPrefix(t, "Permission for this action was denied") ||
		strings.Contains(t, "No such tool available: ")
}

// siblingErrored tells the error of a call the CLI cancelled, never run,
// because another call of its parallel batch failed ("Sibling tool call
// errored"): no failure of its own (q-memorybridge-2f5a3bd7 #80, #84,
// #86, three different Edits of one batch read as one failing three
// times, false to both judges of the second draw).
func siblingErrored(errText string) bool {
	return strings.Contains(errText, "Sibling tool call errored")
}

// printedNoSecret tells, from a successful shell call's output, that it
// showed no secret: no line of it assigns a value or opens a key
// ("~/.env existiert nicht" from a fallback echo, an empty output). An
// unknown output is not known to be harmless.
func (s *session) printedNoSecret(p *Payload) bool {
	if p.ToolName == "Read" {
		r := s.toolResponse(p)
		return r.ok && !r.str && !risk.ShownIn(s.inputPath(p), r.File.Content)
	}
	out, ok := s.shellOutput(p)
	return ok && !risk.SecretShown(out)
}

// printedEnvSecret tells, from a shell call's output, that an environment
// listing showed a secret's value; an unknown output shows none.
func (s *session) printedEnvSecret(p *Payload) bool {
	out, ok := s.shellOutput(p)
	return ok && risk.EnvSecretShown(out)
}

// riskCallOf reads a call as the risk catalogue and the instructions in
// force see it; ok is false for a tool they do not judge.
func (s *session) riskCallOf(p *Payload) (c risk.Call, in riskInput, ok bool) {
	if m := s.read; m != nil && m.p == p {
		if !m.ok {
			return m.c, m.in, false
		}
		c = m.c
		r := s.riskState()
		c.Written, c.Secrets, c.Unread, c.Denied, c.Stashed, c.Ran, c.Tables, c.Branches = r.Written, r.Secrets, r.Unread, r.Denied, r.Stashed, r.Ran, r.Tables, r.Branches
		return c, m.in, true
	}
	c, in, ok = s.readCallOf(p)
	s.read = &readCall{p: p, c: c, in: in, ok: ok}
	return c, in, ok
}

// readCallOf is riskCallOf without the memo.
func (s *session) readCallOf(p *Payload) (c risk.Call, in riskInput, ok bool) {
	tool, name := p.ToolName, ""
	switch tool {
	case "Bash", "Write", "Edit", "MultiEdit", "Read", "PowerShell":
	default:
		if !strings.HasPrefix(tool, "mcp__") {
			return c, in, false
		}
	}
	decoded, ok := s.callInput(p)
	if !ok {
		return c, in, false
	}
	in = *decoded
	if tool == "PowerShell" {
		// Claude Code's PowerShell tool (Windows): its script is read as
		// a Bash call's "powershell -Command" is, native commands and
		// cmdlets alike (ext-codexsync #36-#56, every step of a home
		// directory pushed to GitHub with the CLI's credentials in it,
		// run through that tool and read by none of the catalogue).
		tool, name, in.Command = "Bash", "PowerShell", risk.PowerShellCommand(in.Command)
	}
	if strings.HasPrefix(tool, "mcp__") {
		if tool, name = mcpAs(tool, &in), tool; tool == "" {
			return c, in, false
		}
	}
	project := s.w.ProjectDir
	if project == "" {
		project = p.Cwd
	}
	if strings.HasPrefix(name, "mcp__") {
		// An MCP server's file tool (ext-actiondropdown #17: the
		// JetBrains server's create_new_file made the file #35 deleted).
		in.FilePath = cmp.Or(in.FilePath, in.Path)
		if in.FilePath == "" && in.PathInProject != "" && project != "" {
			in.FilePath = path.Join(project, in.PathInProject)
		}
		in.Content = cmp.Or(in.Content, in.Text)
		in.OldString, in.NewString = cmp.Or(in.OldString, in.OldText), cmp.Or(in.NewString, in.NewText)
	}
	c = risk.Call{Tool: tool, Name: name, Command: in.Command, NoSandbox: in.NoSandbox, FilePath: risk.SlashPath(in.FilePath), ProjectDir: risk.SlashPath(project), Root: s.env.FSRoot}
	switch tool {
	case "SQL":
		c.SQL = in.Query + in.SQL
	case "Bash":
		// One parse for the catalogue, the instructions and what the
		// command creates.
		c = c.WithParse()
	case "Write":
		c.NewText = in.Content
		if r := s.toolResponse(p); r.OriginalFile != nil {
			c.OldText = *r.OriginalFile
		}
	case "Edit":
		c.NewText, c.OldText = in.NewString, in.OldString
	case "MultiEdit":
		var nb, ob strings.Builder
		for _, e := range in.Edits {
			nb.WriteString(e.NewString + "\n")
			ob.WriteString(e.OldString + "\n")
		}
		c.NewText, c.OldText = nb.String(), ob.String()
	}
	r := s.riskState()
	c.Written, c.Secrets, c.Unread, c.Denied, c.Stashed, c.Ran, c.Tables, c.Branches = r.Written, r.Secrets, r.Unread, r.Denied, r.Stashed, r.Ran, r.Tables, r.Branches
	return c, in, true
}

// riskUnread bounds Risk.Unread.
const riskUnread = 8

// noteRefused keeps a file whose write the CLI refused until it was read
// ("File has not been read yet"): overwriting it unread later is a risk.
func (s *session) noteRefused(p *Payload) {
	if loops.KindOf(p.ToolName) != loops.KindWrite {
		return
	}
	if text, failed := s.failureText(p); failed && strings.Contains(text, "has not been read yet") {
		if file := s.inputPath(p); file != "" {
			r := s.riskState()
			r.Unread = appendBounded(r.Unread, fit.Bytes(file, 1024), riskUnread)
		}
	}
}

// noteDenied keeps the files a failed call was refused by the system
// ("Permission denied", EACCES, "Operation not permitted"): a file tool's
// file, or the files a command's error names.
func (s *session) noteDenied(p *Payload, c risk.Call) {
	text, failed := s.failureText(p)
	if !failed {
		return
	}
	files := risk.DeniedPaths(text)
	if len(files) > 0 && c.FilePath != "" {
		files = []string{c.FilePath}
	}
	r := s.riskState()
	for _, f := range files {
		r.Denied = appendBounded(r.Denied, fit.Bytes(f, 1024), state.MaxDenied)
	}
}

// forgetRead drops a file from Risk.Unread once a Read of it succeeds.
func (s *session) forgetRead(p *Payload) {
	if s.w.Risk == nil || len(s.w.Risk.Unread) == 0 || loops.KindOf(p.ToolName) != loops.KindRead {
		return
	}
	if _, failed := s.failureText(p); failed {
		return
	}
	file := s.inputPath(p)
	s.w.Risk.Unread = slices.DeleteFunc(s.w.Risk.Unread, func(f string) bool { return f == file })
}

// riskRemember notes the files a successful call created or wrote.
func (s *session) riskRemember(p *Payload, c risk.Call) {
	r := s.riskState()
	var made []string
	// What the call does as the catalogue reads it: an MCP server's file
	// tool writes as Write does (mcpAs).
	switch c.Tool {
	case "Bash":
		r.Stashed = r.Stashed || risk.Stashes(c)
		// A file the CLI said exists unseen ("not read yet") is not made
		// by a command that names it (touch): it stays the user's
		// (templar-2 #158, overwritten after a touch, useful to both
		// judges).
		made = slices.DeleteFunc(risk.Creates(c), func(f string) bool { return slices.Contains(r.Unread, f) })
		r.Written = risk.Moved(c, r.Written)
		if out, ok := s.shellOutput(p); ok && p.HookEventName != PostToolUseFailure {
			made = append(made, risk.OutputMade(out, c.ProjectDir, c.Root)...)
			// What it ran, a later kill may stop (risk.KillOther); a
			// command that failed may not have started it.
			for _, w := range risk.RanWords(c) {
				r.Ran = touchBounded(r.Ran, w, state.MaxRan)
			}
		}
	case "Write", "Edit", "MultiEdit":
		made = []string{c.FilePath}
	}
	for _, f := range made {
		r.Written = appendBounded(r.Written, fit.Bytes(f, 1024), riskWritten)
	}
	for _, t := range risk.CreatedTables(c) {
		r.Tables = appendBounded(r.Tables, fit.Bytes(t, 128), state.MaxTables)
	}
	for _, b := range risk.CreatedBranches(c) {
		r.Branches = appendBounded(r.Branches, fit.Bytes(b, 256), state.MaxBranches)
	}
}

// appendBounded appends x unless present, keeping the newest n.
func appendBounded(xs []string, x string, n int) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	xs = append(xs, x)
	if len(xs) > n {
		xs = xs[len(xs)-n:]
	}
	return xs
}

// noteGiven keeps the hashes of the words a text gives beside a password
// word (risk.GivenWords): a prompt, or a project instruction file.
func (s *session) noteGiven(text string) {
	words := risk.GivenWords(text)
	if len(words) == 0 {
		return
	}
	r := s.riskState()
	for _, w := range words {
		r.Given = touchBounded(r.Given, risk.WordHash(w), state.MaxGiven)
	}
}

// stepCovered tells a finding a recent instruction asks for (risk.Covered) or
// whose password the user gave for it (givenFor).
func (s *session) stepCovered(f risk.Finding, ins []risk.Instruction) bool {
	return risk.Covered(f, ins) || s.givenFor(f)
}

// givenFor tells a password piped into sudo -S that the user gave beside a
// password word (noteGiven): their standing say-so for that use.
func (s *session) givenFor(f risk.Finding) bool {
	r := s.w.Risk
	return f.Entry == risk.SecretSudo && f.Literal != "" && r != nil && slices.Contains(r.Given, risk.WordHash(f.Literal))
}

// noteGivenRead reads what an instruction file the agent read gives
// (noteGiven): a CLAUDE.md or AGENTS.md, or a memory note of Claude
// Code's (…/memory/*.md), which Claude Code does not always load itself.
func (s *session) noteGivenRead(p *Payload) {
	if p.ToolName != "Read" || p.HookEventName != PostToolUse {
		return
	}
	file := s.inputPath(p)
	base := path.Base(file)
	if base != "AGENTS.md" && !slices.ContainsFunc(instructionFiles, func(f string) bool { return path.Base(f) == base }) &&
		!(strings.Contains(file, "/memory/") && strings.HasSuffix(base, ".md")) {
		return
	}
	if r := s.toolResponse(p); r.ok && !r.str {
		s.noteGiven(r.File.Content)
	}
}

// touchBounded moves x to the end of xs, adding it if absent, keeping the
// newest n: a word used again stays.
func touchBounded(xs []string, x string, n int) []string {
	if i := slices.Index(xs, x); i >= 0 {
		xs = append(xs[:i], xs[i+1:]...)
	}
	xs = append(xs, x)
	if len(xs) > n {
		xs = xs[len(xs)-n:]
	}
	return xs
}

// removeBase drops the paths whose last element is base.
func removeBase(xs []string, base string) []string {
	out := xs[:0]
	for _, x := range xs {
		if !strings.HasSuffix(x, "/"+base) && x != base {
			out = append(out, x)
		}
	}
	return out
}

// relTargets shows a target's paths relative to the project.
func relTargets(t, project string) string {
	if project == "" {
		return t
	}
	return strings.ReplaceAll(t, strings.TrimSuffix(project, "/")+"/", "")
}
