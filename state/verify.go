package state

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Problem is one invalid thing found by [Store.Check]: the file, the field
// (a JSON pointer, prefixed with the line number for JSONL) and what is
// wrong.
type Problem struct {
	File    string
	Field   string
	Message string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s: %s: %s", p.File, orRoot(p.Field), p.Message)
}

// CheckReport is the result of [Store.Check].
type CheckReport struct {
	Files    int
	Problems []Problem
	// Notes are things worth knowing that are not failures: files moved
	// aside earlier, leftover temporary files, a torn last line.
	Notes []string
}

// sessionFileKind is the kind of a session file, "" for a name that is
// not one.
func sessionFileKind(name string) Kind {
	switch name {
	case "anchor.json":
		return KindAnchor
	case "reservoir.json":
		return KindReservoir
	case "window.json":
		return KindWindow
	case "turns.jsonl":
		return KindTurn
	case "advisories.jsonl":
		return KindAdvisory
	}
	return ""
}

// CheckWith validates, without changing anything, the root's shared files
// and the files of the given sessions (all sessions when ids is empty), each
// document (a whole file, or one line of a JSONL file) with check:
// settings.ValidateBytes checks them as a hook reads them, and `djinn state
// validate` adds the embedded schemas' own.
func (s *Store) CheckWith(ids []string, check func(k Kind, raw []byte) []FieldError) (CheckReport, error) {
	c := checkRun{check: check, store: s}
	r := &c.report
	c.checkFile(filepath.Join(s.Root, "config.json"), KindConfig)
	c.checkFile(filepath.Join(s.Root, "posteriors.json"), KindPosteriors)
	c.checkFile(filepath.Join(s.Root, ProfileFile), KindProfile)
	c.checkFile(filepath.Join(s.Root, "learnings.jsonl"), KindLearning)
	if len(ids) == 0 {
		all, err := s.Sessions()
		if err != nil {
			return *r, err
		}
		for _, si := range all {
			ids = append(ids, si.ID)
		}
		sort.Strings(ids)
	}
	for _, id := range ids {
		dir, err := s.SessionDir(id)
		if err != nil {
			return *r, err
		}
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return *r, fmt.Errorf("session %s: no such session under %s", id, s.Root)
		}
		if err != nil {
			return *r, err
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch name := e.Name(); {
			case name == "lock", name == "report.html": // the lock; the session report (djinn report)
			case name == "archive" && e.IsDir():
				c.checkArchive(p)
			case sessionFileKind(name) != "":
				c.checkFile(p, sessionFileKind(name))
			case strings.Contains(name, ".corrupt-"):
				r.Notes = append(r.Notes, fmt.Sprintf("%s: moved aside earlier because it was invalid", p))
			case strings.HasPrefix(name, "."):
				r.Notes = append(r.Notes, fmt.Sprintf("%s: leftover temporary file of an interrupted write", p))
			default:
				r.Notes = append(r.Notes, fmt.Sprintf("%s: not a Djinn file", p))
			}
		}
	}
	return *r, nil
}

// checkRun is one Check: the document check and the report.
type checkRun struct {
	store  *Store
	check  func(k Kind, raw []byte) []FieldError
	report CheckReport
}

func (c *checkRun) checkArchive(dir string) {
	r := &c.report
	entries, err := os.ReadDir(dir)
	if err != nil {
		r.Problems = append(r.Problems, Problem{File: dir, Message: err.Error()})
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case strings.HasPrefix(e.Name(), "anchor-") && strings.HasSuffix(e.Name(), ".json"):
			c.checkFile(p, KindAnchor)
		case strings.HasPrefix(e.Name(), "reservoir-") && strings.HasSuffix(e.Name(), ".json"):
			c.checkFile(p, KindReservoir)
		}
	}
}

// checkFile checks a whole document, or each line of a JSONL file.
func (c *checkRun) checkFile(path string, k Kind) {
	r := &c.report
	jsonl := strings.HasSuffix(path, ".jsonl")
	limit := int64(MaxDocBytes)
	if jsonl {
		limit = 1 << 30
	}
	// config.json is the user's own file, which a dotfiles manager may
	// link; everything else under the root is Djinn's and read without
	// following a link, as the hooks read it.
	var raw []byte
	var err error
	if k == KindConfig {
		raw, err = ReadBounded(path, limit)
	} else {
		raw, err = c.store.readFile(path, limit, walkRead)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	r.Files++
	if err != nil {
		r.Problems = append(r.Problems, Problem{File: path, Message: err.Error()})
		return
	}
	if jsonl {
		c.checkLines(path, k, raw)
		return
	}
	for _, e := range c.check(k, raw) {
		r.Problems = append(r.Problems, Problem{File: path, Field: e.Pointer, Message: e.Message})
	}
}

func (c *checkRun) checkLines(path string, k Kind, raw []byte) {
	r := &c.report
	lines := bytes.Split(raw, []byte("\n"))
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		errs := c.check(k, line)
		if len(errs) == 0 {
			continue
		}
		if i == len(lines)-1 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: line %d: torn last line (an interrupted append), skipped when read", path, i+1))
			continue
		}
		for _, e := range errs {
			r.Problems = append(r.Problems, Problem{File: path, Field: fmt.Sprintf("line %d %s", i+1, orRoot(e.Pointer)), Message: e.Message})
		}
	}
}

// orRoot renders the empty JSON pointer (the whole document) as "/".
func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}
