package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/djinn-cc/djinn/engines/compress"
	"github.com/djinn-cc/djinn/hooks/advice"
)

// maxSavedOutputs bounds how many full outputs a session keeps in
// outputs/ for the agent to read again after a cut.
const maxSavedOutputs = 8

// isMCP reports whether a tool is an MCP server's (mcp__<server>__<tool>).
func isMCP(tool string) bool { return strings.HasPrefix(tool, "mcp__") }

// compressOutput shortens an oversized tool output (seed 004) and returns
// the replacement in the tool's own shape: updatedMCPToolOutput for MCP
// tools, updatedToolOutput for built-in tools when compress.builtin_tools is
// on. The full output is saved in the session's outputs/ directory, which
// the [djinn:compacted] advisory names.
func (s *session) compressOutput(p *Payload) (Response, []advice.Advisory) {
	mcp := isMCP(p.ToolName)
	if len(p.ToolResponse) == 0 || (!mcp && !s.env.Settings.Compress.BuiltinTools) {
		return Response{}, nil
	}
	// Cheap guard: nothing under the snapshot threshold in bytes can need
	// cutting, whatever its shape (a rune is at least one byte).
	cfg := s.env.Settings.Compress.Config
	if len(p.ToolResponse) <= min(cfg.Cap, cfg.SnapshotThreshold) && !bytes.Contains(p.ToolResponse, []byte("base64,")) {
		return Response{}, nil
	}
	if !mcp && bytes.Contains(p.ToolResponse, []byte(`"persistedOutputPath"`)) {
		// Claude Code already saved this output to a file and shows the
		// model only a short preview: replacing it would change nothing
		// the model sees (checked with CLI 2.1.197).
		return Response{}, nil
	}
	resp, err := decodeResponse(p.ToolResponse, splitDepth, splitMin)
	if err != nil {
		return Response{}, nil
	}
	var raw []byte
	out, rep := compress.CompressToolResponse(p.ToolName, resp, cfg)
	if !rep.Changed {
		return Response{}, nil
	}
	raw, err = json.Marshal(out)
	if err != nil {
		return Response{}, nil
	}
	saved := s.saveOutput(p)
	var r Response
	if mcp {
		r.UpdatedMCPToolOutput = raw
	} else {
		r.UpdatedToolOutput = raw
	}
	a := advice.Compacted(advice.CompactedFacts{
		Tool: p.ToolName, Target: callSummary(p, s.w.ProjectDir), Before: rep.Before, After: rep.After,
		Cuts: rep.String(), Saved: saved,
	})
	return r, []advice.Advisory{a}
}

// splitDepth and splitMin bound decodeResponse's recursion: how many
// levels of a large response it splits, and the size under which a value
// is decoded whole.
const (
	splitDepth = 4
	splitMin   = 64 << 10
)

// decodeResponse decodes a tool_response as a json.Decoder with UseNumber
// does (objects as map[string]any, arrays as []any, numbers as
// json.Number, as written), without the decoder's copy of the whole text
// in its buffer: the objects and arrays of a large value, down to depth
// levels, are split into members that are slices of raw and decoded one by
// one, and a string is decoded straight from raw. A value under least
// bytes is decoded whole. raw is one valid JSON value (the payload decoder
// checked it).
func decodeResponse(raw []byte, depth, least int) (any, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case depth == 0 || len(raw) < least || raw[0] != '{' && raw[0] != '[':
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		err := dec.Decode(&v)
		return v, err
	case raw[0] == '{':
		var members map[string]rawSlice
		if err := json.Unmarshal(raw, &members); err != nil {
			return nil, err
		}
		out := make(map[string]any, len(members))
		for k, m := range members {
			v, err := decodeResponse(m, depth-1, least)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	default:
		var elems []rawSlice
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, err
		}
		out := make([]any, len(elems))
		for i, e := range elems {
			v, err := decodeResponse(e, depth-1, least)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
}

// saveOutput writes the full tool response to outputs/<tool_use_id>.json
// (0600), keeping the newest maxSavedOutputs, and returns its path ("" if
// it could not be saved).
func (s *session) saveOutput(p *Payload) string {
	dir := s.path("outputs")
	name := sanitizeName(p.ToolUseID)
	if name == "" {
		name = fmt.Sprintf("call-%d", s.w.ToolCalls)
	}
	path := filepath.Join(dir, name+".json")
	if err := s.env.Store.WriteRaw(path, p.ToolResponse); err != nil {
		return ""
	}
	// Only files Djinn made are removed, never through a link (TrimDir).
	_ = s.env.Store.TrimDir(dir, maxSavedOutputs)
	return path
}

func sanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
		}
		if b.Len() >= 100 {
			break
		}
	}
	return b.String()
}
