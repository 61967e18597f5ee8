// Command codecgen writes state/codec_gen.go: MarshalJSON and UnmarshalJSON
// for the hot state documents and every type nested in them, as
// straight-line code instead of encoding/json's reflection, so that a
// short-lived hook process does not pay for building encoding/json's type
// caches. It reads the type declarations with go/parser (the package it
// generates for need not compile first); the runtime it calls is
// state/codec.go.
//
// Types of the generated package get the methods. Struct types of other
// packages of the module (the engines') are encoded and decoded by plain
// functions in the generated package, reading and writing their exported
// fields directly, so those packages stay untouched; a foreign type with
// JSON methods of its own is refused, as is any type or tag option the
// codec does not mirror exactly (the supported set is bool, int, int64,
// uint64, float64, string, time.Time, json.RawMessage, structs, slices,
// map[string]T and pointers; options: omitempty).
//
// Usage, from the package directory (see the go:generate line in
// state/types.go):
//
//	go run ./internal/codecgen -types Window,Turn,Advisory,Anchor -o codec_gen.go
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	types := flag.String("types", "", "comma-separated root types of the package")
	out := flag.String("o", "codec_gen.go", "the file to write, in the package directory")
	dir := flag.String("dir", ".", "the package directory")
	flag.Parse()
	if err := run(*dir, *out, strings.Split(*types, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "codecgen:", err)
		os.Exit(1)
	}
}

func run(dir, out string, roots []string) error {
	if len(roots) == 0 || roots[0] == "" {
		return fmt.Errorf("no -types")
	}
	src, err := generate(dir, out, roots)
	if err != nil {
		return err
	}
	return os.WriteFile(dir+"/"+out, src, 0o644)
}
