// Package loops is Djinn's pattern engine (seed 002): it watches the stream
// of tool calls of one agent and reports the loops an agent falls into
// without making progress.
//
// # Model
//
// Each tool call becomes an [Event]: the tool, its target (file, command,
// pattern, URL), the read range, a hash of the canonical input (sorted keys,
// volatile fields dropped, see [CanonicalInput]), the outcome, the error
// fingerprint of a failure ([ErrorFingerprint]), a hash of the result
// ([ResultHash]) and, for file tools, the content hash of the file before and
// after the call. The hook layer reads files and computes the hashes; this
// package never touches a file or the clock.
//
// A [State] keeps the last Window (20) events of one agent in a ring buffer,
// an exponential moving average per pattern (Roberts 1959, "Control chart
// tests based on geometric moving averages", Technometrics 1(3):239–250) and
// the event number of each pattern's last alert. [State.Record] appends an
// event and runs every registered [Pattern] over the window; a pattern is a
// named predicate that the engine runs without knowing it, so a new one is
// added by appending to the list given to [State.RecordWith].
//
// The caller keeps one State per agent: the main agent and each subagent
// (keyed on the hook's agent_id) loop on their own, and a subagent's reads
// must not complete a loop of the main agent. A State of 20 events is
// 3–5 KB of JSON in practice and at most about 12 KB (targets and
// fingerprints are clipped). Record costs well under a microsecond on a
// full ring and allocates only for the findings it returns.
//
// # What the hook fills in
//
//   - Tool, Target, Range, Input: NewEvent(tool_name, tool_input), or
//     NewEventIn with the directory a Bash command runs in: a Bash call's
//     Input is the hash of its ShellKey, so cosmetic variants of one
//     command (quoting, 2>&1 and /dev/null redirects, ./a vs a vs an
//     absolute path under the directory, tail -10 vs | tail -20) are one
//     call.
//   - PostToolUse: Result = ResultHash(tool_response); for a shell call,
//     Event.Output(stdout and stderr, view): Empty when it printed nothing,
//     and for a windowed command Shown, the hash of the last (or first)
//     ShownLines lines it shows.
//   - PostToolUseFailure: Failed, Interrupted = is_interrupt, Error =
//     ErrorFingerprint(error), Fail = FailureKey(error), or for a shell
//     call CommandFailureKeys(command, error, false).
//   - A shell call that exited 0: Fail = CommandFailureKeys(command,
//     output, true): OutputFailureKey's key, and the failing tests the
//     command ran by name (its file or the test), one key each with the
//     assertion message when the runner printed it beside the name.
//   - File tools: After = ShortHash of the whole file on disk after the call
//     (for a ranged Read too, so a change anywhere in the file counts), and
//     Before = ShortHash of the tool_response's originalFile (Edit, Write,
//     MultiEdit; NotebookEdit's original_file). A hook that bounds the cost
//     of hashing huge files may hash a sample (size, head, tail) instead,
//     provided it does so the same way every time.
//
// # Patterns
//
//   - read-loop: a successful Read of the same file and range, for the 3rd
//     time since the file's content last changed. A change is any event that
//     shows the file with a different hash than the one seen before it (a
//     write, or a read after the file was changed by a command or a person),
//     and a successful write whose hashes are unknown. Reads of unknown
//     content (no hash) before the first hash seen after a stretch of
//     unknown content are not counted: they may have seen other content,
//     and counting them would let the ring count across a change that fell
//     out of the window. Paging through a file with other offsets is a
//     different range, so no loop.
//   - edit-revert: a successful write that leaves the file with a hash it had
//     earlier in the window, reads and the pre-edit state (Edit's
//     originalFile) included, and differs from the state just before it.
//   - fail-loop: the same failure 3 times in a row, whichever tools or
//     commands met it. A failure is known by what failed: for a file tool,
//     the file and the error fingerprint (Edit, MultiEdit and Write failing
//     alike on one file are one failure); else by Event.Fail, the class
//     and target its text names (the port in use, the missing module, the
//     database user; [FailureKey], or [OutputFailureKey] for a call that
//     exited 0 but printed the failure; a failing test by its name, and
//     by its message where one run shows it and another shows only the
//     name, never two runs whose messages differ); else by the call and
//     the error. Calls that bear on none of the failing calls do not break
//     the streak, nor does one of the failing calls failing otherwise (fix,
//     rerun, another error, and the first error back: going round in
//     circles); a failing call that succeeds, an interruption of one, or a
//     write of the failing file does. It holds
//     when the streak reaches 3, not after, so one streak (a batch of
//     identical failures) is said once. Failures the window drops are
//     remembered (State.Failures, the latest FailMemory of them, struck
//     out when their call runs again without failing so or their file is
//     written), so a streak spread over more calls than the window holds
//     is still seen; edits since a remembered failure are counted from
//     State.Writes.
//   - tool-loop: the same call (tool, canonical input and result) 3 times
//     running, or a cycle of 2 to 5 calls repeated 3 times running, each
//     position with the same result every time. Unknown results never match,
//     so polling (identical input, changing output) is no loop. Two windows
//     onto one output (tail -10 and tail -20 of a log) are the same result
//     when their last ShownLines lines agree: an unchanged log shows the
//     same last lines through any window, a growing one shows new lines.
//     Two calls that both printed nothing are the same result; a run of
//     them is reported with Finding.Empty, since the question is then why
//     the command prints nothing (dependencies, a wrong path). A cycle made
//     only of calls that another enabled pattern owns (reads, failures, writes
//     with known hashes) is left to that pattern, so one loop is reported once.
//     Failing that, different shell commands that all printed one output
//     (Event.Printed: their own output, less warning lines, two lines or
//     more) in three rounds with no write between are a tool-loop too
//     (Finding.SameOutput): whatever they ask, they get the same answer, as
//     cmd /c from Git Bash prints only its banner. Failing that, one run of
//     a test, build or package script (Event.Run, RunnerKey: "pnpm run
//     coverage" whatever filters its output goes through) made in three
//     rounds, successful, with no other call's write, no subagent and no
//     user prompt between, and not all one command, is a tool-loop too
//     (Finding.Rerun): nothing it reads changed, so each run only cuts the
//     same verdict another way. Failing that, looks at one file (Event.Look:
//     cat, head, tail, less or more of it, whatever window) that each
//     printed nothing, in three rounds within one user prompt, with no look
//     between that printed something and no write of the file, are a
//     tool-loop too (Finding.Looked): a background job's output file that
//     stays empty however it is shown; other calls between (ps, ls) do not
//     end the streak.
//
// # Alerts
//
// Seed 002's decision rule, with its defects fixed: the predicate value x_t
// (1 when the newest event completes the pattern) feeds EMA_t = α·x_t +
// (1−α)·EMA_{t−1}, α = 0.3, per pattern. A pattern alerts when it holds and
// more than Cooldown (5) events have passed since its own last alert (the
// original Emu detector had one cooldown for all patterns). The first alert
// of an episode is soft; an alert with EMA ≥ 0.5 is hard. After a hard alert
// the cooldown is doubled for as long as the EMA stays at or above 0.5, so a
// chronic loop is reminded less often while it lasts and a new episode after
// the EMA has decayed is reported at the normal pace.
//
// Corrections to the prior art this engine was measured against (see the
// scenario suite in testdata/scenarios): Emu's read-loop flags
// read→edit→read→read although the edit changed the file (here the count
// restarts at every change); Emu's edit-revert compares only with earlier
// writes and misses a return to the original content (here reads and the
// pre-edit hash count); Emu's fail-loop ignores the error text (here the
// fingerprint must match); Gemini CLI needs 5 identical calls (here 3); Roo
// Code flags identical polling calls with changing output (here results must
// match).
package loops
