package hooks

import (
	"encoding/json"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// selfCommands are the djinn subcommands a person or a skill runs to ask
// Djinn something or switch it (not `hook` or `replay`, which an agent runs
// only when it is working on Djinn itself).
var selfCommands = map[string]bool{
	"status": true, "rank": true, "reorient": true, "state": true,
	"disable": true, "enable": true, "version": true,
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
	var in struct {
		Command string `json:"command"`
	}
	// Most commands never name djinn; they are not parsed.
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
			v, ok := wordText(a.Value)
			if !ok {
				return false
			}
			dataDirs = append(dataDirs, v)
		}
	}
	args := make([]string, 0, len(c.Args))
	for _, w := range c.Args {
		v, ok := wordText(w)
		if !ok {
			return false
		}
		args = append(args, v)
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

// wordText is a shell word's text with its quotes removed; a parameter
// stays as $NAME (the hook does not know the skill's environment). Words
// with command substitution, arithmetic or globs are not plain text.
func wordText(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	for _, part := range w.Parts {
		if !plainPart(part) {
			return "", false
		}
	}
	var b strings.Builder
	for _, part := range w.Parts {
		writePart(&b, part, false)
	}
	return b.String(), true
}

// writePart writes a plain word part (see plainPart) as the shell would
// read it: quotes removed, backslash escapes resolved (inside double quotes
// only before $, `, ", \ and a newline), a parameter kept as $NAME.
// package expand would do the same but imports os/user, which links cgo
// into the hook binary.
func writePart(b *strings.Builder, part syntax.WordPart, quoted bool) {
	switch x := part.(type) {
	case *syntax.Lit:
		v := x.Value
		for i := 0; i < len(v); i++ {
			if v[i] != '\\' || i+1 == len(v) {
				b.WriteByte(v[i])
				continue
			}
			next := v[i+1]
			switch {
			case next == '\n':
				i++
			case !quoted || strings.IndexByte("$`\"\\", next) >= 0:
				b.WriteByte(next)
				i++
			default:
				b.WriteByte(v[i])
			}
		}
	case *syntax.SglQuoted:
		b.WriteString(x.Value)
	case *syntax.DblQuoted:
		for _, q := range x.Parts {
			writePart(b, q, true)
		}
	case *syntax.ParamExp:
		b.WriteString("$" + x.Param.Value)
	}
}

// plainPart reports whether a word part is literal text, quoted text or a
// bare parameter (${NAME} or $NAME).
func plainPart(part syntax.WordPart) bool {
	switch x := part.(type) {
	case *syntax.Lit:
		return true
	case *syntax.SglQuoted:
		return !x.Dollar // $'…' has escapes of its own
	case *syntax.DblQuoted:
		for _, q := range x.Parts {
			if !plainPart(q) {
				return false
			}
		}
		return true
	case *syntax.ParamExp:
		if x.Param == nil || !envNameRe().MatchString(x.Param.Value) {
			return false
		}
		var b strings.Builder
		if syntax.NewPrinter().Print(&b, x) != nil {
			return false
		}
		return b.String() == "$"+x.Param.Value || b.String() == "${"+x.Param.Value+"}"
	}
	return false
}
