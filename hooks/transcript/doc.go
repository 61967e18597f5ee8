// Package transcript reads Claude Code transcripts (the JSONL file at a
// hook's transcript_path) defensively and in bounded time.
//
// The format is internal to Claude Code and changes between versions, so
// Decode skips what it does not know: unknown line types and fields are
// ignored, a field of an unexpected type is left zero, and only a line that
// is not a JSON object is an error (callers skip it).
//
// # The context meter
//
// Measure implements the status line's formula (Claude Code docs,
// "statusline"): the context is input + cache-creation + cache-read tokens of
// the latest main-chain assistant message. Sidechain (subagent) lines and
// "<synthetic>" placeholders are skipped; the several lines one API response
// is written as share their usage, so the latest of them will do. A
// system/compact_boundary after that message makes the reading stale: the
// size is unknown until the next response, and the boundary's preTokens is
// reported instead (the status line likewise shows no usage after /compact).
//
// Hooks run on every tool call, so the cost must not grow with the session.
// Measure reads backwards from the end in Chunk-sized reads and stops as soon
// as it knows the answer, never reading more than Budget bytes. A line longer
// than the budget (a 20 MB tool result) cannot be decoded from a window, so
// the caller also keeps a small Cursor between hooks: the file size, an
// offset just after a newline, and the last reading. When the tail window
// does not decide, Measure reads up to Budget bytes forward from that
// boundary, which finds an assistant line written just before a huge tool
// result; when neither window decides, the cursor's reading is carried over
// (exact when the tail window reached back to the boundary, since nothing
// that matters was written since). With a cursor, a line of LongLine bytes
// or more (64 KiB by default) is given up on by both windows after that many
// of its bytes, so a hook after a 20 MB tool result reads about 150 KB, as
// flat as a hook on a 50 MB transcript of short lines (scripts/bench-meter).
// What cannot be seen this way, an assistant line itself that long or one
// between two long lines written since the cursor, is missed: the reading
// is then the carried one, one response late. On the corpus no relevant
// line is that long (TestMeterCursorChainOnCorpus).
//
// The tail walk also stops at the cursor's boundary when nothing after it
// changes the reading and nothing before it is wanted: with LastTextOnly and
// KnownMessage naming the message the caller has the text of (the hooks'
// drift signal takes each message's text once), a hook after a run of
// progress lines reads only those lines.
//
// A last line without its newline may be half written: it is used if it
// decodes and ignored otherwise. Only regular files are read: a directory,
// FIFO, device, or a symlink loop is an error before any read, and the file
// is opened non-blocking so that a FIFO swapped in after the check cannot
// hang the hook. Errors come with a usable Scan (the carried reading), since
// a missing or unreadable transcript must not stop a hook.
//
// From the same windows Measure also returns the latest assistant text (what
// the agent itself wrote, and the Stop fallback when last_assistant_message
// is absent) and the sizes of the latest tool results, so callers can say
// what fills the context.
package transcript
