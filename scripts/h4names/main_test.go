package main

import (
	"maps"
	"slices"
	"testing"
)

func TestErrorTextAndSpan(t *testing.T) {
	for _, tc := range []struct {
		adv         string
		err         string
		first, last int
	}{
		{`[djinn:fail-loop] "wc3.js" failed 3 times in a row with the same error (calls #2, #4 and #6), with no edit in between. The error: "File content (29347 tokens) exceeds maximum allowed tokens". Next step: read the error text itself.`,
			"File content (29347 tokens) exceeds maximum allowed tokens", 2, 6},
		{`[djinn:fail-loop] 2 calls were killed when their timeout ran out: "killed by its timeout: mix": a command … (calls #58 and #64: "mix phx.server")`,
			"killed by its timeout: mix", 58, 64},
		{`[djinn:fail-loop] nothing cited`, "", 0, 0},
	} {
		if got := errorText(tc.adv); got != tc.err {
			t.Errorf("errorText(%.40q) = %q, want %q", tc.adv, got, tc.err)
		}
		first, last, _ := span(tc.adv)
		if first != tc.first || last != tc.last {
			t.Errorf("span(%.40q) = %d, %d, want %d, %d", tc.adv, first, last, tc.first, tc.last)
		}
	}
}

func TestWords(t *testing.T) {
	got := slices.Sorted(maps.Keys(words("The error: Permission DENIED for user_db, exit code 1; file is mine")))
	want := []string{"denied", "mine", "permission", "user"}
	if !slices.Equal(got, want) {
		t.Errorf("words = %v, want %v", got, want)
	}
}
