package drift

import (
	"strings"
	"testing"

	"github.com/djinn-cc/djinn/internal/prefiltertest"
)

// TestMayIdent: mayIdent only spares identRe texts it cannot match (the
// expression is the oracle), and the common prompts skip the expression.
func TestMayIdent(t *testing.T) {
	prefiltertest.Check(t, "mayIdent", identRe(), mayIdent, func(p prefiltertest.Prompt) bool { return p.Ident })
}

// TestShowsGoalTicket: a command that shows the goal's ticket or a
// descendant; not one that shows a sibling, nor one that changes it.
func TestShowsGoalTicket(t *testing.T) {
	goal := []string{"spotter-fum"}
	for _, tc := range []struct {
		command string
		want    bool
	}{
		{"bd show spotter-fum", true},
		{"bd show spotter-fum.3", true},
		{"gh issue view PROJ-12", false},
		{"bd show spotter-dov", false},
		{"bd update spotter-fum.3 --status in_progress", false},
		{"bd ready", false},
	} {
		if got := ShowsGoalTicket(tc.command, goal); got != tc.want {
			t.Errorf("ShowsGoalTicket(%q) = %v, want %v", tc.command, got, tc.want)
		}
	}
}

// TestTicketText: a shown ticket without the lines that name a sibling.
func TestTicketText(t *testing.T) {
	out := "○ spotter-fum.3 · Integrate highlight.js for transcript code blocks   [● P2 · OPEN]\n" +
		"DESCRIPTION\nAdd highlight.js so code blocks are readable.\n## Output Files\n- `assets/js/app.js`\n" +
		"DEPENDS ON\n  → spotter-dov.2: Upgrade TranscriptRenderer for relative paths\n"
	got := TicketText(out, []string{"spotter-fum"})
	if !strings.Contains(got, "Integrate highlight.js") || !strings.Contains(got, "assets/js/app.js") || strings.Contains(got, "TranscriptRenderer") {
		t.Errorf("TicketText = %q", got)
	}
}
