package hooks

import (
	"regexp"
	"testing"
)

// complaintPatterns pairs each complaint pattern with its prefilter words.
var complaintPatterns = []struct {
	name  string
	re    func() *regexp.Regexp
	words []string
}{
	{"failure", failureRe, failureWords},
	{"repeat", repeatRe, repeatWords},
	{"claim", claimRe, claimWords},
	{"done", doneRe, doneWords},
}

// checkPrefilter fails when a pattern matches a text its prefilter said it
// cannot match.
func checkPrefilter(t *testing.T, text string) {
	t.Helper()
	for _, p := range complaintPatterns {
		if !mayMatch(text, p.words) && p.re().MatchString(text) {
			t.Errorf("%s matches %q, which its prefilter skips", p.name, text)
		}
	}
}

func TestComplaintPrefilter(t *testing.T) {
	matching := []string{
		"the build still FAILS", "Error: boom", "it crashed again", "the page is Broken", "this breaks the API",
		"an exception", "it keeps kicking me out", "wrong total", "the UI hangs", "it freezes", "frozen",
		"the request timed out", "time out", "stuck", "a blank page", "it doesn't work", "doesnt load",
		"does not start", "isn't running", "won't connect", "can't compile", "not building", "does not show",
		"won't open", "don't pass", "same thing", "once more", "keep", "Fixed the rounding.", "resolved",
		"it should now work", "should be gone", "all tests pass", "now passing", "works now", "is working",
		"are passing", "tests now pass", "checks all passing", "no longer fails", "no longer happens",
		"the \u212aelvin sign kicks", "\u017ftill broken",
		"started SUCCESSFULLY", "it succeeded", "the server is now running", "is up and running", "are ready",
		"is live", "is done", "is complete", "you're all set", "has been created", "have been added",
		"is now installed", "has been updated", "is set up", "are configured", "has been deployed",
	}
	for _, text := range matching {
		checkPrefilter(t, text)
		any := false
		for _, p := range complaintPatterns {
			any = any || mayMatch(text, p.words)
		}
		if !any {
			t.Errorf("no prefilter lets %q through", text)
		}
	}
	for _, text := range []string{"also check invoice 401 and the currency table", "add a README section", ""} {
		checkPrefilter(t, text)
		if mayMatch(text, failureWords) {
			t.Errorf("the failure prefilter lets %q through", text)
		}
	}
}

func FuzzComplaintPrefilter(f *testing.F) {
	for _, s := range []string{"it doesn't work", "no longer fails", "still broken", "all good", "\u212aick", "tests now pass"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkPrefilter(t, text)
	})
}
