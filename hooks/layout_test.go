package hooks

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// commandBackends are the packages behind the djinn commands that read or
// change a session from a terminal: status, rank, log and report
// (internal/report), reorient and feedback. They build on hooks; hooks,
// which every hook process runs, builds on none of them.
var commandBackends = []string{"internal/feedback", "internal/reorient", "internal/report"}

// movedOut are the backend functions hooks once exported: they live in the
// backends now, and coming back would put command logic on the hook path.
var movedOut = []string{"Reorient", "FindAdvisory", "Judge", "ErrNoAdvisory", "ProfileLines", "PeekProfile", "WriteProfile"}

// TestHooksImportsNoCommandBackend: hooks imports no command backend,
// directly or through another package, and declares none of their
// functions or variables (a re-export, or one left behind), nor a name
// that moved out of it.
func TestHooksImportsNoCommandBackend(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.HasSuffix(deps[len(deps)-1], "/hooks") {
		t.Fatalf("go list -deps gave %d packages, last %q: not hooks' dependencies", len(deps), deps[len(deps)-1])
	}
	for _, dep := range deps {
		for _, b := range commandBackends {
			if strings.HasSuffix(dep, "/"+b) {
				t.Errorf("hooks imports the command backend %s", dep)
			}
		}
	}

	forbidden := map[string]string{}
	for _, name := range movedOut {
		forbidden[name] = "moved out of hooks"
	}
	for _, b := range commandBackends {
		names := exportedFuncsAndVars(t, filepath.Join("..", b))
		if len(names) == 0 {
			t.Fatalf("%s declares no exported function: the check would hold nothing", b)
		}
		for _, name := range names {
			forbidden[name] = b
		}
	}
	for _, name := range exportedFuncsAndVars(t, ".") {
		if where, ok := forbidden[name]; ok {
			t.Errorf("hooks declares %s, which belongs to the command backends (%s)", name, where)
		}
	}
}

// exportedFuncsAndVars lists the exported top-level functions, variables
// and constants of the package in dir (its non-test files). Types are left
// out: a backend's own type (report.Session) may share a name with one of
// hooks' without being the same thing.
func exportedFuncsAndVars(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names = append(names, d.Name.Name)
				}
			case *ast.GenDecl:
				if d.Tok == token.TYPE || d.Tok == token.IMPORT {
					continue
				}
				for _, spec := range d.Specs {
					for _, n := range spec.(*ast.ValueSpec).Names {
						if n.IsExported() {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	return names
}
