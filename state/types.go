package state

import "time"

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
	// Disabled holds the detectors turned off for this session ("all" for
	// every one).
	Disabled []string `json:"disabled,omitempty"`
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
	Score         *float64  `json:"score,omitempty"`
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
	// Vocabulary is the on-task vocabulary learned from the session's first
	// on-task work (files and terms), which the drift score also accepts.
	Vocabulary   []string `json:"vocabulary"`
	LearnedCalls int      `json:"learned_calls"`
}

// Delta is one constraint added after the anchor.
type Delta struct {
	Text     string    `json:"text"`
	Ratio    float64   `json:"ratio"`
	At       time.Time `json:"at"`
	PromptID string    `json:"prompt_id,omitempty"`
}

// Reservoir is reservoir.json: D3's uniform sample of this session's drift
// scores since the anchor was set.
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
}

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
