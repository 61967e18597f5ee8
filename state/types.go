package state

import (
	"encoding/json"
	"time"
)

// SchemaVersion is the version of every document Djinn writes. A document
// with another version fails its schema and is quarantined; migrations, when
// there are some, go in migrate.go.
const SchemaVersion = 1

// Window is window.json: the bounded recent state of one session, rewritten
// on every hook. Everything in it is capped, so reading and writing it costs
// the same at the 10th tool call and at the 10,000th.
type Window struct {
	SchemaVersion  int       `json:"schema_version"`
	SessionID      string    `json:"session_id"`
	ProjectDir     string    `json:"project_dir,omitempty"`
	TranscriptPath string    `json:"transcript_path,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
	// Events counts hooks handled, by event name.
	Events map[string]int `json:"events"`
	// ToolCalls counts PostToolUse and PostToolUseFailure of every agent.
	ToolCalls int `json:"tool_calls"`
	// PromptID is the current user prompt's id.
	PromptID string `json:"prompt_id,omitempty"`
	// UserPrompts counts the prompts the user typed (not those Claude Code
	// injects); the loop events carry it, so an edit-revert can tell a
	// revert the user asked for.
	UserPrompts uint64 `json:"user_prompts,omitempty"`
	// Disabled holds the detectors turned off for this session ("all" for
	// every one).
	Disabled []string `json:"disabled,omitempty"`

	// Loops holds the pattern engine's state per agent: "main" for the main
	// agent, the agent_id for each subagent (the most recent few are kept,
	// in LoopAgents order, oldest first).
	Loops      map[string]*LoopState `json:"loops,omitempty"`
	LoopAgents []string              `json:"loop_agents,omitempty"`
	// Drift is the goal-drift state of the main agent.
	Drift *Drift `json:"drift,omitempty"`
	// Pressure is the context meter's state.
	Pressure *Pressure `json:"pressure,omitempty"`
	// Stall counts rollbacks of the current user prompt.
	Stall *Stall `json:"stall,omitempty"`
	// Recent are the last few advisories, for the compaction snapshot and
	// /djinn:status.
	Recent []Recent `json:"recent,omitempty"`
	// Failures are the last few failing commands, for the snapshot.
	Failures []Failure `json:"failures,omitempty"`
	// Risk is the risk catalogue's memory.
	Risk *Risk `json:"risk,omitempty"`
	// Reorient is the result of the last /djinn:reorient, for the skill.
	Reorient *ReorientResult `json:"reorient,omitempty"`
	// Logged are the lines the last hook appended, or was about to
	// append, to the session's logs: the window is written before the
	// appends, so a hook killed between the two leaves them here, and the
	// next hook appends those the logs lack (Store.Reconcile).
	Logged *Logged `json:"logged,omitempty"`
	// PendingAnchor is the anchor the hook that wrote this window changed:
	// the window is renamed before anchor.json, so it commits the change,
	// and the next hook writes anchor.json from it if a kill or a failure
	// came between the two renames. Only multi-file updates carry it.
	PendingAnchor *Anchor `json:"pending_anchor,omitempty"`
	// ToolUseIDs are the tool_use_ids of the latest tool calls, oldest
	// first: a PostToolUse or PostToolUseFailure delivered again with one
	// of them is a repeat, and is not counted twice.
	ToolUseIDs []string `json:"tool_use_ids,omitempty"`
	// Complaints are the last few prompts that reported a failure and the
	// agent's last few claims that something was fixed, for the
	// repeat-complaint advisory.
	Complaints *Complaints `json:"complaints,omitempty"`
	// LastAssistant is the start of the agent's last message at Stop: what
	// a short "ok, start" from the user accepts.
	LastAssistant string `json:"last_assistant,omitempty"`
	// Goals counts the goals set in this session (the first, pivots,
	// re-orientations), for turns.jsonl's timeline.
	Goals int `json:"goals,omitempty"`
	// Feedback is the user's judgement of this session's advisories
	// (/djinn:wrong, djinn feedback) and what the developer's profile held
	// back.
	Feedback *Feedback `json:"feedback,omitempty"`
	// Notices are notices for the person that wait for an event that can
	// show them (a systemMessage): one raised at SubagentStop, PreCompact
	// or SessionEnd is shown at the next hook that can.
	Notices []Notice `json:"notices,omitempty"`
	// ConfigProblems is a hash of the configuration problems last reported
	// in this session: they go to stderr again only when they change.
	ConfigProblems string `json:"config_problems,omitempty"`
	// PendingReanchor is the [djinn:reanchor] block a compaction left to
	// say: set at SessionStart(compact), narrowed at PostCompact to what
	// the compaction summary leaves out (or cleared when it leaves out
	// nothing), and said at the next hook that can give the agent context.
	PendingReanchor string `json:"pending_reanchor,omitempty"`
	// ReanchorAfter is the id of the main chain's latest response when the
	// re-anchor was left pending: a main-agent hook that still reads that
	// response as the latest finds the main conversation uncompacted (the
	// compaction was a subagent's), and the re-anchor is dropped.
	ReanchorAfter string `json:"reanchor_after,omitempty"`
}

// Notice is one line for the person at the keyboard. Warning marks one
// that is shown under notify=warnings too.
type Notice struct {
	Text    string `json:"text"`
	Warning bool   `json:"warning,omitempty"`
}

// Complaints is the repeat-complaint detector's bounded state. Clock orders
// reports and claims (it advances at each one); Seq is the tool-call count
// at the time, for the log.
type Complaints struct {
	Clock   int      `json:"clock"`
	Reports []Report `json:"reports,omitempty"`
	Claims  []Claim  `json:"claims,omitempty"`
	// Said is the clock at which a repeat complaint was last said (0 =
	// never), and SaidWrites the main agent's file writes then: it is said
	// again only after a new claim or a new write (a new attempt at a fix).
	Said       int    `json:"said,omitempty"`
	SaidWrites uint64 `json:"said_writes,omitempty"`
	// TurnWrites is the main agent's file writes at the user's last
	// prompt: more now means the turn since then changed files (an attempt
	// at what was asked).
	TurnWrites uint64 `json:"turn_writes,omitempty"`
	// Asked is the user's last prompt that reported no failure, its words
	// lower-cased and joined by single spaces: the same request sent again
	// word for word is the user saying it was not done.
	Asked string `json:"asked,omitempty"`
	// Done is the sentence of the agent's last message that said the work
	// was done or worked ("started successfully", "is now running");
	// nil when that message said none.
	Done *Claim `json:"done,omitempty"`
}

// Report is a user prompt that reported a failure: its start and its
// stems.
type Report struct {
	Clock int      `json:"clock"`
	Seq   int      `json:"seq"`
	Text  string   `json:"text"`
	Stems []string `json:"stems"`
}

// Claim is the sentence of an agent's message that said something was
// fixed.
type Claim struct {
	Clock int    `json:"clock"`
	Seq   int    `json:"seq"`
	Text  string `json:"text"`
}

// Logged are a hook's log lines: turns.jsonl's and advisories.jsonl's.
type Logged struct {
	Turns      []Turn     `json:"turns,omitempty"`
	Advisories []Advisory `json:"advisories,omitempty"`
}

// Drift is the drift detector's bounded state: the effective anchor (the
// anchor's tokens plus what the session taught it), the last few calls'
// signals, the HMM observations, the reservoir of window scores, and the
// last verdict.
type Drift struct {
	AnchorHash   string   `json:"anchor_hash"`
	AnchorTokens []string `json:"anchor_tokens"`
	Intent       string   `json:"intent"`
	// Insufficient marks an anchor too short or generic to measure against.
	Insufficient bool `json:"insufficient"`
	// Threshold is the on-task cutoff for this session and where it came
	// from ("posterior_p10" or "fallback").
	Threshold       float64 `json:"threshold"`
	ThresholdSource string  `json:"threshold_source"`
	PosteriorN      int     `json:"posterior_n"`
	// Idents are the ticket-like identifiers the goal names; Switched is a
	// sibling identifier the agent moved to (until it names the goal's
	// again).
	Idents   []string `json:"idents,omitempty"`
	Switched string   `json:"switched,omitempty"`
	// Calls counts main-agent tool calls since the anchor was set.
	Calls int `json:"calls"`
	// Vocab and Files are what the session taught the anchor: the stems of
	// the words and the files of its on-task work (Files starts with the
	// files the goal names). AnchorTokens are the stems of the goal's words.
	Vocab []string `json:"vocab"`
	Files []string `json:"files"`
	// Recent are the signals of the last calls, newest last.
	Recent []CallSignal `json:"recent"`
	// Obs are the HMM observations of the last calls.
	Obs []string `json:"obs"`
	// Reservoir is D3's uniform sample of this anchor's window scores.
	Reservoir *Samples `json:"reservoir,omitempty"`
	Verdict   *Verdict `json:"verdict,omitempty"`
	// LastAdvised is the session tool-call count at the last drift advisory
	// (0 = never); RefocusStreak counts consecutive refocus verdicts.
	LastAdvised   int `json:"last_advised"`
	RefocusStreak int `json:"refocus_streak"`
	Advised       int `json:"advised"`
	// OffGoal counts the off-goal tool calls since the work was last on
	// task; Repeated the drift advisories given in that stretch.
	OffGoal  int `json:"off_goal,omitempty"`
	Repeated int `json:"repeated,omitempty"`
	// OffChanges counts the calls of that stretch that did work of their
	// own (a write of a file that is not documentation, a command that is
	// not an inspection nor git recording the work, a web search): reading
	// around is orientation, and drift waits for work (engines/risk.DoesWork).
	OffChanges int `json:"off_changes,omitempty"`
	// PromptAt is the session's tool-call count at the last user prompt:
	// the calls right after it are the user steering, not drift.
	PromptAt int `json:"prompt_at,omitempty"`
	// FailedAt is the session's tool-call count at the last failed call
	// (an error, or a failure the call's own output shows): the calls
	// right after it are the agent getting the work unblocked.
	FailedAt int `json:"failed_at,omitempty"`
	// Learned is set once SessionEnd taught the posterior this session.
	Learned bool `json:"learned,omitempty"`
	// TextMark identifies the newest assistant message whose text was
	// already taken as signal.
	TextMark string `json:"text_mark,omitempty"`
}

// LoopState is the loop-pattern engine's memory of one agent, as
// window.json keeps it (the engine's loops.State has the same fields, and
// hooks converts between the two).
type LoopState struct {
	// Seq is the number of events recorded.
	Seq uint64 `json:"n"`
	// Events is the ring buffer of recent tool calls, oldest first.
	Events []LoopEvent `json:"events"`
	// Patterns holds each pattern's EMA and last alert, by name.
	Patterns map[string]LoopPattern `json:"patterns,omitempty"`
	// Failures are the latest failures the ring dropped, for fail-loop
	// (loops.Remembered), oldest first.
	Failures []LoopRemembered `json:"failures,omitempty"`
	// Writes counts the successful file writes recorded.
	Writes uint64 `json:"writes,omitempty"`
}

// LoopRemembered is a failure the ring dropped and fail-loop still counts,
// with the number of successful writes recorded by then.
type LoopRemembered struct {
	LoopEvent
	Writes uint64 `json:"writes,omitempty"`
}

// LoopEvent is one tool call as the loop patterns see it: short hashes,
// never contents (the fields of loops.Event).
type LoopEvent struct {
	Seq         uint64 `json:"n"`
	Tool        string `json:"tool"`
	Target      string `json:"target,omitempty"`
	Range       string `json:"range,omitempty"`
	Input       string `json:"input,omitempty"`
	Failed      bool   `json:"failed,omitempty"`
	Interrupted bool   `json:"interrupted,omitempty"`
	Error       string `json:"error,omitempty"`
	Fail        string `json:"fail,omitempty"`
	Result      string `json:"result,omitempty"`
	Before      string `json:"before,omitempty"`
	After       string `json:"after,omitempty"`
	Prompt      uint64 `json:"prompt,omitempty"`
	Shown       string `json:"shown,omitempty"`
	Empty       bool   `json:"empty,omitempty"`
	Call        uint64 `json:"call,omitempty"`
	Edits       bool   `json:"edits,omitempty"`
	Installs    bool   `json:"installs,omitempty"`
	Batch       string `json:"batch,omitempty"`
	Printed     string `json:"printed,omitempty"`
	Wrote       string `json:"wrote,omitempty"`
	Run         string `json:"run,omitempty"`
	Look        string `json:"look,omitempty"`
}

// LoopPattern is what the loop engine remembers about one pattern (the
// fields of loops.PatternState).
type LoopPattern struct {
	EMA      float64 `json:"ema"`
	Last     uint64  `json:"last,omitempty"`
	LastHard bool    `json:"last_hard,omitempty"`
	Alerts   int     `json:"alerts,omitempty"`
}

// Samples is the live drift reservoir: a uniform sample of up to K window
// scores out of NSeen. Its fields are those of reservoir.Reservoir[Sample],
// so hooks converts a *Samples to the engine's type without copying.
type Samples struct {
	K     int      `json:"k"`
	NSeen int64    `json:"n_seen"`
	Items []Sample `json:"items"`
}

// CallSignal is what one tool call said about its topic.
type CallSignal struct {
	Seq    int      `json:"seq"`
	Tokens []string `json:"tokens"`
	Files  []string `json:"files,omitempty"`
	// Topic is anchored, unanchored or neutral (no words, no files).
	Topic   string `json:"topic"`
	Learned bool   `json:"learned,omitempty"`
	// Narr is how many of the last Tokens are narrative (the agent's
	// prose), which are never learned.
	Narr int `json:"narr,omitempty"`
}

// Verdict is the drift verdict with the honest numbers behind it.
type Verdict struct {
	Kind            string  `json:"kind"`
	Score           float64 `json:"score"`
	Mean            float64 `json:"mean"`
	CILo            float64 `json:"ci_lo"`
	CIHi            float64 `json:"ci_hi"`
	N               int     `json:"n"`
	Threshold       float64 `json:"threshold"`
	ThresholdSource string  `json:"threshold_source"`
	Tail            string  `json:"tail,omitempty"`
	Lost            int     `json:"lost"`
	Side            int     `json:"side"`
	Call            int     `json:"call"`
}

// Pressure is the context meter's bounded state.
type Pressure struct {
	// Cursor is where the transcript was read last (opaque to state).
	Cursor json.RawMessage `json:"cursor,omitempty"`
	Tokens int64           `json:"tokens"`
	// Limit is the context window when known, else 0; Window says where it
	// comes from, or why it is unknown.
	Limit  int64  `json:"limit"`
	Window string `json:"window,omitempty"`
	// Model is the latest response's model id, Configured the session's
	// model setting from SessionStart.
	Model      string `json:"model,omitempty"`
	Configured string `json:"configured,omitempty"`
	// Stale is set after a compaction until the next reading.
	Stale bool `json:"stale,omitempty"`
	// Announced[i] says whether tier i was announced and not re-armed.
	Announced []bool `json:"announced"`
	Peak      int64  `json:"peak"`
	// Pending is a tier (1-based) crossed at a hook that could not say so.
	Pending int `json:"pending,omitempty"`
	// Compacted is the tool call (Window.ToolCalls) at the last
	// compaction: the outputs of that call and earlier ones are no longer
	// in the context.
	Compacted int `json:"compacted,omitempty"`
	// Compactions counts the session's compactions.
	Compactions int `json:"compactions,omitempty"`
}

// Stall counts rollbacks of one user prompt: the main agent's, and each
// subagent's.
type Stall struct {
	PromptID  string         `json:"prompt_id"`
	Rollbacks int            `json:"rollbacks"`
	Agents    map[string]int `json:"agents,omitempty"`
	Total     int            `json:"total"`
	GaveUp    bool           `json:"gave_up,omitempty"`
	// Pending is a stall advisory for the agent's next hook (advice-only
	// mode).
	Pending string `json:"pending,omitempty"`
}

// Recent is a short record of one advisory.
type Recent struct {
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	Kind string    `json:"kind"`
	Text string    `json:"text"`
	// Mode is the advisory's mode ("observe": recorded, the agent not
	// told; empty or "advise": told).
	Mode string `json:"mode,omitempty"`
	// ID is the advisory's id in advisories.jsonl, which /djinn:wrong
	// marks (absent in windows written before ids).
	ID string `json:"id,omitempty"`
}

// Risk is the risk catalogue's bounded memory of a session.
type Risk struct {
	// Prompts are the latest user prompts, oldest first: what may cover a
	// risky step.
	Prompts []string `json:"prompts,omitempty"`
	// Plan is the last plan the person approved (ExitPlanMode), which may
	// cover a risky step while PlanPrompt, the count of user prompts at its
	// approval, is within the latest prompts kept.
	Plan       string `json:"plan,omitempty"`
	PlanPrompt uint64 `json:"plan_prompt,omitempty"`
	// Answered is the start of the agent's message that the latest prompt
	// said yes to, or asked to delete from ("yes", "cancella i file
	// orfani"): the files and folders it names, and the question it ends
	// on, are asked for while AnsweredPrompt, the count of user prompts
	// at that reply, is the latest.
	Answered       string `json:"answered,omitempty"`
	AnsweredPrompt uint64 `json:"answered_prompt,omitempty"`
	// Written are files the session created or wrote; Secrets are files
	// it wrote a literal secret into, not yet staged.
	Written []string `json:"written,omitempty"`
	Secrets []string `json:"secrets,omitempty"`
	// Unread are files whose write the CLI refused until they were read
	// ("File has not been read yet"), not read since (engines/risk.Call).
	Unread []string `json:"unread,omitempty"`
	// Denied are files the system refused this session (permission
	// denied), newest last: running as root on one goes round its
	// owner's permissions (engines/risk.Call).
	Denied []string `json:"denied,omitempty"`
	// Given are the hashes (engines/risk.WordHash) of the words the user
	// gave beside a password word, in a prompt or the project's
	// instruction files (engines/risk.GivenWords), newest last: a
	// password piped into sudo -S that is one of them was given for that.
	Given []string `json:"given,omitempty"`
	// Stashed tells that the session ran git stash (push): a later pop is
	// its own stash coming back.
	Stashed bool `json:"stashed,omitempty"`
	// RejectedCommit is the tool-call count at the call the person last
	// declined, when it committed (0 when it did not): a push cancelled
	// with it is not held against them.
	RejectedCommit int `json:"rejected_commit,omitempty"`
	// Refused is the last shell command that never ran because the person
	// declined it or the CLI refused it (its words joined by single
	// spaces), and RefusedPrompt the count of user prompts then: run again
	// after a go-ahead to the agent's question, it is the step the person
	// said yes to.
	Refused       string `json:"refused,omitempty"`
	RefusedPrompt uint64 `json:"refused_prompt,omitempty"`
	// Ran are the words of the commands the session ran (engines/risk.
	// RanWords), newest last: a program killed by a name among them is
	// one it started.
	Ran []string `json:"ran,omitempty"`
	// Tables are the database tables the session's own SQL creates (a
	// file it wrote, a query it ran), newest last: dropping one undoes
	// its own work.
	Tables []string `json:"tables,omitempty"`
	// Branches are the git branches the session created, newest last:
	// deleting one undoes its own work.
	Branches []string `json:"branches,omitempty"`
	// Advised is the tool-call count at each catalogue entry's last
	// advisory.
	Advised map[string]int `json:"advised,omitempty"`
	// Limits are the user's instructions in force (engines/risk.Limit).
	Limits []Limit `json:"limits,omitempty"`
	// Asked are the calls Djinn asked the person about (PreToolUse, the ask
	// setting) that no PostToolUse has yet shown to have run: a call the
	// person declined stays here.
	Asked []Asked `json:"asked,omitempty"`
}

// MaxAsked bounds Risk.Asked.
const MaxAsked = 8

// MaxRan bounds Risk.Ran.
const MaxRan = 256

// MaxTables bounds Risk.Tables.
const MaxTables = 32

// MaxBranches bounds Risk.Branches.
const MaxBranches = 32

// MaxDenied bounds Risk.Denied.
const MaxDenied = 8

// MaxGiven bounds Risk.Given.
const MaxGiven = 32

// Asked is one call Djinn asked the person about.
type Asked struct {
	ID string `json:"id"`
	// Key is the call's tool and input, hashed: a declined call proposed
	// again has the same key.
	Key string `json:"key"`
	// Call is the tool-call count when it was asked.
	Call int `json:"call"`
}

// MaxLimits bounds the instructions in force kept.
const MaxLimits = 16

// Limit is one instruction in force: what the user said not to do, in
// their words, where it came from, and when it was last advised.
type Limit struct {
	// Class is what it forbids: change, commit, push, install, delete,
	// restart, checks, tool, comment, keep (a value the user named),
	// guard-access (a file the user's hook refused: reading or writing
	// Target) or declined-step (a step of a command the person declined,
	// run again); Target, if set, the one thing it protects.
	Class  string `json:"class"`
	Target string `json:"target,omitempty"`
	Text   string `json:"text"`
	// Ask: "ask before …"; a later prompt asking for the step covers it.
	Ask bool `json:"ask,omitempty"`
	// Source is "prompt" (a later prompt can lift it), "CLAUDE.md" (the
	// project's instructions, in force all session) or "file" (a file's own
	// header, "Code generated … DO NOT EDIT", in force for that file) or
	// "declined" (a place a call the person declined would have changed,
	// Target; until a later prompt names it), "hook" (what the user's own
	// hook refused, the same way) or "request" (what the latest
	// prompt's request left to the user: a push after "commit it"; until
	// the next prompt).
	Source string `json:"source"`
	// Advised is the tool-call count at its last advisory (0: never).
	Advised int `json:"advised,omitempty"`
	// Files, for a "keep" limit (a value the user named, Target), are the
	// files the session wrote that value into, newest last.
	Files []string `json:"files,omitempty"`
}

// MaxKeptFiles bounds a keep limit's files.
const MaxKeptFiles = 4

// Failure is a command that failed recently.
type Failure struct {
	Seq    int    `json:"seq"`
	Tool   string `json:"tool"`
	Target string `json:"target"`
	Error  string `json:"error"`
	Count  int    `json:"count"`
}

// ReorientResult is what the last /djinn:reorient did.
type ReorientResult struct {
	Time      time.Time `json:"time"`
	PromptID  string    `json:"prompt_id,omitempty"`
	Outcome   string    `json:"outcome"`
	OldHash   string    `json:"old_hash,omitempty"`
	NewHash   string    `json:"new_hash,omitempty"`
	Alignment float64   `json:"alignment"`
	Coverage  float64   `json:"coverage"`
	Text      string    `json:"text"`
}

// Turn is one line of turns.jsonl: one tool call, what it touched and how it
// scored. /djinn:rank builds its graph from these lines.
type Turn struct {
	SchemaVersion int       `json:"schema_version"`
	Seq           int       `json:"seq"`
	Time          time.Time `json:"time"`
	PromptID      string    `json:"prompt_id,omitempty"`
	AgentID       string    `json:"agent_id,omitempty"`
	Tool          string    `json:"tool"`
	Failed        bool      `json:"failed,omitempty"`
	Files         []string  `json:"files,omitempty"`
	Summary       string    `json:"summary,omitempty"`
	OutputChars   int       `json:"output_chars,omitempty"`
	// Score is the drift score after this call; Topic how the call itself
	// read against the goal (anchored, unanchored, conflict, neutral).
	Score *float64 `json:"score,omitempty"`
	Topic string   `json:"topic,omitempty"`
	// Verdict is the drift verdict's kind after this call (the task-state
	// model's reading), set with Score.
	Verdict string `json:"verdict,omitempty"`
	// Context is the context meter's tokens after this call, 0 when unknown
	// (no reading yet, or none since a compaction). Compactions and Goals
	// are the session's counts of compactions and of new goals so far: a
	// rise from one turn to the next places one between them. The session
	// report draws its timeline from these.
	Context     int64 `json:"context,omitempty"`
	Compactions int   `json:"compactions,omitempty"`
	Goals       int   `json:"goals,omitempty"`
}

// Advisory is one line of advisories.jsonl: everything Djinn said, with the
// numbers behind it.
type Advisory struct {
	SchemaVersion int                `json:"schema_version"`
	Time          time.Time          `json:"time"`
	Event         string             `json:"event"`
	PromptID      string             `json:"prompt_id,omitempty"`
	AgentID       string             `json:"agent_id,omitempty"`
	Kind          string             `json:"kind"`
	Severity      string             `json:"severity"`
	Text          string             `json:"text"`
	Numbers       map[string]float64 `json:"numbers,omitempty"`
	Seq           int                `json:"seq"`
	// Mode is the kind's mode when it was given: "advise" (the agent was
	// told) or "observe" (recorded only). Lines written before modes
	// existed have none and were all told.
	Mode string `json:"mode,omitempty"`
	// ID identifies the advisory for feedback (djinn feedback, /djinn:wrong).
	// Lines written before ids have none; AdvisoryID derives the same kind
	// of id from their fields.
	ID string `json:"id,omitempty"`
	// Loop are the session's tool calls (Turn.Seq) that make the loop a
	// loop advisory reports, oldest first; /djinn:rank never ranks them as
	// load-bearing. Absent on other kinds, on a revert the user asked for
	// and on lines written before it existed.
	Loop []int `json:"loop,omitempty"`
}

// Anchor is anchor.json: the goal this session is held to.
type Anchor struct {
	SchemaVersion int       `json:"schema_version"`
	SessionID     string    `json:"session_id"`
	Text          string    `json:"text"`
	Hash          string    `json:"hash"`
	IntentType    string    `json:"intent_type"`
	Tokens        []string  `json:"tokens"`
	CapturedAt    time.Time `json:"captured_at"`
	PromptID      string    `json:"prompt_id,omitempty"`
	// Source says how the anchor was set: the first substantive prompt, an
	// explicit pivot in a prompt, or /djinn:reorient.
	Source string `json:"source"`
	// Deltas are later prompts that add constraints (the newest kept).
	Deltas     []Delta `json:"deltas"`
	DeltaCount int     `json:"delta_count"`
	Pivots     int     `json:"pivots"`
	Reorients  int     `json:"reorients"`
	// Task is the current task: the latest user instruction read against
	// what came before (Text is the goal itself until a follow-up moves the
	// work on). Drift and the reanchor block measure against it; Text
	// stays the session goal, as background.
	Task *Task `json:"task,omitempty"`
	// Instructions are the user's follow-up instructions still in force, in
	// their own words, oldest first (the newest maxInstructions kept): a
	// later prompt that reverses one drops it.
	Instructions []Delta `json:"instructions,omitempty"`
	// Words are, for a goal longer than Text keeps, the distinct words of
	// the whole prompt (at most 512, in order): drift measures against the
	// whole of a long specification, not its first 4,000 characters.
	Words []string `json:"words,omitempty"`
}

// Task is the current task and the prompt it comes from. Source is "goal"
// (the session's first prompt), "prompt" (a later prompt's own words) or
// "proposed" (a short reply such as "ok, start" that accepted what the
// agent proposed: Text is the agent's last message before it).
type Task struct {
	Text     string    `json:"text"`
	PromptID string    `json:"prompt_id,omitempty"`
	Source   string    `json:"source"`
	At       time.Time `json:"at"`
	// Words are the whole prompt's distinct words when it is longer than
	// Text keeps (as Anchor.Words).
	Words []string `json:"words,omitempty"`
}

// Delta is one constraint added after the anchor.
type Delta struct {
	Text     string    `json:"text"`
	Ratio    float64   `json:"ratio"`
	At       time.Time `json:"at"`
	PromptID string    `json:"prompt_id,omitempty"`
}

// Reservoir is an archived reservoir (archive/reservoir-<time>.json): D3's
// sample of the window scores of an anchor that /djinn:reorient replaced.
// The live reservoir is part of window.json, so the hot path writes one file.
type Reservoir struct {
	SchemaVersion int      `json:"schema_version"`
	SessionID     string   `json:"session_id"`
	AnchorHash    string   `json:"anchor_hash"`
	K             int      `json:"k"`
	NSeen         int      `json:"n_seen"`
	Items         []Sample `json:"items"`
}

// Sample is one reservoir item.
type Sample struct {
	Seq   int     `json:"seq"`
	Score float64 `json:"score"`
	Tool  string  `json:"tool"`
}

// Posteriors is posteriors.json: D5's per-(intent type, developer) EMA of
// session drift scores.
type Posteriors struct {
	SchemaVersion int                   `json:"schema_version"`
	Entries       map[string]*Posterior `json:"entries"`
	// Learned are the ids of the sessions learned here, oldest first, at
	// most MaxLearned: a SessionEnd retried after a kill or a failure finds
	// its session here and does not count it again.
	Learned []string `json:"learned,omitempty"`
	// Logged is the learnings.jsonl line of the newest session learned,
	// written here before it is appended: the next learning appends it if
	// the log lacks it.
	Logged *Learning `json:"logged,omitempty"`
}

// MaxLearned bounds Posteriors.Learned.
const MaxLearned = 256

// Posterior is one D5 entry; the key is "<intent_type>::<developer key>".
type Posterior struct {
	IntentType string    `json:"intent_type"`
	Developer  string    `json:"developer"`
	Mu         float64   `json:"mu"`
	Var        float64   `json:"var"`
	P10        float64   `json:"p10"`
	N          int       `json:"n"`
	MeanLen    float64   `json:"mean_len"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// Learning is one line of learnings.jsonl: one finished session.
type Learning struct {
	SchemaVersion int       `json:"schema_version"`
	Time          time.Time `json:"time"`
	SessionID     string    `json:"session_id"`
	IntentType    string    `json:"intent_type"`
	Developer     string    `json:"developer"`
	MeanScore     float64   `json:"mean_score"`
	Samples       int       `json:"samples"`
	SessionLen    int       `json:"session_len"`
	Excluded      bool      `json:"excluded"`
	Reason        string    `json:"reason,omitempty"`
}
