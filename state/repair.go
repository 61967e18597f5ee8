package state

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
)

// A document that fails its check (a hand edit, mostly) is repaired member
// by member rather than thrown away: each top-level member is decoded into
// the document's Go type on its own, those that decode and pass Validate
// are kept, and the others are reset to their defaults and named. The
// original is moved aside as today, so nothing is lost. Only what cannot be
// repaired (not a JSON object, another schema_version, or a member without
// which the document means nothing, such as an anchor's text) starts fresh.

// FieldRepair is one top-level member reset to its default, and why.
type FieldRepair struct {
	// Field is the member's JSON name; empty for the part of the file
	// after invalid JSON, which could not be read at all.
	Field   string
	Problem string
}

// Repair says what a load repaired: the file, where its original went
// (empty when nothing was moved: Peek), and the members reset.
type Repair struct {
	Path   string
	Moved  string
	Fields []FieldRepair
}

// Names lists the members reset, for a person: `"delta_count"`, and "what
// followed the invalid JSON" when the file was cut short.
func (r *Repair) Names() string {
	names := make([]string, 0, len(r.Fields))
	for _, f := range r.Fields {
		if f.Field == "" {
			names = append(names, "what followed the invalid JSON")
			continue
		}
		names = append(names, fmt.Sprintf("%q", f.Field))
	}
	return strings.Join(names, ", ")
}

// Problems words each reset member with its problem, on one line.
func (r *Repair) Problems() string {
	parts := make([]string, 0, len(r.Fields))
	for _, f := range r.Fields {
		if f.Field == "" {
			parts = append(parts, f.Problem)
			continue
		}
		parts = append(parts, f.Field+": "+f.Problem)
	}
	return strings.Join(parts, "; ")
}

// Notice is the one-line notice for the person at the keyboard, e.g.
// `djinn: repaired anchor.json (a hand edit?): "delta_count" was invalid and
// is reset to its default; the goal and the rest are kept (the original is
// anchor.json.corrupt-20261121T100000Z)`.
func (r *Repair) Notice() string {
	name := filepath.Base(r.Path)
	var fields []string
	cut := false
	for _, f := range r.Fields {
		if f.Field == "" {
			cut = true
			continue
		}
		fields = append(fields, fmt.Sprintf("%q", f.Field))
	}
	var what []string
	switch len(fields) {
	case 0:
	case 1:
		what = append(what, fields[0]+" was invalid and is reset to its default")
	default:
		what = append(what, strings.Join(fields, ", ")+" were invalid and are reset to their defaults")
	}
	if cut {
		what = append(what, "the file is not valid JSON part way through, and what followed is reset to its defaults")
	}
	kept := "the rest is kept"
	if filepath.Base(r.Path) == "anchor.json" {
		kept = "the goal and the rest are kept"
	}
	msg := fmt.Sprintf("djinn: repaired %s (a hand edit?): %s; %s", name, strings.Join(what, "; "), kept)
	if r.Moved != "" {
		msg += fmt.Sprintf(" (the original is %s)", r.Moved)
	}
	return msg
}

// errUnrepairable is a document no member-by-member repair can save.
var errUnrepairable = errors.New("cannot be repaired field by field")

// repair rebuilds into v (a pointer to kind k's Go type) the document raw,
// which failed its check, keeping each top-level member that decodes and
// validates on its own and resetting the others to their defaults. It
// returns the members reset, or errUnrepairable. v is set only on success.
func (s *Store) repair(path string, k Kind, raw []byte, v any) ([]FieldRepair, error) {
	members, order, rest := topMembers(raw)
	if members == nil {
		return nil, errUnrepairable
	}
	// A document of another schema version is not Djinn's to patch up.
	var version int
	if err := json.Unmarshal(members["schema_version"], &version); err != nil || version != SchemaVersion {
		return nil, errUnrepairable
	}
	var fixes []FieldRepair
	good := make(map[string]json.RawMessage, len(members))
	for _, key := range order {
		probe, err := newDoc(k)
		if err != nil {
			return nil, errUnrepairable
		}
		one, err := json.Marshal(map[string]json.RawMessage{key: members[key]})
		if err != nil {
			return nil, errUnrepairable
		}
		if err := DecodeStrict(one, probe); err != nil {
			fixes = append(fixes, FieldRepair{key, memberProblem(err)})
			continue
		}
		good[key] = members[key]
	}
	if rest != "" {
		fixes = append(fixes, FieldRepair{"", rest})
	}
	// Rebuild from the defaults and the members kept; a member Validate
	// finds fault with is reset in turn, until the document is valid.
	for range len(order) + 1 {
		doc, err := s.defaults(path, k)
		if err != nil {
			return nil, errUnrepairable
		}
		kept, err := json.Marshal(good)
		if err != nil {
			return nil, errUnrepairable
		}
		if err := DecodeStrict(kept, doc); err != nil {
			return nil, errUnrepairable
		}
		if err := s.fixup(path, k, doc, good); err != nil {
			return nil, errUnrepairable
		}
		verr := doc.Validate()
		if verr == nil {
			if reflect.TypeOf(v) != reflect.TypeOf(doc) {
				return nil, errUnrepairable
			}
			reflect.ValueOf(v).Elem().Set(reflect.ValueOf(doc).Elem())
			sort.SliceStable(fixes, func(i, j int) bool { return fixes[i].Field != "" && fixes[j].Field == "" })
			return fixes, nil
		}
		reset := map[string]bool{}
		for _, fe := range fieldErrors(verr) {
			key := topKey(fe.Pointer)
			if reset[key] {
				continue
			}
			if _, ok := good[key]; !ok || key == "" || key == "schema_version" {
				// A default that fails, or the document as a whole.
				return nil, errUnrepairable
			}
			delete(good, key)
			reset[key] = true
			fixes = append(fixes, FieldRepair{key, fe.Message})
		}
	}
	return nil, errUnrepairable
}

// topMembers reads the top-level members of a JSON object with
// encoding/json's decoder, in order (a repeated name: the last wins, as
// encoding/json decodes it). Invalid JSON ends the read: the members before
// it are returned, and rest words what was lost. members is nil when raw is
// not a JSON object at all.
func topMembers(raw []byte) (members map[string]json.RawMessage, order []string, rest string) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, nil, ""
	}
	members = map[string]json.RawMessage{}
	lost := func(err error) string {
		return fmt.Sprintf("invalid JSON after byte %d (%v)", dec.InputOffset(), err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return members, order, lost(err)
		}
		key, ok := tok.(string)
		if !ok {
			return members, order, lost(fmt.Errorf("expected a member name"))
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return members, order, lost(err)
		}
		if _, seen := members[key]; !seen {
			order = append(order, key)
		}
		members[key] = val
	}
	if _, err := dec.Token(); err != nil {
		return members, order, lost(err)
	}
	return members, order, ""
}

// memberProblem words the check's error on one member.
func memberProblem(err error) string {
	fes := fieldErrors(err)
	if len(fes) == 0 {
		return err.Error()
	}
	return fes[0].Message
}

// topKey is the first member name of a JSON pointer ("" for the root).
func topKey(ptr string) string {
	ptr = strings.TrimPrefix(ptr, "/")
	key, _, _ := strings.Cut(ptr, "/")
	return strings.ReplaceAll(strings.ReplaceAll(key, "~1", "/"), "~0", "~")
}

// defaults is a document of kind k at path with every required member at
// its default: what a member that fails its check is reset to.
func (s *Store) defaults(path string, k Kind) (validator, error) {
	id := filepath.Base(filepath.Dir(path))
	switch k {
	case KindWindow:
		w := NewWindow(id, s.now().UTC())
		return &w, nil
	case KindAnchor:
		return &Anchor{SchemaVersion: SchemaVersion, SessionID: id, IntentType: "unknown", Source: "prompt", Tokens: []string{}, Deltas: []Delta{}}, nil
	case KindPosteriors:
		return &Posteriors{SchemaVersion: SchemaVersion, Entries: map[string]*Posterior{}}, nil
	}
	return nil, errUnrepairable
}

// fixup derives the members that were reset from what was kept, where the
// document allows it: an anchor's hash from its text (an anchor without its
// text is no goal, and is not repaired), and a window's tool-call count from
// the last line of turns.jsonl beside it, so the count matches the log.
func (s *Store) fixup(path string, k Kind, doc validator, good map[string]json.RawMessage) error {
	switch d := doc.(type) {
	case *Anchor:
		if _, ok := good["text"]; !ok || strings.TrimSpace(d.Text) == "" {
			return errUnrepairable
		}
		if _, ok := good["hash"]; !ok {
			d.Hash = AnchorHash(d.Text)
		}
	case *Window:
		if _, ok := good["tool_calls"]; !ok {
			d.ToolCalls = s.LastTurnSeq(filepath.Dir(path))
		}
	}
	return nil
}

// LastTurnSeq is the tool-call number of the last valid line of the
// turns.jsonl in a session directory (0 when there is none): what a window
// started afresh, or repaired without its count, counts on from. It reads
// the log's last line only.
func (s *Store) LastTurnSeq(dir string) int {
	turns, _, err := s.ReadLastTurns(filepath.Join(dir, "turns.jsonl"), 64<<10, 1)
	if err != nil || len(turns) == 0 {
		return 0
	}
	return turns[len(turns)-1].Seq
}

// AnchorHash is an anchor's hash: the first 12 hex digits of
// sha1(lower(strip(text))).
func AnchorHash(text string) string {
	sum := sha1.Sum([]byte(strings.ToLower(strings.TrimSpace(text))))
	return hex.EncodeToString(sum[:])[:12]
}
