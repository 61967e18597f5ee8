package compress

import (
	"bytes"
	"math"
	"strings"
	"unicode/utf8"
)

// foldChunk is how much text containsFoldASCII lowers at a time: enough to
// amortise the call, small enough to stay in cache whatever the input size.
const foldChunk = 64 << 10

// containsFoldASCII reports whether s contains any of subs, comparing ASCII
// letters without case. subs must be lower case. It lowers s a chunk at a
// time into a fixed buffer, so a 50 MB input costs one pass and no copy.
func containsFoldASCII(s string, subs ...string) bool {
	longest := 0
	for _, sub := range subs {
		longest = max(longest, len(sub))
	}
	buf := make([]byte, 0, foldChunk+longest)
	for start := 0; start < len(s); start += foldChunk {
		end := min(start+foldChunk+longest-1, len(s))
		buf = buf[:end-start]
		src := s[start:end]
		for i := range buf {
			buf[i] = lowerASCII[src[i]]
		}
		for _, sub := range subs {
			if bytes.Contains(buf, []byte(sub)) {
				return true
			}
		}
	}
	return false
}

// lowerASCII maps A–Z to a–z and every other byte to itself.
var lowerASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = byte(c) + 'a' - 'A'
	}
	return t
}()

// isSnapshot is the seed's page-snapshot test. Counting stops at 31, so a
// long text full of "ref=" is not counted to the end.
func isSnapshot(s string) bool {
	count := 0
	for i := 0; ; {
		j := strings.Index(s[i:], "ref=")
		if j < 0 {
			break
		}
		count++
		if count > 30 {
			return true
		}
		i += j + len("ref=")
	}
	return strings.Contains(s, "页面快照") || containsFoldASCII(s, "page snapshot")
}

func looksLikeHTML(s string) bool {
	return containsFoldASCII(s, "<html", "<body", "<!doctype")
}

// b64 marks the bytes of the base64 alphabet, standard and URL-safe, with
// the padding '='.
var b64 = func() (t [256]bool) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "+/=-_" {
		t[c] = true
	}
	return t
}()

// hasPrefixFold reports whether s[i:] starts with the lower-case ASCII
// string p, ignoring case.
func hasPrefixFold(s string, i int, p string) bool {
	if len(s)-i < len(p) {
		return false
	}
	for k := 0; k < len(p); k++ {
		c := s[i+k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p[k] {
			return false
		}
	}
	return true
}

// cleaner carries the single pass of clean.
type cleaner struct {
	text string
	rep  *Report
	b    strings.Builder
	last int // start of the text not yet copied to b
	cut  bool
}

func (c *cleaner) replace(from, to int, marker string, k Kind, chars int) {
	if !c.cut {
		c.b.Grow(len(c.text) / 2)
		c.cut = true
	}
	c.b.WriteString(c.text[c.last:from])
	c.b.WriteString(marker)
	c.last = to
	c.rep.add(k, chars)
}

// clean cuts data URIs, bare base64 runs and, in HTML, script and style
// blocks, in one pass over the bytes. Every position is looked at a bounded
// number of times: a data URI header is scanned only up to its first byte
// that cannot be in a header (':' among them, so headers do not overlap),
// and once a closing tag is not found, no later block of that kind is
// searched for.
func clean(text string, cfg Config, rep *Report) string {
	c := cleaner{text: text, rep: rep}
	html := looksLikeHTML(text)
	var noClose unclosed

	runStart := -1
	var upper, lower, digit bool
	endRun := func(j int) {
		if runStart >= 0 && j-runStart >= cfg.Base64Min && upper && lower && digit {
			// The alphabet is ASCII, so bytes are characters.
			c.replace(runStart, j, markerBase64(j-runStart), KindBase64, j-runStart)
		}
		runStart = -1
	}

	for i := 0; i < len(text); {
		ch := text[i]
		if ch == '<' && html {
			if end, k := block(text, i, &noClose); end > 0 {
				endRun(i)
				chars := utf8.RuneCountInString(text[i:end])
				// A block shorter than its marker is kept, cutting it
				// would lengthen the text; either way its inside is not
				// read for tags, so a cut can never join a kept opening
				// tag to a later closing one (and a second pass finds
				// nothing new).
				if m := markerBlock(chars, k); len(m) < chars {
					c.replace(i, end, m, k, chars)
				}
				i = end
				continue
			}
		}
		if ch == 'd' || ch == 'D' {
			if end, mime := dataURI(text, i); end > 0 {
				m := markerDataURI(end-i, mime)
				if len(m) < end-i {
					endRun(i)
					c.replace(i, end, m, KindDataURI, end-i)
					i = end
					continue
				}
			}
		}
		if b64[ch] {
			if runStart < 0 {
				runStart = i
				upper, lower, digit = false, false, false
			}
			switch {
			case 'A' <= ch && ch <= 'Z':
				upper = true
			case 'a' <= ch && ch <= 'z':
				lower = true
			case '0' <= ch && ch <= '9':
				digit = true
			}
			i++
			continue
		}
		endRun(i)
		i++
	}
	endRun(len(text))
	if !c.cut {
		return text
	}
	c.b.WriteString(text[c.last:])
	return c.b.String()
}

// unclosed remembers which closing tags are known to be absent from the
// rest of the text.
type unclosed struct{ script, style bool }

func (u *unclosed) flag(k Kind) *bool {
	if k == KindScript {
		return &u.script
	}
	return &u.style
}

// block returns the end of a complete <script> or <style> block starting at
// text[i] == '<', or 0 if there is none.
func block(text string, i int, noClose *unclosed) (int, Kind) {
	var k Kind
	switch {
	case hasPrefixFold(text, i+1, "script"):
		k = KindScript
	case hasPrefixFold(text, i+1, "style"):
		k = KindStyle
	default:
		return 0, ""
	}
	j := i + 1 + len(k)
	if j >= len(text) {
		return 0, ""
	}
	switch text[j] {
	case ' ', '\t', '\n', '\r', '\f', '>', '/':
	default:
		return 0, "" // <scripts>, <styleguide>: another tag
	}
	if *noClose.flag(k) {
		return 0, ""
	}
	closing := "</" + string(k)
	for j < len(text) {
		lt := strings.IndexByte(text[j:], '<')
		if lt < 0 {
			break
		}
		j += lt
		if hasPrefixFold(text, j, closing) {
			gt := strings.IndexByte(text[j:], '>')
			if gt < 0 {
				break
			}
			return j + gt + 1, k
		}
		j++
	}
	*noClose.flag(k) = true
	return 0, ""
}

// maxDataHeader bounds the "<mime>;params;base64" part of a data URI.
const maxDataHeader = 256

// dataURI returns the end of a base64 data URI starting at text[i], and its
// media type, or 0 if there is none.
func dataURI(text string, i int) (int, string) {
	if !hasPrefixFold(text, i, "data:") {
		return 0, ""
	}
	start := i + len("data:")
	j := start
	for j < len(text) && j-start < maxDataHeader && headerByte(text[j]) {
		j++
	}
	if j >= len(text) || text[j] != ',' {
		return 0, ""
	}
	header := text[start:j]
	if len(header) < len(";base64") || !hasPrefixFold(header, len(header)-len(";base64"), ";base64") {
		return 0, ""
	}
	mime, _, _ := strings.Cut(header, ";")
	if !strings.Contains(mime, "/") {
		return 0, ""
	}
	end := j + 1
	for end < len(text) && b64std(text[end]) {
		end++
	}
	if end == j+1 {
		return 0, ""
	}
	return end, strings.ToLower(mime)
}

// headerByte: the bytes allowed in a data URI's media type and parameters
// (RFC 2045 token characters, '/', ';' and '=').
func headerByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$&^_.+-/;=", c) >= 0
}

func b64std(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '='
}

// runeOffset is the byte offset of the k-th rune of s (len(s) if s has
// fewer), counting as utf8.RuneCountInString does.
func runeOffset(s string, k int) int {
	if k <= 0 {
		return 0
	}
	n := 0
	for i := range s {
		if n == k {
			return i
		}
		n++
	}
	return len(s)
}

// backOff is how far, in characters, a cut may move to reach a safer place.
const backOff = 100

// safeEnd moves a cut at byte p (a rune boundary) back to a safer place
// within the last backOff characters: before an unclosed '<' or an open
// '{', then just after a line break. The places it picks are ASCII bytes,
// which always start a rune.
func safeEnd(s string, p int) int {
	w := p
	for k := 0; k < backOff && w > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:w])
		w -= size
	}
	seg := s[w:p]
	cut := p
	if lt := strings.LastIndexByte(seg, '<'); lt >= 0 && strings.LastIndexByte(seg, '>') < lt {
		cut = w + lt
	}
	if lb := strings.LastIndexByte(seg, '{'); lb >= 0 && strings.LastIndexByte(seg, '}') < lb {
		cut = min(cut, w+lb)
	}
	if nl := strings.LastIndexByte(s[w:cut], '\n'); nl >= 0 {
		cut = w + nl + 1
	}
	return cut
}

// safeStart moves the start of a tail at byte p (a rune boundary) forward to
// just after a line break within the next backOff characters, if there is
// one, so the tail starts with a whole line.
func safeStart(s string, p int) int {
	if p == 0 || s[p-1] == '\n' {
		return p
	}
	w := p
	for k := 0; k < backOff && w < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[w:])
		w += size
	}
	if nl := strings.IndexByte(s[p:w], '\n'); nl >= 0 {
		return p + nl + 1
	}
	return p
}

// headTail is the seed's compact_browser_snapshot, in characters. It reports
// false when the seed's rule stands aside.
func headTail(s string, n int, cfg Config, limit int, rep *Report) (string, bool) {
	desired := min(limit, cfg.SnapshotDesired)
	if desired < 2000 || n <= desired {
		return "", false
	}
	header := markerSnapshotHeader(n)
	budget := desired - (utf8.RuneCountInString(header) + 200)
	if budget < 1000 {
		return "", false
	}
	head := int(math.Floor(cfg.HeadShare * float64(budget)))
	head = min(max(head, cfg.HeadMin), cfg.HeadMax)
	tail := min(max(budget-head, 0), cfg.TailMax)
	if head+tail >= n {
		return "", false
	}
	hEnd := safeEnd(s, runeOffset(s, head))
	tStart := safeStart(s, runeOffset(s, n-tail))
	if tStart < hEnd {
		tStart = hEnd
	}
	omitted := utf8.RuneCountInString(s[hEnd:tStart])
	var b strings.Builder
	b.Grow(hEnd + len(s) - tStart + len(header) + 128)
	b.WriteString(header)
	b.WriteByte('\n')
	b.WriteString(s[:hEnd])
	if hEnd > 0 && s[hEnd-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(markerSnapshotMiddle(omitted))
	if tStart < len(s) {
		b.WriteByte('\n')
		b.WriteString(s[tStart:])
	}
	rep.add(KindSnapshot, omitted)
	return b.String(), true
}

// truncate keeps the start of s (n characters) and a marker, limit
// characters in all when limit leaves room for the marker.
func truncate(s string, n, limit int, rep *Report) string {
	// The marker is reserved at its longest (every character cut) plus
	// the line break before it.
	reserve := utf8.RuneCountInString(markerTruncate(n, limit)) + 1
	keep := max(limit-reserve, 0)
	p := safeEnd(s, runeOffset(s, keep))
	cut := utf8.RuneCountInString(s[p:])
	var b strings.Builder
	b.Grow(p + reserve + 8)
	b.WriteString(s[:p])
	if p > 0 && s[p-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(markerTruncate(cut, limit))
	rep.add(KindTruncate, cut)
	return b.String()
}
