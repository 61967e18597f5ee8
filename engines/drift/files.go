package drift

import (
	"path/filepath"
	"slices"
	"strings"
)

// Related files. A file is about the goal when the goal names it or the
// on-task work touched it, and so is a file beside one of those (same
// directory, other than the project root) or named like one (db/pool6.go and
// db/pool.go, session_live_test.ex and session_live.ex share a stem).

// relatedFile reports whether one of files is, or sits beside, or shares a
// name stem with, one of known.
func relatedFile(files, known []string) bool {
	if len(files) == 0 || len(known) == 0 {
		return false
	}
	for _, f := range files {
		if slices.Contains(known, f) {
			return true
		}
	}
	for _, f := range files {
		dir, stems := filepath.Dir(f), nameStems(f)
		for _, k := range known {
			if kd := filepath.Dir(k); kd == dir && dir != "." && dir != "/" {
				return true
			}
			for _, s := range nameStems(k) {
				if slices.Contains(stems, s) {
					return true
				}
			}
		}
	}
	return false
}

// nameStems are the stems of the words of a file's name, without its
// extension (pool7.go gives pool).
func nameStems(path string) []string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	return Stems(Words(base))
}

// NamedFiles returns the paths a goal names: words with a directory
// separator or a file extension (db/pool.go, README.md, src/theme/).
func NamedFiles(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '`' || r == '"' || r == '\'' || r == ',' || r == '(' || r == ')' || r == '<' || r == '>'
	}) {
		f = strings.TrimRight(f, ".:;!?")
		if f == "" || strings.Contains(f, "://") || len(f) > 512 {
			continue
		}
		ext := filepath.Ext(f)
		named := strings.Contains(strings.Trim(f, "/"), "/") ||
			len(ext) >= 2 && len(ext) <= 6 && len(f) > len(ext)+1 && isLetters(ext[1:])
		if !named {
			continue
		}
		out = appendNew(out, strings.TrimPrefix(filepath.Clean(f), "./"))
	}
	return out
}

func isLetters(s string) bool {
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return false
		}
	}
	return s != ""
}
