package replay

import (
	"strings"
	"testing"

	"github.com/djinn-cc/djinn/hooks"
)

// TestSummaryContextCurve: a reading against a known window shows its
// share and tier; one whose window is unknown says so instead of "/ 0
// 0.0%".
func TestSummaryContextCurve(t *testing.T) {
	rep := &Report{File: "t.jsonl", Context: []ContextPoint{
		{Event: hooks.Stop, Line: 10, Call: 3, Tokens: 81960, Limit: 200000, Share: 0.4098, Tier: 1},
		{Event: hooks.Stop, Line: 20, Call: 5, Tokens: 98232},
	}}
	var b strings.Builder
	rep.Summary(&b)
	for _, want := range []string{
		"call    3  Stop             81960 / 200000   41.0%  tier 1\n",
		"call    5  Stop             98232 tokens, window unknown\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), " / 0 ") {
		t.Errorf("summary shows a window of 0:\n%s", b.String())
	}
}
