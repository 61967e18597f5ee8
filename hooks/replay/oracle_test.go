package replay

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/djinn-cc/djinn/settings"
)

// tree reads every file under dir: name (relative) to mode and content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[rel] = fi.Mode().String() + "\n" + string(raw)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestFailedHookLeavesNoState: when a hook fails (here SessionEnd, which
// cannot append the session's learning: learnings.jsonl is a directory),
// the replay ends with its error and the state directory holds the window
// of the last successful hook, not one the failed hook changed in memory
// (it counted its event before failing).
func TestFailedHookLeavesNoState(t *testing.T) {
	f := "../../testdata/transcripts/spotter-4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "learnings.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), f, Options{WorkDir: filepath.Join(t.TempDir(), "work"), StateDir: dir, Settings: settings.Default()})
	if err == nil || !strings.Contains(err.Error(), "SessionEnd") {
		t.Fatalf("want the replay to fail at SessionEnd, got %v", err)
	}
	windows := 0
	for name, content := range tree(t, dir) {
		if filepath.Base(name) == "window.json" {
			windows++
			if strings.Contains(content, `"SessionEnd"`) {
				t.Errorf("%s counts the failed SessionEnd", name)
			}
		}
	}
	if windows != 1 {
		t.Errorf("%d windows written, want 1", windows)
	}
}
