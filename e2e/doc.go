// Package e2e is the end-to-end harness: the real Claude Code CLI, run
// headless against a scripted stub of the Anthropic Messages API on a
// loopback port, with every request the CLI makes kept for assertions.
// It is how the hook contract in the reference
// (/work/shared/reference/claude-code-hooks-and-plugins.md §5.4) was
// checked, packaged for tests in any package of the repository.
//
// # Using it
//
//	stub := e2e.NewStub(t,
//		e2e.Bash("echo hi", "Say hi"),                 // 1st main-chain request: a tool call
//		e2e.Text("Done.").WithUsage(e2e.Usage{...}),   // 2nd: end the turn, with token counts
//	)
//	env := e2e.NewEnv(t, stub)                         // skips or fails without the CLI (below)
//	res := env.MustClaude(e2e.Run{Prompt: "Please run echo", PluginDirs: []string{pluginDir}})
//	next := stub.Messages(e2e.KindMain)[1]             // the request after the tool call
//	if !e2e.ContextInRequest(next, "[djinn:") { … }  // did hook context reach the model?
//	env.MustClaude(e2e.Run{Prompt: "/compact keep notes", Resume: res.SessionID, PluginDirs: …})
//
// Stub answers POST /v1/messages (the CLI adds ?beta=true) with an SSE
// stream (message_start, content_block_start / text_delta or
// input_json_delta / content_block_stop, message_delta with stop_reason and
// usage, message_stop), or with a JSON message when the request does not
// stream; it echoes the request's model (2.1.197 asks for
// claude-opus-4-8 by default), answers count_tokens, returns 200 to the
// CLI's HEAD / probe and 404 to anything else. Each request is recorded
// (Request: method, path, query, headers, raw body, its Kind, the answer)
// under a lock.
//
// A Policy chooses each answer. DefaultPolicy gives main-chain requests the
// next scripted Response, and once the script is used up, end_turn text
// (ExhaustedText), so that a wrong script ends the run instead of looping;
// it answers the compaction request with CompactSummary and background
// requests (no tools offered: titles and the like) with BackgroundText,
// neither consuming the script. Classify tells them apart: the summarisation
// request of 2.1.197 offers the same tools as a main turn but its last user
// message says "Your task is to create a detailed summary of the
// conversation so far" (the system prompt of the older standalone compactor
// says "tasked with summarizing conversations"); both phrases are matched.
// Usage numbers are scriptable per response because Djinn's context meter
// reads input + cache_creation + cache_read from the transcript, which
// copies them.
//
// Env is a scratch world: HOME and the project directory (the working
// directory) under t.TempDir(), ANTHROPIC_BASE_URL at the stub,
// ANTHROPIC_API_KEY=sk-ant-dummy, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
// and DISABLE_TELEMETRY=1. Only PATH, TMPDIR, LANG, LC_ALL and TZ are taken
// from the test's environment, so a developer's CLAUDE_* or ANTHROPIC_*
// settings, or a surrounding Claude Code session, cannot leak in. Env.Claude
// runs `claude -p <prompt> --output-format stream-json --verbose
// --include-hook-events --max-turns N --allowedTools … [--plugin-dir d]…
// [--resume id] [extra args]` and returns the parsed stream-json events
// (hook_started and hook_response lines included), stdout, stderr, the
// exit code and the session id. Env.Plugin runs `claude plugin …` (validate,
// marketplace add, install, list) in the same HOME. NewRecorder writes a
// throwaway plugin whose hooks save their stdin, one file per event.
//
// # Finding the CLI, and the skip rule
//
// FindCLI looks at $DJINN_CLAUDE_BIN, then at the cache that
// scripts/install-claude-cli fills (CacheBinary:
// ${DJINN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/djinn-ci}/claude-code),
// then at PATH. When there is none, a test calling RequireCLI or NewEnv is
// skipped with a message saying to run scripts/install-claude-cli, except
// when CI=true: then it fails with that message, because CI must never
// silently skip the end-to-end tests.
//
// # Versions
//
// The pinned CLI is 2.1.197 (PinnedVersion): later versions need Node 22,
// and npm on Node 20 resolves an unpinned install to 2.1.197. Versions
// place injected context differently (reference §2.4, §8). 2.1.197 sends a
// live turn's PostToolUse additionalContext as a "<system-reminder>" text
// block inside the user message that carries the tool_result; 2.1.330 sends
// it as a separate role:"system" message; and 2.1.197 itself, replaying a
// resumed session, sends the same context as a role:"system" message (seen
// in the compaction request of the self-test). Assertions must therefore
// search every text of a request (ContextInRequest, FindText, Locate) or
// accept both placements (ContextPlacement). Newer versions also fire more
// events (two SubagentStop on /compact in 2.1.330), so counts in
// assertions are lower bounds where that matters.
//
// The self-test (TestSelf) runs a tool call, a failing tool call and
// /compact on the resumed session with a recording plugin, and checks every
// event Djinn wires. With -capture-payloads it rewrites the redacted
// fixtures in testdata/payloads.
package e2e
