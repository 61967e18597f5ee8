package hooks

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/djinn-cc/djinn/engines/lcs"
	"github.com/djinn-cc/djinn/engines/risk"
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/internal/sat"
	"github.com/djinn-cc/djinn/state"
)

// handleUserPrompt keeps the anchor (seed 003): the first substantive
// prompt becomes the goal; a later one becomes the current task (task.go)
// and, when its ratio to the goal is below delta_ratio, also adds a
// constraint delta; a short typed reply keeps the task the agent proposed;
// an explicit pivot ("new task", "now
// let's…", "forget that") starts a new anchor and archives the old one;
// /djinn:reorient <intent> re-orients. Slash commands, one-word replies and
// machine-injected prompts leave the anchor alone.
func handleUserPrompt(ctx context.Context, s *session, p *Payload) (Response, error) {
	if typedByUser(p.Prompt, p.Source) {
		sat.Inc(&s.w.UserPrompts)
	}
	resp := Response{Context: s.pendingStall()}
	s.sayPendingReanchor(p, &resp)
	// Typed while the agent worked, before this prompt: read first.
	s.noteQueued(p)
	s.riskPrompt(p)
	if s.env.Settings.Pressure.Enabled && !s.disabled("pressure") {
		advs := s.pressureCheck(p)
		s.say(p, advs, &resp)
		if s.userMessage != "" {
			resp.Notify(s.userMessage, true)
		}
	}
	s.say(p, s.repeatComplaint(p), &resp)
	if !s.env.Settings.Drift.Enabled || s.disabled("drift") {
		return resp, nil
	}
	a, err := s.loadAnchor()
	if err != nil {
		return Response{}, err
	}
	prompt := withoutPlaceholders(p.Prompt)
	kind := classifyPrompt(prompt, p.Source)
	if kind != promptIgnored || typedReply(prompt, p.Source) {
		// The user spoke: the next few calls are theirs to steer.
		s.userSpoke()
	}
	switch kind {
	case promptIgnored:
		if s.commandTask(a, prompt, p.PromptID) {
			break
		}
		if s.w.Drift != nil && typedReply(prompt, p.Source) {
			// "continue", "yes": the user saw the work and let it go on.
			learnRecent(s.w.Drift)
			if a != nil && s.w.LastAssistant != "" && !questionOrComplaint(prompt) {
				// "ok, start": the task is what the agent proposed or was
				// doing, in its last message before the reply. A question
				// or a complaint accepts nothing ("클로드야 안 없어진거
				// 같은데? 다시 확인해볼래?", it doesn't seem gone, check
				// again?: ext-adminfilter #53, drift against the agent's
				// "done" message, labelled false by both judges of the
				// thirty-fourth set).
				task := s.w.LastAssistant
				if opt, ok := risk.PickedOption(prompt, s.w.LastAssistant); ok {
					// "1": the option picked is the task, not the whole
					// offer (t-opencode-765a9806 #161, fifth draw: the
					// /compact line's goal was the agent's menu, cut so
					// that the option picked was lost; false to both
					// judges).
					task = opt
				}
				s.setTask(a, task, p.PromptID, "proposed")
				s.setAnchor(a)
				s.rebaseDrift(a)
			}
		}
	case promptReorient:
		intent, force := parseReorient(p.Prompt)
		res, err := s.reorient(intent, force, p.PromptID)
		if err != nil {
			return Response{}, err
		}
		s.w.Reorient = res
		if res.Outcome == "empty" {
			// Nothing was re-oriented: the model gets the usage (the text
			// `reorient --last` shows), not an announcement, and nothing is
			// recorded as an advisory.
			resp.Context = append(resp.Context, res.Text)
			break
		}
		// The skill's own commands run before this hook, so the model
		// learns of the new goal here, with the skill's text.
		text := advice.Tag(advice.KindReanchor) + " The user re-oriented the session with /djinn:reorient.\n" + res.Text
		s.recordText(p, advice.KindReanchor, text)
		resp.Context = append(resp.Context, text)
	case promptPivot:
		if a != nil {
			if err := s.archiveAnchor(a); err != nil {
				return Response{}, err
			}
		}
		na := newAnchor(s, prompt, p.PromptID, "pivot", a)
		sat.Inc(&na.Pivots)
		s.setAnchor(na)
		s.rebaseDrift(na)
	case promptGoal:
		switch {
		case a == nil:
			na := newAnchor(s, prompt, p.PromptID, "prompt", nil)
			s.setAnchor(na)
			s.rebaseDrift(na)
		case len(a.Tokens) < s.env.Settings.Drift.MinAnchorTokens && (s.w.Drift == nil || s.w.Drift.Calls < s.env.Settings.Drift.LearnCalls):
			// Too short to measure against, and the work has not yet
			// taught it a vocabulary: the next substantive prompt refines
			// it rather than becoming a delta (what was learned stays).
			na := newAnchor(s, a.Text+"\n"+prompt, a.PromptID, a.Source, a)
			na.CapturedAt = a.CapturedAt
			s.setAnchor(na)
			s.rebaseDriftKeep(na)
		default:
			s.followUp(a, prompt, p.PromptID)
		}
	}
	return resp, nil
}

// followUp reads a prompt that follows the goal: it continues, narrows or
// redirects the work, whatever its wording, so it becomes the current task
// and stays among the instructions in force; the goal is background.
func (s *session) followUp(a *state.Anchor, prompt, promptID string) {
	if s.w.Drift != nil {
		learnRecent(s.w.Drift)
	}
	ratio := lcs.Ratio(a.Tokens, lcs.Normalize(prompt))
	if ratio < s.env.Settings.Drift.DeltaRatio {
		addDelta(a, prompt, ratio, s.now, promptID)
	}
	addInstruction(a, prompt, ratio, s, promptID)
	if s.w.LastAssistant != "" && opensWithYes(prompt) {
		// "yes go ahead, and delete the plan file": the task is what the
		// agent proposed, with what the reply adds (ext-benchscaffold #25:
		// drift measured against the reply alone, labelled false by both
		// judges of the thirty-sixth set).
		s.setTask(a, prompt+"\n\n"+s.w.LastAssistant, promptID, "proposed")
	} else {
		s.setTask(a, prompt, promptID, "prompt")
	}
	s.setAnchor(a)
	s.rebaseDrift(a)
}

// reorientRe's text after the command: an optional --force, then the new
// intent.
func parseReorient(prompt string) (intent string, force bool) {
	rest := strings.TrimSpace(reorientRe().ReplaceAllString(strings.TrimSpace(prompt), ""))
	if strings.HasPrefix(rest, "--force") {
		force = true
		rest = strings.TrimSpace(strings.TrimPrefix(rest, "--force"))
	}
	return rest, force
}

// reorient replaces the anchor with a new intent, or records it as a
// constraint delta when it covers most of the current anchor (it restates
// the goal with an extra condition) and force is not set. The old anchor is
// archived verbatim; the reservoir of window scores restarts.
func (s *session) reorient(intent string, force bool, promptID string) (*state.ReorientResult, error) {
	res := &state.ReorientResult{Time: s.now, PromptID: fit.Bytes(promptID, 128)}
	intent = strings.TrimSpace(intent)
	if intent == "" {
		res.Outcome = "empty"
		res.Text = "djinn reorient: no new intent given. Nothing changed: the goal and the drift sample are as they were. Usage: /djinn:reorient <what the session should do now> (add --force to replace a goal the new text restates)."
		return res, nil
	}
	old, err := s.loadAnchor()
	if err != nil {
		return nil, err
	}
	newToks := lcs.Normalize(intent)
	if old == nil {
		na := newAnchor(s, intent, promptID, "reorient", nil)
		na.Reorients = 1
		s.setAnchor(na)
		s.rebaseDrift(na)
		res.Outcome, res.NewHash = "replaced", na.Hash
		res.Text = fmt.Sprintf("djinn reorient: no goal was recorded; the new goal is %s (anchor %s, intent %s).", advice.Quote(intent, 300), na.Hash, na.IntentType)
		return res, nil
	}
	al := lcs.Align(old.Tokens, newToks)
	res.OldHash = old.Hash
	res.Alignment, res.Coverage = fit.Round3(al.Ratio), fit.Round3(al.Coverage)
	if al.Coverage >= 0.6 && !force {
		addDelta(old, intent, al.Ratio, s.now, promptID)
		s.setAnchor(old)
		s.rebaseDrift(old)
		res.Outcome, res.NewHash = "constraint", old.Hash
		res.Text = fmt.Sprintf("djinn reorient: the new text repeats most of the current goal (%.0f%% of its words), so it was added to it as a constraint rather than made a new goal (use --force to replace the goal).\n  goal (id %s): %s\n  constraint added: %s",
			al.Coverage*100, old.Hash, advice.Clean(old.Text, 300), advice.Clean(intent, 300))
		return res, nil
	}
	if err := s.archiveAnchor(old); err != nil {
		return nil, err
	}
	if err := s.archiveReservoir(old.Hash); err != nil {
		return nil, err
	}
	na := newAnchor(s, intent, promptID, "reorient", old)
	sat.Inc(&na.Reorients)
	s.setAnchor(na)
	s.w.Drift = nil
	s.rebaseDrift(na)
	res.Outcome, res.NewHash = "replaced", na.Hash
	res.Text = fmt.Sprintf("djinn reorient: goal replaced; the old one is archived, and whether the work is on the goal is measured afresh.\n  old goal (id %s): %s\n  new goal (id %s): %s\n  the two share %.0f%% of their wording",
		old.Hash, advice.Clean(old.Text, 300), na.Hash, advice.Clean(intent, 300), al.Ratio*100)
	return res, nil
}

// archiveAnchor saves an anchor verbatim under archive/.
func (s *session) archiveAnchor(a *state.Anchor) error {
	name := fmt.Sprintf("anchor-%s-%s.json", s.now.Format("20060102T150405.000000000Z"), a.Hash)
	return s.env.Store.Save(filepath.Join(s.dir, "archive", name), state.KindAnchor, a)
}

// archiveReservoir saves the drift sample of the replaced anchor.
func (s *session) archiveReservoir(hash string) error {
	d := s.w.Drift
	if d == nil || d.Reservoir == nil {
		return nil
	}
	r := state.Reservoir{
		SchemaVersion: state.SchemaVersion, SessionID: s.id, AnchorHash: hash,
		K: d.Reservoir.K, NSeen: int(d.Reservoir.NSeen), Items: append([]state.Sample{}, d.Reservoir.Items...),
	}
	name := fmt.Sprintf("reservoir-%s-%s.json", s.now.Format("20060102T150405.000000000Z"), hash)
	return s.env.Store.Save(filepath.Join(s.dir, "archive", name), state.KindReservoir, &r)
}

// switchRe matches the /djinn:disable and /djinn:enable skills as Claude
// Code passes them to UserPromptSubmit: the raw line, with the user's
// detector argument after the command.
var switchRe = lazyRegexp(`(?s)^/(?:djinn:)?(disable|enable)(?:\s+(.*))?$`)

// promptSwitch applies /djinn:disable [detector] or /djinn:enable
// [detector] to this session's window, under the session lock the hook
// holds: the skill cannot pass user text on a command line, so the hook
// takes it from the raw prompt. ok is false for any other prompt. The
// result goes to the model (the skill shows `djinn status`) and, as a
// system message, to the person; a bad argument changes nothing.
func (s *session) promptSwitch(p *Payload) (resp Response, ok bool) {
	if p.HookEventName != UserPromptSubmit {
		return Response{}, false
	}
	m := switchRe().FindStringSubmatch(strings.TrimSpace(p.Prompt))
	if m == nil {
		return Response{}, false
	}
	verb := m[1]
	args := strings.Fields(m[2])
	usage := fmt.Sprintf("Usage: /djinn:%s [detector], where detector is one of: all, %s (none means all).", verb, strings.Join(state.Detectors(), ", "))
	var text string
	switch {
	case len(args) > 1:
		text = fmt.Sprintf("djinn %s: expected at most one detector, got %d words. Nothing changed. %s", verb, len(args), usage)
	case len(args) == 1 && !state.ValidDetector(args[0]):
		text = fmt.Sprintf("djinn %s: unknown detector %s. Nothing changed. %s", verb, advice.Quote(args[0], 60), usage)
	default:
		detector := "all"
		if len(args) == 1 {
			detector = args[0]
		}
		s.w.Disabled = state.SwitchDetector(s.w.Disabled, detector, verb == "disable")
		list := "none"
		if len(s.w.Disabled) > 0 {
			list = strings.Join(s.w.Disabled, ", ")
		}
		what := "Djinn is"
		if detector != "all" {
			what = "Djinn's " + detector + " detector is"
		}
		onOff := "off"
		if verb == "enable" {
			onOff = "on"
		}
		text = fmt.Sprintf("djinn %s: %s %s for this session. Disabled now: %s.", verb, what, onOff, list)
	}
	return Response{Context: []string{text}, SystemMessage: text}, true
}

// commandTask makes a slash command that asks the model for work ("/review
// 42", "/agent:auto") the current task, and reports whether it did: the
// person asked for what the command does, not for the prompt before it
// (r-tui-431f08e5 #105-#119, five reanchor blocks restating "why are u
// doing it alone" after /agent:auto, false to both judges of the third
// draw). A command line is no instruction in force.
func (s *session) commandTask(a *state.Anchor, prompt, promptID string) bool {
	if a == nil || !promptCommand(prompt) {
		return false
	}
	s.setTask(a, prompt, promptID, "prompt")
	s.setAnchor(a)
	s.rebaseDrift(a)
	return true
}

// localCommands are Claude Code's own slash commands that act on the CLI
// (its settings, its view, the session) and ask the model for nothing.
var localCommands = map[string]bool{
	"add-dir": true, "agents": true, "bashes": true, "bug": true, "clear": true, "compact": true, "config": true,
	"context": true, "cost": true, "doctor": true, "effort": true, "exit": true, "export": true, "fast": true,
	"feedback": true, "help": true, "hooks": true, "ide": true, "install-github-app": true, "login": true,
	"logout": true, "mcp": true, "memory": true, "model": true, "output-style": true, "permissions": true,
	"plugin": true, "plugins": true, "privacy-settings": true, "quit": true, "release-notes": true, "resume": true,
	"rewind": true, "sandbox": true, "status": true, "statusline": true, "tasks": true, "terminal-setup": true,
	"theme": true, "todos": true, "upgrade": true, "usage": true, "vim": true,
}

// commandNameRe matches a slash command's name: a plugin's commands are
// named plugin:command.
var commandNameRe = lazyRegexp(`^/[A-Za-z][\w.-]*(?::[\w.-]+)*$`)

// promptCommand tells a prompt that runs a slash command which asks the
// model for work (a project's or a plugin's command, /review, /init), not
// one of Claude Code's local commands, not Djinn's own, and not a prompt
// that opens with a path ("/Users/x/app.log shows …").
func promptCommand(prompt string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(prompt), " ")
	first, _, _ = strings.Cut(first, "\n")
	if !commandNameRe().MatchString(first) {
		return false
	}
	name := strings.ToLower(first[1:])
	return !localCommands[name] && !strings.HasPrefix(name, "djinn:") && name != "djinn"
}
