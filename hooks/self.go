package hooks

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/djinn-cc/djinn/internal/shellword"
)

// selfCommands are the djinn subcommands a person or a skill runs to ask
// Djinn something or switch it (not `hook` or `replay`, which an agent runs
// only when it is working on Djinn itself).
var selfCommands = map[string]bool{
	"status": true, "rank": true, "log": true, "reorient": true, "state": true,
	"disable": true, "enable": true, "version": true, "report": true, "feedback": true,
}

// selfDataVar is the variable the skills pass the plugin data dir in.
const selfDataVar = "CLAUDE_PLUGIN_DATA"

var (
	envNameRe = lazyRegexp(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// selfBinRe: the launcher's cached binary, djinn-<version>, or a djinn.
	selfBinRe = lazyRegexp(`^djinn(-[0-9][0-9A-Za-z.+-]*)?$`)
)

// isSelfCall reports whether a tool call runs Djinn itself: a Bash command
// that is, as the skills write it, one call of the plugin's launcher
// (an absolute path ending in /hooks/djinn) or of a djinn binary in the
// plugin data directory's bin/, with one of selfCommands, optionally after
// env NAME=VALUE…, with fd duplications (2>&1) and an "|| true" fallback.
// The command is parsed as shell, so anything else in it (a pipe, a second
// command, a redirection to a file, a substitution) makes it the agent's.
func isSelfCall(p *Payload, getenv func(string) string) bool {
	if p.ToolName != "Bash" || len(p.ToolInput) == 0 {
		return false
	}
	// Most commands never name djinn: they are neither decoded nor parsed.
	if !bytes.Contains(p.ToolInput, []byte("djinn")) {
		return false
	}
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(p.ToolInput, &in) != nil || !strings.Contains(in.Command, "djinn") {
		return false
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(in.Command), "")
	if err != nil || len(f.Stmts) != 1 {
		return false
	}
	return selfStmt(f.Stmts[0], getenv)
}

// selfStmt is isSelfCall for one parsed statement.
func selfStmt(st *syntax.Stmt, getenv func(string) string) bool {
	if st.Negated || st.Background || st.Coprocess || st.Disown {
		return false
	}
	for _, r := range st.Redirs {
		if r.Op != syntax.DplOut {
			return false
		}
	}
	switch c := st.Cmd.(type) {
	case *syntax.BinaryCmd:
		return c.Op == syntax.OrStmt && isTrue(c.Y) && selfStmt(c.X, getenv)
	case *syntax.CallExpr:
		return selfCall(c, getenv)
	}
	return false
}

// isTrue reports whether a statement is a bare `true` or `:`.
func isTrue(st *syntax.Stmt) bool {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || len(c.Assigns) > 0 || len(c.Args) != 1 {
		return false
	}
	w := c.Args[0].Lit()
	return w == "true" || w == ":"
}

// selfCall is isSelfCall for one simple command.
func selfCall(c *syntax.CallExpr, getenv func(string) string) bool {
	dataDirs := []string{"$" + selfDataVar}
	if d := getenv(selfDataVar); d != "" {
		dataDirs = append(dataDirs, d)
	}
	for _, a := range c.Assigns {
		if a.Append || a.Naked || a.Index != nil || a.Array != nil || a.Name == nil {
			return false
		}
		if a.Name.Value == selfDataVar && a.Value != nil {
			v, ok := shellword.Text(a.Value, true)
			if !ok {
				return false
			}
			dataDirs = append(dataDirs, v)
		}
	}
	args, ok := shellword.Words(c.Args, true)
	if !ok {
		return false
	}
	if len(args) > 0 && path.Base(args[0]) == "env" {
		args = args[1:]
		for len(args) > 0 {
			name, val, ok := strings.Cut(args[0], "=")
			if !ok || !envNameRe().MatchString(name) {
				break
			}
			if name == selfDataVar {
				dataDirs = append(dataDirs, val)
			}
			args = args[1:]
		}
	}
	if len(args) < 2 || !selfCommands[args[1]] {
		return false
	}
	prog := args[0]
	if !path.IsAbs(prog) && !strings.HasPrefix(prog, "$") {
		return false
	}
	prog = path.Clean(prog)
	dir, base := path.Split(prog)
	dir = path.Clean(dir)
	if base == "djinn" && path.Base(dir) == "hooks" {
		return true
	}
	if !selfBinRe().MatchString(base) {
		return false
	}
	for _, d := range dataDirs {
		if d != "" && dir == path.Join(path.Clean(d), "bin") {
			return true
		}
	}
	return false
}
