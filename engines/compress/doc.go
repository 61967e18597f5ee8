// Package compress shortens oversized tool output before it reaches the
// model, leaving a marker wherever it cut.
//
// It is Djinn's port of the tool-result compressor of seed 004
// (Antigravity-Manager, src-tauri/src/proxy/mappers/tool_result_compressor.rs,
// functions compact_tool_result_text, compact_browser_snapshot,
// truncate_text_safe and deep_clean_html). There is no paper behind it: it is
// a set of rules, each one a linear scan.
//
// # What counts as oversized
//
// A text is oversized when it is longer than the cap (Config.Cap, the seed's
// 200,000 characters), or when it is a page snapshot longer than
// Config.SnapshotThreshold (20,000). Anything else is returned unchanged, byte
// for byte. Characters are always runes (Unicode code points, what
// utf8.RuneCountInString counts; an invalid byte counts as one), never bytes:
// the seed mixed Rust's byte lengths into its character counts.
//
// # The rules, in order
//
//  1. Cleaning. Inline base64 is cut: data URIs (data:<mime>[;params];base64,
//     <payload>) when the marker is shorter than the URI, and bare runs of at
//     least Config.Base64Min characters of the base64 alphabet (standard and
//     URL-safe, with padding) that mix upper case, lower case and digits
//     (so a run of one repeated letter, or a long word, is not mistaken for
//     base64). If the text looks like HTML (it contains <html, <body or
//     <!doctype, any case, as the seed tests), complete <script>…</script>
//     and <style>…</style> blocks longer than their marker are cut too (a
//     block ends at its first closing tag; a shorter block is kept whole and
//     its inside is not read for tags); an unclosed block is left for
//     truncation.
//  2. Page snapshot. A cleaned text longer than SnapshotThreshold that
//     mentions "page snapshot" (ASCII case-insensitive) or "页面快照", or has
//     more than 30 occurrences of "ref=" (which covers "[ref="), keeps its
//     head and tail: desired = min(cap, SnapshotDesired); budget = desired −
//     (len(header) + 200); head = HeadShare·budget clamped to
//     [HeadMin, HeadMax]; tail = min(budget − head, TailMax). As in the seed,
//     the rule stands aside when desired < 2,000 or budget < 1,000.
//  3. Truncation. Whatever is still over the cap is cut at the end, at a safe
//     boundary: never inside a UTF-8 sequence; backed off to before an
//     unclosed '<' or an open '{' found within the last 100 characters; and
//     then to just after a line break within those 100 characters, if there
//     is one. The kept text plus the marker fit within the cap.
//
// Every cut leaves a marker of the form
//
//	[djinn: cut 183,402 characters of base64 image/png data]
//
// naming what was cut and how many characters; a shortened page snapshot
// also starts with a header line "[djinn: page snapshot of N characters
// shortened to its head and tail]". Markers contain no '<', '{' or base64
// runs, so compressing an output again changes nothing.
//
// # Where Djinn departs from the seed
//
//   - The seed applies the snapshot rule only to text over the cap, so with
//     its 200,000 cap a 30,000-character snapshot passes untouched; Djinn's
//     design applies it to any snapshot over the threshold.
//   - The seed's '<' back-off has no distance limit (a stray "a < b" far back
//     could throw away most of the text); Djinn limits both back-offs to 100
//     characters.
//   - The seed cuts at Cap and then appends its marker, so its output exceeds
//     the cap; Djinn keeps the marker inside the cap.
//   - The seed collapses blank lines in HTML silently; Djinn does not change
//     text without a marker, so it leaves them.
//   - The seed's "Output saved to <path>" rule is not ported: Claude Code
//     writes that notice itself and it is already short.
//   - Image content blocks are kept (see CompressToolResponse): in Claude Code
//     they reach the model as images, not as text.
package compress
