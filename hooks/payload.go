package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The events Djinn wires, by their Claude Code names.
const (
	SessionStart       = "SessionStart"
	UserPromptSubmit   = "UserPromptSubmit"
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	Stop               = "Stop"
	SubagentStop       = "SubagentStop"
	PreCompact         = "PreCompact"
	PostCompact        = "PostCompact"
	SessionEnd         = "SessionEnd"
)

// Events lists the wired events in hooks.json order.
func Events() []string {
	return []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Stop, SubagentStop, PreCompact, PostCompact, SessionEnd}
}

// ErrUnknownEvent is returned for an event Djinn does not handle.
var ErrUnknownEvent = errors.New("unknown hook event")

// CanonicalEvent accepts an event as Claude Code names it (PostToolUse) or in
// kebab case (post-tool-use) and returns the Claude Code name.
func CanonicalEvent(name string) (string, error) {
	key := strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(name, "-", ""), "_", ""))
	for _, e := range Events() {
		if strings.ToLower(e) == key {
			return e, nil
		}
	}
	return "", fmt.Errorf("%w %q", ErrUnknownEvent, name)
}

// MaxPayloadBytes bounds stdin. Tool responses can be large (a 50 MB
// response must still be handled), but stdin is never read without a bound.
const MaxPayloadBytes = 256 << 20

// Payload is the union of the input fields of every wired event. Unknown
// fields are ignored and every field is optional, so a newer or older Claude
// Code does not break decoding; tool_input and tool_response stay raw because
// their shape depends on the tool.
type Payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	PromptID       string `json:"prompt_id"`
	PermissionMode string `json:"permission_mode"`
	AgentID        string `json:"agent_id"`
	AgentType      string `json:"agent_type"`

	// SessionStart
	Source        string   `json:"source"`
	Model         string   `json:"model"`
	ContextTokens *float64 `json:"context_tokens"`

	// UserPromptSubmit
	Prompt string `json:"prompt"`

	// PostToolUse, PostToolUseFailure
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`
	ToolUseID    string          `json:"tool_use_id"`
	Error        string          `json:"error"`
	IsInterrupt  bool            `json:"is_interrupt"`
	DurationMS   *float64        `json:"duration_ms"`

	// Stop, SubagentStop
	StopHookActive       bool   `json:"stop_hook_active"`
	LastAssistantMessage string `json:"last_assistant_message"`
	AgentTranscriptPath  string `json:"agent_transcript_path"`

	// PreCompact, PostCompact
	Trigger            string  `json:"trigger"`
	CustomInstructions *string `json:"custom_instructions"`
	CompactSummary     string  `json:"compact_summary"`

	// SessionEnd
	Reason string `json:"reason"`
}

// DecodePayload reads one JSON object from r (at most MaxPayloadBytes) and
// decodes it. The event named on the command line wins over a missing
// hook_event_name; a payload naming a different event is refused, because
// answering it with the wrong hookEventName would inject nothing anyway.
//
// A tool response can be tens of MB, so the payload is held once: read into
// one buffer of its exact size (readAll), with ToolInput and ToolResponse
// slices of that buffer rather than copies.
func DecodePayload(r io.Reader, event string) (*Payload, error) {
	raw, err := readAll(io.LimitReader(r, MaxPayloadBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	if len(raw) > MaxPayloadBytes {
		return nil, fmt.Errorf("stdin exceeds %d bytes", MaxPayloadBytes)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, errors.New("empty stdin: expected a hook payload")
	}
	if raw[0] != '{' {
		return nil, errors.New("stdin is not a JSON object")
	}
	var p Payload
	w := payloadWire{Payload: &p}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("decode payload: %w", err)
	}
	p.ToolInput, p.ToolResponse = json.RawMessage(w.ToolInput), json.RawMessage(w.ToolResponse)
	if p.HookEventName == "" {
		p.HookEventName = event
	}
	if p.HookEventName != event {
		return nil, fmt.Errorf("payload is for %q, not %q", p.HookEventName, event)
	}
	return &p, nil
}

// payloadWire decodes a Payload with its two raw fields as slices of the
// decoded buffer: these fields, one level up, hide the Payload's own.
type payloadWire struct {
	*Payload
	ToolInput    rawSlice `json:"tool_input"`
	ToolResponse rawSlice `json:"tool_response"`
}

// rawSlice is json.RawMessage without the copy: it keeps the slice of the
// input it was decoded from, which is safe because DecodePayload's buffer
// is never written again; its capacity ends with it, so an append copies
// instead of writing over the rest of the payload.
type rawSlice []byte

func (r *rawSlice) UnmarshalJSON(b []byte) error {
	*r = b[:len(b):len(b)]
	return nil
}

// readAll reads r to its end into a slice of exactly the bytes read. A
// small payload is one read into a first chunk; a large one is read in
// chunks copied once into the result, which costs twice its size at the
// peak and once after it, where a growing buffer (io.ReadAll) briefly
// holds its old and new arrays and keeps up to a quarter more.
func readAll(r io.Reader) ([]byte, error) {
	const first, most = 16 << 10, 1 << 20
	var chunks [][]byte
	total := 0
	for size := first; ; size = min(2*size, most) {
		c := make([]byte, size)
		n, err := io.ReadFull(r, c)
		total += n
		chunks = append(chunks, c[:n])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for i, c := range chunks {
		out = append(out, c...)
		chunks[i] = nil
	}
	return out, nil
}
