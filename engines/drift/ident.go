package drift

import (
	"regexp"
	"strings"
	"sync"
)

// Ticket identifiers. Goals often name the ticket, issue or bead they are
// about ("Implement spotter-gqc", "fix PROJ-123"). When the agent then runs
// commands on a sibling identifier of the same family (bd show spotter-dov,
// gh issue view PROJ-456) it has moved to another task, even if the files it
// touches overlap, as they do for two tasks in one repository. A descendant
// of the goal's identifier (spotter-gqc.1, PROJ-123-a) is the same task.

// identRe finds family-code identifiers: a word, a separator, and a code.
// It is compiled on first use: most texts never need it (see mayIdent).
var identRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b([a-z][a-z0-9]{1,30})[-#]([a-z0-9]{2,12})((?:[.\-][a-z0-9]+)*)\b`)
})

// ident is one family-code identifier, lower-cased.
type ident struct{ Family, Code string }

// codeLike tells a ticket code (gqc, 123, x7k, dov) from an ordinary word
// (mode, trap, theme), without a dictionary: it has a digit, has no vowel, or
// is at most three characters long.
func codeLike(code string) bool {
	if len(code) <= 3 {
		return true
	}
	vowel := false
	for _, r := range code {
		if r >= '0' && r <= '9' {
			return true
		}
		if strings.ContainsRune("aeiouy", r) {
			vowel = true
		}
	}
	return !vowel
}

// mayIdent is false only when identRe cannot match text: text is ASCII
// (under (?i) K and ſ fold to ASCII letters) and no '-' or '#' has two
// letters or digits on each side, which every match has. It spares most
// texts compiling identRe (about a tenth of a millisecond per process).
func mayIdent(text string) bool {
	alnum := func(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' }
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 0x80 {
			return true
		}
		if (c == '-' || c == '#') && i >= 2 && i+2 < len(text) &&
			alnum(text[i-1]) && alnum(text[i-2]) && alnum(text[i+1]) && alnum(text[i+2]) {
			return true
		}
	}
	return false
}

// idents returns the ticket-like identifiers in text.
func idents(text string) []ident {
	if !mayIdent(text) {
		return nil
	}
	var out []ident
	for _, m := range identRe().FindAllStringSubmatch(text, 32) {
		fam, code := strings.ToLower(m[1]), strings.ToLower(m[2])
		if !codeLike(code) || isGenericWord(fam) {
			continue
		}
		id := ident{fam, code}
		dup := false
		for _, x := range out {
			dup = dup || x == id
		}
		if !dup {
			out = append(out, id)
		}
	}
	return out
}

// identVerdict compares the identifiers a call names with the goal's:
// hit when it names one of the goal's, conflict when it names only siblings
// of them (same family, other code).
func identVerdict(goal []ident, text string) (hit, conflict bool) {
	if len(goal) == 0 || text == "" {
		return false, false
	}
	for _, id := range idents(text) {
		for _, g := range goal {
			if id.Family != g.Family {
				continue
			}
			if id.Code == g.Code {
				hit = true
			} else {
				conflict = true
			}
		}
	}
	return hit, conflict && !hit
}

// identStrings and parseIdents keep identifiers in state as "family-code".
func identStrings(ids []ident) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.Family + "-" + id.Code
	}
	return out
}

func parseIdents(ss []string) []ident {
	out := make([]ident, 0, len(ss))
	for _, s := range ss {
		if f, c, ok := strings.Cut(s, "-"); ok {
			out = append(out, ident{f, c})
		}
	}
	return out
}

// ShowsGoalTicket reports whether a command shows one of the goal's tickets
// or a descendant of one (bd show spotter-fum.3, gh issue view, jira issue
// view): what it prints is the task's own description, as the user's
// prompt is, and may teach the anchor the task's words and files. goal
// holds the goal's identifiers as kept in state ("spotter-fum").
func ShowsGoalTicket(command string, goal []string) bool {
	if len(goal) == 0 || command == "" {
		return false
	}
	if hit, _ := identVerdict(parseIdents(goal), command); !hit {
		return false
	}
	for _, w := range strings.Fields(strings.ToLower(command)) {
		switch w {
		case "show", "view", "describe", "get", "read":
			return true
		}
	}
	return false
}

// TicketText is what a shown ticket says of the goal's own task: its lines
// but those that name a sibling ticket (a dependency, a blocker, another
// bead of a list), which describe other tasks.
func TicketText(out string, goal []string) string {
	ids := parseIdents(goal)
	var b strings.Builder
	for line := range strings.Lines(out) {
		if _, sibling := identVerdict(ids, line); !sibling {
			b.WriteString(line)
		}
	}
	return b.String()
}
