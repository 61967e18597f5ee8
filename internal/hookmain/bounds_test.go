package hookmain

import (
	"bytes"
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// endless is a payload that never ends: `{"a":"xxxx…`.
type endless struct{ started bool }

func (e *endless) Read(b []byte) (int, error) {
	n := 0
	if !e.started {
		n = copy(b, `{"session_id":"s","hook_event_name":"PostToolUse","tool_response":"`)
		e.started = true
	}
	for i := n; i < len(b); i++ {
		b[i] = 'x'
	}
	return len(b), nil
}

// TestPayloadOverBound: a hook reads at most the bound (plus one byte) of
// a payload that never ends, says so in one djinn: line and writes
// nothing.
func TestPayloadOverBound(t *testing.T) {
	in := &countingReader{r: &endless{}}
	var out, errOut bytes.Buffer
	dir := t.TempDir()
	env := map[string]string{"DJINN_STATE_DIR": dir, "DJINN_MAX_PAYLOAD_MB": "1"}
	p := &Process{Stdin: in, Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] }, Now: time.Now}
	p.Run(context.Background(), "PostToolUse", "", "")
	if out.Len() != 0 || strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(errOut.String(), "over 1 MiB") {
		t.Fatalf("stdout %q, stderr %q", out.String(), errOut.String())
	}
	if in.n > 1<<20+1 {
		t.Errorf("read %d bytes of an endless payload, bound %d", in.n, 1<<20)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a skipped payload wrote state: %v", entries)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += n
	return n, err
}

// TestPayloadReaderKeeps: a hook keeps a copy of its payload for a
// hand-over to the launcher only while it is small or the binary is stale.
func TestPayloadReaderKeeps(t *testing.T) {
	payload := bytes.Repeat([]byte("y"), 3*keepSmall)
	for _, stale := range []bool{false, true} {
		pr := &payloadReader{r: bytes.NewReader(payload), max: 1 << 30, kept: &bytes.Buffer{}, stale: func() bool { return stale }}
		got, err := io.ReadAll(pr)
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("stale=%v: read %d bytes, %v", stale, len(got), err)
		}
		if stale && (pr.kept == nil || !bytes.Equal(pr.kept.Bytes(), payload)) {
			t.Errorf("a stale binary's hook did not keep its payload whole")
		}
		if !stale && pr.kept != nil {
			t.Errorf("a fresh binary's hook kept %d bytes of a large payload", pr.kept.Len())
		}
	}
	// Exactly the bound is allowed.
	pr := &payloadReader{r: bytes.NewReader(payload[:1000]), max: 1000}
	if got, err := io.ReadAll(pr); err != nil || len(got) != 1000 {
		t.Errorf("a payload of exactly the bound: %d bytes, %v", len(got), err)
	}
}

func TestMaxPayload(t *testing.T) {
	for v, want := range map[string]int64{"": DefaultMaxPayloadMB << 20, "8": 8 << 20, "0": DefaultMaxPayloadMB << 20, "-1": DefaultMaxPayloadMB << 20, "x": DefaultMaxPayloadMB << 20} {
		if got := maxPayload(func(string) string { return v }); got != want {
			t.Errorf("DJINN_MAX_PAYLOAD_MB=%q: %d, want %d", v, got, want)
		}
	}
}

func TestWithoutHookVars(t *testing.T) {
	env := []string{"A=1", "DJINN_ERR_FD=3", "DJINN_LOOPS_BLOCK=true", "DJINN_MAX_PAYLOAD_MB=8"}
	if got := withoutHookVars(env); !slices.Equal(got, []string{"A=1", "DJINN_LOOPS_BLOCK=true"}) {
		t.Errorf("got %q", got)
	}
	plain := []string{"A=1", "B=2"}
	if got := withoutHookVars(plain); &got[0] != &plain[0] {
		t.Error("an environment without hook variables was copied")
	}
}

// TestErrorOutput: without DJINN_ERR_FD the djinn: lines go to stderr
// (under the guard, to fd 3: TestHookPayloadOverBound in cmd/djinn).
func TestErrorOutput(t *testing.T) {
	if f := errorOutput(func(string) string { return "" }); f != os.Stderr {
		t.Error("without DJINN_ERR_FD: not stderr")
	}
}
