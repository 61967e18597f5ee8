package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/renameio/v2"
)

// MaxDocBytes bounds a whole-file state document. Djinn's own documents are
// a few kilobytes; anything larger was not written by Djinn and is
// quarantined rather than parsed.
const MaxDocBytes = 4 << 20

// Store reads and writes the state under one root. The zero value is not
// usable; fill Root at least.
type Store struct {
	// Root is the absolute state directory.
	Root string
	// LockWait is how long to wait for a busy lock before giving up.
	LockWait time.Duration
	// Now is the clock, injected so quarantine names are testable.
	Now func() time.Time
	// Notice receives one-line reports (a quarantined file, a skipped torn
	// line). The caller prefixes and prints them; nil drops them.
	Notice func(msg string)
	// NoSync skips the fsync before a whole-file write's rename: the write
	// is still atomic for readers, but not durable across a crash. Only
	// for state nobody needs after a crash: replay's scratch directory,
	// removed when the replay ends. Hooks leave it false, and write through
	// renameio.
	NoSync bool

	// lockHooks are tests' view of lock waits; zero in use.
	lockHooks lockHooks
	// Fault, nil in use, is a test hook called with the target before each
	// step that changes a state file (a whole-file write, each rename of
	// SaveAll, an append): an error fails that step as a full disk would,
	// so a test can stop a hook at every step and check what the next hook
	// makes of the files it left.
	Fault func(path string) error

	// held is the directory of the lock this Store took last, while it
	// holds it (see heldDir); nil otherwise.
	held atomic.Pointer[heldDir]
}

// WithLockWait returns a Store like s with LockWait set to wait; it holds
// none of s's locks.
func (s *Store) WithLockWait(wait time.Duration) *Store {
	return &Store{Root: s.Root, LockWait: wait, Now: s.Now, Notice: s.Notice, NoSync: s.NoSync, lockHooks: s.lockHooks, Fault: s.Fault}
}

// fault runs the Fault test hook, if any.
func (s *Store) fault(path string) error {
	if s.Fault == nil {
		return nil
	}
	if err := s.Fault(path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Store) notice(format string, args ...any) {
	if s.Notice != nil {
		s.Notice(fmt.Sprintf(format, args...))
	}
}

// SessionsDir is where per-session directories live.
func (s *Store) SessionsDir() string { return filepath.Join(s.Root, "sessions") }

// SessionDir returns the directory of a session, validating its id.
func (s *Store) SessionDir(id string) (string, error) {
	if err := ValidateSessionID(id); err != nil {
		return "", err
	}
	return filepath.Join(s.SessionsDir(), id), nil
}

// LockSession takes the session's lock, creating its directory.
func (s *Store) LockSession(ctx context.Context, id string) (*Lock, error) {
	dir, err := s.SessionDir(id)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.Root, 0o700); err != nil {
		return nil, fmt.Errorf("create state root: %w", err)
	}
	return s.acquire(ctx, filepath.Join(dir, "lock"), s.LockWait)
}

// LockGlobal takes the lock guarding the root's shared files
// (posteriors.json, learnings.jsonl).
func (s *Store) LockGlobal(ctx context.Context) (*Lock, error) {
	return s.acquire(ctx, filepath.Join(s.Root, "lock"), s.LockWait)
}

// Load reads a JSON document of kind k into v, a pointer to the kind's Go
// type: decoded strictly and checked by its Validate method. It returns
// found=false when the file does not exist. An invalid file is repaired
// field by field where it can be (see LoadRepaired); one that cannot is
// moved aside as <name>.corrupt-<time>, reported once through Notice, and
// found is false: the caller starts fresh. Errors are for files that cannot
// be read at all (permissions, I/O), which must leave the state untouched.
func (s *Store) Load(path string, k Kind, v any) (found bool, err error) {
	found, _, err = s.LoadRepaired(path, k, v)
	return found, err
}

// LoadRepaired is Load, and says what it repaired. A document that fails
// its check but is a JSON object is rebuilt member by member: the members
// that decode and validate are kept, the others reset to their defaults;
// the original is moved aside as <name>.corrupt-<time>, the repaired
// document written in its place, and one line sent to Notice. rep is then
// non-nil and names the members reset (rep.Notice words it for the person).
func (s *Store) LoadRepaired(path string, k Kind, v any) (found bool, rep *Repair, err error) {
	raw, err := s.readFile(path, MaxDocBytes, walkFix)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil, nil
	}
	var problem string
	switch {
	case errors.Is(err, errTooLarge):
		problem = fmt.Sprintf("larger than %d bytes", MaxDocBytes)
	case errors.Is(err, errLink):
		problem = "a symbolic link, not followed"
	case errors.Is(err, errNotRegular):
		problem = "not a regular file"
	case err != nil:
		return false, nil, fmt.Errorf("read %s: %w", path, err)
	default:
		if err := decodeValid(raw, v); err != nil {
			problem = err.Error()
			if fixes, rerr := s.repair(path, k, raw, v); rerr == nil {
				return s.saveRepaired(path, k, v, fixes)
			}
		}
	}
	if problem == "" {
		return true, nil, nil
	}
	moved, qerr := s.quarantine(path)
	if qerr != nil {
		return false, nil, fmt.Errorf("%s is invalid (%s) and could not be moved aside: %w", path, problem, qerr)
	}
	s.notice("%s is invalid (%s); moved aside to %s, starting fresh", path, problem, filepath.Base(moved))
	return false, nil, nil
}

// saveRepaired moves the invalid original aside and writes the repaired
// document v in its place, so the next load finds it valid and the person
// is told once.
func (s *Store) saveRepaired(path string, k Kind, v any, fixes []FieldRepair) (bool, *Repair, error) {
	rep := &Repair{Path: path, Fields: fixes}
	moved, err := s.quarantine(path)
	if err != nil {
		return false, nil, fmt.Errorf("%s is invalid (%s) and could not be moved aside: %w", path, rep.Problems(), err)
	}
	rep.Moved = filepath.Base(moved)
	if err := s.Save(path, k, v); err != nil {
		return false, nil, fmt.Errorf("%s was invalid (%s), moved aside to %s, and the repaired copy could not be written: %w", path, rep.Problems(), rep.Moved, err)
	}
	s.notice("%s is invalid (%s); reset %s to the default, kept the rest, moved the original aside to %s", path, rep.Problems(), rep.Names(), rep.Moved)
	return true, rep, nil
}

// Peek reads a document like Load but never moves or writes anything:
// read-only commands (status, the replay meter) use it, so looking never
// changes the state. An invalid file that can be repaired field by field
// is repaired in memory, as the next hook will repair it on disk, and
// reported through Notice; one that cannot is an error.
func (s *Store) Peek(path string, k Kind, v any) (found bool, err error) {
	found, rep, err := s.PeekRepaired(path, k, v)
	if rep != nil {
		s.notice("%s is invalid (%s); shown with %s reset to the default, as the next hook will repair it", path, rep.Problems(), rep.Names())
	}
	return found, err
}

// PeekRepaired is Peek without the notice: rep, when non-nil, says what
// was repaired in memory (rep.Moved is empty: nothing was moved).
func (s *Store) PeekRepaired(path string, k Kind, v any) (found bool, rep *Repair, err error) {
	raw, err := s.readFile(path, MaxDocBytes, walkRead)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := decodeValid(raw, v); err != nil {
		fixes, rerr := s.repair(path, k, raw, v)
		if rerr != nil {
			return false, nil, fmt.Errorf("%s is invalid (%s); the next hook will move it aside", path, err)
		}
		return true, &Repair{Path: path, Fields: fixes}, nil
	}
	return true, nil, nil
}

// quarantine renames a bad file to <name>.corrupt-<UTC time>, adding a
// counter if that name is taken; it never overwrites an earlier quarantine.
func (s *Store) quarantine(path string) (string, error) {
	return s.moveAside(path)
}

// Save writes v as a JSON document of kind k atomically: it is validated
// first (Djinn never writes a file it would quarantine on the next load),
// then written to a temporary file beside the
// target, fsynced and renamed. Every document is written for people to
// read by hand (see encode).
func (s *Store) Save(path string, k Kind, v any) error {
	raw, err := encodeFor(path, k, v)
	if err != nil {
		return err
	}
	return s.write(path, raw)
}

// encodeFor renders a document as Save writes it.
func encodeFor(path string, k Kind, v any) ([]byte, error) {
	if err := validate(v); err != nil {
		return nil, fmt.Errorf("refusing to write invalid %s: %w", filepath.Base(path), err)
	}
	raw, err := encode(v, true)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return raw, nil
}

// encode renders v as people read it by hand: the fields in the Go type's
// order (map keys sorted), "<" ">" "&" as themselves rather than \u003c
// escapes, and, for a whole document, indented, ending in a newline. A
// JSONL line (indent false) is one compact line without its newline.
func encode(v any, indent bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", " ")
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if !indent {
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
	}
	return buf.Bytes(), nil
}

// Doc is one document for SaveAll.
type Doc struct {
	Path string
	Kind Kind
	V    any
}

// SaveAll writes documents as Save does, each atomically, fsynced and
// renamed in the order given. All are encoded and written to their
// temporary files before the first rename, so a document that cannot be
// encoded or written leaves every target as it was; only a failed fsync or
// rename after the first can leave some renamed and the rest not.
func (s *Store) SaveAll(docs ...Doc) error {
	if len(docs) < 2 || s.NoSync {
		for _, d := range docs {
			if err := s.Save(d.Path, d.Kind, d.V); err != nil {
				return err
			}
		}
		return nil
	}
	raws := make([][]byte, len(docs))
	for i, d := range docs {
		raw, err := encodeFor(d.Path, d.Kind, d.V)
		if err != nil {
			return err
		}
		raws[i] = raw
	}
	pfs := make([]*renameio.PendingFile, 0, len(docs))
	defer func() {
		for _, pf := range pfs {
			_ = pf.Cleanup() // a no-op once renamed
		}
	}()
	for i, d := range docs {
		if err := s.prepareTarget(d.Path); err != nil {
			return err
		}
		dir := filepath.Dir(d.Path)
		pf, err := renameio.NewPendingFile(d.Path, renameio.WithTempDir(dir), renameio.WithPermissions(0o600))
		if err != nil {
			return fmt.Errorf("write %s: %w", d.Path, err)
		}
		pfs = append(pfs, pf)
		if _, err := pf.Write(raws[i]); err != nil {
			return fmt.Errorf("write %s: %w", d.Path, err)
		}
	}
	if err := syncAll(pfs, docs); err != nil {
		return err
	}
	for i, pf := range pfs {
		if err := s.fault(docs[i].Path); err != nil {
			return err
		}
		if err := pf.CloseAtomicallyReplace(); err != nil {
			return fmt.Errorf("write %s: %w", docs[i].Path, err)
		}
	}
	return nil
}

// syncAll fsyncs the pending files all at once, before any is renamed:
// fsyncs that overlap can share the file system's journal commit, where
// one after the other each waits for its own. CloseAtomicallyReplace
// still fsyncs each file before its rename, which then finds nothing left
// to write.
func syncAll(pfs []*renameio.PendingFile, docs []Doc) error {
	errs := make([]error, len(pfs))
	var wg sync.WaitGroup
	for i, pf := range pfs[1:] {
		wg.Go(func() { errs[i+1] = pf.Sync() })
	}
	errs[0] = pfs[0].Sync()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("write %s: %w", docs[i].Path, err)
		}
	}
	return nil
}

// write writes a whole file atomically: writeAtomic, or writeUnsynced
// under NoSync.
func (s *Store) write(path string, raw []byte) error {
	if err := s.fault(path); err != nil {
		return err
	}
	if err := s.prepareTarget(path); err != nil {
		return err
	}
	if s.NoSync {
		return writeUnsynced(path, raw)
	}
	return writeAtomic(path, raw)
}

// writeUnsynced is writeAtomic without the fsync: a temporary file beside
// the target (0600, as renameio creates it), written, closed and renamed
// over the target, whose directory prepareTarget made ready.
func writeUnsynced(path string, raw []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(raw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writeAtomic is the whole-file write path of the hooks (renameio: a
// temporary file beside the target, fsynced, renamed), into a directory
// prepareTarget made ready.
func writeAtomic(path string, raw []byte) error {
	dir := filepath.Dir(path)
	pf, err := renameio.NewPendingFile(path, renameio.WithTempDir(dir), renameio.WithPermissions(0o600))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() { _ = pf.Cleanup() }()
	if _, err := pf.Write(raw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := pf.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

var (
	errTooLarge   = errors.New("file too large")
	errNotRegular = errors.New("not a regular file")
)

// ReadBounded reads a regular file of at most max bytes, following
// links: for the user's own files (config.json). It refuses FIFOs,
// devices and directories before opening them for reading, so a hostile
// path can never block or stream forever. State files are read with
// Store.readFile, which follows no link.
func ReadBounded(path string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	if fi.Size() > max {
		return nil, errTooLarge
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscallNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(f, max)
}

// readOpen reads an open regular file of at most max bytes.
func readOpen(f *os.File, max int64) ([]byte, error) {
	// Sized from the open file, so a read or two rather than io.ReadAll's
	// doubling from 512 bytes (eleven reads for a 14 KB window).
	var buf bytes.Buffer
	if fi, err := f.Stat(); err == nil {
		if fi.Size() > max {
			return nil, errTooLarge
		}
		buf.Grow(int(fi.Size()) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > max {
		return nil, errTooLarge
	}
	return buf.Bytes(), nil
}

// Append writes v as one JSONL line of kind k with a single O_APPEND write.
// The caller holds the lock. If the file ends in a torn line (a crash
// mid-append), a newline is written first so the torn fragment stays a line
// of its own and the new line is intact.
func (s *Store) Append(path string, k Kind, v any) error {
	if err := validate(v); err != nil {
		return fmt.Errorf("refusing to append invalid %s line: %w", filepath.Base(path), err)
	}
	raw, err := encode(v, false)
	if err != nil {
		return fmt.Errorf("encode %s line: %w", filepath.Base(path), err)
	}
	return s.AppendLine(path, raw)
}

// EncodeLine encodes v as one JSONL line of kind k (without its newline),
// validated first: what Append writes.
func (s *Store) EncodeLine(k Kind, v any) ([]byte, error) {
	if err := validate(v); err != nil {
		return nil, fmt.Errorf("refusing to append an invalid line: %w", err)
	}
	raw, err := encode(v, false)
	if err != nil {
		return nil, fmt.Errorf("encode line: %w", err)
	}
	return raw, nil
}

// AppendLine appends raw, a line EncodeLine made, with a single O_APPEND
// write. The caller holds the lock. If the file ends in a torn line (a
// crash mid-append), a newline is written first, so the torn line stays a
// line of its own, which readers skip and report.
func (s *Store) AppendLine(path string, raw []byte) error {
	if err := s.fault(path); err != nil {
		return err
	}
	f, err := s.openAppend(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return appendTo(f, raw)
}

// openAppend opens a JSONL log for appending, creating it 0600: never
// through a link, and never a FIFO, device or a file with other hard
// links, which are moved aside and reported (see openFile).
func (s *Store) openAppend(path string) (*os.File, error) {
	f, err := s.openFile(path, fileOpts{mode: walkCreate, flags: os.O_RDWR | os.O_APPEND | os.O_CREATE, perm: 0o600, noHardLinks: true})
	if err != nil {
		return nil, fmt.Errorf("append %s: %w", path, err)
	}
	return f, nil
}

// appendTo appends raw and a newline to f, opened by openAppend, in one
// write, after a newline of its own if f ends in a torn line.
func appendTo(f *os.File, raw []byte) error {
	path := f.Name()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("append %s: %w", path, err)
	}
	line := make([]byte, 0, len(raw)+2)
	if fi.Size() > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], fi.Size()-1); err == nil && last[0] != '\n' {
			line = append(line, '\n')
		}
	}
	line = append(line, raw...)
	line = append(line, '\n')
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("append %s: %w", path, err)
	}
	return nil
}

// Reconcile appends to the log at path, of kind k, those of values (a
// hook's lines, in the order it appended them, as Window.Logged keeps
// them) that the log lacks: the hook wrote its window and was killed before its appends, or
// between two of them. It reads only the log's tail, at most twice the
// lines' size: the longest run lines[:j] the log ends with (a torn last
// line, cut mid-append, ignored) is there, and lines[j:] are appended. It
// returns how many it appended. The caller holds the lock.
func (s *Store) Reconcile(path string, k Kind, values []any) (int, error) {
	return s.ReconcileFrom(path, k, values, "window.json")
}

// ReconcileFrom is Reconcile for lines another document than window.json
// keeps (posteriors.json keeps the last learnings.jsonl line): doc names it
// in the notice.
func (s *Store) ReconcileFrom(path string, k Kind, values []any, doc string) (int, error) {
	if len(values) == 0 {
		return 0, nil
	}
	// The lines as Append wrote them: the encoding is deterministic.
	lines := make([][]byte, len(values))
	for i, v := range values {
		raw, err := s.EncodeLine(k, v)
		if err != nil {
			return 0, fmt.Errorf("reconcile %s: %w", filepath.Base(path), err)
		}
		lines[i] = raw
	}
	want := 0
	for _, l := range lines {
		want += len(l) + 1
	}
	// The log is opened as an append opens it (never through a link, a
	// FIFO or another hard link), once, for the read, the cut and the
	// appends.
	f, err := s.openAppend(path)
	if err != nil {
		return 0, fmt.Errorf("reconcile %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	tail, size, err := readTail(f, int64(2*want+1))
	if err != nil {
		return 0, fmt.Errorf("reconcile %s: %w", filepath.Base(path), err)
	}
	// The log's last whole lines: a torn last line (cut mid-append) is no
	// line, nor is a torn fragment a later append terminated, nor the
	// first line of the tail, cut at its start.
	var torn []byte
	if i := bytes.LastIndexByte(tail, '\n'); i >= 0 {
		torn = tail[i+1:]
		tail = tail[:i]
	} else {
		torn, tail = tail, nil
	}
	var whole [][]byte
	for _, l := range bytes.Split(tail, []byte("\n")) {
		// A log edited by hand may have CRLF line ends.
		l = bytes.TrimSuffix(l, []byte("\r"))
		if len(l) > 0 && json.Valid(l) {
			whole = append(whole, l)
		}
	}
	have := 0
	for j := len(lines); j > 0; j-- {
		if j <= len(whole) && equalLines(whole[len(whole)-j:], lines[:j]) {
			have = j
			break
		}
	}
	if have == len(lines) {
		return 0, nil
	}
	// A torn last line is what is left of the interrupted hook's append
	// (a kill inside its write, which the kernel may cut at a page
	// boundary): its whole line is among those restored, so the fragment
	// is cut off rather than left in the log as an invalid line every
	// later reader would skip and report. A last line that parses (a log
	// edited by hand without its final newline) is left alone.
	if err := s.fault(path); err != nil {
		return 0, err
	}
	cut := ""
	if len(torn) > 0 && !json.Valid(torn) {
		if err := f.Truncate(size - int64(len(torn))); err != nil {
			return 0, fmt.Errorf("reconcile %s: %w", filepath.Base(path), err)
		}
		cut = "; its torn last line was cut off"
	}
	for i, l := range lines[have:] {
		if err := appendTo(f, l); err != nil {
			return i, err
		}
	}
	n := len(lines) - have
	s.notice("%s: restored %d line(s) that the last hook logged in %s but had not appended (it was interrupted)%s", path, n, doc, cut)
	return n, nil
}

// equalLines reports whether the log's lines a hold the lines b, as
// encode writes them now or as json.Marshal wrote them before (with "<",
// ">" and "&" escaped).
func equalLines(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if bytes.Equal(a[i], b[i]) {
			continue
		}
		var esc bytes.Buffer
		json.HTMLEscape(&esc, b[i])
		if !bytes.Equal(a[i], esc.Bytes()) {
			return false
		}
	}
	return true
}

// readTail reads at most n bytes from the end of f, and returns them
// with f's size.
func readTail(f *os.File, n int64) ([]byte, int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	off := max(0, fi.Size()-n)
	buf := make([]byte, fi.Size()-off)
	k, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, err
	}
	return buf[:k], fi.Size(), nil
}

// LineStats reports what a JSONL read skipped.
type LineStats struct {
	Lines   int // valid lines delivered
	Invalid int // lines that failed to parse or validate
	Torn    bool
	// Truncated is true when only the last maxBytes were read.
	Truncated bool
}

// ReadLines calls fn for each valid line of a JSONL file of kind k, reading
// at most the last maxBytes (0 means 64 MiB). Invalid lines and a torn last
// line are skipped and reported through Notice, never fatal.
func (s *Store) ReadLines(path string, k Kind, maxBytes int64, fn func(raw []byte) error) (LineStats, error) {
	return s.ReadLastLines(path, k, maxBytes, 0, fn)
}

// ReadLastLines is ReadLines on at most the last maxLines lines of the
// last maxBytes (0: no limit on lines): only those are checked and
// decoded, which is most of a read's cost. Truncated is set when lines
// were left out.
func (s *Store) ReadLastLines(path string, k Kind, maxBytes int64, maxLines int, fn func(raw []byte) error) (LineStats, error) {
	return s.readLastLines(path, maxBytes, maxLines, func(line []byte) bool { return len(ValidateBytes(k, line)) == 0 }, fn)
}

// ReadLastTurns is ReadLastLines for turns.jsonl, each line decoded and
// validated as Load does. A line that fails is skipped and counted as
// invalid (or torn).
func (s *Store) ReadLastTurns(path string, maxBytes int64, maxLines int) ([]Turn, LineStats, error) {
	var turns []Turn
	var t Turn
	st, err := s.readLastLines(path, maxBytes, maxLines, func(line []byte) bool {
		t = Turn{}
		return decodeValid(line, &t) == nil
	}, func([]byte) error {
		turns = append(turns, t)
		return nil
	})
	return turns, st, err
}

// readLastLines is ReadLastLines with the line check given: fn gets the
// lines valid accepts.
func (s *Store) readLastLines(path string, maxBytes int64, maxLines int, valid func(line []byte) bool, fn func(raw []byte) error) (LineStats, error) {
	var st LineStats
	if maxBytes <= 0 {
		maxBytes = 64 << 20
	}
	f, err := s.openFile(path, fileOpts{mode: walkRead, flags: os.O_RDONLY})
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return st, fmt.Errorf("read %s: %w", path, err)
	}
	start := int64(0)
	if fi.Size() > maxBytes {
		start = fi.Size() - maxBytes
		st.Truncated = true
	}
	raw := make([]byte, fi.Size()-start)
	n, err := f.ReadAt(raw, start)
	if err != nil && !errors.Is(err, io.EOF) {
		return st, fmt.Errorf("read %s: %w", path, err)
	}
	raw = raw[:n]
	if st.Truncated {
		// Drop the partial first line of the window.
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			raw = raw[i+1:]
		} else {
			raw = nil
		}
	}
	if maxLines > 0 {
		// Keep the last maxLines lines (a last line without its newline,
		// maybe torn, counts as one).
		end, n := len(raw), 0
		if end > 0 && raw[end-1] == '\n' {
			end--
		}
		for i := end - 1; i >= 0; i-- {
			if raw[i] != '\n' {
				continue
			}
			if n++; n == maxLines {
				raw = raw[i+1:]
				st.Truncated = true
				break
			}
		}
	}
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\n')
		var line []byte
		last := i < 0
		if last {
			line, raw = raw, nil
		} else {
			line, raw = raw[:i], raw[i+1:]
		}
		// A log edited by hand may have CRLF line ends.
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !valid(line) {
			if last {
				st.Torn = true
			} else {
				st.Invalid++
			}
			continue
		}
		st.Lines++
		if err := fn(line); err != nil {
			return st, err
		}
	}
	if st.Torn {
		s.notice("%s: skipped a torn last line (an interrupted append)", path)
	}
	if st.Invalid > 0 {
		s.notice("%s: skipped %d invalid line(s)", path, st.Invalid)
	}
	return st, nil
}

// WriteRaw writes bytes that are not a state document (a saved tool
// output) atomically, 0600, through the same path as every other write.
func (s *Store) WriteRaw(path string, raw []byte) error {
	return s.write(path, raw)
}

// DropLines rewrites a JSONL file without the lines keep rejects, under
// the caller's lock, atomically (renameio). Lines that do not parse are
// kept as they are. It reports how many lines were dropped.
func (s *Store) DropLines(path string, drop func(raw []byte) bool) (int, error) {
	raw, err := s.readFile(path, 1<<30, walkFix)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	var out bytes.Buffer
	dropped := 0
	for _, line := range bytes.SplitAfter(raw, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 && drop(bytes.TrimSpace(line)) {
			dropped++
			continue
		}
		out.Write(line)
	}
	if dropped == 0 {
		return 0, nil
	}
	return dropped, s.write(path, out.Bytes())
}

// ReadDoc reads the state document at path (at most MaxDocBytes) without
// following a link, as the hooks read it, for commands that show a file.
func (s *Store) ReadDoc(path string) ([]byte, error) {
	return s.readFile(path, MaxDocBytes, walkRead)
}
