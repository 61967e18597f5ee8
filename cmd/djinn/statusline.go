package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/internal/report"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// statusLineMax bounds the printed line, in runes: Claude Code shows it
// under the prompt, one terminal row.
const statusLineMax = 120

// statusLineInputMax bounds what is read of stdin: Claude Code's payload is
// a few kilobytes.
const statusLineInputMax = 1 << 20

// statusLineInput is the part of Claude Code's status line payload (the JSON
// a statusLine command gets on stdin) that Djinn reads.
type statusLineInput struct {
	SessionID string `json:"session_id"`
	// ContextWindow is Claude Code's own meter; it stands in when Djinn
	// does not know the session's window.
	ContextWindow *struct {
		TotalInputTokens  int64 `json:"total_input_tokens"`
		ContextWindowSize int64 `json:"context_window_size"`
	} `json:"context_window"`
}

// statusNeutral is what the line says when the session has no state yet.
const statusNeutral = "djinn · no state for this session yet"

func (a *app) statuslineCommand() *cli.Command {
	return &cli.Command{
		Name:  "statusline",
		Usage: "print one line for Claude Code's statusLine setting from the JSON it gives on stdin (a failure prints nothing)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "state-dir", Usage: "state directory (default: $DJINN_STATE_DIR, $CLAUDE_PLUGIN_DATA, $XDG_STATE_HOME/djinn); a status line command gets no $CLAUDE_PLUGIN_DATA, so pass ~/.claude/plugins/data/djinn-djinn"},
		},
		Action: func(c *cli.Context) (err error) {
			// Whatever happens, nothing but the line reaches the screen:
			// a failure is one djinn: line on stderr and exit 0.
			defer func() {
				if r := recover(); r != nil {
					a.tui.errorf("statusline: internal error: %v", r)
				}
				err = nil
			}()
			if err := a.statusline(c.String("state-dir")); err != nil {
				a.tui.errorf("statusline: %v", err)
			}
			return nil
		},
	}
}

// statusline reads the payload, then prints the line of its session.
func (a *app) statusline(stateDir string) error {
	raw, err := io.ReadAll(io.LimitReader(a.stdin, statusLineInputMax))
	if err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	var in statusLineInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return fmt.Errorf("stdin is not Claude Code's status line JSON: %w", err)
	}
	if in.SessionID == "" {
		return fmt.Errorf("stdin has no session_id")
	}
	st, err := a.storeAt(a.discoverRoot(stateDir, in.SessionID, ""))
	if err != nil {
		return err
	}
	return statusLine(a.stdout, st, in, a.now())
}

// statusLine writes the one line for session in.SessionID: the goal (the
// current task when there is one), the drift verdict and score, the context
// used of the window, and the last advisory's kind and age. It reads state
// without changing it; a session without state gets a short neutral line.
func statusLine(w io.Writer, st *state.Store, in statusLineInput, now time.Time) error {
	win, anc, err := report.PeekSession(st, in.SessionID)
	if err != nil {
		return err
	}
	if win == nil {
		_, err := fmt.Fprintln(w, statusNeutral)
		return err
	}

	parts := []string{""} // the goal's place
	if d := win.Drift; d != nil && d.Verdict != nil && d.Verdict.Kind != "insufficient_data" {
		parts = append(parts, fmt.Sprintf("%s %.2f", advice.Clean(d.Verdict.Kind, 24), d.Verdict.Score))
	} else {
		parts = append(parts, "insufficient_data")
	}
	ctx, source := contextPart(win.Pressure, in)
	parts = append(parts, ctx)
	if n := len(win.Recent); n > 0 {
		r := win.Recent[n-1]
		s := fmt.Sprintf("%s %s ago", advice.Clean(r.Kind, 20), age(now.Sub(r.Time)))
		if r.Mode == string(settings.Observe) {
			s += " (observed)"
		}
		parts = append(parts, s)
	} else {
		parts = append(parts, "no advisories")
	}
	if len(win.Disabled) > 0 {
		parts = append(parts, "off: "+advice.Clean(strings.Join(win.Disabled, ","), 24))
	}

	goal := "no goal yet"
	if anc != nil {
		goal = anc.Text
		if anc.Task != nil && anc.Task.Text != "" {
			goal = anc.Task.Text
		}
	}
	// The goal takes the room the numbers and up to 20 runes of the
	// window's source leave, within 40 to 60 runes; the source comes last,
	// shortened to what is left, or left out when that is under 16 runes.
	reserve := 0
	if source != "" {
		reserve = min(utf8.RuneCountInString(source)+3, 20)
	}
	room := statusLineMax - reserve - utf8.RuneCountInString(strings.Join(parts, " | "))
	parts[0] = shorten(advice.Clean(goal, 4*statusLineMax), min(max(room, 40), 60))
	if left := statusLineMax - 3 - utf8.RuneCountInString(strings.Join(parts, " | ")); source != "" && (left >= 16 || left >= utf8.RuneCountInString(source)) {
		parts = append(parts, shorten(source, left))
	}
	_, err = fmt.Fprintln(w, shorten(strings.Join(parts, " | "), statusLineMax))
	return err
}

// shorten cuts s to at most n runes, ending a cut one with "…".
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

// contextPart is the context used of the session's window, and where the
// window comes from: Djinn's meter with its source, else Claude Code's own
// window size from the payload, else "window unknown".
func contextPart(ps *state.Pressure, in statusLineInput) (ctx, source string) {
	cw := in.ContextWindow
	switch {
	case ps != nil && ps.Limit > 0:
		ctx = fmt.Sprintf("ctx %s/%s %d%%", tokens(ps.Tokens), tokens(ps.Limit), 100*ps.Tokens/ps.Limit)
		if ps.Stale {
			ctx += " (before compaction)"
		}
		return ctx, "win " + advice.Clean(ps.Window, 60)
	case cw != nil && cw.ContextWindowSize > 0:
		used := cw.TotalInputTokens
		if ps != nil && ps.Tokens > 0 {
			used = ps.Tokens
		}
		return fmt.Sprintf("ctx %s/%s %d%%", tokens(used), tokens(cw.ContextWindowSize), 100*used/cw.ContextWindowSize), "win Claude Code's"
	case ps != nil:
		return fmt.Sprintf("ctx %s, window unknown", tokens(ps.Tokens)), ""
	default:
		return "ctx unknown", ""
	}
}

// tokens writes a token count short: 950, 106k, 1M.
func tokens(n int64) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
	case n >= 1000:
		return fmt.Sprintf("%dk", n/1000)
	default:
		return fmt.Sprint(n)
	}
}

// age writes a duration short: 45s, 3m, 2h, 4d (a clock behind the
// advisory's time reads as 0s).
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d/time.Second), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	default:
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	}
}
