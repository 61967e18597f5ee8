package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// staleRelaunch is the launcher's staleness check, done in Go because the
// shell took two milliseconds of every hook for it. When the launcher
// (hooks/djinn) execs the cached binary it sets DJINN_LAUNCHER_ROOT and
// DJINN_LAUNCHER_BIN; if go.mod, go.sum, or an input of the build (the Go
// and embedded files of its packages and their directories, listed in
// .djinn-<version>.inputs beside it) is newer than the binary, the binary
// execs the launcher again with
// DJINN_REBUILD=1, which rebuilds under its lock and execs the new binary.
// It runs before stdin is read, so the payload is untouched. Any problem
// means "not stale": a check that cannot run must not stop the hook.
func staleRelaunch(getenv func(string) string, args []string) {
	root, bin := getenv("DJINN_LAUNCHER_ROOT"), getenv("DJINN_LAUNCHER_BIN")
	if root == "" || bin == "" || getenv("DJINN_REBUILD") != "" {
		return
	}
	if !sourcesNewer(root, bin) {
		return
	}
	env := append(os.Environ(), "DJINN_REBUILD=1")
	launcher := filepath.Join(root, "hooks", "djinn")
	_ = syscall.Exec(launcher, append([]string{launcher}, args[1:]...), env)
	// Exec failed: run this binary as it is.
}

// sourcesNewer reports whether a source the binary depends on changed after
// it was built.
func sourcesNewer(root, bin string) bool {
	fi, err := os.Stat(bin)
	if err != nil {
		return false
	}
	built := fi.ModTime()
	newer := func(p string) bool {
		s, err := os.Stat(p)
		return err == nil && s.ModTime().After(built)
	}
	if newer(filepath.Join(root, "go.mod")) || newer(filepath.Join(root, "go.sum")) {
		return true
	}
	list := filepath.Join(filepath.Dir(bin), "."+filepath.Base(bin)+".inputs")
	f, err := os.Open(list)
	if err != nil {
		return false // no list: the launcher checks everything itself when it builds
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p := strings.TrimSpace(sc.Text()); p != "" && newer(filepath.Join(root, p)) {
			return true
		}
	}
	return false
}
