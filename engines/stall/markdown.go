package stall

import (
	"strings"
	"unicode/utf8"
)

// lineKind is the Markdown context of one line. Only prose and blank lines
// reach the detectors; every other kind resets them, as Gemini CLI's
// chanting detector resets on fences, tables, list items, headings,
// blockquotes and dividers (prior-art §3). Indented code blocks and HTML
// block lines are added here: they are code and markup as much as fences are.
type lineKind uint8

const (
	lineProse    lineKind = iota
	lineBlank             // only whitespace
	lineFence             // opens or closes a fenced code block
	lineCode              // inside a fenced code block
	lineIndented          // an indented code block (4 spaces or a tab, after a blank line)
	lineTable             // a table row, delimiter row or header row
	lineList              // a list item, or an indented line continuing one
	lineHeading           // an ATX heading (#, ##, …)
	lineQuote             // a blockquote (>)
	lineDivider           // a line made only of rule characters (---, ***, ═══, ...)
	lineHTML              // a line starting with an HTML tag or comment
)

// kindNames are the reasons reported by Explain and the tests.
var kindNames = [...]string{"prose", "blank", "fence", "code", "indented", "table", "list", "heading", "quote", "divider", "html"}

func (k lineKind) String() string { return kindNames[k] }

// detected reports whether the detectors run on a line of this kind.
func (k lineKind) detected() bool { return k == lineProse || k == lineBlank }

// markdown is the line-to-line state of the classifier.
type markdown struct {
	fenceChar byte // '`' or '~' inside a fenced block, else 0
	fenceLen  int
	inTable   bool     // after a delimiter row, until a blank line or a line without '|'
	inList    bool     // after a list item, until a prose line that is not indented
	prev      lineKind // kind of the previous line
	started   bool     // at least one line seen
}

// classify returns the kind of line (without its newline) and advances the
// state. next is the following line, used only to recognise a table's header
// row by the delimiter row under it: the text is finished, so looking one
// line ahead costs nothing and keeps the header row out of the detectors.
func (m *markdown) classify(line, next string) lineKind {
	k := m.kind(line, next)
	m.prev, m.started = k, true
	return k
}

func (m *markdown) kind(line, next string) lineKind {
	indent, rest := splitIndent(line)
	if m.fenceChar != 0 {
		if isFenceClose(rest, m.fenceChar, m.fenceLen) {
			m.fenceChar = 0
			return lineFence
		}
		return lineCode
	}
	if strings.TrimSpace(rest) == "" {
		m.inTable = false
		return lineBlank
	}
	// Fences are recognised at any indentation, not only CommonMark's 0–3:
	// a fence inside a list item is indented further, and its contents are
	// code either way.
	if c, n, ok := fenceOpen(rest); ok {
		m.fenceChar, m.fenceLen = c, n
		return lineFence
	}
	if m.inList && indent >= 2 {
		return lineList
	}
	if indent >= 4 && (!m.started || m.prev == lineBlank || m.prev == lineIndented) {
		return lineIndented
	}
	switch {
	case isHeading(rest):
		return lineHeading
	case rest[0] == '>':
		return lineQuote
	case isDivider(rest):
		return lineDivider
	case isListItem(rest):
		m.inList = true
		return lineList
	case isTableLine(rest, next, m.inTable):
		m.inTable = m.inTable || isDelimiterRow(rest)
		return lineTable
	case isHTMLStart(rest):
		return lineHTML
	}
	m.inTable = false
	m.inList = false
	return lineProse
}

// splitIndent returns the width of line's leading whitespace (a tab advances
// to the next multiple of 4) and the rest of the line.
func splitIndent(line string) (int, string) {
	w := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w, line[i:]
		}
	}
	return w, ""
}

func fenceOpen(rest string) (byte, int, bool) {
	if len(rest) < 3 || (rest[0] != '`' && rest[0] != '~') {
		return 0, 0, false
	}
	c := rest[0]
	n := 0
	for n < len(rest) && rest[n] == c {
		n++
	}
	if n < 3 {
		return 0, 0, false
	}
	// A backtick fence's info string cannot hold a backtick (CommonMark
	// 4.5); ```x``` on one line is inline code, not a fence.
	if c == '`' && strings.IndexByte(rest[n:], '`') >= 0 {
		return 0, 0, false
	}
	return c, n, true
}

func isFenceClose(rest string, c byte, n int) bool {
	i := 0
	for i < len(rest) && rest[i] == c {
		i++
	}
	return i >= n && strings.TrimSpace(rest[i:]) == ""
}

func isHeading(rest string) bool {
	i := 0
	for i < len(rest) && rest[i] == '#' {
		i++
	}
	return i >= 1 && i <= 6 && (i == len(rest) || rest[i] == ' ' || rest[i] == '\t')
}

func isListItem(rest string) bool {
	switch rest[0] {
	case '-', '*', '+':
		return len(rest) == 1 || rest[1] == ' ' || rest[1] == '\t'
	}
	if strings.HasPrefix(rest, "•") { // U+2022, which some models use as a bullet
		return true
	}
	i := 0
	for i < len(rest) && i < 10 && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 || i > 9 || i == len(rest) || (rest[i] != '.' && rest[i] != ')') {
		return false
	}
	return i+1 == len(rest) || rest[i+1] == ' ' || rest[i+1] == '\t'
}

// isDivider reports a line made only of rule characters and spaces, with at
// least three of them: thematic breaks, setext underlines, dot leaders and
// box-drawing rules.
func isDivider(rest string) bool {
	n := 0
	for _, r := range rest {
		switch {
		case r == ' ' || r == '\t':
			continue
		case strings.ContainsRune("-_=*+~#.·•:", r),
			r >= 0x2500 && r <= 0x259F: // box drawing and block elements
			n++
		default:
			return false
		}
	}
	return n >= 3
}

// isDelimiterRow reports a GFM table delimiter row such as |---|:--:|.
func isDelimiterRow(rest string) bool {
	rest = strings.TrimSpace(rest)
	if !strings.Contains(rest, "|") || !strings.Contains(rest, "-") {
		return false
	}
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '|', '-', ':', ' ', '\t':
		default:
			return false
		}
	}
	return true
}

func isTableLine(rest, next string, inTable bool) bool {
	switch {
	case rest[0] == '|', strings.HasPrefix(rest, "+-"), strings.HasPrefix(rest, "+="):
		return true
	case isDelimiterRow(rest):
		return true
	case !strings.Contains(rest, "|"):
		return false
	case inTable:
		return true
	}
	_, nrest := splitIndent(next)
	return isDelimiterRow(nrest)
}

func isHTMLStart(rest string) bool {
	if len(rest) < 2 || rest[0] != '<' {
		return false
	}
	c := rest[1]
	return c == '/' || c == '!' || c == '?' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// codeSpans returns the byte ranges [start, end) of the inline code spans of
// a line, backticks included: a run of n backticks up to the next run of
// exactly n (CommonMark 6.1). An unmatched run is literal text.
func codeSpans(line string, spans [][2]int) [][2]int {
	spans = spans[:0]
	i := 0
	for {
		j := strings.IndexByte(line[i:], '`')
		if j < 0 {
			return spans
		}
		start := i + j
		n := runLen(line, start, '`')
		k := start + n
		for {
			m := strings.IndexByte(line[k:], '`')
			if m < 0 {
				// Unmatched: the run is literal; carry on after it.
				i = start + n
				break
			}
			at := k + m
			if l := runLen(line, at, '`'); l == n {
				spans = append(spans, [2]int{start, at + n})
				i = at + n
				break
			} else {
				k = at + l
			}
		}
	}
}

func runLen(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// fenceStateBefore scans text line by line for fence delimiters only and
// returns the fence that is open at its end, if any. Detect uses it for the
// part of a long message it does not examine, so that the examined tail
// starts in the right context; it costs one pass of IndexByte per line.
func fenceStateBefore(text string) (byte, int) {
	var c byte
	var n int
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		_, rest := splitIndent(line)
		if len(rest) < 3 || (rest[0] != '`' && rest[0] != '~') {
			continue
		}
		if c != 0 {
			if isFenceClose(rest, c, n) {
				c, n = 0, 0
			}
		} else if fc, fn, ok := fenceOpen(rest); ok {
			c, n = fc, fn
		}
	}
	return c, n
}

// tailStart returns the byte offset at which Detect starts examining text when
// it may look at most maxBytes: the first line start within the last maxBytes,
// or a rune boundary if that part holds no line break.
func tailStart(text string, maxBytes int) int {
	if maxBytes <= 0 || len(text) <= maxBytes {
		return 0
	}
	cut := len(text) - maxBytes
	if i := strings.IndexByte(text[cut:], '\n'); i >= 0 {
		return cut + i + 1
	}
	for cut < len(text) && !utf8.RuneStart(text[cut]) {
		cut++
	}
	return cut
}
