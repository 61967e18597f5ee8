package loops

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/djinn-cc/djinn/internal/shellword"
)

// wholeWrite is a file a shell command writes whole from a heredoc, and
// the hash of what it writes.
type wholeWrite struct {
	file, hash string
}

// heredocWrite finds, in a parsed command, the first statement that
// writes one file whole from a heredoc: cat > F << 'EOF', cat << EOF > F,
// tee F << EOF; in an ssh call, the same in its remote command, the file
// then named "host:F". The hash is ShortHash of the bytes written: the
// heredoc's text (leading tabs dropped for <<-). A write that appends (>>,
// tee -a), that writes more than one file, or whose text would expand
// ($VAR, `cmd`, a backslash in an unquoted heredoc) gives nothing: what it
// leaves in the file is not known.
func heredocWrite(f *syntax.File, dir string, depth int) (wholeWrite, bool) {
	var out wholeWrite
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		st, isStmt := n.(*syntax.Stmt)
		if found || !isStmt {
			return !found
		}
		c, isCall := st.Cmd.(*syntax.CallExpr)
		if !isCall || len(c.Args) == 0 {
			return true
		}
		args := make([]string, 0, len(c.Args))
		for _, w := range c.Args {
			a, plain := shellword.Text(w, false)
			if !plain {
				return true
			}
			args = append(args, a)
		}
		switch path.Base(args[0]) {
		case "cat", "tee":
			if w, ok := heredocInto(st, args, dir); ok {
				out, found = w, true
			}
		case "ssh":
			if depth > 0 {
				return true
			}
			dest, remote := shellword.SSHSplit(args[1:])
			if dest == "" || remote == "" {
				return true
			}
			rf, err := syntax.NewParser().Parse(strings.NewReader(remote), "")
			if err != nil {
				return true
			}
			if w, ok := heredocWrite(rf, "", depth+1); ok {
				if i := strings.LastIndexByte(dest, '@'); i >= 0 {
					dest = dest[i+1:]
				}
				w.file = dest + ":" + w.file
				out, found = w, true
			}
		}
		return !found
	})
	return out, found
}

// heredocInto reads one cat or tee statement (its words args): the file
// its output goes to whole, from a heredoc whose text is known.
func heredocInto(st *syntax.Stmt, args []string, dir string) (wholeWrite, bool) {
	var file, body string
	var hdoc bool
	tee := path.Base(args[0]) == "tee"
	if tee {
		if len(args) != 2 || strings.HasPrefix(args[1], "-") {
			return wholeWrite{}, false // tee -a, tee of several files
		}
		file = args[1]
	} else if len(args) > 1 && !(len(args) == 2 && args[1] == "-") {
		return wholeWrite{}, false // cat of files
	}
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.RdrClob:
			w, plain := shellword.Text(r.Word, false)
			if tee && plain && strings.HasPrefix(w, "/dev/") {
				continue // tee's own copy on stdout, thrown away
			}
			if !plain || file != "" || w == "" || strings.HasPrefix(w, "/dev/") {
				return wholeWrite{}, false
			}
			file = w
		case syntax.AppOut, syntax.AppAll, syntax.RdrAll:
			return wholeWrite{}, false
		case syntax.Hdoc, syntax.DashHdoc:
			if hdoc || r.Hdoc == nil {
				return wholeWrite{}, false
			}
			text, ok := heredocText(r)
			if !ok {
				return wholeWrite{}, false
			}
			body, hdoc = text, true
		}
	}
	if !hdoc || file == "" {
		return wholeWrite{}, false
	}
	if !path.IsAbs(file) && dir != "" {
		file = path.Join(dir, file)
	}
	return wholeWrite{file: clip(path.Clean(file), MaxTarget, 100), hash: ShortHash([]byte(body))}, true
}

// heredocText is the text a heredoc feeds its command, when it is known:
// a quoted delimiter's body as written; an unquoted one's only when it
// holds nothing the shell would expand or unescape.
func heredocText(r *syntax.Redirect) (string, bool) {
	quoted := false
	for _, p := range r.Word.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		}
	}
	if strings.Contains(shellword.Lenient(r.Word), `\`) {
		quoted = true // <<\EOF
	}
	var b strings.Builder
	for _, p := range r.Hdoc.Parts {
		l, isLit := p.(*syntax.Lit)
		if !isLit {
			return "", false
		}
		b.WriteString(l.Value)
	}
	text := b.String()
	if !quoted && strings.ContainsAny(text, "$`\\") {
		return "", false
	}
	if r.Op == syntax.DashHdoc {
		lines := strings.SplitAfter(text, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimLeft(l, "\t")
		}
		text = strings.Join(lines, "")
	}
	return text, true
}
