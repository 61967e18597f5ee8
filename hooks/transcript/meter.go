package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Options bound what Measure reads and say what else to collect.
type Options struct {
	// Budget is the most bytes read from each window, the tail and the
	// forward one (default 1 MiB).
	Budget int64 `json:"budget"`
	// Chunk is the size of each read (default 64 KiB).
	Chunk int64 `json:"chunk"`
	// LongLine (default 64 KiB, at most Budget): when the caller passes a
	// valid cursor, a line not found whole after this many of its bytes is
	// not read further, by either window; the forward window gives the
	// lines before it. This keeps the cost flat when the last line alone
	// is megabytes, at the price of a reading one response late in the
	// rare case of an assistant line between two such lines written since
	// the cursor (or of an assistant line this long).
	LongLine int64 `json:"long_line,omitempty"`
	// TextRunes is how much recent assistant text to return, in runes;
	// 0 collects none.
	TextRunes int `json:"text_runes"`
	// ToolResults is how many recent tool results to size; 0 sizes none.
	ToolResults int `json:"tool_results"`
	// LastTextOnly stops collecting text once the latest message's text is
	// complete (LastText), instead of going on until RecentText holds
	// TextRunes: RecentText then holds only what was read on the way. The
	// hooks' hot path needs LastText only.
	LastTextOnly bool `json:"last_text_only,omitempty"`
	// KnownMessage, with LastTextOnly, is the id of a message whose text
	// the caller already has: when it is the latest, its text is not
	// collected (LastText is then empty or partial), and the tail walk
	// may stop at the cursor's boundary when nothing after it is newer.
	KnownMessage string `json:"known_message,omitempty"`
}

// DefaultOptions: a 1 MiB budget read in 64 KiB chunks, lines of 64 KiB
// and over given up on when a cursor covers them, 4,000 runes of text and
// the 16 latest tool results.
func DefaultOptions() Options {
	return Options{Budget: 1 << 20, Chunk: 64 << 10, LongLine: 64 << 10, TextRunes: 4000, ToolResults: 16}
}

// HookOptions are DefaultOptions as the hooks' hot path uses them: the
// latest usage and the latest message's text (2,000 runes), no tool results.
func HookOptions() Options {
	o := DefaultOptions()
	o.TextRunes, o.ToolResults, o.LastTextOnly = 2000, 0, true
	return o
}

func (o Options) sanitized() Options {
	d := DefaultOptions()
	if o.Budget <= 0 {
		o.Budget = d.Budget
	}
	if o.Chunk <= 0 {
		o.Chunk = d.Chunk
	}
	o.Chunk = min(o.Chunk, o.Budget)
	if o.LongLine <= 0 {
		o.LongLine = d.LongLine
	}
	o.LongLine = min(o.LongLine, o.Budget)
	o.TextRunes = max(o.TextRunes, 0)
	o.ToolResults = max(o.ToolResults, 0)
	return o
}

// Where a Reading came from.
const (
	SourceTail    = "tail"    // the window at the end of the file
	SourceForward = "forward" // the window after the caller's cursor
	SourceCarried = "carried" // neither window decided; the cursor's reading
	SourceNone    = "none"    // nothing known
)

// Reading is the context size the transcript shows.
type Reading struct {
	// Tokens is input + cache-creation + cache-read tokens of the latest
	// main-chain assistant message (0 unless Found).
	Tokens int64 `json:"tokens"`
	Found  bool  `json:"found"`
	// Stale: a compact_boundary or a compaction summary came after the
	// latest usage, so the size is unknown until the next response (CLIs
	// before 2.0 write the summary and no boundary); PreTokens is what the
	// boundary says the context held before compaction, when the boundary
	// is the latest of them.
	Stale     bool   `json:"stale,omitempty"`
	PreTokens int64  `json:"pre_tokens,omitempty"`
	Model     string `json:"model,omitempty"`
	MessageID string `json:"message_id,omitempty"`
	Source    string `json:"source"`
}

// Cursor is what the caller keeps between hooks, so that a line too long to
// read does not hide the lines before it.
type Cursor struct {
	Size     int64   `json:"size"`             // file size at the last Measure
	Boundary int64   `json:"boundary"`         // an offset just after a newline (or 0)
	Reading  Reading `json:"reading"`          // the reading returned then
	Latest   string  `json:"latest,omitempty"` // Scan.Latest then
}

// ToolResult is the size of one tool_result block on the main chain.
type ToolResult struct {
	ToolUseID string `json:"tool_use_id"`
	Name      string `json:"name,omitempty"` // from its tool_use, if that was read
	Chars     int    `json:"chars"`          // runes of its text
	IsError   bool   `json:"is_error,omitempty"`
}

// Scan is what one Measure found.
type Scan struct {
	Reading Reading
	Cursor  Cursor // to pass to the next Measure
	// LastText is the text of the latest main-chain assistant message (its
	// text blocks, blank-line separated; the last TextRunes runes).
	LastText string
	// RecentText is the last TextRunes runes of the main-chain assistant
	// text blocks read, in file order, blank-line separated.
	RecentText string
	// ToolResults are the latest main-chain tool results, newest first.
	ToolResults []ToolResult
	// Latest is the id of the newest main-chain assistant message, with
	// usage or without ("" when not known): the message that issued the
	// main agent's tool call a PostToolUse hook reports.
	Latest string
	// BytesRead counts the bytes read, to show that the cost is bounded.
	BytesRead int64
}

// ErrNotRegular is returned for a path that is not a regular file (a
// directory, FIFO, device or socket): such paths are never read.
var ErrNotRegular = errors.New("transcript is not a regular file")

// Measure reads the context meter, and the recent text and tool results,
// from the transcript at path. It reads at most opt.Budget bytes back from
// the end and, when that does not decide and prev is a cursor of the same
// file, opt.Budget bytes forward from prev.Boundary; never more, whatever the
// file's size or its longest line. A missing or unreadable transcript is
// reported as an error together with a usable Scan (the cursor's reading,
// carried, or none).
func Measure(path string, prev *Cursor, opt Options) (Scan, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return unread(prev), fmt.Errorf("measure transcript: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return unread(prev), fmt.Errorf("measure transcript %s: %w", path, ErrNotRegular)
	}
	// O_NONBLOCK: should the path become a FIFO between Stat and Open,
	// opening it must not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return unread(prev), fmt.Errorf("measure transcript: %w", err)
	}
	defer f.Close()
	fi, err = f.Stat()
	if err != nil {
		return unread(prev), fmt.Errorf("measure transcript: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return unread(prev), fmt.Errorf("measure transcript %s: %w", path, ErrNotRegular)
	}
	s, err := MeasureAt(f, fi.Size(), prev, opt)
	if err != nil {
		return s, fmt.Errorf("measure transcript %s: %w", path, err)
	}
	return s, nil
}

// unread is the Scan of a transcript that could not be read.
func unread(prev *Cursor) Scan {
	if prev == nil {
		return Scan{Reading: Reading{Source: SourceNone}}
	}
	return Scan{Reading: carried(prev.Reading), Cursor: *prev}
}

func carried(r Reading) Reading {
	if !r.Found && !r.Stale {
		return Reading{Source: SourceNone}
	}
	r.Source = SourceCarried
	return r
}

// MeasureAt is Measure on the first size bytes of r, which holds a
// transcript. A read error ends the reading early and is returned with the
// Scan of what was read.
func MeasureAt(r io.ReaderAt, size int64, prev *Cursor, opt Options) (Scan, error) {
	opt = opt.sanitized()
	m := measurer{r: r, size: size, opt: opt, c: newCollector(opt)}
	valid := m.validCursor(prev)
	if valid {
		m.prev = prev
	}

	seenFrom, lastNL := m.tail()
	covered := valid && seenFrom <= prev.Boundary
	if !m.c.decided && valid && !covered && m.err == nil {
		if nl := m.forward(prev.Boundary, min(prev.Boundary+opt.Budget, seenFrom)); lastNL < 0 {
			lastNL = nl
		}
	}

	var s Scan
	switch {
	case m.c.decided:
		s.Reading = m.c.reading
	case seenFrom == 0 && m.err == nil:
		s.Reading = Reading{Source: SourceNone} // the whole file was read
	case valid:
		s.Reading = carried(prev.Reading)
	default:
		s.Reading = Reading{Source: SourceNone}
	}
	s.Latest = m.c.latest
	if !m.c.latestSeen && !m.c.decided && valid {
		s.Latest = prev.Latest // nothing newer since the cursor
	}
	s.Cursor = Cursor{Size: size, Reading: s.Reading, Latest: s.Latest}
	if s.Reading.Source == SourceCarried {
		s.Cursor.Reading = prev.Reading
	}
	switch {
	case lastNL >= 0:
		s.Cursor.Boundary = lastNL
	case valid:
		s.Cursor.Boundary = prev.Boundary
	}
	s.LastText, s.RecentText = m.c.texts()
	s.ToolResults = m.c.results
	s.BytesRead = m.read
	return s, m.err
}

type measurer struct {
	r    io.ReaderAt
	size int64
	opt  Options
	c    *collector
	read int64
	err  error
	buf  []byte // the tail window, reused by the forward one
	// prev is the caller's cursor if valid, else nil. With one, lines of
	// LongLine bytes and over are given up on (the forward window covers
	// what they hide).
	prev *Cursor
}

// tooLong reports whether the tail walk, with [pos, hi) searched and no
// line start found, should give up on the line ending at hi. It is asked
// only where a whole number of chunks from the end has been read, so the
// small first reads (firstRead) do not change where a line is given up on.
func (m *measurer) tooLong(pos, hi int64) bool {
	return m.prev != nil && (m.size-pos)%m.opt.Chunk == 0 && hi-pos >= m.opt.LongLine
}

// minFirstRead is the least the tail walk reads first.
const minFirstRead = 4 << 10

// firstRead is the size of the tail walk's first read: what was written
// since the cursor and the newline before it (where the walk usually ends),
// or minFirstRead without a cursor; at least minFirstRead, at most a chunk.
// Most hooks decide in the last few lines, and a whole chunk would be read
// and searched for nothing; later reads double.
func (m *measurer) firstRead() int64 {
	n := int64(minFirstRead)
	if m.prev != nil {
		n = max(n, m.size-m.prev.Boundary+1)
	}
	return min(n, m.opt.Chunk)
}

// validCursor reports whether prev can describe this file: not beyond its
// end, and its boundary just after a newline.
func (m *measurer) validCursor(prev *Cursor) bool {
	if prev == nil || prev.Size > m.size || prev.Boundary < 0 || prev.Boundary > prev.Size {
		return false
	}
	if prev.Boundary == 0 {
		return true
	}
	var b [1]byte
	n, err := m.r.ReadAt(b[:], prev.Boundary-1)
	m.read += int64(n)
	return n == 1 && b[0] == '\n' && (err == nil || errors.Is(err, io.EOF))
}

// readAt fills p from off; a short read is an error (the file shrank).
func (m *measurer) readAt(p []byte, off int64) bool {
	n, err := m.r.ReadAt(p, off)
	m.read += int64(n)
	if n == len(p) {
		return true
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	m.err = fmt.Errorf("read at %d: %w", off, err)
	return false
}

// tail walks the lines of the last Budget bytes from the end, newest first,
// until the collector is done. It returns the start of the earliest line it
// looked at (size if none) and the offset just after the file's last
// newline (-1 if that was not within the window).
//
// The window grows from the end as chunks are read (so a call that decides
// in the last few lines allocates little), and each byte is searched for a
// newline once, so a line as long as the budget costs one pass over it.
func (m *measurer) tail() (seenFrom, lastNL int64) {
	seenFrom, lastNL = m.size, -1
	if m.size == 0 {
		return 0, 0
	}
	limit := max(m.size-m.opt.Budget, 0) // the window never starts before this
	var win []byte                       // holds [pos, size) at its end
	pos := m.size
	at := func(off int64) int64 { return off - (m.size - int64(len(win))) }
	step := m.firstRead() // the size of the next read, short of a chunk boundary
	more := func() bool {
		if pos == limit || m.err != nil {
			return false
		}
		// Reads start at firstRead bytes and double, but never cross a
		// whole number of chunks from the end of the file (where tooLong
		// is asked).
		next := max(m.size-((m.size-pos)/m.opt.Chunk+1)*m.opt.Chunk, pos-step)
		step = min(2*step, m.opt.Chunk)
		k := pos - max(next, limit)
		if free := at(pos); free < k {
			grown := make([]byte, min(max(2*int64(len(win)), int64(len(win))+k), m.size-limit))
			copy(grown[int64(len(grown))-(m.size-pos):], win[at(pos):])
			win = grown
			m.buf = grown
		}
		if !m.readAt(win[at(pos-k):at(pos)], pos-k) {
			return false
		}
		pos -= k
		return true
	}
	if !more() {
		return seenFrom, lastNL
	}
	hi := m.size       // the line to emit next ends at hi
	searched := m.size // [searched, hi) holds no separator
	if win[at(m.size-1)] != '\n' {
		// The last line has no newline yet: it may be half written.
		// Decode drops it if it is not valid JSON.
		for {
			if i := lastNewline(win[at(pos):at(searched)]); i >= 0 {
				start := pos + int64(i) + 1
				m.c.back(win[at(start):at(hi)])
				hi, seenFrom, lastNL = start, start, start
				searched = start - 1
				break
			}
			searched = pos
			if pos == 0 {
				m.c.back(win[at(0):at(hi)])
				return 0, -1
			}
			if m.tooLong(pos, hi) || !more() {
				return seenFrom, lastNL
			}
		}
	} else {
		lastNL = m.size
		searched = m.size - 1 // the final newline ends the line, it is no separator
	}
	for hi > 0 && !m.c.done() {
		if m.prev != nil && hi <= m.prev.Boundary && m.c.doneAtCursor(m.prev.Reading) {
			break // the cursor's reading holds: see MeasureAt
		}
		// The line ending at hi has its newline at hi-1; its start is
		// just after the newline before that.
		if i := lastNewline(win[at(pos):at(searched)]); i >= 0 {
			start := pos + int64(i) + 1
			m.c.back(win[at(start):at(hi)])
			hi, seenFrom = start, start
			searched = start - 1
			continue
		}
		searched = pos
		if pos == 0 {
			m.c.back(win[at(0):at(hi)])
			return 0, lastNL
		}
		if m.tooLong(pos, hi) || !more() {
			break
		}
	}
	return seenFrom, lastNL
}

// forward reads [from, to) (at most Budget bytes, from a line boundary) in
// chunks, stopping early inside a line of LongLine bytes or more, and gives
// its complete lines to the collector, newest first, as if the tail walk
// had gone on (with a gap between the two windows if it stopped short of
// where the tail stopped). It returns the offset just after the last
// newline it read, or -1.
func (m *measurer) forward(from, to int64) int64 {
	if to <= from {
		return -1
	}
	// The collector keeps copies of what it takes, so the tail window's
	// memory can be reused.
	buf := m.buf[:0]
	var ends []int // line ends, found going forward (IndexByte is vectorised)
	// Chunks of a quarter of LongLine, so that a long line costs little
	// more than LongLine bytes.
	chunk := min(m.opt.Chunk, max(m.opt.LongLine/4, 1))
	for off := from; off < to; {
		k := int(min(chunk, to-off))
		n := len(buf)
		buf = slices.Grow(buf, k)[:n+k]
		if !m.readAt(buf[n:], off) {
			return -1
		}
		off += int64(k)
		for i := n; ; {
			j := bytes.IndexByte(buf[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			ends = append(ends, i)
		}
		lineStart := 0
		if len(ends) > 0 {
			lineStart = ends[len(ends)-1]
		}
		if int64(len(buf)-lineStart) >= m.opt.LongLine {
			break // the bytes after the last newline are a long line
		}
	}
	m.buf = buf
	if len(ends) == 0 {
		return -1
	}
	m.c.source = SourceForward
	for k := len(ends) - 1; k >= 0 && !m.c.done(); k-- {
		start := 0
		if k > 0 {
			start = ends[k-1]
		}
		m.c.back(buf[start:ends[k]])
	}
	return from + int64(ends[len(ends)-1])
}

// lastNewline is bytes.LastIndexByte(b, '\n'), which is a plain loop, a
// byte at a time: it searches blocks from the end with the vectorised
// IndexByte and runs that loop only on the block that holds the newline.
func lastNewline(b []byte) int {
	const block = 256
	for end := len(b); end > 0; end -= block {
		start := max(end-block, 0)
		if bytes.IndexByte(b[start:end], '\n') >= 0 {
			return start + bytes.LastIndexByte(b[start:end], '\n')
		}
	}
	return -1
}

// collector takes lines newest first and keeps what Measure reports.
type collector struct {
	opt     Options
	source  string
	decided bool
	reading Reading

	// LastText: the parts of the latest message, newest first.
	lastSeen, lastDone bool
	lastID             string
	lastParts          []string
	// RecentText: text blocks, newest first, and their joined rune count.
	recent      []string
	recentRunes int

	results []ToolResult
	pending map[string][]int // tool_use_id → indexes in results without a name

	latest     string // the newest assistant message's id (Scan.Latest)
	latestSeen bool   // an assistant line was met (its id may be "")
}

func newCollector(opt Options) *collector {
	return &collector{opt: opt, source: SourceTail, pending: map[string][]int{}}
}

func (c *collector) textDone() bool {
	return c.opt.TextRunes == 0 || (c.lastDone && (c.opt.LastTextOnly || c.recentRunes >= c.opt.TextRunes)) ||
		(c.decided && c.known(c.reading.MessageID))
}

// known reports whether id is the message whose text the caller has.
func (c *collector) known(id string) bool {
	return c.opt.LastTextOnly && id != "" && id == c.opt.KnownMessage
}

// doneAtCursor reports whether the walk can stop at the boundary of the
// cursor whose reading is prev: nothing newer was found after it, and
// nothing is wanted from before it.
func (c *collector) doneAtCursor(prev Reading) bool {
	return !c.decided && len(c.results) >= c.opt.ToolResults && len(c.pending) == 0 &&
		(c.opt.TextRunes == 0 || c.known(prev.MessageID))
}

func (c *collector) resultsDone() bool {
	return len(c.results) >= c.opt.ToolResults && len(c.pending) == 0
}

func (c *collector) done() bool {
	return c.decided && c.textDone() && c.resultsDone()
}

var (
	keyAssistant = []byte(`"assistant"`)
	keyBoundary  = []byte(`"compact_boundary"`)
	keySummary   = []byte(`"isCompactSummary"`)
	keyResult    = []byte(`"tool_result"`)
	keyEscape    = []byte(`\u`) // a value may be spelt with escapes
	keyProgress  = []byte(`"progress"`)
)

// lineHead is what decides whether back uses a line, decoded as Decode
// decodes those fields.
type lineHead struct {
	Type             string `json:"type"`
	Subtype          string `json:"subtype"`
	IsSidechain      bool   `json:"isSidechain"`
	IsCompactSummary bool   `json:"isCompactSummary"`
}

// mayMatter reports whether back can use the line, from its head: a
// main-chain assistant line, compact boundary or summary before the reading
// is decided, or user line while tool results are wanted.
func (c *collector) mayMatter(line []byte, wantResults bool) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return false // Decode fails on it
	}
	var h lineHead
	if unmarshalLenient(line, &h) != nil {
		return false // malformed: Decode fails on it
	}
	switch {
	case h.IsSidechain:
		return false
	case h.Type == "system" && h.Subtype == "compact_boundary":
		return !c.decided
	case h.Type == "assistant":
		return true
	case h.Type == "user":
		return wantResults || (h.IsCompactSummary && !c.decided)
	}
	return false
}

// back takes the next line, going backwards. Only lines that may matter
// are decoded: those that contain a value that matters, or a \u escape that
// could spell one.
func (c *collector) back(line []byte) {
	wantText := !c.textDone()
	wantResults := len(c.results) < c.opt.ToolResults
	wantAssistant := !c.decided || wantText || len(c.pending) > 0
	assistant := wantAssistant && bytes.Contains(line, keyAssistant)
	boundary := !c.decided && (bytes.Contains(line, keyBoundary) || bytes.Contains(line, keySummary))
	result := wantResults && bytes.Contains(line, keyResult)
	if !assistant && !boundary && !result && !bytes.Contains(line, keyEscape) {
		return
	}
	// A line found only by an escape, or that may be a progress line (whose
	// nested messages say "assistant"), is first decoded into its head,
	// which costs no allocation for its content, and decoded whole only if
	// its kind can matter.
	if (!assistant && !boundary && !result) || bytes.Contains(line, keyProgress) {
		if !c.mayMatter(line, wantResults) {
			return
		}
	}
	e, err := Decode(line)
	if err != nil {
		return
	}
	if e.IsSidechain {
		return
	}
	switch {
	case e.IsCompactBoundary():
		if !c.decided {
			c.decided = true
			c.reading = Reading{Stale: true, Source: c.source}
			if e.CompactMetadata != nil {
				c.reading.PreTokens = e.CompactMetadata.PreTokens
			}
		}
	case e.IsCompactSummary:
		if !c.decided {
			c.decided = true
			c.reading = Reading{Stale: true, Source: c.source}
		}
	case e.Type == "assistant" && e.Message != nil && e.Message.Model != "<synthetic>":
		msg := e.Message
		if !c.latestSeen && !c.decided {
			c.latestSeen, c.latest = true, msg.ID
		}
		if !c.decided && msg.Usage != nil {
			c.decided = true
			c.reading = Reading{Tokens: msg.Usage.Context(), Found: true, Model: msg.Model, MessageID: msg.ID, Source: c.source}
		}
		c.takeText(msg)
		for _, b := range msg.Content.Blocks {
			if b.Type != "tool_use" {
				continue
			}
			for _, i := range c.pending[b.ID] {
				c.results[i].Name = b.Name
			}
			delete(c.pending, b.ID)
		}
	case e.Type == "user" && e.Message != nil:
		bs := e.Message.Content.Blocks
		for i := len(bs) - 1; i >= 0 && len(c.results) < c.opt.ToolResults; i-- {
			b := bs[i]
			if b.Type != "tool_result" {
				continue
			}
			chars := 0
			if b.Content != nil {
				for _, p := range textParts(*b.Content) {
					chars += utf8.RuneCountInString(p)
				}
			}
			c.pending[b.ToolUseID] = append(c.pending[b.ToolUseID], len(c.results))
			c.results = append(c.results, ToolResult{ToolUseID: b.ToolUseID, Chars: chars, IsError: b.IsError})
		}
	}
}

// textParts are the text of a content: the string, or its text blocks.
func textParts(c Content) []string {
	if c.Blocks == nil {
		if c.Text == "" {
			return nil
		}
		return []string{c.Text}
	}
	var ps []string
	for _, b := range c.Blocks {
		if b.Type == "text" {
			ps = append(ps, b.Text)
		}
	}
	return ps
}

func (c *collector) takeText(msg *Message) {
	if c.opt.TextRunes == 0 {
		return
	}
	parts := textParts(msg.Content)
	if !c.lastDone {
		// A message spans consecutive lines sharing its id; a line with
		// no id is a message of its own.
		if c.lastSeen && (msg.ID == "" || msg.ID != c.lastID) {
			c.lastDone = true
		} else {
			c.lastSeen, c.lastID = true, msg.ID
			for i := len(parts) - 1; i >= 0; i-- {
				c.lastParts = append(c.lastParts, parts[i])
			}
		}
	}
	for i := len(parts) - 1; i >= 0 && c.recentRunes < c.opt.TextRunes; i-- {
		if len(c.recent) > 0 {
			c.recentRunes += 2 // the blank line between blocks
		}
		c.recent = append(c.recent, parts[i])
		c.recentRunes += utf8.RuneCountInString(parts[i])
	}
}

func (c *collector) texts() (last, recent string) {
	join := func(newestFirst []string) string {
		s := slices.Clone(newestFirst)
		slices.Reverse(s)
		return lastRunes(strings.Join(s, "\n\n"), c.opt.TextRunes)
	}
	return join(c.lastParts), join(c.recent)
}

// lastRunes is the last n runes of s.
func lastRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := len(s)
	for k := 0; k < n && i > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}
