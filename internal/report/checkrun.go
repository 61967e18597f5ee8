package report

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/djinn-cc/djinn/internal/shellword"
)

// A check run is a shell command that tests or builds the project: what
// /djinn:rank takes as verifying the edits made before it when it passes.
var (
	// checkTools test or type-check whatever their arguments.
	checkTools = words("pytest", "jest", "vitest", "mocha", "rspec", "phpunit", "ctest", "tox", "nox", "tsc", "unittest", "playwright")
	// buildTools test or build when their subcommand (or npm script) says
	// so: "go test", "cargo build", "npm run build", "make check".
	buildTools = words("go", "cargo", "npm", "pnpm", "yarn", "bun", "deno", "make", "mvn", "gradle", "gradlew", "dotnet", "mix", "swift", "zig", "bazel", "sbt", "stack", "cabal", "just", "nix", "uv", "poetry", "hatch")
	checkVerbs = words("test", "tests", "build", "check", "compile", "vet", "verify", "typecheck", "type-check")
)

func words(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// isCheckRun reports whether a shell command line runs a test or a build.
// It reads each simple command of the line (a wrapper such as "nix develop
// --command go test" or "timeout 60 pytest" included); a line the shell
// parser refuses (a summary cut short) is read as one command of words.
func isCheckRun(cmd string) bool {
	var calls [][]string
	if f, err := syntax.NewParser().Parse(strings.NewReader(cmd), ""); err == nil {
		syntax.Walk(f, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok {
				args := make([]string, len(c.Args))
				for i, w := range c.Args {
					args[i] = shellword.Lenient(w)
				}
				calls = append(calls, args)
			}
			return true
		})
	} else {
		calls = [][]string{strings.Fields(cmd)}
	}
	for _, args := range calls {
		if checkArgs(args) {
			return true
		}
	}
	return false
}

// checkArgs reports whether one simple command's words run a check.
func checkArgs(args []string) bool {
	for i, a := range args {
		b := strings.ToLower(path.Base(a))
		if checkTools[b] {
			return true
		}
		if !buildTools[b] {
			continue
		}
		// The first two words after the tool that are not flags: the
		// subcommand, or "run" and the script's name.
		n := 0
		for _, w := range args[i+1:] {
			if strings.HasPrefix(w, "-") {
				continue
			}
			verb, _, _ := strings.Cut(strings.ToLower(w), ":")
			if checkVerbs[verb] {
				return true
			}
			if n++; n == 2 {
				break
			}
		}
		if b == "make" && n == 0 {
			return true // make's default target builds
		}
	}
	return false
}
