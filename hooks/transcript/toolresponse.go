package transcript

import (
	"bytes"
	"encoding/json"
)

// ToolResponse is what the hooks read of a tool's structured response (a
// tool-result line's toolUseResult, PostToolUse's tool_response) when it is
// an object: the fields encoding/json would fill from these keys.
type ToolResponse struct {
	OriginalFile *string `json:"originalFile"` // nil for null or absent
	Type         string  `json:"type"`
	File         struct {
		Content string `json:"content"`
	} `json:"file"`
	Stdout    string          `json:"stdout"`
	Stderr    string          `json:"stderr"`
	NewString string          `json:"newString"`
	Content   json.RawMessage `json:"content"`
	Result    string          `json:"result"`
	Filenames []string        `json:"filenames"`
}

var toolResponseKeys = []string{"originalFile", "type", "file", "stdout", "stderr", "newString", "content", "result", "filenames"}

// DecodeToolResponse decodes raw as json.Unmarshal(raw, &r) would; ok is
// whether that returns no error (valid JSON, every field of its type). A
// response can be large (an Edit's carries the whole original file), so
// the common shape is read in one pass; anything else goes to
// encoding/json, which defines the result (TestDecodeToolResponse).
func DecodeToolResponse(raw []byte) (r ToolResponse, ok bool) {
	p := fastParser{b: raw}
	if p.toolResponse(&r) {
		p.space()
		if p.i == len(p.b) {
			return r, true
		}
	}
	r = ToolResponse{}
	return r, json.Unmarshal(raw, &r) == nil
}

func (p *fastParser) toolResponse(r *ToolResponse) bool {
	var seen uint32
	return p.object(func(key []byte) bool {
		switch string(key) {
		case "originalFile":
			if !once(&seen, 1) {
				return false
			}
			if p.peek() == 'n' {
				return p.literal("null")
			}
			var s string
			if p.peek() != '"' || !p.str(&s) {
				return false
			}
			r.OriginalFile = &s
			return true
		case "type":
			return once(&seen, 2) && p.str(&r.Type)
		case "file":
			if !once(&seen, 4) {
				return false
			}
			if p.peek() == 'n' {
				return p.literal("null")
			}
			var fseen uint32
			return p.object(func(key []byte) bool {
				if string(key) == "content" {
					return once(&fseen, 1) && p.str(&r.File.Content)
				}
				return !bytes.EqualFold(key, []byte("content")) && p.skip()
			})
		case "stdout":
			return once(&seen, 8) && p.str(&r.Stdout)
		case "stderr":
			return once(&seen, 16) && p.str(&r.Stderr)
		case "newString":
			return once(&seen, 32) && p.str(&r.NewString)
		case "content":
			return once(&seen, 64) && p.raw(&r.Content)
		case "result":
			return once(&seen, 128) && p.str(&r.Result)
		case "filenames":
			if !once(&seen, 256) {
				return false
			}
			if p.peek() == 'n' {
				return p.literal("null")
			}
			r.Filenames = []string{}
			return p.array(func() bool {
				var s string
				if p.peek() != '"' || !p.str(&s) {
					return false
				}
				r.Filenames = append(r.Filenames, s)
				return true
			})
		}
		return !foldsTo(key, toolResponseKeys) && p.skip()
	})
}
