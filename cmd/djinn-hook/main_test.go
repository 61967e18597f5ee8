package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The hook binary is a static Go program: a dependency that links cgo
// (os/user, net) would load libc on every hook and reserve glibc's arenas,
// which a 50 MB response under ulimit -v then cannot afford.
func TestHookBinaryLinksNoCgo(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch pkg {
		case "runtime/cgo", "os/user", "net":
			t.Errorf("the hook binary imports %s", pkg)
		}
	}
}
