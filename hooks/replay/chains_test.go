package replay

import (
	"testing"

	"github.com/djinn-cc/djinn/hooks/transcript"
)

// TestSidechainRuns: 1.0.x lines carry no agent id, so each subagent run
// is told by its chain from the Task prompt (parentUuid null): two runs are
// two agents, as live hooks see them; a 2.x agentId wins.
func TestSidechainRuns(t *testing.T) {
	r := &runner{chains: map[string]string{}}
	lines := []struct {
		e    transcript.Entry
		want string
	}{
		{transcript.Entry{UUID: "a1", IsSidechain: true}, "sidechain"},
		{transcript.Entry{UUID: "a2", ParentUUID: "a1", IsSidechain: true}, "sidechain"},
		{transcript.Entry{UUID: "m1", ParentUUID: "x"}, "sidechain"}, // main chain: not noted
		{transcript.Entry{UUID: "b1", IsSidechain: true}, "sidechain-2"},
		{transcript.Entry{UUID: "a3", ParentUUID: "a2", IsSidechain: true}, "sidechain"},
		{transcript.Entry{UUID: "b2", ParentUUID: "b1", IsSidechain: true}, "sidechain-2"},
		{transcript.Entry{UUID: "c1", IsSidechain: true, AgentID: "agent-7"}, "agent-7"},
	}
	for _, l := range lines {
		e := l.e
		r.noteChain(&e)
		if got := r.agentOf(&e); got != l.want {
			t.Errorf("%s: agent %q, want %q", e.UUID, got, l.want)
		}
	}
}
