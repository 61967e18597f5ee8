package hookmain

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/djinn-cc/djinn/hooks"
)

// The launcher's staleness check is done in Go because the shell took two
// milliseconds of every hook for it. When the launcher (hooks/djinn) execs
// the cached binary it sets DJINN_LAUNCHER_ROOT and DJINN_LAUNCHER_BIN; if
// go.mod, go.sum, or an input of the build (the Go and embedded files of its
// packages and their directories, listed in .djinn-<version>.inputs beside
// it) is newer than the binary, the binary execs the launcher again with
// DJINN_REBUILD=1, which rebuilds under its lock and execs the new binary.
// Any problem means "not stale": a check that cannot run must not stop the
// hook.

// launcherPaths returns the plugin root, the binary the launcher ran and
// the list of its build's inputs (DJINN_LAUNCHER_INPUTS, else
// .<binary>.inputs beside it), or ok=false when this process was not
// started by the launcher (or is the launcher's rebuild run).
func launcherPaths(getenv func(string) string) (root, bin, inputs string, ok bool) {
	root, bin = getenv("DJINN_LAUNCHER_ROOT"), getenv("DJINN_LAUNCHER_BIN")
	if root == "" || bin == "" || getenv("DJINN_REBUILD") != "" {
		return "", "", "", false
	}
	inputs = getenv("DJINN_LAUNCHER_INPUTS")
	if inputs == "" {
		inputs = filepath.Join(filepath.Dir(bin), "."+filepath.Base(bin)+".inputs")
	}
	return root, bin, inputs, true
}

// hookLinkPaths is launcherPaths for a hook that Claude Code started
// through the link $CLAUDE_PLUGIN_DATA/bin/djinn-hook (hooks.json runs
// most events so, without the launcher): the root is $CLAUDE_PLUGIN_ROOT,
// the binary is this executable (the link's target, djinn-hook-<version>)
// and the inputs are the launcher's .djinn-<version>.inputs beside it.
// exe is os.Executable. ok=false when this is not such a process.
func hookLinkPaths(getenv func(string) string, exe func() (string, error)) (root, bin, inputs string, ok bool) {
	root = getenv("CLAUDE_PLUGIN_ROOT")
	if root == "" || getenv("DJINN_LAUNCHER_ROOT") != "" || getenv("DJINN_REBUILD") != "" {
		return "", "", "", false
	}
	bin, err := exe()
	if err == nil && filepath.Base(bin) == "djinn-hook" {
		// Where os.Executable gives the path it was started by (macOS),
		// that is the link: its target is the binary.
		bin, err = filepath.EvalSymlinks(bin)
	}
	if err != nil {
		return "", "", "", false
	}
	version, found := strings.CutPrefix(filepath.Base(bin), "djinn-hook-")
	if !found || version == "" {
		return "", "", "", false
	}
	return root, bin, filepath.Join(filepath.Dir(bin), ".djinn-"+version+".inputs"), true
}

// hookPaths is what a hook checks against: the launcher's paths, else the
// link's.
func hookPaths(getenv func(string) string) (root, bin, inputs string, ok bool) {
	if root, bin, inputs, ok = launcherPaths(getenv); ok {
		return
	}
	return hookLinkPaths(getenv, os.Executable)
}

// StaleRelaunch is the check for commands: it runs before stdin is read,
// so on a stale binary the launcher gets the untouched stdin.
func StaleRelaunch(getenv func(string) string, args []string) {
	root, bin, inputs, ok := launcherPaths(getenv)
	if !ok || !sourcesNewer(root, bin, inputs) {
		return
	}
	_ = execLauncher(root, args)
	// Exec failed: run this binary as it is.
}

// StaleAsync is the check for hooks, which are on the agent's critical
// path: its hundred stats (about half a millisecond) run beside the hook's
// own work, and the hook asks for the verdict before its handler runs or
// anything is written (hooks.Env.Gate). It returns nil when there is
// nothing to check, or when event is not one that checks (checksSources).
func StaleAsync(getenv func(string) string, event string) func() bool {
	if !checksSources(event) || getenv("DJINN_REBUILD") != "" || getenv("DJINN_LAUNCHER_ROOT") == "" && getenv("CLAUDE_PLUGIN_ROOT") == "" {
		return nil
	}
	verdict := make(chan bool, 1)
	go func() {
		root, bin, inputs, ok := hookPaths(getenv)
		verdict <- ok && sourcesNewer(root, bin, inputs)
	}()
	var stale, got bool
	return func() bool {
		if !got {
			stale, got = <-verdict, true
		}
		return stale
	}
}

// checksSources reports whether a hook of event (its name as given on the
// command line) checks that its binary is not older than its sources:
// SessionStart, where a session (new, resumed, compacted) begins, and
// UserPromptSubmit, where each turn begins, so a source changed between
// prompts (--plugin-dir development) runs from the next prompt on. The
// events inside a turn run the binary the turn began with: they are the
// most frequent (each tool call runs two), a rebuild there would stall the
// agent mid-turn on sources it may be half-way through editing, and
// SessionEnd's budget (1.5 s) could never hold a rebuild.
func checksSources(event string) bool {
	e, err := hooks.CanonicalEvent(event)
	return err == nil && (e == hooks.SessionStart || e == hooks.UserPromptSubmit)
}

// relaunchHook hands a hook whose binary turned out stale to the launcher:
// the payload it already read becomes the launcher's stdin (a temporary
// file, 0600, unlinked before the exec), and the launcher rebuilds and
// runs the new binary on it. It returns only on failure, having changed
// nothing but fd 0.
func relaunchHook(getenv func(string) string, args []string, payload []byte) error {
	root, _, _, ok := hookPaths(getenv)
	if !ok {
		return errors.New("not started by the launcher nor its link")
	}
	f, err := os.CreateTemp("", "djinn-payload-")
	if err != nil {
		return fmt.Errorf("keep the payload: %w", err)
	}
	defer f.Close()
	_ = os.Remove(f.Name())
	if _, err := f.Write(payload); err != nil {
		return fmt.Errorf("keep the payload: %w", err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		return fmt.Errorf("keep the payload: %w", err)
	}
	// dup2 leaves the new fd 0 without close-on-exec, so the launcher
	// inherits it.
	if err := unix.Dup2(int(f.Fd()), 0); err != nil {
		return fmt.Errorf("keep the payload: %w", err)
	}
	return execLauncher(root, args)
}

// execLauncher replaces this process with the launcher, asking it to
// rebuild. It returns only on failure.
func execLauncher(root string, args []string) error {
	env := append(os.Environ(), "DJINN_REBUILD=1")
	launcher := filepath.Join(root, "hooks", "djinn")
	return syscall.Exec(launcher, append([]string{launcher}, args[1:]...), env)
}

// sourcesNewer reports whether a source the binary depends on changed after
// it was built. The paths under root are looked up from root's descriptor,
// so the root's own path is walked once, not once per file.
func sourcesNewer(root, bin, list string) bool {
	fi, err := os.Stat(bin)
	if err != nil {
		return false
	}
	built := fi.ModTime()
	dir, err := os.Open(root)
	if err != nil {
		return false
	}
	defer dir.Close()
	fd := int(dir.Fd())
	newer := func(p string) bool {
		var st unix.Stat_t
		if rel, ok := underRoot(root, p); ok {
			err = unix.Fstatat(fd, rel, &st, 0)
		} else {
			err = unix.Stat(filepath.Join(root, p), &st)
		}
		return err == nil && time.Unix(st.Mtim.Unix()).After(built)
	}
	if newer("go.mod") || newer("go.sum") {
		return true
	}
	f, err := os.Open(list)
	if err != nil {
		return false // no list: the launcher checks everything itself when it builds
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p := strings.TrimSpace(sc.Text()); p != "" && newer(p) {
			return true
		}
	}
	return false
}

// underRoot returns p, a path in root's list, relative to root once
// cleaned as filepath.Join(root, p) cleans it, or ok=false when that path
// is not below root.
func underRoot(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, filepath.Join(root, p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}
