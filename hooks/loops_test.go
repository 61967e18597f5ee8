package hooks

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
)

// TestReadUpTo: readUpTo gives what io.ReadAll(io.LimitReader(r, limit))
// gives, whatever the size hint (right, too small, too large, zero) and
// however the reader splits its reads.
func TestReadUpTo(t *testing.T) {
	wraps := map[string]func(io.Reader) io.Reader{
		"plain": func(r io.Reader) io.Reader { return r },
		"half":  iotest.HalfReader,
		"byte":  iotest.OneByteReader,
		"eof":   iotest.DataErrReader,
	}
	for name, wrap := range wraps {
		t.Run(name, func(t *testing.T) {
			for _, n := range []int{0, 1, 2, 7, 8, 9, 100, 4097} {
				data := bytes.Repeat([]byte("abcdefg\n"), n/8+1)[:n]
				for _, limit := range []int64{1, 2, 8, 9, int64(n), int64(n) + 1, 5000} {
					want, _ := io.ReadAll(io.LimitReader(bytes.NewReader(data), limit))
					for _, hint := range []int64{0, int64(n), int64(n) / 2, int64(n) + 100, -1} {
						got, err := readUpTo(wrap(bytes.NewReader(data)), hint, limit)
						if err != nil || !bytes.Equal(got, want) {
							t.Fatalf("n %d, limit %d, hint %d: got %d bytes (%v), want %d", n, limit, hint, len(got), err, len(want))
						}
					}
				}
			}
		})
	}
	if _, err := readUpTo(iotest.ErrReader(io.ErrUnexpectedEOF), 10, 11); err == nil {
		t.Error("a read error was not returned")
	}
}
