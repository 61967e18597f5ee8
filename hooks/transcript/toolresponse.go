package transcript

import (
	"encoding/json"
)

// ToolResponse is what the hooks read of a tool's structured response (a
// tool-result line's toolUseResult, PostToolUse's tool_response) when it is
// an object: the fields encoding/json would fill from these keys.
type ToolResponse struct {
	OriginalFile *string `json:"originalFile"` // nil for null or absent
	Type         string  `json:"type"`
	File         struct {
		Content    string `json:"content"`
		StartLine  int    `json:"startLine"`
		NumLines   int    `json:"numLines"`
		TotalLines int    `json:"totalLines"`
	} `json:"file"`
	Stdout    string          `json:"stdout"`
	Stderr    string          `json:"stderr"`
	NewString string          `json:"newString"`
	Content   json.RawMessage `json:"content"`
	Result    string          `json:"result"`
	Filenames []string        `json:"filenames"`
}

var (
	toolResponseKeys = []string{"originalFile", "type", "file", "stdout", "stderr", "newString", "content", "result", "filenames"}
	fileKeys         = []string{"content", "startLine", "numLines", "totalLines"}
)

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
	// What encoding/json leaves in r counts even with its error (a value of
	// the wrong type still fills the other fields): replay reads it so.
	r = ToolResponse{}
	err := json.Unmarshal(raw, &r)
	return r, err == nil
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
				switch string(key) {
				case "content":
					return once(&fseen, 1) && p.str(&r.File.Content)
				case "startLine":
					return once(&fseen, 2) && p.count(&r.File.StartLine)
				case "numLines":
					return once(&fseen, 4) && p.count(&r.File.NumLines)
				case "totalLines":
					return once(&fseen, 8) && p.count(&r.File.TotalLines)
				}
				return !foldsTo(key, fileKeys) && p.skip()
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

// count reads a plain integer into an int (null leaves it, as
// encoding/json does); anything else gives up.
func (p *fastParser) count(n *int) bool {
	if p.peek() == 'n' {
		return p.literal("null")
	}
	var v int64
	if !p.integer(&v) || int64(int(v)) != v {
		return false
	}
	*n = int(v)
	return true
}
