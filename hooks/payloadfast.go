package hooks

import (
	"github.com/djinn-cc/djinn/hooks/transcript"
)

// decodePayloadFast decodes a hook payload as json.Unmarshal(raw, p) would,
// without reflection: in a fresh hook process encoding/json first builds
// its field cache for Payload, about 0.1 ms of every hook, more than the
// decode itself. It walks raw with the transcript's one-pass parser
// (transcript.DecodeObject), which checks the syntax as it goes, and takes
// what Claude Code sends: an object of the known fields with values of
// their types, and unknown fields of any value. It reports ok=false for
// anything else (bad JSON, a key that matches a field only
// case-insensitively, an escaped key, a null where encoding/json would set
// a pointer or keep raw bytes, a value of the wrong type, a number out of
// range), leaving encoding/json to decode it and name the error.
// TestPayloadFastMatchesUnmarshal and FuzzPayloadFast hold the two to the
// same result.
func decodePayloadFast(raw []byte, p *Payload) (ok bool) {
	return transcript.DecodeObject(raw, func(key []byte, v *transcript.Value) bool {
		var dst *string
		switch string(key) {
		case "session_id":
			dst = &p.SessionID
		case "transcript_path":
			dst = &p.TranscriptPath
		case "cwd":
			dst = &p.Cwd
		case "hook_event_name":
			dst = &p.HookEventName
		case "prompt_id":
			dst = &p.PromptID
		case "permission_mode":
			dst = &p.PermissionMode
		case "agent_id":
			dst = &p.AgentID
		case "agent_type":
			dst = &p.AgentType
		case "source":
			dst = &p.Source
		case "model":
			dst = &p.Model
		case "prompt":
			dst = &p.Prompt
		case "tool_name":
			dst = &p.ToolName
		case "tool_use_id":
			dst = &p.ToolUseID
		case "error":
			dst = &p.Error
		case "last_assistant_message":
			dst = &p.LastAssistantMessage
		case "agent_transcript_path":
			dst = &p.AgentTranscriptPath
		case "trigger":
			dst = &p.Trigger
		case "reason":
			dst = &p.Reason
		case "custom_instructions":
			if v.Null() {
				return false // encoding/json sets the pointer to nil
			}
			var s string
			if !v.String(&s) {
				return false
			}
			p.CustomInstructions = &s
			return true
		case "tool_input":
			return v.Raw(&p.ToolInput)
		case "tool_response":
			return v.Raw(&p.ToolResponse)
		case "is_interrupt":
			return v.Bool(&p.IsInterrupt)
		case "stop_hook_active":
			return v.Bool(&p.StopHookActive)
		case "context_tokens":
			return !v.Null() && v.Float(&p.ContextTokens)
		case "duration_ms":
			return !v.Null() && v.Float(&p.DurationMS)
		default:
			if !unfoldable(key) {
				return false // might match a field case-insensitively
			}
			return v.Skip()
		}
		return v.String(dst)
	})
}

// unfoldable reports whether key can match no field of Payload under
// encoding/json's case-insensitive matching, given that it is none of the
// field names: the names are lower-case ASCII, so only a key with an
// upper-case ASCII letter or a non-ASCII byte (the Kelvin sign, the long s)
// could. Lower-case ASCII keys that are not field names are the common
// case.
func unfoldable(key []byte) bool {
	for _, c := range key {
		if c >= 0x80 || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}
