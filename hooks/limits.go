package hooks

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/djinn-cc/djinn/engines/risk"
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/state"
)

// Sources of instructions in force.
const (
	fromPrompt   = "prompt"
	fromClaudeMD = "CLAUDE.md"
)

// maxInstructionFile bounds what is read of one CLAUDE.md.
const maxInstructionFile = 64 << 10

// instructionFiles are the project's instruction files, relative to its
// root, that Claude Code loads (CLAUDE.md, .claude/CLAUDE.md and the
// personal CLAUDE.local.md).
var instructionFiles = []string{"CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"}

// limitsFromPrompt updates the instructions in force with a typed prompt:
// the limits it lifts go, the limits it sets come (replacing an earlier
// one of the same class and target).
func (s *session) limitsFromPrompt(text string) {
	r := s.riskState()
	kept := r.Limits[:0]
	for _, l := range r.Limits {
		if l.Source == fromPrompt && risk.Lifts(limitOf(l), text) {
			continue
		}
		kept = append(kept, l)
	}
	r.Limits = kept
	for _, l := range risk.ParseLimits(text) {
		s.addLimit(l, fromPrompt)
	}
}

// limitsFromProject reads the limits the project's instruction files set
// (replacing those read before): they stay in force all session, and a
// recent prompt that asks for the step covers a call.
func (s *session) limitsFromProject(dir string) {
	if dir == "" {
		return
	}
	r := s.riskState()
	kept := r.Limits[:0]
	for _, l := range r.Limits {
		if l.Source != fromClaudeMD {
			kept = append(kept, l)
		}
	}
	r.Limits = kept
	for _, name := range instructionFiles {
		text := readInstructionFile(filepath.Join(dir, name))
		for _, l := range risk.ParseLimits(text) {
			s.addLimit(l, fromClaudeMD)
		}
	}
}

// readInstructionFile reads at most maxInstructionFile bytes of a regular
// file, "" for anything else (missing, a FIFO, a directory).
func readInstructionFile(path string) string {
	f, err := os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	b, err := io.ReadAll(io.LimitReader(f, maxInstructionFile))
	if err != nil {
		return ""
	}
	return string(b)
}

// addLimit records one limit, replacing one of the same class and target,
// and keeps at most state.MaxLimits (the oldest prompt limits go first).
func (s *session) addLimit(l risk.Limit, source string) {
	r := s.riskState()
	sl := state.Limit{Class: string(l.Class), Target: fit.Runes(l.Target, 256), Text: fit.Runes(l.Text, 500), Ask: l.Ask, Source: source}
	for i := range r.Limits {
		if r.Limits[i].Class == sl.Class && r.Limits[i].Target == sl.Target {
			if source == fromPrompt || r.Limits[i].Source == fromClaudeMD {
				r.Limits[i] = sl
			}
			return
		}
	}
	r.Limits = append(r.Limits, sl)
	for len(r.Limits) > state.MaxLimits {
		drop := 0
		for i, o := range r.Limits {
			if o.Source == fromPrompt {
				drop = i
				break
			}
		}
		r.Limits = append(r.Limits[:drop], r.Limits[drop+1:]...)
	}
}

func limitOf(l state.Limit) risk.Limit {
	return risk.Limit{Class: risk.LimitClass(l.Class), Target: l.Target, Text: l.Text, Ask: l.Ask}
}

// covered reports whether a recent prompt asks for the step a limit
// forbids: for the project's limits and "ask before" ones (a prompt's
// other limits are lifted when the prompt comes, limitsFromPrompt).
func (s *session) covered(l state.Limit) bool {
	if s.w.Risk == nil {
		return false
	}
	for _, p := range s.w.Risk.Prompts {
		if risk.Lifts(limitOf(l), p) {
			return true
		}
	}
	return false
}

// brokenLimit is an instruction in force a call goes against, and the
// step it takes.
type brokenLimit struct {
	l    *state.Limit
	step string
}

// brokenLimits are the instructions in force the call goes against and no
// recent prompt covers (the project's and "ask before" ones can be covered;
// a prompt's other limits are lifted when the prompt comes).
func (s *session) brokenLimits(c risk.Call) []brokenLimit {
	if s.w.Risk == nil || len(s.w.Risk.Limits) == 0 {
		return nil
	}
	ls := make([]risk.Limit, len(s.w.Risk.Limits))
	for i, l := range s.w.Risk.Limits {
		ls[i] = limitOf(l)
	}
	var out []brokenLimit
	for i, step := range risk.Broken(ls, c) {
		l := &s.w.Risk.Limits[i]
		if step == "" || (l.Source == fromClaudeMD || l.Ask) && s.covered(*l) {
			continue
		}
		out = append(out, brokenLimit{l, relTargets(step, c.ProjectDir)})
	}
	return out
}

// limitCall words an advisory for each instruction in force the call goes
// against, each at most once per advice.RiskCooldown calls.
func (s *session) limitCall(p *Payload, c risk.Call) []advice.Advisory {
	var advs []advice.Advisory
	for _, b := range s.brokenLimits(c) {
		if !advice.RiskDue(b.l.Advised, s.w.ToolCalls) {
			continue
		}
		b.l.Advised = s.w.ToolCalls
		advs = append(advs, advice.Instruction(advice.InstructionFacts{
			Call: s.w.ToolCalls, Tool: p.ToolName, Step: b.step,
			Said: b.l.Text, Source: b.l.Source, Failed: p.HookEventName == PostToolUseFailure,
		}))
	}
	return advs
}

// limitsBeyond are the instructions in force in the user's words, for the
// reanchor block, but those whose sentence one of the texts already holds.
func (s *session) limitsBeyond(texts []string) []string {
	if s.w.Risk == nil {
		return nil
	}
	var out []string
	for _, l := range s.w.Risk.Limits {
		t := strings.TrimSpace(l.Text)
		if slices.ContainsFunc(texts, func(x string) bool { return strings.Contains(x, t) }) || slices.Contains(out, t) {
			continue
		}
		if l.Source == fromClaudeMD {
			t += " (CLAUDE.md)"
		}
		out = append(out, t)
	}
	return out
}
