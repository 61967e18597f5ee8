package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
)

// mainBody is a request body shaped like a main-chain turn: tools offered.
func mainBody(model string, stream bool, user string) string {
	b, _ := json.Marshal(map[string]any{
		"model": model, "stream": stream, "max_tokens": 64000,
		"system":   []any{map[string]string{"type": "text", "text": "You are a Claude agent."}},
		"tools":    []any{map[string]string{"name": "Bash"}},
		"messages": []any{map[string]any{"role": "user", "content": user}},
	})
	return string(b)
}

func post(t *testing.T, url, path, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseEvent is one server-sent event.
type sseEvent struct {
	name string
	data map[string]any
}

// readSSE parses an event stream by the SSE rules the Anthropic SDK uses:
// "event:" and "data:" lines, a blank line ends an event.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	var data strings.Builder
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data.WriteString(strings.TrimPrefix(line, "data: "))
		case line == "":
			if err := json.Unmarshal([]byte(data.String()), &cur.data); err != nil {
				t.Fatalf("event %s: data %q: %v", cur.name, data.String(), err)
			}
			if cur.data["type"] != cur.name {
				t.Errorf("event %s carries type %v", cur.name, cur.data["type"])
			}
			out = append(out, cur)
			cur, data = sseEvent{}, strings.Builder{}
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	return out
}

// assembled is a message rebuilt from its stream, as a client does.
type assembled struct {
	model, stopReason string
	texts             []string
	tools             []ToolUse // Input as json.RawMessage of the reassembled partial_json
	usage             Usage
}

func assemble(t *testing.T, evs []sseEvent) assembled {
	t.Helper()
	var a assembled
	var names []string
	partial := map[int]*strings.Builder{}
	kinds := map[int]string{}
	for _, ev := range evs {
		names = append(names, ev.name)
		switch ev.name {
		case "message_start":
			m := ev.data["message"].(map[string]any)
			a.model = m["model"].(string)
		case "content_block_start":
			i := int(ev.data["index"].(float64))
			cb := ev.data["content_block"].(map[string]any)
			kinds[i] = cb["type"].(string)
			partial[i] = &strings.Builder{}
			if kinds[i] == "tool_use" {
				a.tools = append(a.tools, ToolUse{ID: cb["id"].(string), Name: cb["name"].(string)})
			}
		case "content_block_delta":
			i := int(ev.data["index"].(float64))
			d := ev.data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				partial[i].WriteString(d["text"].(string))
			case "input_json_delta":
				partial[i].WriteString(d["partial_json"].(string))
			default:
				t.Errorf("delta type %v", d["type"])
			}
		case "content_block_stop":
			i := int(ev.data["index"].(float64))
			if kinds[i] == "text" {
				a.texts = append(a.texts, partial[i].String())
			} else {
				a.tools[len(a.tools)-1].Input = json.RawMessage(partial[i].String())
			}
		case "message_delta":
			a.stopReason = ev.data["delta"].(map[string]any)["stop_reason"].(string)
			u, _ := json.Marshal(ev.data["usage"])
			if err := json.Unmarshal(u, &a.usage); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The event grammar: start, (block start, delta+, block stop)*, delta, stop.
	grammar := strings.Join(names, " ")
	for _, n := range []string{"content_block_start content_block_delta", "content_block_delta content_block_stop"} {
		grammar = strings.ReplaceAll(grammar, n, strings.Fields(n)[0])
	}
	for strings.Contains(grammar, "content_block_delta content_block_delta") {
		grammar = strings.ReplaceAll(grammar, "content_block_delta content_block_delta", "content_block_delta")
	}
	if !strings.HasPrefix(grammar, "message_start") || !strings.HasSuffix(grammar, "message_delta message_stop") {
		t.Errorf("event order %v", names)
	}
	return a
}

func TestStubStreams(t *testing.T) {
	usage := Usage{InputTokens: 7, CacheCreationInputTokens: 11, CacheReadInputTokens: 13, OutputTokens: 17}
	tests := []struct {
		name       string
		resp       Response
		wantTexts  []string
		wantTools  []string // "name input"
		wantStop   string
		wantUsage  *Usage
		wantToolID string
	}{
		{"text", Text("héllo wörld"), []string{"héllo wörld"}, nil, "end_turn", nil, ""},
		{"bash", Bash("echo hi", "greet"), nil, []string{`Bash {"command":"echo hi","description":"greet"}`}, "tool_use", nil, "toolu_e2e_000_0"},
		{"text and two tools", Response{Text: "Let me look.", Tools: []ToolUse{
			{Name: "Read", Input: map[string]string{"file_path": "/x"}},
			{ID: "toolu_mine", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
		}}, []string{"Let me look."}, []string{`Read {"file_path":"/x"}`, `Bash {"command":"ls"}`}, "tool_use", nil, "toolu_e2e_000_0"},
		{"scripted usage and stop", Response{Text: "cut", StopReason: "max_tokens"}.WithUsage(usage), []string{"cut"}, nil, "max_tokens", &usage, ""},
		{"empty response", Response{}, []string{"."}, nil, "end_turn", nil, ""},
		{"nil input", Tool("TaskList", nil), nil, []string{`TaskList {}`}, "tool_use", nil, "toolu_e2e_000_0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := NewStub(t, tt.resp)
			body := mainBody("claude-opus-4-8", true, "go")
			resp := post(t, stub.URL(), "/v1/messages?beta=true", body)
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("content type %q", ct)
			}
			a := assemble(t, readSSE(t, resp.Body))
			if a.model != "claude-opus-4-8" {
				t.Errorf("model %q not echoed", a.model)
			}
			if !reflect.DeepEqual(a.texts, tt.wantTexts) {
				t.Errorf("texts %q, want %q", a.texts, tt.wantTexts)
			}
			var tools []string
			for _, tu := range a.tools {
				var v any
				if err := json.Unmarshal(tu.Input.(json.RawMessage), &v); err != nil {
					t.Errorf("tool input %s is not JSON: %v", tu.Input, err)
				}
				tools = append(tools, tu.Name+" "+string(tu.Input.(json.RawMessage)))
			}
			if !reflect.DeepEqual(tools, tt.wantTools) {
				t.Errorf("tools %q, want %q", tools, tt.wantTools)
			}
			if tt.wantToolID != "" && a.tools[0].ID != tt.wantToolID {
				t.Errorf("tool id %q, want %q", a.tools[0].ID, tt.wantToolID)
			}
			if a.stopReason != tt.wantStop {
				t.Errorf("stop %q, want %q", a.stopReason, tt.wantStop)
			}
			if tt.wantUsage != nil && a.usage != *tt.wantUsage {
				t.Errorf("usage %+v, want %+v", a.usage, *tt.wantUsage)
			}
			if tt.wantUsage == nil && (a.usage.InputTokens != len(body)/4+1 || a.usage.OutputTokens < 1) {
				t.Errorf("derived usage %+v for a %d-byte body", a.usage, len(body))
			}
			reqs := stub.Requests()
			if len(reqs) != 1 || string(reqs[0].Body) != body || reqs[0].RawQuery != "beta=true" || reqs[0].Script != 0 || reqs[0].Kind != KindMain {
				t.Errorf("recorded %+v", reqs)
			}
		})
	}
}

func TestStubNonStreaming(t *testing.T) {
	stub := NewStub(t, Response{Text: "hi", Tools: []ToolUse{{Name: "Bash", Input: map[string]string{"command": "true"}}}})
	resp := post(t, stub.URL(), "/v1/messages", mainBody("m-1", false, "go"))
	var msg struct {
		Type, Role, Model string
		StopReason        string `json:"stop_reason"`
		Content           []struct {
			Type, Text, ID, Name string
			Input                map[string]string
		}
		Usage Usage
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if msg.Type != "message" || msg.Role != "assistant" || msg.Model != "m-1" || msg.StopReason != "tool_use" ||
		len(msg.Content) != 2 || msg.Content[0].Text != "hi" || msg.Content[1].Input["command"] != "true" || msg.Usage.InputTokens == 0 {
		t.Errorf("message %+v", msg)
	}
}

// answerText sends a streaming request and returns the concatenated text.
func answerText(t *testing.T, stub *Stub, body string) (string, string) {
	t.Helper()
	a := assemble(t, readSSE(t, post(t, stub.URL(), "/v1/messages?beta=true", body).Body))
	return strings.Join(a.texts, ""), a.stopReason
}

func TestDefaultPolicy(t *testing.T) {
	stub := NewStub(t, Text("one"), Text("two"))
	compactBody, _ := json.Marshal(map[string]any{"model": "m", "stream": true, "tools": []any{map[string]string{"name": "Bash"}},
		"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "x", "content": "ok"},
			map[string]any{"type": "text", "text": "CRITICAL: Respond with TEXT ONLY.\n\nYour task is to create a detailed summary of the conversation so far, paying close attention"},
		}}}})
	background := `{"model":"m","stream":true,"messages":[{"role":"user","content":"Generate a title"}]}`
	steps := []struct {
		body, want, stop string
		kind             Kind
		script           int
	}{
		{background, BackgroundText, "end_turn", KindBackground, -1},
		{mainBody("m", true, "a"), "one", "end_turn", KindMain, 0},
		{string(compactBody), CompactSummary, "end_turn", KindCompact, -1},
		{mainBody("m", true, "b"), "two", "end_turn", KindMain, 1},
		// Exhausted: end_turn text forever, never a tool call (no loop).
		{mainBody("m", true, "c"), ExhaustedText, "end_turn", KindMain, -1},
		{mainBody("m", true, "d"), ExhaustedText, "end_turn", KindMain, -1},
	}
	for i, s := range steps {
		got, stop := answerText(t, stub, s.body)
		if got != s.want || stop != s.stop {
			t.Errorf("step %d: %q %s, want %q %s", i, got, stop, s.want, s.stop)
		}
		r := stub.Requests()[i]
		if r.Kind != s.kind || r.Script != s.script {
			t.Errorf("step %d: kind %v script %d, want %v %d", i, r.Kind, r.Script, s.kind, s.script)
		}
	}
	stub.Push(Text("three"))
	if got, _ := answerText(t, stub, mainBody("m", true, "e")); got != "three" || stub.Remaining() != 0 {
		t.Errorf("after Push: %q, remaining %d", got, stub.Remaining())
	}
	if n := len(stub.Messages(KindMain)); n != 5 {
		t.Errorf("Messages(KindMain) = %d, want 5", n)
	}
	if n := len(stub.Messages()); n != 7 {
		t.Errorf("Messages() = %d, want 7", n)
	}
}

func TestStubOtherEndpoints(t *testing.T) {
	stub := NewStub(t)
	resp := post(t, stub.URL(), "/v1/messages/count_tokens?beta=true", mainBody("m", false, "hello"))
	var ct struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ct); err != nil || resp.StatusCode != 200 || ct.InputTokens <= 0 {
		t.Errorf("count_tokens: %d %+v %v", resp.StatusCode, ct, err)
	}
	head, err := http.Head(stub.URL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	head.Body.Close()
	if head.StatusCode != 200 {
		t.Errorf("HEAD / = %d", head.StatusCode)
	}
	get, err := http.Get(stub.URL() + "/v1/messages")
	if err != nil {
		t.Fatal(err)
	}
	get.Body.Close()
	if nf := post(t, stub.URL(), "/api/hello", "{}"); nf.StatusCode != 404 || get.StatusCode != 404 {
		t.Errorf("unknown endpoint %d, GET /v1/messages %d; want 404", nf.StatusCode, get.StatusCode)
	}
	var kinds []string
	for _, r := range stub.Requests() {
		kinds = append(kinds, r.Method+" "+r.Path+" "+r.Kind.String())
	}
	want := []string{"POST /v1/messages/count_tokens count_tokens", "HEAD / other", "GET /v1/messages other", "POST /api/hello other"}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("recorded %q, want %q", kinds, want)
	}
	if stub.Remaining() != 0 || stub.Requests()[0].Answer != nil {
		t.Error("count_tokens touched the script")
	}
}

// TestStubConcurrent checks, under -race, that concurrent requests are all
// recorded with distinct sequence numbers and that each scripted response is
// used exactly once (the oracle: the set of script indices is 0..n-1).
func TestStubConcurrent(t *testing.T) {
	const n = 64
	var script []Response
	for i := range n {
		script = append(script, Text(fmt.Sprint(i)))
	}
	stub := NewStub(t, script...)
	var wg sync.WaitGroup
	answers := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(stub.URL()+"/v1/messages", "application/json", strings.NewReader(mainBody("m", false, fmt.Sprint(i))))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var msg struct{ Content []struct{ Text string } }
			if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil || len(msg.Content) != 1 {
				t.Error(err, msg)
				return
			}
			answers[i] = msg.Content[0].Text
		}()
	}
	wg.Wait()
	reqs := stub.Requests()
	if len(reqs) != n {
		t.Fatalf("recorded %d requests, want %d", len(reqs), n)
	}
	var idx []int
	for i, r := range reqs {
		if r.Seq != i {
			t.Errorf("request %d has Seq %d", i, r.Seq)
		}
		// The answer recorded with the request is the one its client got.
		var body struct{ Messages []struct{ Content string } }
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		var client int
		fmt.Sscan(body.Messages[0].Content, &client)
		if answers[client] != r.Answer.Text || r.Answer.Text != fmt.Sprint(r.Script) {
			t.Errorf("request %d: client got %q, recorded %q (script %d)", i, answers[client], r.Answer.Text, r.Script)
		}
		idx = append(idx, r.Script)
	}
	sort.Ints(idx)
	for i, x := range idx {
		if x != i {
			t.Fatalf("script indices used %v, want each of 0..%d once", idx, n-1)
		}
	}
}

func TestCustomPolicyAndClassifier(t *testing.T) {
	stub := NewStub(t, Text("scripted"))
	stub.SetClassifier(func(path string, body []byte) Kind {
		if bytes.Contains(body, []byte("side")) {
			return KindBackground
		}
		return Classify(path, body)
	})
	stub.SetPolicy(func(req *Request, s *Script) (Response, int) {
		if req.Kind == KindBackground {
			return Text("custom background"), -1
		}
		return DefaultPolicy(req, s)
	})
	if got, _ := answerText(t, stub, mainBody("m", true, "side")); got != "custom background" {
		t.Errorf("custom policy: %q", got)
	}
	if got, _ := answerText(t, stub, mainBody("m", true, "main")); got != "scripted" {
		t.Errorf("default for main: %q", got)
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		path, body string
		want       Kind
	}{
		{"/v1/messages", mainBody("m", true, "hi"), KindMain},
		{"/v1/messages", `{"messages":[{"role":"user","content":"title please"}]}`, KindBackground},
		{"/v1/messages", `not json`, KindBackground},
		{"/v1/messages", `{"system":"You are a helpful AI assistant tasked with summarizing conversations.","tools":[{}],"messages":[]}`, KindCompact},
		{"/v1/messages", `{"tools":[{}],"messages":[{"role":"user","content":"Your task is to create a detailed summary of this conversation. This summary will be placed"}]}`, KindCompact},
		{"/v1/messages/count_tokens", `{}`, KindCountTokens},
		{"/v1/models", `{}`, KindOther},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+tt.body[:min(len(tt.body), 30)], func(t *testing.T) {
			if got := Classify(tt.path, []byte(tt.body)); got != tt.want {
				t.Errorf("Classify = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	for _, s := range []string{"", "a", "ab", "héé", "日本語", `{"command":"echo"}`} {
		parts := split(s)
		if strings.Join(parts, "") != s {
			t.Errorf("split(%q) = %q does not rejoin", s, parts)
		}
		for _, p := range parts {
			if !utf8Valid(p) {
				t.Errorf("split(%q) cut a rune: %q", s, parts)
			}
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
