package advice

import (
	"fmt"
	"strings"
)

// KindRepeatComplaint is a user prompt that reports again a failure the user
// reported before, after the agent said it was fixed: the conversation is
// the loop, though no tool call repeats.
const KindRepeatComplaint = "repeat-complaint"

// ComplaintFacts are what a repeat-complaint advisory states. The texts are
// untrusted (the user's prompts, the agent's messages) and are quoted.
type ComplaintFacts struct {
	// Now is the prompt that reports the failure again; Earlier the first
	// earlier prompt that reported it, "" when Now is the first report,
	// made right after the claim (Claims holds that one).
	Now, Earlier string
	// Reports counts the prompts that reported it, this one included.
	Reports int
	// Claims are the agent's claims that it was fixed, made since Earlier,
	// oldest first.
	Claims []string
	// Shared are the words (stems) the reports have in common.
	Shared []string
	// Request tells a request sent again word for word (Now) right after
	// the agent said it was done (Claims holds what it said).
	Request bool
	// Writes, when no claim is quoted, counts the file writes of the
	// agent's last turn (writes, not files: four edits of two files are
	// four): Now says the thing is still wrong right after it.
	Writes int
}

// RepeatComplaint words the advisory: the repeated report, the claims that
// did not hold, and the check to make instead.
func RepeatComplaint(f ComplaintFacts) Advisory {
	claims := make([]string, len(f.Claims))
	for i, c := range f.Claims {
		claims[i] = Quote(c, 200)
	}
	nums := map[string]float64{"reports": float64(f.Reports), "claims": float64(len(f.Claims)), "shared": float64(len(f.Shared)), "writes": float64(f.Writes)}
	if f.Request {
		return withGist(finish(KindRepeatComplaint, Soft, nums,
			"The user sent the same request again, word for word, right after the agent said it was done: now %s; the agent's last message said %s. The user did not get what they asked for. Next step: "+doneStep,
			Quote(f.Now, 240), strings.Join(claims, "; ")),
			"you sent the same request again right after it said it was done; do it the way you will use it")
	}
	if f.Earlier == "" && len(f.Claims) == 0 {
		return withGist(finish(KindRepeatComplaint, Soft, nums,
			"The user says the problem is still there right after the agent's last turn, which made %s: now %s. That attempt did not reach what the user sees. Next step: "+verifyStep,
			plural(f.Writes, "file write"), Quote(f.Now, 240)),
			"you said it is still wrong right after its last changes; check it where you see it")
	}
	if f.Earlier == "" {
		common := ""
		if len(f.Shared) > 0 {
			common = " (in common: " + Clean(strings.Join(f.Shared, ", "), 120) + ")"
		}
		return withGist(finish(KindRepeatComplaint, Soft, nums,
			"The user reports a failure right after the agent said it was fixed: now %s; the agent's last message said %s%s. The claim did not hold where the user looks. Next step: "+verifyStep,
			Quote(f.Now, 240), strings.Join(claims, "; "), common),
			"you reported a failure right after it said it was fixed; check it where you see it")
	}
	return withGist(finish(KindRepeatComplaint, Soft, nums,
		"The user reports a failure again (%d reports: now %s, earlier %s; in common: %s). Since the earlier report the agent said it was fixed %d time(s): %s. Those claims did not hold where the user looks. Next step: "+verifyStep,
		f.Reports, Quote(f.Now, 240), Quote(f.Earlier, 240), Clean(strings.Join(f.Shared, ", "), 120), len(f.Claims), strings.Join(claims, "; ")),
		"you reported the failure again after it said it was fixed; check it where you see it")
}

// verifyStep is what the agent is asked to do when its claim of a fix did
// not hold.
const verifyStep = "reproduce the failure the way the user sees it (the same command, test, page or device the user names) and confirm it is gone there before saying it is fixed; a check that cannot show the failure (a status code, a build or lint that passes) does not verify it."

// doneStep is what the agent is asked to do when the user sends a
// request again after it said the work was done.
const doneStep = "ask or work out what the user expected to see, then do it the way the user will use it (the tool, command or page they named) and show the result; a process that starts or a command that exits 0 does not show that the request was met."

// String is for tests and logs.
func (f ComplaintFacts) String() string {
	return fmt.Sprintf("%d reports, %d claims, shared %v", f.Reports, len(f.Claims), f.Shared)
}
