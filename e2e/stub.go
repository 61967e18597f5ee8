package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Usage is the token accounting of one scripted response. Claude Code copies
// it into the transcript (message.usage of the assistant line), which is where
// Djinn's context meter reads input + cache_creation + cache_read.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

// ToolUse is one tool_use content block of a scripted response.
type ToolUse struct {
	// ID is the tool_use id; empty gives a stable "toolu_e2e_<request>_<block>".
	ID string
	// Name is the tool name, e.g. "Bash", "Read", "mcp__srv__tool".
	Name string
	// Input is the tool input; it is marshalled to JSON (a json.RawMessage is
	// sent as is) and streamed as input_json_delta chunks.
	Input any
}

// Response is one scripted answer of the stub: optional text, then zero or
// more tool_use blocks, and a stop reason.
type Response struct {
	// Text, if not empty, is sent as the first content block.
	Text string
	// Tools are sent as tool_use blocks after the text.
	Tools []ToolUse
	// StopReason defaults to "tool_use" when Tools is not empty, else
	// "end_turn".
	StopReason string
	// Usage, if not nil, is reported as is; nil derives plausible numbers
	// from the request (input ≈ body bytes / 4) and the answer.
	Usage *Usage
}

// Text returns a response that answers with text and ends the turn.
func Text(text string) Response { return Response{Text: text} }

// Tool returns a response that calls one tool.
func Tool(name string, input any) Response {
	return Response{Tools: []ToolUse{{Name: name, Input: input}}}
}

// Bash returns a response that runs command with the Bash tool.
func Bash(command, description string) Response {
	return Tool("Bash", map[string]string{"command": command, "description": description})
}

// WithUsage returns r reporting u as its token usage.
func (r Response) WithUsage(u Usage) Response {
	r.Usage = &u
	return r
}

func (r Response) stopReason() string {
	switch {
	case r.StopReason != "":
		return r.StopReason
	case len(r.Tools) > 0:
		return "tool_use"
	default:
		return "end_turn"
	}
}

// Kind says what a request to the stub is, as the default classifier sees it.
type Kind int

const (
	// KindMain is a main-chain (or subagent) turn: it consumes the script.
	KindMain Kind = iota
	// KindCompact is the summarisation request of /compact or auto-compaction.
	KindCompact
	// KindBackground is a side request without tools (title, topic, quota
	// check…); it gets a short text answer and does not consume the script.
	KindBackground
	// KindCountTokens is POST /v1/messages/count_tokens.
	KindCountTokens
	// KindOther is any other request: the stub answers 200 with no body for
	// "/" (the CLI's HEAD / reachability probe) and 404 otherwise.
	KindOther
)

func (k Kind) String() string {
	switch k {
	case KindMain:
		return "main"
	case KindCompact:
		return "compact"
	case KindBackground:
		return "background"
	case KindCountTokens:
		return "count_tokens"
	case KindOther:
		return "other"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Request is one HTTP request the stub received, kept for assertions.
type Request struct {
	// Seq is the arrival order, from 0.
	Seq int
	// Method, Path and RawQuery are from the request line
	// (Claude Code sends POST /v1/messages?beta=true).
	Method, Path, RawQuery string
	// Header is a copy of the request headers (x-api-key included: it is the
	// dummy key).
	Header http.Header
	// Body is the raw request body.
	Body []byte
	// Kind is how the stub classified the request.
	Kind Kind
	// Model is the body's "model", echoed back in the answer.
	Model string
	// Stream is the body's "stream".
	Stream bool
	// Script is the index of the scripted response that answered, or -1 when
	// the answer was not from the script (compaction, background, exhausted
	// script, other endpoints).
	Script int
	// Answer is the response that was sent, for /v1/messages requests.
	Answer *Response
}

// Texts returns every text in the request body's system prompt and messages;
// see Texts.
func (r Request) Texts() []string { return Texts(r.Body) }

// Contains reports whether any text of the request contains substr; see
// ContextInRequest.
func (r Request) Contains(substr string) bool { return ContextInRequest(r, substr) }

// Policy chooses the answer to one /v1/messages request. It runs under the
// stub's lock, so it may use script freely. It returns the response and the
// index of the scripted response it used (-1 if none).
type Policy func(req *Request, script *Script) (Response, int)

// Script is the queue of scripted responses of a Stub.
type Script struct {
	items []Response
	next  int
}

// Next returns the next unused response and its index, or ok == false when
// the script is exhausted.
func (s *Script) Next() (r Response, index int, ok bool) {
	if s.next >= len(s.items) {
		return Response{}, -1, false
	}
	s.next++
	return s.items[s.next-1], s.next - 1, true
}

// Remaining is the number of unused responses.
func (s *Script) Remaining() int { return len(s.items) - s.next }

// Default answers of DefaultPolicy.
const (
	// CompactSummary answers every compaction request.
	CompactSummary = "<summary>e2e summary: the user ran echo and a failing command.</summary>"
	// BackgroundText answers background requests.
	BackgroundText = "e2e background reply"
	// ExhaustedText answers main-chain requests once the script is used up.
	// Ending the turn here is what keeps a miscounted script from looping
	// (reference §5.4).
	ExhaustedText = "e2e script exhausted; stopping."
)

// DefaultPolicy answers main-chain requests with the next scripted response
// and end_turn text once the script is exhausted, compaction requests with
// CompactSummary, and background requests with BackgroundText; only
// main-chain requests consume the script.
func DefaultPolicy(req *Request, script *Script) (Response, int) {
	switch req.Kind {
	case KindCompact:
		return Text(CompactSummary), -1
	case KindBackground:
		return Text(BackgroundText), -1
	}
	if r, i, ok := script.Next(); ok {
		return r, i
	}
	return Text(ExhaustedText), -1
}

// compactionMarkers are phrases of the summarisation request. 2.1.197 puts
// "Your task is to create a detailed summary of the conversation so far" in
// the last user message and "You are a helpful AI assistant tasked with
// summarizing conversations." in the system prompt; either is enough.
var compactionMarkers = []string{
	"create a detailed summary of the conversation",
	"create a detailed summary of this conversation",
	"tasked with summarizing conversations",
}

// Classify is the default request classifier: count_tokens by path,
// compaction by the summarisation prompt, background by the absence of tools
// (every main-chain and subagent turn of Claude Code offers tools), main
// otherwise.
func Classify(path string, body []byte) Kind {
	switch path {
	case "/v1/messages/count_tokens":
		return KindCountTokens
	case "/v1/messages":
	default:
		return KindOther
	}
	var b struct {
		Tools []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(body, &b) // a body that does not parse is a background request
	for _, t := range Texts(body) {
		for _, m := range compactionMarkers {
			if strings.Contains(t, m) {
				return KindCompact
			}
		}
	}
	if len(b.Tools) == 0 {
		return KindBackground
	}
	return KindMain
}

// Stub is a scripted stand-in for the Anthropic Messages API on a loopback
// port. Point ANTHROPIC_BASE_URL at URL(). It is safe for concurrent use.
type Stub struct {
	srv *httptest.Server

	mu       sync.Mutex
	script   Script
	policy   Policy
	classify func(path string, body []byte) Kind
	reqs     []Request
}

// NewStub starts a stub answering with script under DefaultPolicy and stops
// it when the test ends.
func NewStub(t testing.TB, script ...Response) *Stub {
	t.Helper()
	s := &Stub{
		script:   Script{items: append([]Response(nil), script...)},
		policy:   DefaultPolicy,
		classify: Classify,
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the base URL, e.g. http://127.0.0.1:41234 (no trailing slash).
func (s *Stub) URL() string { return s.srv.URL }

// Close stops the server; NewStub's cleanup does it too.
func (s *Stub) Close() { s.srv.Close() }

// Push appends responses to the script, e.g. before the next CLI run.
func (s *Stub) Push(rs ...Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script.items = append(s.script.items, rs...)
}

// Remaining is the number of unused scripted responses.
func (s *Stub) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.script.Remaining()
}

// SetPolicy replaces DefaultPolicy.
func (s *Stub) SetPolicy(p Policy) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.policy = p
}

// SetClassifier replaces Classify.
func (s *Stub) SetClassifier(c func(path string, body []byte) Kind) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.classify = c
}

// Requests returns a copy of every request received so far, in order.
func (s *Stub) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Messages returns the /v1/messages requests of the given kinds (all
// /v1/messages requests when kinds is empty), in order.
func (s *Stub) Messages(kinds ...Kind) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Path != "/v1/messages" {
			continue
		}
		if len(kinds) == 0 || slices.Contains(kinds, r.Kind) {
			out = append(out, r)
		}
	}
	return out
}

// serve records the request, decides the answer under the lock, and writes it
// outside the lock so a slow client does not hold up concurrent requests.
func (s *Stub) serve(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	var head struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &head) // recorded whatever it is; the answer copes with ""

	req, answer := s.record(hr, body, head.Model, head.Stream)

	w.Header().Set("request-id", fmt.Sprintf("req_e2e_%03d", req.Seq))
	switch req.Kind {
	case KindCountTokens:
		writeJSON(w, http.StatusOK, map[string]int{"input_tokens": len(body)/4 + 1})
	case KindOther:
		if req.Path == "/" {
			// The CLI probes the base URL with HEAD / before a session.
			w.WriteHeader(http.StatusOK)
			return
		}
		writeJSON(w, http.StatusNotFound, map[string]any{
			"type":  "error",
			"error": map[string]string{"type": "not_found_error", "message": "e2e stub: no such endpoint " + req.Path},
		})
	default:
		msg := buildMessage(&req, answer)
		if req.Stream {
			writeSSE(w, msg)
		} else {
			writeJSON(w, http.StatusOK, msg.final())
		}
	}
}

// record classifies and stores one request and picks its answer, under the
// lock (deferred, so that a panicking custom Policy cannot wedge the stub).
func (s *Stub) record(hr *http.Request, body []byte, model string, stream bool) (Request, Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req := Request{
		Seq:      len(s.reqs),
		Method:   hr.Method,
		Path:     hr.URL.Path,
		RawQuery: hr.URL.RawQuery,
		Header:   hr.Header.Clone(),
		Body:     body,
		Model:    model,
		Stream:   stream,
		Script:   -1,
	}
	req.Kind = s.classify(req.Path, body)
	if req.Method != http.MethodPost && req.Kind != KindOther {
		req.Kind = KindOther
	}
	var answer Response
	if req.Kind == KindMain || req.Kind == KindCompact || req.Kind == KindBackground {
		answer, req.Script = s.policy(&req, &s.script)
		req.Answer = &answer
	}
	s.reqs = append(s.reqs, req)
	return req, answer
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v) // the client is gone if this fails; nothing to do
}

// message is an answer laid out as the API's Message object.
type message struct {
	id, model  string
	blocks     []block
	stopReason string
	usage      Usage
}

type block struct {
	kind  string // "text" or "tool_use"
	text  string
	id    string
	name  string
	input json.RawMessage
}

func buildMessage(req *Request, r Response) message {
	m := message{
		id:         fmt.Sprintf("msg_e2e_%03d", req.Seq),
		model:      req.Model,
		stopReason: r.stopReason(),
	}
	if m.model == "" {
		m.model = "claude-e2e-stub"
	}
	if r.Text != "" {
		m.blocks = append(m.blocks, block{kind: "text", text: r.Text})
	}
	for i, tu := range r.Tools {
		id := tu.ID
		if id == "" {
			id = fmt.Sprintf("toolu_e2e_%03d_%d", req.Seq, i)
		}
		m.blocks = append(m.blocks, block{kind: "tool_use", id: id, name: tu.Name, input: marshalInput(tu.Input)})
	}
	if len(m.blocks) == 0 {
		// The API never sends an empty message; an empty Response means "say nothing much".
		m.blocks = append(m.blocks, block{kind: "text", text: "."})
	}
	if r.Usage != nil {
		m.usage = *r.Usage
	} else {
		out := 1
		for _, b := range m.blocks {
			out += (len(b.text) + len(b.input)) / 4
		}
		m.usage = Usage{InputTokens: len(req.Body)/4 + 1, OutputTokens: out}
	}
	return m
}

func marshalInput(v any) json.RawMessage {
	switch v := v.(type) {
	case nil:
		return json.RawMessage("{}")
	case json.RawMessage:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		// A test scripted an input that cannot be JSON; send the error so the
		// failure shows up in the CLI's output rather than vanishing.
		b, _ = json.Marshal(map[string]string{"e2e_marshal_error": err.Error()})
	}
	return b
}

func (b block) json() map[string]any {
	if b.kind == "text" {
		return map[string]any{"type": "text", "text": b.text}
	}
	return map[string]any{"type": "tool_use", "id": b.id, "name": b.name, "input": b.input}
}

// final is the non-streaming Message object.
func (m message) final() map[string]any {
	content := make([]map[string]any, len(m.blocks))
	for i, b := range m.blocks {
		content[i] = b.json()
	}
	return map[string]any{
		"id": m.id, "type": "message", "role": "assistant", "model": m.model,
		"content": content, "stop_reason": m.stopReason, "stop_sequence": nil,
		"usage": m.usage,
	}
}

// writeSSE streams m as the Messages API does: message_start, for each block
// content_block_start / _delta… / _stop, message_delta, message_stop.
func writeSSE(w http.ResponseWriter, m message) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	var buf bytes.Buffer
	ev := func(name string, v any) {
		data, _ := json.Marshal(v) // maps of plain values: cannot fail
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", name, data)
	}
	startUsage := m.usage
	startUsage.OutputTokens = 1
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": m.id, "type": "message", "role": "assistant", "model": m.model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": startUsage,
	}})
	for i, b := range m.blocks {
		switch b.kind {
		case "text":
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, part := range split(b.text) {
				ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": part}})
			}
		case "tool_use":
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.id, "name": b.name, "input": map[string]any{}}})
			for _, part := range split(string(b.input)) {
				ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	ev("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": m.stopReason, "stop_sequence": nil}, "usage": m.usage})
	ev("message_stop", map[string]any{"type": "message_stop"})
	_, _ = w.Write(buf.Bytes()) // the client is gone if this fails; nothing to do
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// split cuts s into two chunks at a rune boundary, so that clients are
// exercised on reassembling deltas, as with the real API.
func split(s string) []string {
	if len(s) < 2 {
		return []string{s}
	}
	mid := len(s) / 2
	for mid < len(s) && !utf8RuneStart(s[mid]) {
		mid++
	}
	if mid == len(s) {
		return []string{s}
	}
	return []string{s[:mid], s[mid:]}
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
