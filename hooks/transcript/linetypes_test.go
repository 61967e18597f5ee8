package transcript

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// typedReader is a transcript that knows its lines' types, as replay's
// does, and checks that the meter asks only about whole lines (from the
// file's start or just after a newline, to just after a newline or the
// end). It answers every third line it is asked about with known=false.
type typedReader struct {
	*bytes.Reader
	t        *testing.T
	data     []byte
	asked    int
	answered int
}

func (r *typedReader) LineType(off int64, n int) (string, bool, bool) {
	r.t.Helper()
	end := off + int64(n)
	if off < 0 || n <= 0 || end > int64(len(r.data)) {
		r.t.Fatalf("LineType(%d, %d) outside the %d bytes read", off, n, len(r.data))
	}
	if off > 0 && r.data[off-1] != '\n' {
		r.t.Fatalf("LineType(%d, %d): not at a line's start", off, n)
	}
	if end < int64(len(r.data)) && r.data[end-1] != '\n' {
		r.t.Fatalf("LineType(%d, %d): not to a line's end", off, n)
	}
	r.asked++
	if r.asked%3 == 0 {
		return "", false, false
	}
	r.answered++
	typ, ok := PeekType(r.data[off:end])
	return typ, ok, true
}

// TestMeterLineTypes: a reader that gives its lines' types (LineTypes)
// yields the same Scan as one that does not (meterMatchesPlain).
func TestMeterLineTypes(t *testing.T) {
	meterMatchesPlain(t, "LineTypes", func(data []byte) countingReader {
		return &typedReader{Reader: bytes.NewReader(data), t: t, data: data}
	})
}

// countingReader is a reader that offers the meter more than ReadAt, and
// counts how often it was asked and how often it answered.
type countingReader interface {
	io.ReaderAt
	counts() (asked, answered int)
}

func (r *typedReader) counts() (int, int)   { return r.asked, r.answered }
func (r *decodedReader) counts() (int, int) { return r.asked, r.answered }

// meterMatchesPlain holds MeasureAt on the readers wrap makes to MeasureAt
// on a plain bytes.Reader, along a cursor chain over every 25th cut of
// each corpus file (and every cut near its end), with the hooks' options,
// the defaults, and a small budget (the forward window); the readers must
// have answered some of what they were asked, not all.
func meterMatchesPlain(t *testing.T, what string, wrap func(data []byte) countingReader) {
	t.Helper()
	for _, opt := range []Options{HookOptions(), DefaultOptions(), {Budget: 16 << 10, Chunk: 2 << 10, TextRunes: 500, ToolResults: 4}} {
		asked, answered := 0, 0
		for _, path := range corpusFiles(t) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var plainCur, wrapCur *Cursor
			for i, end := range lineEnds(data) {
				if i%25 != 0 && len(data)-end > 2048 {
					continue // every 25th cut, and all near the end
				}
				plain, perr := MeasureAt(bytes.NewReader(data[:end]), int64(end), plainCur, opt)
				r := wrap(data[:end])
				got, gerr := MeasureAt(r, int64(end), wrapCur, opt)
				if (perr == nil) != (gerr == nil) || !reflect.DeepEqual(plain, got) {
					t.Fatalf("%s, cut %d: with %s %+v (%v), without %+v (%v)", filepath.Base(path), i+1, what, got, gerr, plain, perr)
				}
				a, n := r.counts()
				asked, answered = asked+a, answered+n
				plainCur, wrapCur = &plain.Cursor, &got.Cursor
			}
		}
		if answered == 0 || answered == asked {
			t.Errorf("%s, options %+v: %d of %d lines answered; want some, not all", what, opt, answered, asked)
		}
	}
}

// viewReader is a transcript in memory that hands out its bytes
// (ByteViewer), refusing every fourth request (the meter must then read
// and copy as usual), and checks each request lies within the bytes.
type viewReader struct {
	*bytes.Reader
	t      *testing.T
	data   []byte
	asked  int
	viewed int
}

func (r *viewReader) ViewAt(off int64, n int) ([]byte, bool) {
	r.t.Helper()
	if off < 0 || n < 0 || off+int64(n) > int64(len(r.data)) {
		r.t.Fatalf("ViewAt(%d, %d) outside the %d bytes", off, n, len(r.data))
	}
	r.asked++
	if r.asked%4 == 0 {
		return nil, false
	}
	r.viewed++
	end := off + int64(n)
	return r.data[off:end:end], true
}

// TestMeterByteViewer: a reader that hands out its bytes (ByteViewer)
// yields the same Scan, BytesRead included, as one that copies them,
// along a cursor chain over every cut of the corpus, with the hooks'
// options, the defaults and a small budget; and the meter leaves the
// bytes it was handed as they were.
func TestMeterByteViewer(t *testing.T) {
	for _, opt := range []Options{HookOptions(), DefaultOptions(), {Budget: 16 << 10, Chunk: 2 << 10, TextRunes: 500, ToolResults: 4}} {
		asked, viewed := 0, 0
		for _, path := range corpusFiles(t) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			orig := bytes.Clone(data)
			var plainCur, viewCur *Cursor
			for i, end := range lineEnds(data) {
				if i%25 != 0 && len(data)-end > 2048 {
					continue // every 25th cut, and all near the end
				}
				plain, perr := MeasureAt(bytes.NewReader(orig[:end]), int64(end), plainCur, opt)
				vr := &viewReader{Reader: bytes.NewReader(data[:end]), t: t, data: data[:end]}
				viewedScan, verr := MeasureAt(vr, int64(end), viewCur, opt)
				if (perr == nil) != (verr == nil) || !reflect.DeepEqual(plain, viewedScan) {
					t.Fatalf("%s, cut %d: with ByteViewer %+v (%v), without %+v (%v)", filepath.Base(path), i+1, viewedScan, verr, plain, perr)
				}
				asked, viewed = asked+vr.asked, viewed+vr.viewed
				plainCur, viewCur = &plain.Cursor, &viewedScan.Cursor
			}
			if !bytes.Equal(data, orig) {
				t.Fatalf("%s: the meter changed the bytes it was handed", filepath.Base(path))
			}
		}
		if viewed == 0 || viewed == asked {
			t.Errorf("options %+v: %d of %d views given; want some, not all", opt, viewed, asked)
		}
	}
}

// decodedReader is a transcript that holds its lines decoded, as replay's
// does (LineEntries): it answers with Decode of the line asked about,
// every third line with known=false, and checks the meter asks only about
// whole lines with their newline.
type decodedReader struct {
	*bytes.Reader
	t        *testing.T
	data     []byte
	asked    int
	answered int
}

func (r *decodedReader) LineEntry(off int64, n int) (*Entry, bool) {
	r.t.Helper()
	end := off + int64(n)
	if off < 0 || n <= 0 || end > int64(len(r.data)) {
		r.t.Fatalf("LineEntry(%d, %d) outside the %d bytes read", off, n, len(r.data))
	}
	if (off > 0 && r.data[off-1] != '\n') || (end < int64(len(r.data)) && r.data[end-1] != '\n') {
		r.t.Fatalf("LineEntry(%d, %d): not one whole line", off, n)
	}
	r.asked++
	if r.asked%3 == 0 {
		return nil, false
	}
	e, err := Decode(r.data[off:end])
	if err != nil {
		return nil, false
	}
	r.answered++
	return &e, true
}

// TestMeterLineEntries: a reader that holds its lines decoded (Decode,
// LineEntries) yields the same Scan as one that does not
// (meterMatchesPlain).
func TestMeterLineEntries(t *testing.T) {
	meterMatchesPlain(t, "LineEntries", func(data []byte) countingReader {
		return &decodedReader{Reader: bytes.NewReader(data), t: t, data: data}
	})
}
