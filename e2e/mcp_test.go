package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// mcpServerEnv makes the test binary an MCP server (see TestMain): Claude
// Code starts it from --mcp-config with this variable set.
const mcpServerEnv = "E2E_MCP_SERVER"

// serveMCP is a minimal MCP server over stdio (newline-delimited JSON-RPC
// 2.0) with one tool, "dump", which answers {"chars": n} with one text block
// of n 'y' characters: a stand-in for the MCP tools whose huge outputs
// (page snapshots, logs) the compressor exists for.
func serveMCP(in io.Reader, out io.Writer) {
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 16<<20)
	w := bufio.NewWriter(out)
	reply := func(id json.RawMessage, key string, v any) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, key: v}) // plain values: cannot fail
		_, _ = w.Write(append(b, '\n'))
		_ = w.Flush()
	}
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // notifications need no answer
		}
		switch req.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(req.Params, &p)
			reply(req.ID, "result", map[string]any{
				"protocolVersion": p.ProtocolVersion,
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "e2e", "version": "0.0.1"},
			})
		case "tools/list":
			reply(req.ID, "result", map[string]any{"tools": []any{map[string]any{
				"name": "dump", "description": "Print n characters.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"chars": map[string]any{"type": "number"}}},
			}}})
		case "tools/call":
			var p struct {
				Arguments struct {
					Chars int `json:"chars"`
				} `json:"arguments"`
			}
			_ = json.Unmarshal(req.Params, &p)
			reply(req.ID, "result", map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.Repeat("y", p.Arguments.Chars)}}})
		default:
			reply(req.ID, "error", map[string]any{"code": -32601, "message": "method not found: " + req.Method})
		}
	}
}

// mcpConfig is the --mcp-config value that starts serveMCP as server "e2e"
// (its tool is mcp__e2e__dump).
func mcpConfig(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"e2e": map[string]any{"command": exe, "args": []string{}, "env": map[string]string{mcpServerEnv: "1"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return string(cfg)
}

// savedToRE finds the file the CLI saved an oversized tool result to.
var savedToRE = regexp.MustCompile(`Full output saved to: (\S+)`)

// TestCompressorMCPToolOutput: the compressor on an MCP tool, where it is on
// by default (updatedMCPToolOutput), with the real CLI 2.1.197.
//
// The CLI bounds MCP results itself: above MAX_MCP_OUTPUT_TOKENS (25,000 by
// default) the hook and the model get only an error pointing to a saved
// file, and a result over 50,000 characters reaches the model as a 2 KB
// "<persisted-output>" preview of a file. So an output over Djinn's
// 200,000-character cap needs MAX_MCP_OUTPUT_TOKENS raised, and even then
// what Djinn makes of it lands in the CLI's saved file, not in the request.
func TestCompressorMCPToolOutput(t *testing.T) {
	t.Parallel()
	const marker = "[djinn: cut "
	run := func(t *testing.T, chars int, env ...string) (result string, next Request) {
		t.Helper()
		stub := NewStub(t, Tool("mcp__e2e__dump", map[string]int{"chars": chars}), Text("It is all y."))
		e := djinnEnv(t, stub, t.TempDir())
		e.Env = append(e.Env, env...)
		res := e.MustClaude(pluginRun(t, Run{
			Prompt:       "Dump the page and tell me what is on it.",
			AllowedTools: []string{"mcp__e2e__dump"},
			Args:         []string{"--mcp-config", mcpConfig(t), "--strict-mcp-config"},
		}))
		main := stub.Messages(KindMain)
		if len(main) != 2 {
			t.Fatalf("main-chain requests = %d, want 2\n%v", len(main), res)
		}
		for _, l := range Locate(main[1].Body) {
			if l.Block == "tool_result" {
				result += l.Text
			}
		}
		if result == "" || strings.Contains(result, "Error:") {
			t.Fatalf("tool_result %.300q; want the tool's output\n%v", result, res)
		}
		return result, main[1]
	}

	// Under the CLI's limits and over a lowered cap: the model gets Djinn's
	// replacement, at most cap characters with the marker, and
	// [djinn:compacted] as context. builtin_tools plays no part.
	t.Run("over a lowered cap", func(t *testing.T) {
		t.Parallel()
		const limit = 20000
		result, next := run(t, 45000, fmt.Sprintf("DJINN_COMPRESS_CAP=%d", limit))
		if n := len(result); n > limit || n < limit/2 || !strings.Contains(result, marker) {
			t.Errorf("tool_result has %d characters (marker: %v); want Djinn's replacement, at most %d", n, strings.Contains(result, marker), limit)
		}
		if p := ContextPlacement(next, "[djinn:compacted]"); p != PlacementSystemReminder && p != PlacementSystemMessage {
			t.Errorf("[djinn:compacted] placed as %v; tags %v", p, djinnTags(next))
		}
	})

	// Over 200,000 characters at the default cap (MAX_MCP_OUTPUT_TOKENS
	// raised so the hook sees it all): Djinn cuts it to the cap, and the CLI
	// saves Djinn's version, not the original, behind its preview.
	t.Run("over 200,000 characters, default cap", func(t *testing.T) {
		t.Parallel()
		result, next := run(t, 250000, "MAX_MCP_OUTPUT_TOKENS=200000")
		if len(result) > 200000 || !strings.Contains(result, "<persisted-output>") {
			t.Fatalf("tool_result has %d characters; want the CLI's preview:\n%.300s", len(result), result)
		}
		m := savedToRE.FindStringSubmatch(result)
		if m == nil {
			t.Fatalf("the preview names no saved file:\n%.300s", result)
		}
		saved, err := os.ReadFile(m[1])
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(saved), "y"); n > 200000 || n < 190000 || !strings.Contains(string(saved), marker) {
			t.Errorf("the CLI's saved result holds %d characters of output (marker: %v); want Djinn's cut to the 200,000 cap",
				n, strings.Contains(string(saved), marker))
		}
		if !ContextInRequest(next, "[djinn:compacted]") {
			t.Errorf("[djinn:compacted] is not in context; tags %v", djinnTags(next))
		}
	})
}
