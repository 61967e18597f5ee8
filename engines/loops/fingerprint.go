package loops

import (
	"strings"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/internal/termcode"
)

// MaxFingerprint bounds the length in bytes of an ErrorFingerprint.
const MaxFingerprint = 160

// maxErrorInput bounds the error text that is normalised: the head and the
// tail of longer texts are kept (the command and the final error line live
// there), so one huge failure output costs no more than this.
const maxErrorInput = 256 << 10

// ErrorFingerprint reduces a tool's error text to what stays the same when
// the same failure happens again, and keeps what tells two failures apart.
// Progress lines printed on some runs only ("go: downloading", "npm warn")
// are dropped.
// Volatile parts become placeholders: paths are cut to their base name (a
// temp directory or worktree changes between runs, while the file that
// failed still tells two errors apart) and the digits in that name become
// <n>; UUIDs, per-call API ids (toolu_…, req_…) and hex ids (commit and
// object hashes, addresses) become <uuid>, <id> and <hex>, dates and times
// <time>, durations <dur>. A number is <n> where it is volatile: glued to a
// colon (file:line:col, host:port, a clock time), after a word that names
// a volatile number (port, pid, seed, line, exit code…), ten digits or
// more (epoch times), or counting a noun ("1 file", "4 files", whose
// plural s is dropped too). Every other number is kept, so a result that
// changed ("= 4, want 5" then "= 5, want 5", "3 failed" then "2 failed")
// is a different failure. Whitespace runs become one space. The result is
// at most MaxFingerprint bytes: a longer one keeps its head and tail, and a
// hash of the whole normalised text, so two errors that differ only in the
// middle still differ.
//
// It is one left-to-right scan, linear in the text (Go's regexp package
// took 130 ms on a 30 KB test log, which a hook cannot afford).
func ErrorFingerprint(errText string) string {
	if readFirst(errText) {
		return ReadFirstFingerprint
	}
	if notFound(errText) {
		return NotFoundFingerprint
	}
	s := errText
	if len(s) > maxErrorInput {
		s = s[:maxErrorInput/2] + "\n" + s[len(s)-maxErrorInput/2:]
	}
	// Colours are how a terminal shows the failure, not part of it: their
	// codes ("\x1b[31m") would read as numbers to normalise.
	s = strings.ToValidUTF8(dropProgress(termcode.Strip(s)), "\uFFFD")
	return clip(strings.Join(strings.Fields(normaliseError(s)), " "), MaxFingerprint, 100)
}

// ReadFirstFingerprint is the one fingerprint of the CLI's refusals of a
// write until the file is read ("File has not been read yet", "File has
// been unexpectedly modified. Read it again"): worded two ways, one
// failure, so refusals of one file whichever wording are counted together.
const ReadFirstFingerprint = "the CLI refused the write until the file is read (again)"

// NotFoundFingerprint is the one fingerprint of the CLI's refusals of an
// Edit whose old_string the file does not hold ("String to replace not
// found in file", with the string): each quotes another string, but on one
// file they are one failure, the agent's picture of the file being wrong
// (ext-omarchy #45, #48, #51: a config whose icons the agent could not
// see, a fail-loop to both judges of the twenty-ninth set).
const NotFoundFingerprint = "the file does not hold the text the Edit was to replace"

// notFound tells the CLI's refusal of an Edit whose old_string is not in
// the file.
func notFound(text string) bool {
	return strings.HasPrefix(strings.TrimPrefix(strings.TrimSpace(text), "<tool_use_error>"), "String to replace not found in file")
}

// readFirst tells the CLI's refusal of a write until the file is read:
// not read yet, or changed since it was read (changedSinceRead).
func readFirst(text string) bool {
	return len(text) <= maxRefusal && strings.Contains(text, "File has not been read yet") || changedSinceRead(text)
}

// changedSinceRead tells the CLI's refusal of a write to a file that
// changed on disk after the agent read it, worded two ways.
func changedSinceRead(text string) bool {
	return len(text) <= maxRefusal && (strings.Contains(text, "File has been unexpectedly modified") || strings.Contains(text, "File has been modified since read"))
}

// maxRefusal bounds the text of the CLI's refusals of a write: a longer
// one quotes them among other output.
const maxRefusal = 300

// progressPrefixes start lines a tool prints on some runs and not others
// (a module fetched on the first run only), or on every run whatever
// failed: they are no part of the failure.
// dotenv 17 prints a line with a tip drawn at random on every run that
// loads a .env ("[dotenv@17.2.3] injecting env (0) from .env -- tip: ⚙️
// suppress all logs with { quiet: true }"): two runs of one failing
// command differed by it alone (ext-debtmarket #80, #85).
var progressPrefixes = []string{"go: downloading ", "go: finding ", "go: extracting ", "npm warn ", "npm WARN ", "npm notice ", "[dotenv@"}

// dropProgress removes the lines that start with a progress prefix.
func dropProgress(s string) string {
	found := false
	for _, p := range progressPrefixes {
		if strings.HasPrefix(s, p) || strings.Contains(s, "\n"+p) {
			found = true
			break
		}
	}
	if !found {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for line := range strings.Lines(s) {
		keep := true
		for _, p := range progressPrefixes {
			if strings.HasPrefix(line, p) {
				keep = false
				break
			}
		}
		if keep {
			b.WriteString(line)
		}
	}
	return b.String()
}

// normaliseError does the replacements of ErrorFingerprint, all but the
// final whitespace collapse.
func normaliseError(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	// count is 1 right after a "<n>", 2 after "<n>" and whitespace: the
	// state in which a plural s is dropped.
	count := 0
	// pathEnd is where the path whose base name is being written ends:
	// digits before it are <n> whatever their context.
	pathEnd := 0
	for i := 0; i < len(s); {
		c := s[i]
		if isSpace(c) {
			if count == 1 {
				count = 2
			}
			b.WriteByte(c)
			i++
			continue
		}
		if i == 0 || isDelim(s[i-1]) {
			if base, sep := pathAt(s, i); base > i {
				b.WriteString("…")
				b.WriteString(sep)
				count = 0
				pathEnd = base
				for pathEnd < len(s) && isPathChar(s[pathEnd]) {
					pathEnd++
				}
				i = base // the base name is normalised as ordinary text
				continue
			}
		}
		if !isAlnum(c) || (i > 0 && isAlnum(s[i-1])) {
			b.WriteByte(c)
			count = 0
			i++
			continue
		}
		tok, end := wordAt(s, i, count == 2, i < pathEnd)
		b.WriteString(tok)
		count = 0
		if strings.HasSuffix(tok, "<n>") {
			count = 1
		}
		i = end
	}
	return b.String()
}

// wordAt normalises the alphanumeric run starting at i and returns its
// replacement and where it ends (past i's run when a number's decimals,
// a date or an id continue it). counted tells that a volatile number and
// whitespace come just before; inPath that the run is in a path's base
// name.
func wordAt(s string, i int, counted, inPath bool) (string, int) {
	j := i
	for j < len(s) && isAlnum(s[j]) {
		j++
	}
	w := s[i:j]
	if end := uuidAt(s, i); end > 0 {
		return "<uuid>", end
	}
	if end := dateTimeAt(s, i); end > 0 {
		return "<time>", end
	}
	switch w {
	case "toolu", "msg", "req", "call", "run", "sess", "agent", "chatcmpl":
		if j+1 < len(s) && s[j] == '_' && isAlnum(s[j+1]) {
			k := j + 1
			for k < len(s) && isAlnum(s[k]) {
				k++
			}
			return "<id>", k
		}
	}
	if len(w) > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X') && allHex(w[2:]) {
		return "<hex>", j
	}
	if len(w) >= 7 && allHex(w) && strings.ContainsAny(w, "0123456789") && strings.ContainsAny(w, "abcdefABCDEF") {
		return "<hex>", j
	}
	if isDigit(s[i]) {
		if end := durationAt(s, i); end > 0 {
			return "<dur>", end
		}
	}
	if !strings.ContainsAny(w, "0123456789") {
		if counted && len(w) >= 2 && w[len(w)-1] == 's' {
			return w[:len(w)-1], j
		}
		return w, j
	}
	if !inPath && allDigits(w) {
		end := numberEnd(s, i)
		if volatileNumber(s, i, end) {
			return "<n>", end
		}
		return s[i:end], end
	}
	if !inPath {
		return w, j // a word with digits (TS2345, E0308) names something
	}
	// A path's base name: digit groups (with their decimals) become <n>.
	var b strings.Builder
	k := i
	for k < len(s) && isAlnum(s[k]) {
		if isDigit(s[k]) {
			b.WriteString("<n>")
			k = numberEnd(s, k)
			continue
		}
		b.WriteByte(s[k])
		k++
	}
	return b.String(), k
}

// volatileNumberWords name, just before a number, a number that changes
// from run to run of the same failure.
var volatileNumberWords = map[string]bool{
	"port": true, "pid": true, "ppid": true, "tid": true, "process": true, "thread": true,
	"goroutine": true, "worker": true, "seed": true, "line": true, "lines": true, "col": true,
	"column": true, "attempt": true, "retry": true, "elapsed": true, "time": true,
	"took": true, "duration": true, "uptime": true, "timestamp": true, "id": true,
}

// resultWords, just before or just after a number, make it part of a
// result (an assertion's value, a count of failures) or of a phrase rather
// than the count of a noun; such a number is kept.
var resultWords = map[string]bool{
	"got": true, "want": true, "wanted": true, "expected": true, "expect": true,
	"actual": true, "received": true, "result": true, "returned": true, "returns": true,
	"value": true, "equal": true, "equals": true, "instead": true, "vs": true,
	"failed": true, "failing": true, "failure": true, "failures": true, "fail": true,
	"passed": true, "passing": true, "pass": true, "error": true, "errors": true,
	"test": true, "tests": true, "total": true, "skipped": true, "pending": true,
	"assertion": true, "assertions": true, "problem": true, "problems": true,
	"example": true, "examples": true, "spec": true, "specs": true, "suite": true,
	"suites": true, "mismatch": true, "mismatches": true, "differ": true, "differs": true,
	"a": true, "an": true, "the": true, "of": true, "in": true, "on": true, "at": true,
	"to": true, "and": true, "or": true, "but": true, "is": true, "are": true, "was": true,
	"were": true, "be": true, "not": true, "than": true, "from": true, "for": true,
	"with": true, "by": true, "as": true, "if": true, "then": true, "should": true,
	"must": true, "does": true, "did": true, "has": true, "have": true,
}

// volatileNumber tells whether the number s[i:end] is one that changes
// between runs of the same failure (see ErrorFingerprint).
func volatileNumber(s string, i, end int) bool {
	if end-i >= 10 && allDigits(s[i:end]) {
		return true // an epoch time or a nanosecond count
	}
	if i >= 2 && s[i-1] == ':' && isAlnum(s[i-2]) {
		return true // file:12, host:8080, 10:11
	}
	if end+1 < len(s) && s[end] == ':' && isDigit(s[end+1]) {
		return true // 12:5, 10:11
	}
	prev, prev2 := wordsBefore(s, i)
	if volatileNumberWords[prev] {
		return true
	}
	if (prev == "code" || prev == "status") && (prev2 == "exit" || prev2 == "exited" || prev2 == "with") {
		return true
	}
	if resultWords[prev] {
		return false
	}
	// A count of a noun: the number, spaces, then a word of letters.
	k := end
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	if k == end {
		return false
	}
	e := k
	for e < len(s) && isLetter(s[e]) {
		e++
	}
	if e == k || (e < len(s) && isAlnum(s[e])) {
		return false
	}
	return !resultWords[strings.ToLower(s[k:e])]
}

// wordsBefore returns, lower-cased, the word of letters that ends just
// before i (past spaces and ":", "=" or "#") and the word before that;
// "" where there is none.
func wordsBefore(s string, i int) (prev, prev2 string) {
	word := func(j int) (string, int) {
		for n := 0; j > 0 && n < 8 && strings.IndexByte(" \t:=#", s[j-1]) >= 0; n++ {
			j--
		}
		e := j
		for j > 0 && e-j <= 24 && isLetter(s[j-1]) {
			j--
		}
		if j == e || (j > 0 && isDigit(s[j-1])) || e-j > 24 {
			return "", j
		}
		return strings.ToLower(s[j:e]), j
	}
	prev, j := word(i)
	if prev == "" {
		return "", ""
	}
	prev2, _ = word(j)
	return prev, prev2
}

// pathAt recognises a path starting at i (just after a delimiter): a
// Windows path (C:\…), or a run of path characters that holds a slash.
// It returns the index where the path's base name starts and the
// separator, or i when there is no path.
func pathAt(s string, i int) (base int, sep string) {
	if i+2 < len(s) && isLetter(s[i]) && s[i+1] == ':' && s[i+2] == '\\' {
		j := i + 3
		for j < len(s) && !isSpace(s[j]) && !strings.ContainsRune("'\"`<>|:", rune(s[j])) {
			j++
		}
		p := strings.TrimRight(s[i:j], "\\")
		return i + strings.LastIndexByte(p, '\\') + 1, "\\"
	}
	j := i
	for j < len(s) && isPathChar(s[j]) {
		j++
	}
	p := strings.TrimRight(s[i:j], "/")
	k := strings.LastIndexByte(p, '/')
	if k < 0 {
		return i, ""
	}
	return i + k + 1, "/"
}

// uuidAt returns the end of a UUID at i, or 0.
func uuidAt(s string, i int) int {
	const n = 36
	if i+n > len(s) || (i+n < len(s) && isAlnum(s[i+n])) {
		return 0
	}
	for k := 0; k < n; k++ {
		c := s[i+k]
		if k == 8 || k == 13 || k == 18 || k == 23 {
			if c != '-' {
				return 0
			}
		} else if !isHex(c) {
			return 0
		}
	}
	return i + n
}

// dateTimeAt returns the end of a date (YYYY-MM-DD) at i with an optional
// time (T or space, H:MM, :SS, fraction, zone), or 0.
func dateTimeAt(s string, i int) int {
	if !digitsAt(s, i, 4) || !byteAt(s, i+4, '-') || !digitsAt(s, i+5, 2) || !byteAt(s, i+7, '-') || !digitsAt(s, i+8, 2) {
		return 0
	}
	date := i + 10
	p := date
	if p < len(s) && (s[p] == 'T' || s[p] == ' ') {
		q := p + 1
		h := q
		for h < len(s) && h < q+2 && isDigit(s[h]) {
			h++
		}
		if h > q && byteAt(s, h, ':') && digitsAt(s, h+1, 2) {
			p = h + 3
			if byteAt(s, p, ':') && digitsAt(s, p+1, 2) {
				p += 3
			}
			if p+1 < len(s) && (s[p] == '.' || s[p] == ',') && isDigit(s[p+1]) {
				p++
				for p < len(s) && isDigit(s[p]) {
					p++
				}
			}
			if byteAt(s, p, 'Z') {
				p++
			} else if p < len(s) && (s[p] == '+' || s[p] == '-') && digitsAt(s, p+1, 2) {
				z := p + 3
				if byteAt(s, z, ':') {
					z++
				}
				if digitsAt(s, z, 2) {
					p = z + 2
				}
			}
		}
	}
	if p < len(s) && isAlnum(s[p]) {
		p = date
	}
	if p < len(s) && isAlnum(s[p]) {
		return 0
	}
	return p
}

// durationAt returns the end of a duration at i, or 0: Go-style compounds
// with glued units (300ms, 1m2.5s, 4µs) or a number and a spelled-out unit
// (0.4 seconds, 5min).
func durationAt(s string, i int) int {
	k, glued := i, false
	for k < len(s) && isDigit(s[k]) {
		n := numberEnd(s, k)
		u := unitEnd(s, n)
		if u == n {
			break
		}
		k, glued = u, true
	}
	if glued && (k == len(s) || !isAlnum(s[k])) {
		return k
	}
	n := numberEnd(s, i)
	if n < len(s) && s[n] == ' ' {
		n++
	}
	e := n
	for e < len(s) && isAlnum(s[e]) {
		e++
	}
	switch s[n:e] {
	case "s", "ms", "us", "µs", "ns", "millisecond", "milliseconds", "msec", "msecs", "second", "seconds", "sec", "secs",
		"minute", "minutes", "min", "mins", "hour", "hours", "hr", "hrs":
		return e
	}
	return 0
}

// unitEnd returns the end of a glued duration unit at i, or i.
func unitEnd(s string, i int) int {
	for _, u := range [...]string{"ns", "us", "µs", "ms", "s", "m", "h"} {
		if strings.HasPrefix(s[i:], u) {
			return i + len(u)
		}
	}
	return i
}

// numberEnd returns the end of the digits at i and any ".digits" groups
// after them (decimals, versions).
func numberEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	for i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	return i
}

func digitsAt(s string, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	for k := i; k < i+n; k++ {
		if !isDigit(s[k]) {
			return false
		}
	}
	return true
}

func byteAt(s string, i int, c byte) bool { return i < len(s) && s[i] == c }

func allDigits(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isDigit(w[i]) {
			return false
		}
	}
	return len(w) > 0
}

func allHex(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isHex(w[i]) {
			return false
		}
	}
	return len(w) > 0
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isAlnum(c byte) bool  { return isDigit(c) || isLetter(c) }
func isHex(c byte) bool    { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// isDelim tells whether a path may start after c.
func isDelim(c byte) bool { return isSpace(c) || strings.IndexByte("'\"`([{=:,", c) >= 0 }

// isPathChar tells whether c may be part of a Unix path token (colons end
// one, so "a/b.go:12:3" keeps its position).
func isPathChar(c byte) bool { return isAlnum(c) || strings.IndexByte("_.@+-/~", c) >= 0 }

// clip returns s if it fits in max bytes; otherwise its first head bytes and
// as much of its tail as fits, cut at rune boundaries, joined by "…", and
// "#" with 10 hex digits of the hash of all of s, so clipped strings stay
// distinct when their middles differ.
func clip(s string, max, head int) string {
	if len(s) <= max {
		return s
	}
	const mark = "…" // 3 bytes
	sum := "#" + ShortHash([]byte(s))[:10]
	h := runeFloor(s, head)
	tailLen := max - h - len(mark) - len(sum)
	if tailLen < 0 {
		tailLen = 0
	}
	t := runeCeil(s, len(s)-tailLen)
	return s[:h] + mark + s[t:] + sum
}

// runeFloor returns the largest rune boundary ≤ n in s.
func runeFloor(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// runeCeil returns the smallest rune boundary ≥ n in s.
func runeCeil(s string, n int) int {
	if n <= 0 {
		return 0
	}
	for n < len(s) && !utf8.RuneStart(s[n]) {
		n++
	}
	return n
}
