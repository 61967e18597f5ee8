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
		if st, isStmt := n.(*syntax.Stmt); isStmt && !found {
			out, found = stmtWrite(st, dir, depth)
		}
		return !found
	})
	return out, found
}

// stmtWrite is heredocWrite for one statement.
func stmtWrite(st *syntax.Stmt, dir string, depth int) (wholeWrite, bool) {
	c, isCall := st.Cmd.(*syntax.CallExpr)
	if !isCall || len(c.Args) == 0 {
		return wholeWrite{}, false
	}
	args, plain := shellword.Words(c.Args, false)
	if !plain {
		return wholeWrite{}, false
	}
	switch path.Base(args[0]) {
	case "cat", "tee":
		return heredocInto(st, args, dir)
	case "ssh":
		if depth == 0 {
			return sshWrite(args[1:])
		}
	}
	return wholeWrite{}, false
}

// sshWrite is the whole write of an ssh call's remote command, its file
// named "host:F".
func sshWrite(args []string) (wholeWrite, bool) {
	dest, remote := shellword.SSHSplit(args)
	if dest == "" || remote == "" {
		return wholeWrite{}, false
	}
	rf, err := syntax.NewParser().Parse(strings.NewReader(remote), "")
	if err != nil {
		return wholeWrite{}, false
	}
	w, ok := heredocWrite(rf, "", 1)
	if !ok {
		return wholeWrite{}, false
	}
	if i := strings.LastIndexByte(dest, '@'); i >= 0 {
		dest = dest[i+1:]
	}
	w.file = clip(dest+":"+w.file, MaxTarget, 100)
	return w, true
}

// heredocInto reads one cat or tee statement (its words args): the file
// its output goes to whole, from a heredoc whose text is known.
func heredocInto(st *syntax.Stmt, args []string, dir string) (wholeWrite, bool) {
	tee := path.Base(args[0]) == "tee"
	file := ""
	switch {
	case tee && (len(args) != 2 || strings.HasPrefix(args[1], "-")):
		return wholeWrite{}, false // tee -a, tee of several files
	case tee:
		file = args[1]
	case len(args) > 1 && !(len(args) == 2 && args[1] == "-"):
		return wholeWrite{}, false // cat of files
	}
	file, body, ok := redirected(st.Redirs, file, tee)
	if !ok {
		return wholeWrite{}, false
	}
	if !path.IsAbs(file) && dir != "" {
		file = path.Join(dir, file)
	}
	return wholeWrite{file: clip(path.Clean(file), MaxTarget, 100), hash: ShortHash([]byte(body))}, true
}

// redirected reads a statement's redirections: the one file its output
// goes to (file, when tee names it already) and the heredoc's text. ok is
// false unless there is exactly one of each and nothing appends.
func redirected(rs []*syntax.Redirect, file string, tee bool) (string, string, bool) {
	body, hdoc := "", false
	for _, r := range rs {
		switch r.Op {
		case syntax.RdrOut, syntax.RdrClob:
			w, plain := shellword.Text(r.Word, false)
			if tee && plain && strings.HasPrefix(w, "/dev/") {
				continue // tee's own copy on stdout, thrown away
			}
			if !plain || file != "" || w == "" || strings.HasPrefix(w, "/dev/") {
				return "", "", false
			}
			file = w
		case syntax.AppOut, syntax.AppAll, syntax.RdrAll:
			return "", "", false
		case syntax.Hdoc, syntax.DashHdoc:
			text, ok := heredocText(r)
			if hdoc || !ok {
				return "", "", false
			}
			body, hdoc = text, true
		}
	}
	return file, body, hdoc && file != ""
}

// heredocText is the text a heredoc feeds its command, when it is known:
// a quoted delimiter's body as written; an unquoted one's only when it
// holds nothing the shell would expand or unescape.
func heredocText(r *syntax.Redirect) (string, bool) {
	if r.Hdoc == nil {
		return "", false
	}
	quoted := strings.Contains(shellword.Lenient(r.Word), `\`) // <<\EOF
	for _, p := range r.Word.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		}
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
