package hooks

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// decodePayloadFast decodes a hook payload as json.Unmarshal(raw, p) would,
// without reflection: in a fresh hook process encoding/json first builds
// its field cache for Payload, about 0.1 ms of every hook, more than the
// decode itself. It handles what Claude Code sends (an object of the known
// fields with values of their types, and unknown fields of any value) and
// reports ok=false for anything else (a key that matches a field only
// case-insensitively, a null, a value of the wrong type, a number out of
// range, an escaped key), leaving encoding/json to decode it and name the
// error. raw must be valid JSON (json.Valid), as json.Unmarshal requires
// too before it decodes anything. FuzzPayloadFast holds the two to the same
// result.
func decodePayloadFast(raw []byte, p *Payload) (ok bool) {
	d := fastDec{b: raw}
	d.ws()
	if !d.eat('{') {
		return false
	}
	d.ws()
	if d.eat('}') {
		return d.end()
	}
	for {
		d.ws()
		key, plain := d.str()
		if !plain {
			return false
		}
		d.ws()
		d.i++ // ':' (raw is valid JSON)
		d.ws()
		if !d.field(key, p) {
			return false
		}
		d.ws()
		if d.eat('}') {
			return d.end()
		}
		d.i++ // ','
	}
}

// fastDec walks JSON already known to be valid.
type fastDec struct {
	b []byte
	i int
}

func (d *fastDec) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *fastDec) eat(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// end reports whether only whitespace is left.
func (d *fastDec) end() bool {
	d.ws()
	return d.i == len(d.b)
}

// str reads a string literal at d.i; plain is false for one that
// json.Unmarshal would change (an escape, invalid UTF-8), whose text it
// does not return.
func (d *fastDec) str() (s []byte, plain bool) {
	if !d.eat('"') {
		return nil, false
	}
	start := d.i
	plain = true
	for d.i < len(d.b) {
		switch c := d.b[d.i]; {
		case c == '"':
			s = d.b[start:d.i]
			d.i++
			return s, plain && utf8.Valid(s)
		case c == '\\':
			plain = false
			d.i += 2
		default:
			d.i++
		}
	}
	return nil, false
}

// skip moves past one value (valid JSON).
func (d *fastDec) skip() {
	switch d.b[d.i] {
	case '"':
		d.str()
	case '{', '[':
		depth := 0
		for d.i < len(d.b) {
			switch d.b[d.i] {
			case '"':
				d.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			d.i++
			if depth == 0 {
				return
			}
		}
	default:
		for d.i < len(d.b) {
			switch d.b[d.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			d.i++
		}
	}
}

// field decodes the value at d.i into key's field of p; false when it
// cannot (see decodePayloadFast).
func (d *fastDec) field(key []byte, p *Payload) bool {
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
		var s string
		if !d.strValue(&s) {
			return false
		}
		p.CustomInstructions = &s
		return true
	case "tool_input":
		return d.rawValue(&p.ToolInput)
	case "tool_response":
		return d.rawValue(&p.ToolResponse)
	case "is_interrupt":
		return d.boolValue(&p.IsInterrupt)
	case "stop_hook_active":
		return d.boolValue(&p.StopHookActive)
	case "context_tokens":
		return d.numberValue(&p.ContextTokens)
	case "duration_ms":
		return d.numberValue(&p.DurationMS)
	default:
		if !asciiUnfoldable(key) {
			return false // might match a field case-insensitively
		}
		d.skip()
		return true
	}
	return d.strValue(dst)
}

// strValue decodes a string; an escaped one goes through encoding/json
// (for a string, without the struct reflection).
func (d *fastDec) strValue(dst *string) bool {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return false
	}
	start := d.i
	s, plain := d.str()
	if plain {
		*dst = string(s)
		return true
	}
	return json.Unmarshal(d.b[start:d.i], dst) == nil
}

// rawValue keeps a value's bytes, as json.RawMessage does (a null goes to
// encoding/json).
func (d *fastDec) rawValue(dst *json.RawMessage) bool {
	if d.b[d.i] == 'n' {
		return false
	}
	start := d.i
	d.skip()
	*dst = append(json.RawMessage(nil), d.b[start:d.i]...)
	return true
}

func (d *fastDec) boolValue(dst *bool) bool {
	switch d.b[d.i] {
	case 't':
		*dst = true
		d.i += 4
	case 'f':
		*dst = false
		d.i += 5
	default:
		return false
	}
	return true
}

func (d *fastDec) numberValue(dst **float64) bool {
	if c := d.b[d.i]; c != '-' && (c < '0' || c > '9') {
		return false
	}
	start := d.i
	d.skip()
	f, err := strconv.ParseFloat(string(d.b[start:d.i]), 64)
	if err != nil {
		return false // out of range: encoding/json's error
	}
	*dst = &f
	return true
}

// asciiUnfoldable reports whether key can match no field of Payload under
// encoding/json's case-insensitive matching: it has no letter that folds
// (ASCII letters in another case, or any non-ASCII byte, such as the
// Kelvin sign or the long s) and is none of the field names. Lower-case
// ASCII keys that are not field names are the common case.
func asciiUnfoldable(key []byte) bool {
	for _, c := range key {
		if c >= 0x80 || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}
