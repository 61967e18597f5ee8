package transcript

import "encoding/json"

// FileResponse is what replay reads of a file tool's response (Read,
// Edit, MultiEdit) to leave the file on disk as the tool did: the file
// before an edit, and a read's content and range.
type FileResponse struct {
	OriginalFile *string `json:"originalFile"` // nil for null or absent
	File         struct {
		Content    string `json:"content"`
		StartLine  int    `json:"startLine"`
		NumLines   int    `json:"numLines"`
		TotalLines int    `json:"totalLines"`
	} `json:"file"`
}

var (
	fileResponseKeys = []string{"originalFile", "file"}
	fileKeys         = []string{"content", "startLine", "numLines", "totalLines"}
)

// DecodeFileResponse gives what json.Unmarshal(raw, &r) leaves in r,
// whatever error it returns (on a value of the wrong type it still fills
// the other fields; on bad syntax, none). These responses carry whole
// files (an Edit's original, a Read's content), and encoding/json checked
// and then decoded each, a tenth of replay's time: the common shape is
// read in one pass, and anything else goes to encoding/json, which defines
// the result (TestDecodeFileResponse, FuzzDecodeFileResponse).
func DecodeFileResponse(raw []byte) FileResponse {
	var r FileResponse
	p := fastParser{b: raw}
	if p.fileResponse(&r) {
		p.space()
		if p.i == len(p.b) {
			return r
		}
	}
	r = FileResponse{}
	_ = json.Unmarshal(raw, &r)
	return r
}

func (p *fastParser) fileResponse(r *FileResponse) bool {
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
		case "file":
			if !once(&seen, 2) {
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
		}
		return !foldsTo(key, fileResponseKeys) && p.skip()
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
