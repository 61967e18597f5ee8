package state

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// SessionInfo describes one session directory, for choosing a default.
type SessionInfo struct {
	ID         string
	ProjectDir string
	UpdatedAt  time.Time
}

// Sessions lists the sessions under the root, newest first. It reads only
// the identity fields of each window.json and skips directories whose name
// is not a valid session id.
func (s *Store) Sessions() ([]SessionInfo, error) {
	// sessions/ is opened without following a link; its entries' types are
	// the directory's own (d_type), so a link to a directory is not one.
	dfd, err := s.openDir(s.Root, []string{"sessions"}, walkRead)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	d := os.NewFile(uintptr(dfd), s.SessionsDir())
	entries, err := d.ReadDir(-1)
	_ = d.Close()
	if err != nil {
		return nil, err
	}
	var out []SessionInfo
	for _, e := range entries {
		if !e.IsDir() || ValidateSessionID(e.Name()) != nil {
			continue
		}
		info := SessionInfo{ID: e.Name()}
		p := filepath.Join(s.SessionsDir(), e.Name(), "window.json")
		if f, err := s.openFile(p, fileOpts{mode: walkRead, flags: os.O_RDONLY}); err == nil {
			if fi, err := f.Stat(); err == nil {
				info.UpdatedAt = fi.ModTime()
			}
			if raw, err := readOpen(f, MaxDocBytes); err == nil {
				// Read member by member, so a window a hand edit broke
				// later on (which the next hook repairs) is still found.
				if members, _, _ := topMembers(raw); members != nil {
					_ = json.Unmarshal(members["project_dir"], &info.ProjectDir)
				}
			}
			_ = f.Close()
		}
		out = append(out, info)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].UpdatedAt.After(out[j].UpdatedAt) })
	return out, nil
}
