package e2e

import (
	"encoding/json"
	"strings"
)

// TextLocation is one piece of text in a Messages API request body.
type TextLocation struct {
	// Message is the index in "messages", or -1 for the top-level "system".
	Message int
	// Role is the message role ("user", "assistant", and in newer CLIs
	// "system"), or "system" for the top-level system prompt.
	Role string
	// Block is "string" when the content is a plain string, else the block
	// type holding the text: "text", or "tool_result" for text inside a
	// tool_result's content.
	Block string
	// Text is the text itself.
	Text string
}

// Locate returns every text of a request body: the system prompt (a string
// or text blocks) and, for each message, a string content, text blocks, and
// the text inside tool_result blocks. A body that is not a JSON object gives
// nothing.
func Locate(body []byte) []TextLocation {
	var b struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &b) != nil {
		return nil
	}
	var out []TextLocation
	add := func(msg int, role, block, text string) {
		out = append(out, TextLocation{Message: msg, Role: role, Block: block, Text: text})
	}
	collect(b.System, func(block, text string) { add(-1, "system", block, text) })
	for i, m := range b.Messages {
		collect(m.Content, func(block, text string) { add(i, m.Role, block, text) })
	}
	return out
}

// collect calls f for each text in content: a JSON string, or an array of
// blocks in which text blocks count, and tool_result blocks count through
// their own content (string or blocks).
func collect(content json.RawMessage, f func(block, text string)) {
	var s string
	if json.Unmarshal(content, &s) == nil {
		f("string", s)
		return
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return
	}
	for _, bl := range blocks {
		switch bl.Type {
		case "text":
			f("text", bl.Text)
		case "tool_result":
			if len(bl.Content) > 0 {
				collect(bl.Content, func(_, text string) { f("tool_result", text) })
			}
		}
	}
}

// Texts returns the Text of every Locate result.
func Texts(body []byte) []string {
	locs := Locate(body)
	out := make([]string, len(locs))
	for i, l := range locs {
		out[i] = l.Text
	}
	return out
}

// ContextInRequest reports whether substr occurs in any text of the
// request's system prompt or messages. It is the placement-agnostic check for
// hook context: 2.1.197 puts PostToolUse additionalContext in a
// <system-reminder> text block of the user message carrying the tool_result,
// newer CLIs in a separate role:"system" message; both are found.
func ContextInRequest(req Request, substr string) bool {
	for _, t := range Texts(req.Body) {
		if strings.Contains(t, substr) {
			return true
		}
	}
	return false
}

// FindText returns the index in reqs of the first request containing substr
// (see ContextInRequest), or -1.
func FindText(reqs []Request, substr string) int {
	for i, r := range reqs {
		if ContextInRequest(r, substr) {
			return i
		}
	}
	return -1
}

// Placement says how a piece of hook context reached the model.
type Placement int

const (
	// PlacementNone: the text is not in the request.
	PlacementNone Placement = iota
	// PlacementSystemReminder: inside <system-reminder>…</system-reminder>
	// in a user message (2.1.197 for tool-event context; all versions for
	// Stop additionalContext).
	PlacementSystemReminder
	// PlacementSystemMessage: in a role:"system" message of "messages"
	// (newer CLIs for tool-event context; SessionStart and UserPromptSubmit
	// context).
	PlacementSystemMessage
	// PlacementOther: somewhere else (the system prompt, a plain user text,
	// a tool_result).
	PlacementOther
)

func (p Placement) String() string {
	switch p {
	case PlacementNone:
		return "none"
	case PlacementSystemReminder:
		return "system-reminder"
	case PlacementSystemMessage:
		return "system-message"
	case PlacementOther:
		return "other"
	}
	return "Placement(?)"
}

// ContextPlacement returns where substr first occurs in the request, ranked
// so that a test can accept "either of the two hook-context placements"
// with one comparison: p == PlacementSystemReminder || p == PlacementSystemMessage.
func ContextPlacement(req Request, substr string) Placement {
	best := PlacementNone
	for _, l := range Locate(req.Body) {
		if !strings.Contains(l.Text, substr) {
			continue
		}
		var p Placement
		switch {
		case l.Message >= 0 && l.Role == "system":
			p = PlacementSystemMessage
		case l.Message >= 0 && l.Role == "user" && l.Block != "tool_result" && inSystemReminder(l.Text, substr):
			p = PlacementSystemReminder
		default:
			p = PlacementOther
		}
		if best == PlacementNone || p < best {
			best = p
		}
	}
	return best
}

// inSystemReminder reports whether some occurrence of substr in text lies
// between a <system-reminder> tag and its closing tag.
func inSystemReminder(text, substr string) bool {
	const open, closing = "<system-reminder>", "</system-reminder>"
	for rest := text; ; {
		i := strings.Index(rest, open)
		if i < 0 {
			return false
		}
		rest = rest[i+len(open):]
		j := strings.Index(rest, closing)
		inner := rest
		if j >= 0 {
			inner = rest[:j]
		}
		if strings.Contains(inner, substr) {
			return true
		}
		if j < 0 {
			return false
		}
		rest = rest[j+len(closing):]
	}
}
