package state

import (
	"bytes"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
)

// PluginDataFile, at the default (XDG) state root, lists the plugin data
// directories ($CLAUDE_PLUGIN_DATA) whose hooks keep Djinn's state, one
// absolute path a line, newest last: how a command run from a plain shell,
// which has no $CLAUDE_PLUGIN_DATA, finds that state wherever Claude Code
// put it.
const PluginDataFile = "plugin-data"

// maxPluginData bounds the list (and what is read of it).
const (
	maxPluginData      = 16
	maxPluginDataBytes = 64 << 10
)

// PluginData returns the directories listed in the root's PluginDataFile
// (none when it is missing, unreadable, a link or too big).
func (s *Store) PluginData() []string {
	raw, err := s.readFile(filepath.Join(s.Root, PluginDataFile), maxPluginDataBytes, walkRead)
	if err != nil {
		return nil
	}
	return parsePluginData(raw)
}

// parsePluginData reads the list: absolute paths, one a line, each once.
func parsePluginData(raw []byte) []string {
	var out []string
	for _, l := range bytes.Split(raw, []byte("\n")) {
		if p := string(bytes.TrimSpace(l)); filepath.IsAbs(p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// RecordPluginData adds dir (absolute) to the root's PluginDataFile when it
// is not listed yet: on the usual path a single small read, a whole-file
// atomic write only when the list changes. The file is reached as every
// state file is (never through a link), and the list keeps the newest 16.
func (s *Store) RecordPluginData(dir string) error {
	if !filepath.IsAbs(dir) {
		return errors.New("plugin data directory not absolute: " + dir)
	}
	dir = filepath.Clean(dir)
	path := filepath.Join(s.Root, PluginDataFile)
	raw, err := s.readFile(path, maxPluginDataBytes, walkRead)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	dirs := parsePluginData(raw)
	if slices.Contains(dirs, dir) {
		return nil
	}
	dirs = append(slices.DeleteFunc(dirs, func(d string) bool { return d == dir }), dir)
	if len(dirs) > maxPluginData {
		dirs = dirs[len(dirs)-maxPluginData:]
	}
	var b bytes.Buffer
	for _, d := range dirs {
		b.WriteString(d + "\n")
	}
	return s.write(path, b.Bytes())
}
