package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generateArgs returns the arguments of the package's go:generate line
// for codecgen.
func generateArgs(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			if rest, ok := strings.CutPrefix(line, "//go:generate go run ./internal/codecgen "); ok {
				return strings.Fields(rest)
			}
		}
	}
	t.Fatalf("no go:generate line for codecgen in %s", dir)
	return nil
}

// TestGeneratedFileIsCurrent fails when state/codec_gen.go is not what
// the generator writes from today's types: run `go generate ./state`.
func TestGeneratedFileIsCurrent(t *testing.T) {
	dir := filepath.Join("..", "..")
	fs := flag.NewFlagSet("codecgen", flag.ContinueOnError)
	types := fs.String("types", "", "")
	out := fs.String("o", "codec_gen.go", "")
	if err := fs.Parse(generateArgs(t, dir)); err != nil {
		t.Fatal(err)
	}
	want, err := generate(dir, *out, strings.Split(*types, ","))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, *out))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("state/%s is stale: run `go generate ./state`", *out)
	}
}

// TestRefusals: what the codec cannot mirror exactly is refused, not
// generated approximately.
func TestRefusals(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"omitzero", "type Doc struct { A int `json:\"a,omitzero\"` }", "omitzero"},
		{"string option", "type Doc struct { A int `json:\"a,string\"` }", `"string"`},
		{"embedded", "type Inner struct{ A int }\ntype Doc struct { Inner }", "embedded"},
		{"array", "type Doc struct { A [2]int }", "arrays"},
		{"int map key", "type Doc struct { A map[int]string }", "map[string]T"},
		{"float32", "type Doc struct { A float32 }", "float32"},
		{"interface", "type Doc struct { A any }", "unsupported"},
		{"named string", "type Kind string\ntype Doc struct { A Kind }", "not a struct"},
		{"own methods", "type Doc struct { A int }\nfunc (Doc) MarshalJSON() ([]byte, error) { return nil, nil }", "hand-written"},
		{"duplicate names", "type Doc struct { A int `json:\"x\"`; B int `json:\"x\"` }", "two fields"},
		{"foreign methods", "import \"example.com/m/other\"\ntype Doc struct { A other.T }", "bypass"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			write := func(name, content string) {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("go.mod", "module example.com/m\n\ngo 1.26\n")
			write("other/other.go", "package other\n\ntype T struct{ A int }\n\nfunc (t *T) UnmarshalText([]byte) error { return nil }\n")
			write("doc/doc.go", "package doc\n\n"+c.src+"\n")
			_, err := generate(filepath.Join(root, "doc"), "codec_gen.go", []string{"Doc"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got error %v, want one containing %q", err, c.want)
			}
		})
	}
	t.Run("supported", func(t *testing.T) {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.26\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		src := "package m\n\nimport \"time\"\n\ntype Doc struct {\n\tA int `json:\"a,omitempty\"`\n\tB []*Doc `json:\"b\"`\n\tC map[string]G[Doc]\n\tT time.Time\n\tskip int\n\tD string `json:\"-\"`\n\tE string `json:\"-,\"`\n}\n\ntype G[X any] struct{ Items []X }\n"
		if err := os.WriteFile(filepath.Join(root, "m.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := generate(root, "codec_gen.go", []string{"Doc"})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"`\"a\":`", "e.comma()", "`,\"C\":`", "`,\"T\":`", "`,\"-\":`", "func encGOfDoc(", "e.time(v.T)", "func (v Doc) MarshalJSON", "func (v *Doc) Clone() Doc", "func cloneGOfDoc(d, s *G[Doc]) {", "d.A = s.A", "d.T = s.T"} {
			if !bytes.Contains(out, []byte(want)) {
				t.Errorf("generated code lacks %s", want)
			}
		}
		if bytes.Contains(out, []byte("func (v G[")) {
			t.Error("generated methods on an instantiated generic type")
		}
		if bytes.Contains(out, []byte("v.D")) || bytes.Contains(out, []byte("v.skip")) {
			t.Error("generated code encodes a skipped field")
		}
	})
}
