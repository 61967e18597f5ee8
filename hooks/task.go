package hooks

import (
	"slices"
	"strings"

	"github.com/djinn-cc/djinn/engines/drift"
	"github.com/djinn-cc/djinn/engines/lcs"
	"github.com/djinn-cc/djinn/engines/risk"
	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/state"
)

// The current task (design.md, "The goal and the current task"). The
// session's first substantive prompt is its goal (anchor.Text); each later
// prompt is read against what came before and becomes the current task
// (anchor.Task), whatever its wording: a follow-up continues, narrows or
// redirects the work. A short reply ("ok, start", "yes, go") keeps the task
// the agent proposed or was doing: its last message before the reply, as
// the Stop hook recorded it (window.last_assistant). Every step here costs
// the same at the first prompt and the thousandth: the lists are bounded.

// maxInstructions bounds the instructions in force kept in anchor.json.
const maxInstructions = 8

// maxLastAssistant bounds the agent's last message kept in window.json.
const maxLastAssistant = 2000

// placeholderRe matches what the CLI's input box shows for a paste or an
// image: `[Pasted text #1 +30 lines]`, `[Image #2]`. The live hook's prompt
// has pastes expanded (anthropics/claude-code#78195), but a transcript, and
// so a replay, can keep the placeholder, which says nothing about the task.
var placeholderRe = lazyRegexp(`\[(?:Pasted text #\d+(?: \+\d+ lines)?|Image #\d+)\]`)

// withoutPlaceholders returns the prompt without paste and image
// placeholders.
func withoutPlaceholders(prompt string) string {
	if !strings.Contains(prompt, "[Pasted text #") && !strings.Contains(prompt, "[Image #") {
		return prompt
	}
	return strings.TrimSpace(placeholderRe().ReplaceAllString(prompt, ""))
}

// typedReply reports whether a prompt the anchor ignores was typed by the
// user ("ok", "continue"), not injected by Claude Code or a slash command.
func typedReply(prompt, source string) bool {
	t := strings.TrimSpace(prompt)
	return t != "" && source == "" && !strings.HasPrefix(t, "<") && !strings.HasPrefix(t, "/") && !strings.HasPrefix(t, "[Request interrupted")
}

// questionOrComplaint tells a short reply that asks something or says the
// thing is still wrong: it does not accept what the agent proposed.
func questionOrComplaint(prompt string) bool {
	return strings.Contains(prompt, "?") || strings.Contains(prompt, "？") || stillWrong(fit.Runes(prompt, complaintHead))
}

// opensWithYes tells a prompt whose first clause (up to its first comma,
// semicolon, full stop or line end) goes ahead: "yes go ahead, and delete
// the plan file", "ok; also add tests".
func opensWithYes(prompt string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	if i := strings.IndexAny(first, ",;.!"); i > 0 {
		first = first[:i]
	}
	return risk.GoAhead(first)
}

// currentTask is the task drift measures against: the anchor's Task, or
// the goal itself before any follow-up.
func currentTask(a *state.Anchor) state.Task {
	if a.Task != nil {
		return *a.Task
	}
	return state.Task{Text: a.Text, PromptID: a.PromptID, Source: "goal", At: a.CapturedAt, Words: a.Words}
}

// setTask makes text, from the prompt promptID, the anchor's current task.
func (s *session) setTask(a *state.Anchor, text, promptID, source string) {
	kept, words := keptText(text)
	a.Task = &state.Task{Text: kept, PromptID: fit.Bytes(promptID, 128), Source: source, At: s.now, Words: words}
}

// reversalWords mark a prompt that takes something back ("don't", "no
// longer", "revert that", "after all"). A prompt with one of them that
// shares at least two words with an earlier instruction reverses it, and
// the earlier one is dropped: a deliberately simple rule, which keeps an
// instruction rather than drop one the user still means.
var reversalWords = []string{"don't", "dont", "do not", "no longer", "never mind", "nevermind", "instead", "revert", "undo", "stop ", "forget", "after all", "not anymore", "rather than", "no need"}

// addInstruction records a follow-up prompt among the instructions in
// force: a restatement replaces the earlier one (deduplicated), a reversal
// drops what it reverses, and the newest maxInstructions are kept.
func addInstruction(a *state.Anchor, text string, ratio float64, s *session, promptID string) {
	text = fit.Runes(strings.TrimSpace(text), 1000)
	toks := lcs.Normalize(text)
	lower := strings.ToLower(text)
	reverses := false
	for _, w := range reversalWords {
		if strings.Contains(lower, w) {
			reverses = true
			break
		}
	}
	out := a.Instructions[:0:0]
	for _, in := range a.Instructions {
		old := lcs.Normalize(in.Text)
		if strings.EqualFold(strings.TrimSpace(in.Text), text) || lcs.Ratio(old, toks) >= 0.9 {
			continue // said again: the newer wording stands
		}
		if reverses && sharedWords(old, toks) >= 2 {
			continue // taken back
		}
		out = append(out, in)
	}
	out = append(out, state.Delta{Text: text, Ratio: fit.Round3(min(max(ratio, 0), 1)), At: s.now, PromptID: fit.Bytes(promptID, 128)})
	if len(out) > maxInstructions {
		out = out[len(out)-maxInstructions:]
	}
	a.Instructions = out
}

// sharedWords counts the distinct words a and b share.
func sharedWords(a, b []string) int {
	n := 0
	seen := map[string]bool{}
	for _, w := range b {
		if !seen[w] && slices.Contains(a, w) {
			n++
		}
		seen[w] = true
	}
	return n
}

// taskAnchor is what drift measures against: the current task and the
// instructions in force (the goal's constraint deltas among them) as the
// anchor's own words, and the session goal's words, when the task is not
// the goal, as background: they count as learned words (one point, not
// two), so the measure leans toward the task. normalized counts the
// normalized tokens of all of it.
func taskAnchor(a *state.Anchor, c drift.Config) (an drift.Anchor, background []string) {
	t := currentTask(a)
	var extra []string
	for _, d := range a.Deltas {
		extra = append(extra, d.Text)
	}
	for _, in := range a.Instructions {
		if in.Text != t.Text {
			extra = append(extra, in.Text)
		}
	}
	n := len(lcs.Normalize(t.Text))
	for _, e := range extra {
		n += len(lcs.Normalize(e))
	}
	if t.Source != "goal" && t.Text != a.Text {
		background = drift.Stems(goalWords(a))
		if n < c.MinAnchorTokens {
			// A task too short to measure against on its own is measured
			// with the goal's words as its own.
			extra = append(extra, a.Text)
			n += len(a.Tokens)
			background = nil
		}
	}
	an = drift.NewAnchor(t.Text, extra, n, c)
	an.AddWords(t.Words)
	if background != nil {
		// The tickets the goal names stay the session's: work on a sibling
		// ticket is still another task, whatever the current one says.
		for _, id := range drift.NewAnchor(a.Text, nil, len(a.Tokens), c).Idents {
			if !slices.Contains(an.Idents, id) {
				an.Idents = append(an.Idents, id)
			}
		}
		an.Idents = an.Idents[:min(len(an.Idents), maxIdents)]
	}
	if len(background) > maxGoalBackground {
		background = background[:maxGoalBackground]
	}
	return an, background
}

// goalWords are the words of the session goal: of the whole prompt when
// the anchor kept them (a long one), else of its text.
func goalWords(a *state.Anchor) []string {
	if len(a.Words) > 0 {
		return a.Words
	}
	return drift.Words(a.Text)
}

// maxIdents is window.json's bound on the drift state's identifiers.
const maxIdents = 32

// maxGoalBackground bounds the goal's stems added to the learned words.
const maxGoalBackground = 64

// noteLastAssistant keeps the agent's last message, for a short reply that
// accepts what it proposed: a long one by its start and its end, where an
// offer usually stands ("… Priority 6: bbbb, cccc, action: delete … shall
// I start?").
func (s *session) noteLastAssistant(text string) {
	text = strings.TrimSpace(text)
	if text == "" || cliNotice(text) {
		return
	}
	s.w.LastAssistant = fit.Ends(text, maxLastAssistant)
}

// cliNotice tells a message that is Claude Code's own notice in the
// agent's place (an API error, a usage limit), not anything the agent
// proposed: "API Error: 400 …", "You're out of extra usage · resets 11pm".
func cliNotice(text string) bool {
	for _, p := range []string{"API Error:", "You're out of extra usage", "You've hit your limit", "Claude AI usage limit reached",
		"Session limit reached", "Prompt is too long", "Credit balance is too low", "No response requested."} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}
