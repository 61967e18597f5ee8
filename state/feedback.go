package state

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// Feedback is a session's record of the user's judgements of its
// advisories (/djinn:wrong, djinn feedback), kept in window.json.
type Feedback struct {
	// Marks are the judgements, oldest first, the newest MaxSessionMarks.
	Marks []Mark `json:"marks,omitempty"`
	// Notice is what the agent is told once, at the next hook that can
	// carry context, after an advisory was judged wrong; then it is
	// cleared.
	Notice string `json:"notice,omitempty"`
	// Given is the session's tool-call count at each kind's last advisory
	// given (told or recorded): where a kind's feedback cooldown runs from.
	Given map[string]int `json:"given,omitempty"`
	// Held counts, by kind, the advisories the developer's profile held
	// back in this session.
	Held map[string]int `json:"held,omitempty"`
}

// MaxSessionMarks bounds Feedback.Marks.
const MaxSessionMarks = 16

// Mark is one judgement of one advisory.
type Mark struct {
	ID      string    `json:"id"`
	Kind    string    `json:"kind"`
	Verdict string    `json:"verdict"`
	Note    string    `json:"note,omitempty"`
	Time    time.Time `json:"time"`
	// Seq is the advisory's tool call.
	Seq int `json:"seq"`
}

// The two verdicts.
const (
	VerdictWrong = "wrong"
	VerdictRight = "right"
)

// ProfileFile is the developer profile's file under the state root.
const ProfileFile = "profile.json"

// Profile is profile.json: what the developer's feedback taught, per
// (advisory kind, developer), beside D5's posteriors.json, which is per
// (intent type, developer) with the same developer key.
type Profile struct {
	SchemaVersion int `json:"schema_version"`
	// Entries are keyed "<kind>::<developer key>".
	Entries map[string]*ProfileEntry `json:"entries"`
	// Marked are the advisories whose judgement counted, oldest first, at
	// most MaxProfileMarks: judging an advisory again the same way changes
	// nothing, and the other way undoes the first judgement.
	Marked []ProfileMark `json:"marked,omitempty"`
}

// MaxProfileMarks bounds Profile.Marked.
const MaxProfileMarks = 256

// MaxFeedbackLevel bounds ProfileEntry.Level: how far the developer's
// feedback can quiet one kind.
const MaxFeedbackLevel = 3

// ProfileEntry is what one developer's feedback did to one advisory kind.
// Level is Wrong marks less Right marks, kept within 0..MaxFeedbackLevel
// as they come.
type ProfileEntry struct {
	Kind      string    `json:"kind"`
	Developer string    `json:"developer"`
	Level     int       `json:"level"`
	Wrong     int       `json:"wrong"`
	Right     int       `json:"right"`
	UpdatedAt time.Time `json:"updated_at"`
}

// ProfileMark is an advisory's judgement as the profile counted it.
type ProfileMark struct {
	ID      string `json:"id"`
	Verdict string `json:"verdict"`
}

// ProfileKey is the key of a kind's entry for a developer.
func ProfileKey(kind, dev string) string { return kind + "::" + dev }

// NewProfile is the empty profile: every kind at level 0.
func NewProfile() Profile {
	return Profile{SchemaVersion: SchemaVersion, Entries: map[string]*ProfileEntry{}}
}

// Judge applies one judgement of the advisory id (of kind) by developer
// dev: wrong raises the kind's level by one, right lowers it by one, both
// within 0..MaxFeedbackLevel. The same judgement of the same advisory again
// changes nothing (changed is false); the opposite one replaces it, so
// marking right what was marked wrong undoes it.
func (p *Profile) Judge(kind, dev, id, verdict string, now time.Time) (e ProfileEntry, changed bool) {
	if p.Entries == nil {
		p.Entries = map[string]*ProfileEntry{}
	}
	key := ProfileKey(kind, dev)
	cur := p.Entries[key]
	if cur == nil {
		cur = &ProfileEntry{Kind: kind, Developer: dev}
	}
	prev := -1
	for i, m := range p.Marked {
		if m.ID == id {
			prev = i
		}
	}
	if prev >= 0 && p.Marked[prev].Verdict == verdict {
		return *cur, false
	}
	if prev >= 0 {
		p.Marked = append(p.Marked[:prev], p.Marked[prev+1:]...)
	}
	p.Marked = append(p.Marked, ProfileMark{ID: id, Verdict: verdict})
	if n := len(p.Marked); n > MaxProfileMarks {
		p.Marked = append([]ProfileMark(nil), p.Marked[n-MaxProfileMarks:]...)
	}
	if verdict == VerdictWrong {
		cur.Wrong++
		cur.Level = min(cur.Level+1, MaxFeedbackLevel)
	} else {
		cur.Right++
		cur.Level = max(cur.Level-1, 0)
	}
	cur.UpdatedAt = now
	p.Entries[key] = cur
	return *cur, true
}

// Level is a kind's feedback level for a developer (0 when never judged).
func (p *Profile) Level(kind, dev string) int {
	if p == nil {
		return 0
	}
	if e := p.Entries[ProfileKey(kind, dev)]; e != nil {
		return min(max(e.Level, 0), MaxFeedbackLevel)
	}
	return 0
}

// AdvisoryID is an advisory's id: its ID, or for a line written before ids
// the same digest of its session and fields that Djinn gives new lines (12
// hexadecimal digits), so that any advisory can be named.
func AdvisoryID(session string, a Advisory) string {
	if a.ID != "" {
		return a.ID
	}
	h := sha256.New()
	for _, s := range []string{session, a.Time.UTC().Format(time.RFC3339Nano), strconv.Itoa(a.Seq), a.Event, a.AgentID, a.Kind, a.Text} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// verdicts are Mark.Verdict's values.
var verdicts = []string{VerdictWrong, VerdictRight}

// Validate enforces profile.schema.json.
func (p Profile) Validate() error {
	var v vet
	v.version(p.SchemaVersion)
	v.required("entries", p.Entries != nil)
	objects(&v, "entries", p.Entries, 1024, func(e *ProfileEntry) {
		v.enum("kind", e.Kind, adviceKinds)
		v.hex("developer", e.Developer, 16)
		v.intRange("level", int64(e.Level), 0, MaxFeedbackLevel)
		v.min("wrong", int64(e.Wrong), 0)
		v.min("right", int64(e.Right), 0)
	})
	v.each("marked", len(p.Marked), MaxProfileMarks, func(i int) {
		m := &p.Marked[i]
		v.hex("id", m.ID, 12)
		v.enum("verdict", m.Verdict, verdicts)
	})
	return v.err()
}

// validate enforces window.schema.json's feedback.
func (f *Feedback) validate(v *vet) {
	v.each("marks", len(f.Marks), MaxSessionMarks, func(i int) {
		m := &f.Marks[i]
		v.hex("id", m.ID, 12)
		v.enum("kind", m.Kind, adviceKinds)
		v.enum("verdict", m.Verdict, verdicts)
		v.maxLen("note", m.Note, 500)
		v.min("seq", int64(m.Seq), 0)
	})
	v.maxLen("notice", f.Notice, 2000)
	members(v, "given", f.Given, 16, func(kind string, n int) { v.min(kind, int64(n), 0) })
	members(v, "held", f.Held, 16, func(kind string, n int) { v.min(kind, int64(n), 0) })
}
