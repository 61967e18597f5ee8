package loops

import (
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/djinn-cc/djinn/internal/shellword"
)

// View tells which end of its output a shell command shows when it is a
// window onto longer output: `tail -n 20 log`, `cat log | tail -5`,
// `make 2>&1 | head -40`. Two calls that differ only in how many lines they
// show compare by the lines both windows hold (see Event.Output).
type View uint8

// The views of a shell command.
const (
	ViewNone View = iota // the whole output
	ViewTail             // its last lines
	ViewHead             // its first lines
)

// ShellKey is the identity of a shell command for tool-loop: the command
// parsed with mvdan.cc/sh and written back without what does not make a
// call new:
//
//   - quoting: a word spelled 'a', "a" or a is one word;
//   - redirects that only merge or discard streams (2>&1, >&2, >/dev/null,
//     2>/dev/null, &>/dev/null); a redirect to a real file stays;
//   - path spelling: ./a/b, a/b and dir/a/b (absolute under dir, the
//     directory the command runs in) are one path, cleaned;
//   - how much of the output is shown: a trailing `| tail -N`, `| head -N`
//     (any count spelling: -N, -n N, -nN, --lines=N), `| less`, `| more`
//     or `| cat`, and `tail -n N file` or `cat file | tail` for `tail file`.
//     The view says which end such a command shows (only when that part is
//     the command's last statement, after at most a cd, so the window is a
//     window onto the whole output).
//
// A command the parser rejects, or one longer than maxShellKeyInput (a
// heredoc that writes a file), keeps its text with whitespace runs
// collapsed, as Event.Target has it.
func ShellKey(command, dir string) (key string, view View) {
	key, view, _ = shellKey(command, dir)
	return key, view
}

// shellWrites is what a command writes, read from its parse: whether it
// writes a file (writesFile), and the file it writes whole from a heredoc
// when it does (heredocWrite); and, read from the same parse, the test,
// build or package script it runs (run, RunnerKey) and whether it installs
// packages (installs).
type shellWrites struct {
	any      bool
	whole    wholeWrite
	run      string
	installs bool
}

// shellKey is ShellKey, and what the command writes, from one parse. A
// command longer than maxShellKeyInput (a heredoc that writes a file) is
// parsed for its writes only, up to maxShellWritesInput.
func shellKey(command, dir string) (key string, view View, writes shellWrites) {
	if len(command) > maxShellWritesInput {
		return strings.Join(strings.Fields(command), " "), ViewNone, writes
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err == nil {
		writes.whole, _ = heredocWrite(f, dir, 0)
		writes.any = writes.whole.file != "" || writesFile(f)
		writes.installs = installs(f)
		if len(command) <= maxShellKeyInput {
			writes.run = runnerKey(f, dir)
		}
	}
	if len(command) > maxShellKeyInput || err != nil || len(f.Stmts) == 0 {
		return strings.Join(strings.Fields(command), " "), ViewNone, writes
	}
	n := shellNorm{dir: strings.TrimSuffix(path.Clean(dir), "/")}
	if dir == "" {
		n.dir = ""
	}
	key, view = n.stmts(f.Stmts)
	switch view {
	case ViewTail:
		key = "[tail] " + key
	case ViewHead:
		key = "[head] " + key
	}
	return key, view, writes
}

// stmts writes a command's statements joined by "; ", and the view of the
// last when the ones before it only change directory or wait (cd x; sleep
// 30; tail log). A wait before the last statement is left out: sleep 30;
// tail log is sleep 30 && tail log.
func (n shellNorm) stmts(stmts []*syntax.Stmt) (string, View) {
	parts := make([]string, 0, len(stmts))
	view := ViewNone
	allCd := true
	for i, st := range stmts {
		last := i == len(stmts)-1
		if !last && isWait(st) {
			continue
		}
		p, v := n.stmt(st, last && allCd)
		parts = append(parts, p)
		if last {
			view = v
		}
		allCd = allCd && isCd(st)
	}
	return strings.Join(parts, "; "), view
}

// maxShellWritesInput bounds the command parsed for its writes alone.
const maxShellWritesInput = 64 << 10

// writesFile reports whether a parsed command writes a file: a redirect of
// output to anything but a stream or /dev/null, tee with a file argument,
// or sed -i.
func writesFile(f *syntax.File) bool {
	writes := false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			for _, r := range x.Redirs {
				switch r.Op {
				case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
					writes = writes || !quietRedirect(r)
				}
			}
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				break
			}
			switch path.Base(lit(x.Args[0])) {
			case "tee":
				for _, a := range x.Args[1:] {
					if w := lit(a); w != "" && !strings.HasPrefix(w, "-") {
						writes = true
					}
				}
			case "sed":
				for _, a := range x.Args[1:] {
					writes = writes || strings.HasPrefix(lit(a), "-i")
				}
			}
		}
		return !writes
	})
	return writes
}

// maxShellKeyInput bounds the command ShellKey parses, so the hook's cost
// per call stays small whatever the agent writes.
const maxShellKeyInput = 16 << 10

// shellNorm writes statements in the normal form ShellKey describes.
type shellNorm struct {
	dir string // the working directory, cleaned; "" when unknown
}

// stmt writes one statement; the view is read only when canView (the
// statement's output is the end of the command's output).
func (n shellNorm) stmt(st *syntax.Stmt, canView bool) (string, View) {
	if st.Background || st.Coprocess || st.Disown {
		canView = false
	}
	var b strings.Builder
	if st.Negated {
		b.WriteString("! ")
	}
	var body string
	view := ViewNone
	switch c := st.Cmd.(type) {
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			body, view = n.pipeline(append(pipeStages(c.X), pipeStages(c.Y)...), canView && !loudRedirects(st))
		default:
			if c.Op == syntax.AndStmt && isWait(c.X) {
				// How long a call waits before it looks does not make
				// it another call: sleep 30 && tail log and sleep 90 &&
				// tail log poll one log.
				body, view = n.stmt(c.Y, canView)
				break
			}
			x, _ := n.stmt(c.X, false)
			var y string
			y, view = n.stmt(c.Y, canView && c.Op == syntax.AndStmt && isCd(c.X))
			body = x + " " + c.Op.String() + " " + y
		}
	case *syntax.CallExpr:
		body, view = n.pipeline([]*syntax.Stmt{{Cmd: c}}, canView && !loudRedirects(st))
	default:
		body = n.print(st.Cmd)
	}
	b.WriteString(body)
	b.WriteString(n.redirects(st))
	if st.Background {
		b.WriteString(" &")
	}
	return b.String(), view
}

// redirects writes a statement's redirects but the quiet ones, each after
// a space.
func (n shellNorm) redirects(st *syntax.Stmt) string {
	var b strings.Builder
	for _, r := range st.Redirs {
		if quietRedirect(r) {
			continue
		}
		b.WriteByte(' ')
		if r.N != nil {
			b.WriteString(r.N.Value)
		}
		b.WriteString(r.Op.String())
		b.WriteString(n.word(r.Word, false))
	}
	return b.String()
}

// loudRedirects reports whether a statement sends output anywhere but
// the merged or discarded streams quietRedirect allows.
func loudRedirects(st *syntax.Stmt) bool {
	for _, r := range st.Redirs {
		if !quietRedirect(r) {
			return true
		}
	}
	return false
}

// pipeStages flattens a pipeline into its stages, left to right.
func pipeStages(st *syntax.Stmt) []*syntax.Stmt {
	if c, ok := st.Cmd.(*syntax.BinaryCmd); ok && (c.Op == syntax.Pipe || c.Op == syntax.PipeAll) && len(st.Redirs) == 0 && !st.Negated {
		return append(pipeStages(c.X), pipeStages(c.Y)...)
	}
	return []*syntax.Stmt{st}
}

// pipeline writes the stages of a pipeline (one stage for a simple
// command) without the trailing stages that only page or cut its output.
func (n shellNorm) pipeline(stages []*syntax.Stmt, canView bool) (string, View) {
	view := ViewNone
	for len(stages) > 1 {
		last := stages[len(stages)-1]
		name, args, ok := simpleCall(last)
		if !ok || len(args) > 0 && (name == "less" || name == "more" || name == "cat") {
			break
		}
		if name == "less" || name == "more" || name == "cat" {
			stages = stages[:len(stages)-1]
			continue
		}
		v, files, isWindow := windowCall(name, args)
		if !isWindow || len(files) > 0 || view != ViewNone && v != view {
			break
		}
		view = v
		stages = stages[:len(stages)-1]
	}
	if len(stages) == 1 {
		if name, args, ok := simpleCall(stages[0]); ok {
			if v, files, isWindow := windowCall(name, args); isWindow && len(files) == 1 && (view == ViewNone || view == v) {
				// tail -n 20 log, tail -20 log | tail -5.
				view, stages = v, nil
				if canView {
					return n.word(files[0], false), view
				}
				return windowName(v) + " " + n.word(files[0], false), ViewNone
			}
			if name == "cat" && len(args) == 1 && view != ViewNone && !strings.HasPrefix(lit(args[0]), "-") {
				// cat log | tail -5 is tail -5 log.
				if canView {
					return n.word(args[0], false), view
				}
				return windowName(view) + " " + n.word(args[0], false), ViewNone
			}
		}
	}
	parts := make([]string, len(stages))
	for i, st := range stages {
		if c, ok := st.Cmd.(*syntax.CallExpr); ok && !st.Negated && !st.Background {
			parts[i] = n.call(c) + n.redirects(st)
		} else {
			parts[i], _ = n.stmt(st, false)
		}
	}
	body := strings.Join(parts, " | ")
	if !canView && view != ViewNone {
		return body + " | " + windowName(view), ViewNone
	}
	return body, view
}

func windowName(v View) string {
	if v == ViewHead {
		return "head"
	}
	return "tail"
}

// call writes a simple command: its assignments and words.
func (n shellNorm) call(c *syntax.CallExpr) string {
	var parts []string
	for _, a := range c.Assigns {
		parts = append(parts, n.print(a))
	}
	for i, w := range c.Args {
		parts = append(parts, n.word(w, i == 0))
	}
	return strings.Join(parts, " ")
}

// word writes a word: literal text unquoted (then quoted once, the same
// way whatever its spelling), paths cleaned; other words as printed.
func (n shellNorm) word(w *syntax.Word, command bool) string {
	if w == nil {
		return ""
	}
	v, ok := shellword.Text(w, false)
	if !ok {
		return n.print(w)
	}
	v = n.path(v, command)
	q, err := syntax.Quote(v, syntax.LangBash)
	if err != nil {
		return n.print(w)
	}
	return q
}

// path gives one spelling to a path: cleaned, relative to the working
// directory when under it. A command name keeps its ./ (./run is not run),
// and a flag, a glob or a Go package pattern (./...) is left alone.
func (n shellNorm) path(v string, command bool) string {
	if v == "" || strings.HasPrefix(v, "-") || !strings.Contains(v, "/") || strings.ContainsAny(v, "$*?[~") || strings.Contains(v, "...") {
		return v
	}
	if n.dir != "" && strings.HasPrefix(v, "/") {
		if v == n.dir {
			v = "."
		} else if rel, ok := strings.CutPrefix(v, n.dir+"/"); ok {
			v = rel
		}
	}
	v = path.Clean(v)
	if command && !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "../") && v != ".." {
		v = "./" + v
	}
	return v
}

// print writes a node as the syntax printer does, whitespace collapsed.
func (n shellNorm) print(node syntax.Node) string {
	var b strings.Builder
	if syntax.NewPrinter().Print(&b, node) != nil {
		return ""
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// lit is a word's literal text, "" when it is not plain text.
func lit(w *syntax.Word) string {
	s, _ := shellword.Text(w, false)
	return s
}

// simpleCall is a statement that is one simple command with no
// assignments or redirects: its name and arguments.
func simpleCall(st *syntax.Stmt) (string, []*syntax.Word, bool) {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(c.Args) == 0 || st.Negated || st.Background {
		return "", nil, false
	}
	for _, r := range st.Redirs {
		if !quietRedirect(r) {
			return "", nil, false
		}
	}
	name, ok := shellword.Text(c.Args[0], false)
	if !ok {
		return "", nil, false
	}
	return name, c.Args[1:], true
}

// isWait reports whether a statement is a sleep for a literal time
// (sleep 30, sleep 1.5, sleep 2m), which prints nothing and only waits.
func isWait(st *syntax.Stmt) bool {
	name, args, ok := simpleCall(st)
	if !ok || name != "sleep" || len(args) != 1 {
		return false
	}
	d, ok := shellword.Text(args[0], false)
	return ok && (sleepFor(d) > 0 || d == "0")
}

// isCd reports whether a statement is a cd, which prints nothing.
func isCd(st *syntax.Stmt) bool {
	name, _, ok := simpleCall(st)
	return ok && name == "cd"
}

// windowCall reads a head or tail whose only options are a line count:
// which end it shows and its file arguments. tail -f (a follow), tail -n +N
// (from line N on) and byte counts are not windows.
func windowCall(name string, args []*syntax.Word) (View, []*syntax.Word, bool) {
	var v View
	switch name {
	case "tail":
		v = ViewTail
	case "head":
		v = ViewHead
	default:
		return ViewNone, nil, false
	}
	count := func(s string) bool {
		_, err := strconv.ParseUint(s, 10, 32)
		return err == nil
	}
	var files []*syntax.Word
	for i := 0; i < len(args); i++ {
		a, ok := shellword.Text(args[i], false)
		if !ok {
			files = append(files, args[i])
			continue
		}
		switch {
		case a == "-n" || a == "--lines":
			if i+1 >= len(args) || !count(lit(args[i+1])) {
				return ViewNone, nil, false
			}
			i++
		case strings.HasPrefix(a, "--lines="):
			if !count(strings.TrimPrefix(a, "--lines=")) {
				return ViewNone, nil, false
			}
		case strings.HasPrefix(a, "-n") && count(a[2:]):
		case strings.HasPrefix(a, "-") && len(a) > 1 && count(a[1:]):
		case strings.HasPrefix(a, "-") && a != "-":
			return ViewNone, nil, false
		default:
			files = append(files, args[i])
		}
	}
	return v, files, true
}

// quietRedirect reports whether a redirect only merges or discards output
// (2>&1, >&2, >/dev/null, 2>/dev/null, &>/dev/null), which changes where
// the output goes, not what the command does.
func quietRedirect(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.DplOut:
		return true
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
		return lit(r.Word) == "/dev/null"
	}
	return false
}
