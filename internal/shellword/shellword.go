// Package shellword reads the text of a shell word parsed by
// mvdan.cc/sh/v3/syntax as the shell would, without expanding it: quotes
// removed, backslash escapes resolved, a parameter kept as $NAME. Package
// expand would do the same, but it imports os/user, which links cgo into
// the hook binary; Djinn's detectors that read commands (its own skill
// calls, the loop detector's call key, the risk catalogue) share this.
package shellword

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Text is the word's text when every part is plain: literal text, single
// quotes (not $'…'), double quotes around plain parts, and, if params, a
// bare parameter ($NAME or ${NAME}), kept as $NAME. ok is false otherwise
// (command substitution, arithmetic, other expansions).
func Text(w *syntax.Word, params bool) (text string, ok bool) {
	if w == nil {
		return "", false
	}
	for _, p := range w.Parts {
		if !plain(p, params) {
			return "", false
		}
	}
	var b strings.Builder
	for _, p := range w.Parts {
		write(&b, p, false)
	}
	return b.String(), true
}

// Words is Text of every word, or ok false when one is not plain.
func Words(ws []*syntax.Word, params bool) (texts []string, ok bool) {
	texts = make([]string, 0, len(ws))
	for _, w := range ws {
		t, plain := Text(w, params)
		if !plain {
			return nil, false
		}
		texts = append(texts, t)
	}
	return texts, true
}

// Lenient is the word's text as Text reads it, with any other part written
// as its source text: for matching a command against a catalogue, where a
// $(…) in an argument should not hide the rest of it.
func Lenient(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range w.Parts {
		write(&b, p, false)
	}
	return b.String()
}

// write writes one part: a plain part unquoted, any other as its source.
func write(b *strings.Builder, part syntax.WordPart, quoted bool) {
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
		if x.Dollar {
			_ = syntax.NewPrinter().Print(b, x)
			return
		}
		b.WriteString(x.Value)
	case *syntax.DblQuoted:
		for _, q := range x.Parts {
			write(b, q, true)
		}
	case *syntax.ParamExp:
		if name, ok := bareParam(x); ok {
			b.WriteString("$" + name)
			return
		}
		_ = syntax.NewPrinter().Print(b, x)
	default:
		_ = syntax.NewPrinter().Print(b, x)
	}
}

// plain reports whether a part is plain text (see Text).
func plain(part syntax.WordPart, params bool) bool {
	switch x := part.(type) {
	case *syntax.Lit:
		return true
	case *syntax.SglQuoted:
		return !x.Dollar // $'…' has escapes of its own
	case *syntax.DblQuoted:
		if x.Dollar {
			return false
		}
		for _, q := range x.Parts {
			if !plain(q, params) {
				return false
			}
		}
		return true
	case *syntax.ParamExp:
		_, ok := bareParam(x)
		return params && ok
	}
	return false
}

// bareParam is the name of $NAME or ${NAME}, ok false for any other
// parameter expansion.
func bareParam(x *syntax.ParamExp) (string, bool) {
	if x.Param == nil || !isName(x.Param.Value) {
		return "", false
	}
	var b strings.Builder
	if syntax.NewPrinter().Print(&b, x) != nil {
		return "", false
	}
	s := b.String()
	return x.Param.Value, s == "$"+x.Param.Value || s == "${"+x.Param.Value+"}"
}

// isName reports whether s is a shell variable name.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// sshValued are ssh's options that take a value.
const sshValued = "BbcDEeFIiJLlmOoPpQRSWw"

// SSHRemote is the remote command of an ssh call's arguments (the words
// after ssh: its options, the destination, then the command), joined as
// the remote shell reads it; "" when there is none (a login).
func SSHRemote(args []string) string {
	_, remote := SSHSplit(args)
	return remote
}

// SSHSplit is the destination of an ssh call's arguments and its remote
// command (see SSHRemote); both "" when no destination is given.
func SSHSplit(args []string) (dest, remote string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			if len(a) == 2 && strings.IndexByte(sshValued, a[1]) >= 0 {
				i++
			}
			continue
		}
		return a, strings.Join(args[i+1:], " ")
	}
	return "", ""
}

// HomeOf is the home directory a path shows, for a ~ to stand for when no
// $HOME may be read (a hook's view and replay's differ): "/home/ana" of
// "/home/ana/src/app", "/Users/ana" of "/Users/ana/app", also below another
// prefix (a replay's scratch tree), the last such when there are several;
// "" when it shows none.
func HomeOf(p string) string {
	for _, root := range []string{"/home/", "/Users/"} {
		i := strings.LastIndex(p, root)
		if i < 0 {
			continue
		}
		rest := p[i+len(root):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			rest = rest[:j]
		}
		if rest != "" {
			return p[:i+len(root)] + rest
		}
	}
	return ""
}
