package hookmain

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// DefaultMaxPayloadMB bounds a hook's stdin in MiB unless DJINN_MAX_PAYLOAD_MB
// says otherwise: a payload over it (a tool response of hundreds of MB) is
// skipped, not read whole into a process that then runs out of memory.
const DefaultMaxPayloadMB = 64

// softMemoryLimit is the hook process's soft memory limit (runtime/debug's
// SetMemoryLimit) unless GOMEMLIMIT is set: past it the garbage collector
// runs harder instead of letting the heap (and the address space, which Go
// never returns) grow to twice the live data, so a payload near the bound
// still fits under a tight ulimit -v.
const softMemoryLimit = 192 << 20

// LimitMemory sets the hook process's soft memory limit (see
// softMemoryLimit). Hooks call it first thing.
func LimitMemory(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
}

// hookVars are environment variables of the hook process that are not
// settings, so LoadSettings is not shown them (it reports an unknown DJINN_
// variable).
var hookVars = []string{"DJINN_MAX_PAYLOAD_MB=", "DJINN_ERR_FD=", "DJINN_BUILD_NOTE="}

// withoutHookVars returns environ without hookVars (environ itself when it
// has none, the usual case).
func withoutHookVars(environ []string) []string {
	has := func(kv string) bool {
		for _, p := range hookVars {
			if strings.HasPrefix(kv, p) {
				return true
			}
		}
		return false
	}
	var out []string
	for i, kv := range environ {
		if has(kv) {
			if out == nil {
				out = append(make([]string, 0, len(environ)), environ[:i]...)
			}
			continue
		}
		if out != nil {
			out = append(out, kv)
		}
	}
	if out == nil {
		return environ
	}
	return out
}

// maxPayload is the bound on a hook's stdin in bytes: DJINN_MAX_PAYLOAD_MB
// MiB when that is a positive integer, else DefaultMaxPayloadMB.
func maxPayload(getenv func(string) string) int64 {
	if n, err := strconv.ParseInt(getenv("DJINN_MAX_PAYLOAD_MB"), 10, 64); err == nil && n > 0 && n < 1<<20 {
		return n << 20
	}
	return DefaultMaxPayloadMB << 20
}

// errPayloadTooBig ends the reading of a payload over the bound.
var errPayloadTooBig = errors.New("payload over the bound")

// keepSmall is how much of a payload is kept, whatever the staleness check
// says, for a hand-over to the launcher; see payloadReader.
const keepSmall = 1 << 20

// payloadReader reads a hook's stdin up to max bytes, and errPayloadTooBig
// past them. While kept is set it keeps a copy of what it read, to hand the
// payload to the launcher should the binary turn out stale; past keepSmall
// bytes it asks stale (the background check has finished long before) and
// keeps the copy only when the binary is stale, so a large payload is not
// held twice for a hand-over that does not happen.
type payloadReader struct {
	r     io.Reader
	n     int64
	max   int64
	kept  *bytes.Buffer
	stale func() bool
}

func (pr *payloadReader) Read(b []byte) (int, error) {
	if rem := pr.max + 1 - pr.n; int64(len(b)) > rem {
		b = b[:rem]
	}
	k, err := pr.r.Read(b)
	pr.n += int64(k)
	if pr.n > pr.max {
		return 0, errPayloadTooBig
	}
	if pr.kept != nil {
		pr.kept.Write(b[:k])
		if pr.kept.Len() > keepSmall && !pr.stale() {
			pr.kept = nil
		}
	}
	return k, err
}

// errorOutput is where a hook's "djinn:" lines go. Under the guard that
// hooks.json wraps every hook in (DJINN_ERR_FD=3), fd 3 is the hook's
// stderr and fd 2 a sink for what the Go runtime prints when it dies (a
// stack trace the agent must not see), so the lines go to fd 3; otherwise,
// or when fd 3 is not open, to stderr.
func errorOutput(getenv func(string) string) *os.File {
	if getenv("DJINN_ERR_FD") == "3" {
		var st syscall.Stat_t
		if syscall.Fstat(3, &st) == nil {
			return os.NewFile(3, "/dev/stderr")
		}
	}
	return os.Stderr
}
