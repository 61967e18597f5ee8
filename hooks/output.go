package hooks

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/internal/fit"
)

// MaxContextChars keeps injected text under Claude Code's 10,000-character
// cap on additionalContext, systemMessage and plain stdout (longer text is
// saved to a file and the model only gets a preview).
const MaxContextChars = 9500

// Response is what a handler wants to say. Encode turns it into the one JSON
// object (or plain text) the contract allows for the event, and refuses
// anything else: a field the event ignores would be silently dropped by
// Claude Code, or worse, make the model run again.
type Response struct {
	// Context paragraphs for the model (additionalContext), most severe first.
	Context []string
	// SystemMessage is shown to the user, not the model.
	SystemMessage string
	// Notices are lines for the person (Notice, added with Notify). Run
	// filters them by the notify setting and appends them to SystemMessage,
	// or keeps them for a later hook when the event cannot show them;
	// Encode ignores them.
	Notices []Notice
	// Block asks for decision "block" with Reason: a rollback on Stop and
	// SubagentStop, a hard loop on PostToolUse when the user enabled it.
	Block  bool
	Reason string
	// UpdatedToolOutput replaces a built-in tool's output (in its own shape);
	// UpdatedMCPToolOutput replaces an MCP tool's.
	UpdatedToolOutput    json.RawMessage
	UpdatedMCPToolOutput json.RawMessage
	// Plain is PreCompact's plain stdout, appended to the compactor's
	// instructions.
	Plain string
	// Ask is PreToolUse's permission decision "ask", with Reason shown to
	// the person: the call waits for their say-so.
	Ask bool
	// Observed are the texts of the advisories that are recorded but not
	// told (advice.Advisory.Observed): never sent (Encode ignores them),
	// kept here so that replay and tests see what Djinn would have said.
	Observed []string
	// Recorded are the texts of findings their detector only records, in
	// any mode (a revert the user asked for, the agent's lone revert):
	// never sent, not advisories Djinn would give, kept for replay.
	Recorded []string
	// Meter is the session's context reading as the hook left it, nil when
	// there is none. It is never printed: replay draws its context curve
	// from it.
	Meter *Point
}

// Empty reports whether there is nothing to print (Meter is not printed).
func (r Response) Empty() bool {
	return len(r.Context) == 0 && r.SystemMessage == "" && !r.Block && !r.Ask && r.Reason == "" &&
		len(r.UpdatedToolOutput) == 0 && len(r.UpdatedMCPToolOutput) == 0 && r.Plain == ""
}

// wireOutput is the hook's JSON output. systemMessage comes last, so the
// part for the model (decision, additionalContext) leads the line.
type wireOutput struct {
	Decision           string        `json:"decision,omitempty"`
	Reason             string        `json:"reason,omitempty"`
	HookSpecificOutput *wireSpecific `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string        `json:"systemMessage,omitempty"`
}

type wireSpecific struct {
	HookEventName        string          `json:"hookEventName"`
	AdditionalContext    string          `json:"additionalContext,omitempty"`
	UpdatedToolOutput    json.RawMessage `json:"updatedToolOutput,omitempty"`
	UpdatedMCPToolOutput json.RawMessage `json:"updatedMCPToolOutput,omitempty"`
	// PermissionDecision and its reason: PreToolUse only.
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
}

// outputRule says which parts of a Response an event may carry.
type outputRule struct{ context, system, block, output, plain, ask bool }

// allowed returns, per event, which parts of a Response Djinn may emit. It
// is narrower than what Claude Code accepts: additionalContext on Stop and
// SubagentStop would make the model run again, so Djinn never sends it.
func allowed(event string) (outputRule, bool) {
	switch event {
	case SessionStart, UserPromptSubmit:
		return outputRule{context: true, system: true}, true
	case PreToolUse:
		return outputRule{system: true, ask: true}, true
	case PostToolUse:
		return outputRule{context: true, system: true, block: true, output: true}, true
	case PostToolUseFailure:
		return outputRule{context: true, system: true}, true
	case Stop:
		return outputRule{system: true, block: true}, true
	case SubagentStop:
		return outputRule{block: true}, true
	case PreCompact:
		return outputRule{plain: true}, true
	case PostCompact:
		// Neither context nor a message: Claude Code discards both.
		return outputRule{}, true
	case SessionEnd:
		return outputRule{}, true
	}
	return outputRule{}, false
}

// Encode renders r for event. It returns nil for an empty response (print
// nothing), and an error if r holds anything the event may not carry.
func Encode(event string, r Response) ([]byte, error) {
	rule, ok := allowed(event)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownEvent, event)
	}
	if r.Empty() {
		return nil, nil
	}
	if err := r.check(event, rule); err != nil {
		return nil, err
	}
	if r.Plain != "" {
		// Claude Code parses stdout as JSON when it starts with '{'.
		text := capText(strings.TrimLeft(r.Plain, " \t\r\n{"), MaxContextChars)
		return []byte(text + "\n"), nil
	}
	out, err := json.Marshal(r.wire(event))
	if err != nil {
		return nil, fmt.Errorf("encode %s output: %w", event, err)
	}
	return append(out, '\n'), nil
}

// check refuses a response the event cannot carry, or one whose fields
// contradict each other.
func (r Response) check(event string, rule outputRule) error {
	switch {
	case len(r.Context) > 0 && !rule.context:
		return fmt.Errorf("%s cannot carry additionalContext", event)
	case r.SystemMessage != "" && !rule.system:
		return fmt.Errorf("%s cannot carry systemMessage", event)
	case r.Ask && !rule.ask:
		return fmt.Errorf("%s cannot ask for permission", event)
	case r.Ask && strings.TrimSpace(r.Reason) == "":
		return fmt.Errorf("%s ask needs a reason", event)
	case r.Ask && r.Block:
		return fmt.Errorf("%s: both ask and block", event)
	case (r.Block || r.Reason != "" && !r.Ask) && !rule.block:
		return fmt.Errorf("%s cannot carry a block decision", event)
	case r.Block && strings.TrimSpace(r.Reason) == "":
		return fmt.Errorf("%s block needs a reason", event)
	case (len(r.UpdatedToolOutput) > 0 || len(r.UpdatedMCPToolOutput) > 0) && !rule.output:
		return fmt.Errorf("%s cannot replace a tool output", event)
	case len(r.UpdatedToolOutput) > 0 && len(r.UpdatedMCPToolOutput) > 0:
		return fmt.Errorf("%s: both updatedToolOutput and updatedMCPToolOutput", event)
	case r.Plain != "" && !rule.plain:
		return fmt.Errorf("%s cannot print plain text", event)
	case r.Plain != "" && (len(r.Context) > 0 || r.SystemMessage != "" || r.Block):
		return fmt.Errorf("%s: plain text excludes JSON fields", event)
	}
	return nil
}

// wire is the JSON object Claude Code reads for a checked response, each
// text cut to the CLI's limit.
func (r Response) wire(event string) wireOutput {
	w := wireOutput{SystemMessage: capText(r.SystemMessage, MaxContextChars)}
	if r.Block {
		w.Decision = "block"
		w.Reason = capText(r.Reason, MaxContextChars)
	}
	if r.Ask {
		w.HookSpecificOutput = &wireSpecific{HookEventName: event, PermissionDecision: "ask", PermissionDecisionReason: capText(r.Reason, MaxContextChars)}
	}
	if len(r.Context) > 0 || len(r.UpdatedToolOutput) > 0 || len(r.UpdatedMCPToolOutput) > 0 {
		w.HookSpecificOutput = &wireSpecific{
			HookEventName:        event,
			AdditionalContext:    capText(strings.Join(r.Context, "\n\n"), MaxContextChars),
			UpdatedToolOutput:    r.UpdatedToolOutput,
			UpdatedMCPToolOutput: r.UpdatedMCPToolOutput,
		}
	}
	return w
}

// capText cuts s to at most max runes, on a rune boundary, saying so.
func capText(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	const marker = "\n[djinn: cut to fit Claude Code's limit]"
	return fit.Runes(s, max-utf8.RuneCountInString(marker)) + marker
}
