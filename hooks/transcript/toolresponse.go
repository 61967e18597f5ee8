package transcript

import (
	"encoding/json"
)

// ToolResponse is what the hooks read of a tool's structured response (a
// tool-result line's toolUseResult, PostToolUse's tool_response) when it is
// an object.
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

// DecodeToolResponse decodes raw with json.Unmarshal; ok is whether that
// returned no error. What it fills despite an error (a value of the wrong
// type leaves the other fields decoded) is kept: replay reads it so.
func DecodeToolResponse(raw []byte) (r ToolResponse, ok bool) {
	err := json.Unmarshal(raw, &r)
	return r, err == nil
}
