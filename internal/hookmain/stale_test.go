package hookmain

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// staleTree is a plugin root with go.mod, go.sum and n Go files in a
// package directory, all dated an hour ago, a binary built after them, and
// the list of the build's inputs (the directory and its files), as the
// launcher writes it.
func staleTree(t testing.TB, n int) (root, bin, list string) {
	t.Helper()
	root = t.TempDir()
	old := time.Now().Add(-time.Hour)
	pkg := filepath.Join(root, "engines", "x")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	lines := []string{"engines/x"}
	for i := range n {
		lines = append(lines, fmt.Sprintf("engines/x/f%d.go", i))
	}
	for _, p := range append([]string{"go.mod", "go.sum"}, lines[1:]...) {
		if err := os.WriteFile(filepath.Join(root, p), []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range append([]string{"go.mod", "go.sum", "engines", "."}, lines...) {
		if err := os.Chtimes(filepath.Join(root, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	bin = filepath.Join(t.TempDir(), "djinn-hook-0.1.0")
	list = filepath.Join(filepath.Dir(bin), ".djinn-0.1.0.inputs")
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	built := old.Add(time.Minute)
	if err := os.Chtimes(bin, built, built); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(list, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, bin, list
}

func TestSourcesNewer(t *testing.T) {
	later := time.Now()
	for _, tc := range []struct {
		name  string
		touch func(t *testing.T, root, list string)
		want  bool
	}{
		{"nothing changed", func(*testing.T, string, string) {}, false},
		{"a listed file edited", func(t *testing.T, root, _ string) {
			must(t, os.Chtimes(filepath.Join(root, "engines/x/f3.go"), later, later))
		}, true},
		{"a file added to a listed directory", func(t *testing.T, root, _ string) {
			must(t, os.Chtimes(filepath.Join(root, "engines/x"), later, later))
		}, true},
		{"go.sum changed", func(t *testing.T, root, _ string) {
			must(t, os.Chtimes(filepath.Join(root, "go.sum"), later, later))
		}, true},
		{"an unlisted file edited", func(t *testing.T, root, _ string) {
			p := filepath.Join(root, "notes.txt")
			must(t, os.WriteFile(p, nil, 0o644))
		}, false},
		{"a listed path outside the root, newer", func(t *testing.T, root, list string) {
			out := filepath.Join(filepath.Dir(root), "outside.go")
			must(t, os.WriteFile(out, nil, 0o644))
			t.Cleanup(func() { os.Remove(out) })
			appendLine(t, list, "../outside.go")
		}, true},
		{"a listed link to a newer file, followed", func(t *testing.T, root, list string) {
			target := filepath.Join(t.TempDir(), "real.go")
			must(t, os.WriteFile(target, nil, 0o644))
			must(t, os.Symlink(target, filepath.Join(root, "engines/x/link.go")))
			appendLine(t, list, "engines/x/link.go")
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, bin, list := staleTree(t, 5)
			tc.touch(t, root, list)
			if got := sourcesNewer(root, bin, list); got != tc.want {
				t.Errorf("sourcesNewer = %v, want %v", got, tc.want)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// appendLine adds a path to the source list.
func appendLine(t *testing.T, list, line string) {
	t.Helper()
	f, err := os.OpenFile(list, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(line + "\n")
	must(t, err)
	must(t, f.Close())
}

// BenchmarkSourcesNewer is the background staleness check of every hook
// over a list the size of the hook binary's (about 150 paths), nothing
// changed.
func BenchmarkSourcesNewer(b *testing.B) {
	root, bin, list := staleTree(b, 150)
	for b.Loop() {
		if sourcesNewer(root, bin, list) {
			b.Fatal("stale")
		}
	}
}
