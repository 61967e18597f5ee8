package compress

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// field is one string in a tool response that CompressToolResponse may
// shorten, with the way to put the shorter one back.
type field struct {
	path string
	text string
	set  func(string)
}

// untouched reports whether tool is a built-in tool whose response is not
// what the model reads (the model gets a short confirmation) and whose
// fields are file contents and patches: shortening them gains nothing and
// could mislead whatever reads the response next.
func untouched(tool string) bool {
	switch tool {
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		return true
	}
	return false
}

// CompressToolResponse applies the compressor to the text of a tool's
// response and returns the same structure, shortened, for PostToolUse's
// updatedToolOutput (built-in tools) or updatedMCPToolOutput (MCP tools).
// resp is the decoded tool_response (map[string]any, []any, string, or
// scalars, as encoding/json produces); it is not modified: the result is a
// copy wherever something changed.
//
// Which strings count as text:
//   - a response that is itself a string: that string;
//   - Bash: stdout and stderr (nothing when isImage is true: stdout is then
//     an image);
//   - Read: file.content (an image read has file.base64 instead, which is
//     kept);
//   - Grep: content; WebFetch: result; TaskOutput: task.output;
//   - Task, Agent and MCP tools (names starting "mcp__"): the text of
//     content blocks {"type":"text","text":…}, whether the response is the
//     block list or an object with a "content" list;
//   - Edit, MultiEdit, Write, NotebookEdit: nothing (see untouched);
//   - any other tool, or a known tool whose response has an unexpected
//     shape: every string in the response, except inside image blocks
//     ({"type":"image",…}) and under "base64" keys. Lists are never
//     shortened, so the shape stays valid.
//
// The fields share one cap, filled like water: the shorter fields keep all
// their text, the longer ones are cut to an equal share of what is left
// (so a short stderr survives a huge stdout). No field is cut below MinCap
// characters, so a response with more than Cap/MinCap long strings can stay
// over the cap. A field under its share is still shortened if it is a page
// snapshot over the threshold. The report sums the cuts and lists the
// changed fields.
func CompressToolResponse(tool string, resp any, cfg Config) (any, Report) {
	cfg = cfg.sanitized()
	root := deepCopy(resp)
	holder := []any{root}
	fields := textFields(tool, holder)
	var rep Report
	if len(fields) == 0 {
		return resp, rep
	}
	sizes := make([]int, len(fields))
	for i, f := range fields {
		sizes[i] = utf8.RuneCountInString(f.text)
		rep.Before += sizes[i]
	}
	// No field is cut below MinCap: a response with hundreds of long
	// strings would otherwise have each replaced by a bare marker.
	level := max(waterLevel(sizes, cfg.Cap), MinCap)
	for _, f := range fields {
		out, r := compress(f.text, cfg, level)
		rep.After += r.After
		if !r.Changed {
			continue
		}
		f.set(out)
		rep.Changed = true
		rep.Fields = append(rep.Fields, f.path)
		rep.merge(r)
	}
	if !rep.Changed {
		return resp, rep
	}
	return holder[0], rep
}

// waterLevel returns the largest per-field cap L with Σ min(size, L) ≤
// total, or total itself when everything fits.
func waterLevel(sizes []int, total int) int {
	sum := 0
	for _, s := range sizes {
		sum += s
	}
	if sum <= total {
		return total
	}
	sorted := slices.Clone(sizes)
	slices.Sort(sorted)
	left := total
	for i, s := range sorted {
		rest := len(sorted) - i
		if s*rest > left {
			return left / rest
		}
		left -= s
	}
	return total // unreachable: sum > total
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, e := range v {
			s[i] = deepCopy(e)
		}
		return s
	default:
		return v
	}
}

// textFields finds the text fields of tool's response, holder[0].
func textFields(tool string, holder []any) []field {
	root := holder[0]
	if s, ok := root.(string); ok {
		return []field{{path: "$", text: s, set: func(n string) { holder[0] = n }}}
	}
	if untouched(tool) {
		return nil
	}
	m, _ := root.(map[string]any)
	var fs []field
	switch {
	case tool == "Bash" && m != nil:
		if img, _ := m["isImage"].(bool); img {
			return nil
		}
		fs = append(fs, keyField(m, "stdout", "$.stdout")...)
		fs = append(fs, keyField(m, "stderr", "$.stderr")...)
	case tool == "Read" && m != nil:
		if file, ok := m["file"].(map[string]any); ok {
			if _, img := file["base64"]; img {
				return nil
			}
			fs = keyField(file, "content", "$.file.content")
		}
	case tool == "Grep" && m != nil:
		fs = keyField(m, "content", "$.content")
	case tool == "WebFetch" && m != nil:
		fs = keyField(m, "result", "$.result")
	case tool == "TaskOutput" && m != nil:
		if task, ok := m["task"].(map[string]any); ok {
			fs = keyField(task, "output", "$.task.output")
		}
	case tool == "Task" || tool == "Agent" || strings.HasPrefix(tool, "mcp__"):
		if blocks, ok := root.([]any); ok {
			fs = blockFields(blocks, "$")
		} else if blocks, ok := m["content"].([]any); ok {
			fs = blockFields(blocks, "$.content")
		}
	}
	if len(fs) > 0 {
		return fs
	}
	leaves(root, "$", &fs)
	return fs
}

func keyField(m map[string]any, key, path string) []field {
	s, ok := m[key].(string)
	if !ok {
		return nil
	}
	return []field{{path: path, text: s, set: func(n string) { m[key] = n }}}
}

func blockFields(blocks []any, path string) []field {
	var fs []field
	for i, b := range blocks {
		bm, ok := b.(map[string]any)
		if !ok || bm["type"] != "text" {
			continue
		}
		fs = append(fs, keyField(bm, "text", path+"["+strconv.Itoa(i)+"].text")...)
	}
	return fs
}

// leaves collects every string under v, skipping image blocks and base64
// fields, in a stable order (map keys sorted) so reports are reproducible.
func leaves(v any, path string, fs *[]field) {
	switch v := v.(type) {
	case map[string]any:
		if v["type"] == "image" {
			return
		}
		keys := slices.Sorted(maps.Keys(v))
		for _, k := range keys {
			if k == "base64" {
				continue
			}
			p := path + "." + k
			if s, ok := v[k].(string); ok {
				*fs = append(*fs, field{path: p, text: s, set: func(n string) { v[k] = n }})
				continue
			}
			leaves(v[k], p, fs)
		}
	case []any:
		for i, e := range v {
			p := path + "[" + strconv.Itoa(i) + "]"
			if s, ok := e.(string); ok {
				*fs = append(*fs, field{path: p, text: s, set: func(n string) { v[i] = n }})
				continue
			}
			leaves(e, p, fs)
		}
	}
}
