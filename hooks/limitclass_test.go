package hooks

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/djinn-cc/djinn/state"
)

// TestLimitClassesInSchema: every LimitClass the risk engine declares is a
// class window.json may hold. A class missing from the schema's enum makes
// every save of a window with such a limit fail, and the hook with it (a
// class tried this session, banned commands, was caught only by a
// scenario). The constants are read from the engine's source, so a new one
// cannot be left out of this test.
func TestLimitClassesInSchema(t *testing.T) {
	files, err := filepath.Glob("../engines/risk/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("engine sources: %v (%d files)", err, len(files))
	}
	var classes []string
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || vs.Type == nil {
				return true
			}
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "LimitClass" {
				return true
			}
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					classes = append(classes, s)
				}
			}
			return true
		})
	}
	if len(classes) < 10 {
		t.Fatalf("found %d LimitClass constants (%q), want them all", len(classes), classes)
	}
	known := state.LimitClasses()
	for _, c := range classes {
		if !slices.Contains(known, c) {
			t.Errorf("limit class %q is not in window.json's enum (state/validate.go limitClasses and the schema)", c)
		}
	}
}
