package loops

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchEvents is a realistic stream: reads, edits, failing tests, searches,
// with repeats, so the patterns do their full scans and sometimes fire.
func benchEvents() []Event {
	r := rand.New(rand.NewPCG(9, 9))
	h := realisticHistory(r, 256)
	for i := range h {
		// Real targets and hashes are longer than the generator's.
		h[i].Target = "/home/user/project/internal/" + h[i].Target
		h[i].Input = ShortHash([]byte(h[i].Input))
	}
	return h
}

// BenchmarkRecord is the hot path: one event into a full 20-event ring,
// all four patterns run.
func BenchmarkRecord(b *testing.B) {
	events, cfg := benchEvents(), DefaultConfig()
	s := warm(events, cfg)
	i := 0
	for b.Loop() {
		s.Record(events[i%len(events)], cfg)
		i++
	}
}

// BenchmarkRecordWithJSON adds what a hook pays around Record: decoding
// the agent's state from window.json and encoding it back.
func BenchmarkRecordWithJSON(b *testing.B) {
	events, cfg := benchEvents(), DefaultConfig()
	s := warm(events, cfg)
	raw, _ := json.Marshal(&s)
	b.ReportMetric(float64(len(raw)), "state-bytes")
	i := 0
	for b.Loop() {
		var st State
		if err := json.Unmarshal(raw, &st); err != nil {
			b.Fatal(err)
		}
		st.Record(events[i%len(events)], cfg)
		if _, err := json.Marshal(&st); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkNewEvent(b *testing.B) {
	input := json.RawMessage(`{"file_path":"/home/user/project/internal/server/handler.go","old_string":"return nil, err","new_string":"return nil, fmt.Errorf(\"handle: %w\", err)","replace_all":false}`)
	for b.Loop() {
		NewEvent("Edit", input)
	}
}

// BenchmarkErrorFingerprint runs on a 30 KB test log, the size at which
// Claude Code truncates Bash output.
func BenchmarkErrorFingerprint(b *testing.B) {
	line := "    /tmp/build-81723/test/review_test.exs:41: ** (KeyError) key :id not found in 0.4 seconds, commit a1b2c3d4e5\n"
	s := "Exit code 2\n" + strings.Repeat(line, 30000/len(line))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		ErrorFingerprint(s)
	}
}

// warm is a state that has recorded the first 40 events: its ring is full.
func warm(events []Event, cfg Config) State {
	var s State
	for _, e := range events[:40] {
		s.Record(e, cfg)
	}
	return s
}

// BenchmarkNewEventBash reads shell calls as the hook does on every Bash
// call: a plain pipeline, a file written whole from a heredoc, and one
// written over ssh (the remote command parsed again).
func BenchmarkNewEventBash(b *testing.B) {
	for _, cmd := range []string{
		"cd /p && go test ./... 2>&1 | tail -20",
		"cat > /p/config.yml << 'EOF'\nports:\n  dns: 5335\nqueryLog:\n  type: console\nEOF",
		"ssh root@10.0.0.1 'cat > /etc/blocky/config.yml << \"EOF\"\nports:\n  dns: 5335\nEOF\n/etc/init.d/blocky restart'",
	} {
		input, _ := json.Marshal(map[string]string{"command": cmd})
		b.Run(fmt.Sprint(len(cmd)), func(b *testing.B) {
			for b.Loop() {
				NewEventIn("Bash", input, cmd, "", "/p")
			}
		})
	}
}
