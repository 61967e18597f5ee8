package advice

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLoopBlock: with blocking on, the first hard loop advisory blocks and
// leaves the rest; nothing blocks when it is off, or for a soft loop or a
// hard advisory of another detector.
func TestLoopBlock(t *testing.T) {
	hardRead := Advisory{Kind: KindReadLoop, Severity: Hard, Text: "read"}
	hardFail := Advisory{Kind: KindFailLoop, Severity: Hard, Text: "fail"}
	softEdit := Advisory{Kind: KindEditRevert, Severity: Soft, Text: "edit"}
	hardDrift := Advisory{Kind: KindDrift, Severity: Hard, Text: "drift"}
	hardStall := Advisory{Kind: KindStall, Severity: Hard, Text: "stall"}
	for _, tc := range []struct {
		name      string
		advs      []Advisory
		on        bool
		wantOK    bool
		wantBlock string
		wantRest  []string
	}{
		{"off", []Advisory{hardRead}, false, false, "", []string{"read"}},
		{"hard loop", []Advisory{softEdit, hardRead, hardDrift}, true, true, "read", []string{"edit", "drift"}},
		{"first of two", []Advisory{hardFail, hardRead}, true, true, "fail", []string{"read"}},
		{"soft loop", []Advisory{softEdit}, true, false, "", []string{"edit"}},
		{"hard, not a loop", []Advisory{hardDrift, hardStall}, true, false, "", []string{"drift", "stall"}},
		{"none", nil, true, false, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]Advisory(nil), tc.advs...)
			b, rest, ok := LoopBlock(in, tc.on)
			if ok != tc.wantOK || b.Text != tc.wantBlock {
				t.Errorf("block %q ok=%v, want %q ok=%v", b.Text, ok, tc.wantBlock, tc.wantOK)
			}
			var got []string
			for _, a := range rest {
				got = append(got, a.Text)
			}
			if d := cmp.Diff(tc.wantRest, got); d != "" {
				t.Errorf("rest (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.advs, in); d != "" {
				t.Errorf("the input changed (-was +now):\n%s", d)
			}
		})
	}
}

// TestStall: roll back while rollbacks remain (the block names this
// rollback's number), give up with a hard advisory once max_rollbacks are
// used, and only advise, pending for the agent's next hook, when rollback
// is off, whatever the counts.
func TestStall(t *testing.T) {
	f := StallFacts{Rule: "repeat", Start: 40, Period: 12, Repeats: 9, Unit: "Let me check.", Before: "I fixed it."}
	for _, tc := range []struct {
		name          string
		rollback      bool
		done, max     int
		want          StallAnswer // Advisory: only Severity is compared
		text, message string
	}{
		{"first rollback", true, 0, 2, StallAnswer{Advisory: Advisory{Severity: Block}, Block: true}, "(Rollback 1 of at most 2 for this prompt.)", ""},
		{"last rollback", true, 1, 2, StallAnswer{Advisory: Advisory{Severity: Block}, Block: true}, "(Rollback 2 of at most 2 for this prompt.)", ""},
		{"used up", true, 2, 2, StallAnswer{Advisory: Advisory{Severity: Hard}, GaveUp: true}, "keep only the part before the repetition", "2 rollbacks already for this prompt, so the turn ends here"},
		{"none allowed", true, 0, 0, StallAnswer{Advisory: Advisory{Severity: Hard}, GaveUp: true}, "keep only the part before the repetition", "the turn ends here"},
		{"advice only", false, 0, 2, StallAnswer{Advisory: Advisory{Severity: Soft}, Pending: true}, "keep only the part before the repetition", "rollback is off: advice only"},
		{"advice only, used up", false, 5, 2, StallAnswer{Advisory: Advisory{Severity: Soft}, Pending: true}, "keep only the part before the repetition", "rollback is off: advice only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := f
			in.Rollbacks, in.Max = tc.done, tc.max
			got := Stall(in, tc.rollback)
			if got.Advisory.Kind != KindStall || !strings.HasPrefix(got.Advisory.Text, Tag(KindStall)+" ") {
				t.Errorf("advisory %q of kind %q, want a stall advisory", got.Advisory.Text, got.Advisory.Kind)
			}
			if !strings.Contains(got.Advisory.Text, tc.text) {
				t.Errorf("advisory %q lacks %q", got.Advisory.Text, tc.text)
			}
			if tc.message == "" && got.UserMessage != "" || !strings.Contains(got.UserMessage, tc.message) {
				t.Errorf("user message %q, want one with %q", got.UserMessage, tc.message)
			}
			got.Advisory = Advisory{Severity: got.Advisory.Severity}
			got.UserMessage = ""
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("answer (-want +got):\n%s", d)
			}
		})
	}
}
