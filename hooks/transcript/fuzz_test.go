package transcript

import (
	"bytes"
	"testing"
)

// scanOracle is the reading of a full forward scan using Decode: it checks
// the windows, the backward walk and the cursor, not the decoder (the corpus
// test checks that against maps).
func scanOracle(data []byte) Reading {
	var r Reading
	for _, line := range bytes.Split(data, []byte("\n")) {
		e, err := Decode(line)
		if err != nil {
			continue
		}
		switch {
		case e.IsCompactBoundary():
			r = Reading{Stale: true}
			if e.CompactMetadata != nil {
				r.PreTokens = e.CompactMetadata.PreTokens
			}
		case e.IsCompactSummary && !e.IsSidechain:
			r = Reading{Stale: true}
		case e.IsMainAssistant():
			r = Reading{Tokens: e.Message.Usage.Context(), Found: true, Model: e.Message.Model, MessageID: e.Message.ID}
		}
	}
	return r
}

func FuzzMeasureAt(f *testing.F) {
	a := []byte(`{"type":"assistant","message":{"id":"m","model":"x","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t","name":"Bash"}],"usage":{"input_tokens":1,"cache_read_input_tokens":5}}}`)
	r := []byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"out"}]}}`)
	b := []byte(`{"type":"system","subtype":"compact_boundary","compactMetadata":{"preTokens":9}}`)
	join := func(ls ...[]byte) []byte { return append(bytes.Join(ls, []byte("\n")), '\n') }
	f.Add(join(a, r, a), uint16(0), uint16(64), uint16(7))
	f.Add(join(a, b), uint16(40), uint16(30), uint16(3))
	f.Add(append(join(a, r), `{"type":"assis`...), uint16(0), uint16(16), uint16(16))
	f.Add(join(a, []byte(`{"type":"\u0061ssistant","message":{"usage":{"input_tokens":3}}}`)), uint16(5), uint16(100), uint16(1))
	f.Add([]byte("\n\n\n"), uint16(1), uint16(1), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, cursorAt, budget, chunk uint16) {
		want := scanOracle(data)

		// A window wider than the file sees everything: the oracle's
		// reading.
		s := measure(t, data, nil, DefaultOptions())
		if int64(len(data)) < DefaultOptions().Budget && !sameReading(s.Reading, want) {
			t.Fatalf("reading %+v, oracle %+v", s.Reading, want)
		}

		// A small window, and a cursor at some line boundary.
		// The high bits of budget set LongLine (0: the budget).
		opt := Options{Budget: 1 + int64(budget%512), Chunk: 1 + int64(chunk%64), LongLine: int64(budget / 512), TextRunes: 50, ToolResults: 2}
		var cur *Cursor
		if cursorAt > 0 {
			bound := bytes.LastIndexByte(data[:min(int(cursorAt), len(data))], '\n') + 1
			cur = &Cursor{Size: int64(bound), Boundary: int64(bound), Reading: Reading{Tokens: 7, Found: true, Source: SourceTail}}
		}
		s = measure(t, data, cur, opt)
		if s.BytesRead > 2*opt.Budget+1 {
			t.Fatalf("read %d bytes with a budget of %d", s.BytesRead, opt.Budget)
		}
		// The tail window decides only when every line after its
		// decision has been read.
		if s.Reading.Source == SourceTail && !sameReading(s.Reading, want) {
			t.Fatalf("tail reading %+v, oracle %+v", s.Reading, want)
		}
		if bnd := s.Cursor.Boundary; bnd < 0 || bnd > int64(len(data)) || (bnd > 0 && data[bnd-1] != '\n') {
			t.Fatalf("cursor boundary %d", bnd)
		}
		switch s.Reading.Source {
		case SourceTail, SourceForward, SourceCarried, SourceNone:
		default:
			t.Fatalf("source %q", s.Reading.Source)
		}
	})
}
