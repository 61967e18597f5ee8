// Command externalsessions fetches the sessions of testdata/eval-external:
// real public Claude Code sessions whose repositories carry no licence, so
// that they are evaluated here but never committed. sources.tsv names each
// one by repository, commit and path, with the SHA-256 of the session as
// judged; a session whose bytes differ is refused, not written.
//
//	go run ./scripts/externalsessions [-dir testdata/eval-external] [-mirrors DIR]
//
// Without -mirrors each repository is cloned (blobs on demand) from GitHub
// into a cache under the user's cache directory; with it, DIR/<owner>+<name>/repo
// is a bare copy to read from instead.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Source is one row of sources.tsv.
type Source struct {
	Name, Repo, Commit, Path, SHA256 string
}

func main() {
	dir := flag.String("dir", "testdata/eval-external", "the external set: sources.tsv, and sessions/ to fill")
	mirrors := flag.String("mirrors", "", "read repositories from DIR/<owner>+<name>/repo (bare) instead of cloning them")
	flag.Parse()
	if err := run(*dir, *mirrors); err != nil {
		fmt.Fprintln(os.Stderr, "externalsessions:", err)
		os.Exit(1)
	}
}

func run(dir, mirrors string) error {
	srcs, err := readSources(filepath.Join(dir, "sources.tsv"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "sessions"), 0o755); err != nil {
		return err
	}
	var failed []string
	for _, s := range srcs {
		// A subagent's transcript is named by its place beside the
		// session's (<session-id>/subagents/agent-<id>), where replay
		// looks for it; no name leaves sessions/.
		if !filepath.IsLocal(s.Name) {
			return fmt.Errorf("%s: name %q is not a path inside sessions/", s.Repo, s.Name)
		}
		out := filepath.Join(dir, "sessions", s.Name+".jsonl")
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if have, err := os.ReadFile(out); err == nil && sum(have) == s.SHA256 {
			continue
		}
		data, err := fetch(s, mirrors)
		if err == nil {
			data, err = Lines(data)
		}
		if err == nil && sum(data) != s.SHA256 {
			err = fmt.Errorf("SHA-256 %s, want %s: not the session that was judged", sum(data), s.SHA256)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "externalsessions: %s (%s@%s:%s): %v\n", s.Name, s.Repo, s.Commit, s.Path, err)
			failed = append(failed, s.Name)
			continue
		}
		if err := os.WriteFile(out, data, 0o644); err != nil {
			return err
		}
		fmt.Printf("%s: %d bytes from %s@%.12s:%s\n", s.Name, len(data), s.Repo, s.Commit, s.Path)
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d sessions not fetched: %s", len(failed), len(srcs), strings.Join(failed, ", "))
	}
	return nil
}

// readSources reads sources.tsv: a header line, then name, repository,
// commit, path and SHA-256, tab-separated; # starts a comment.
func readSources(path string) ([]Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma, r.Comment, r.FieldsPerRecord = '\t', '#', 5
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w (want 5 columns: name, repository, commit, path, sha256)", path, err)
	}
	var out []Source
	for _, c := range rows[min(1, len(rows)):] {
		out = append(out, Source{c[0], c[1], c[2], c[3], c[4]})
	}
	return out, nil
}

// fetch returns the file at the source's commit.
func fetch(s Source, mirrors string) ([]byte, error) {
	slug := strings.ReplaceAll(s.Repo, "/", "+")
	var gitDir string
	if mirrors != "" {
		gitDir = filepath.Join(mirrors, slug, "repo")
	} else {
		cache, err := os.UserCacheDir()
		if err != nil {
			return nil, err
		}
		gitDir = filepath.Join(cache, "djinn-eval-external", slug+".git")
		if _, err := os.Stat(gitDir); err != nil {
			if err := git("", "clone", "--quiet", "--bare", "--filter=blob:none", "https://github.com/"+s.Repo, gitDir); err != nil {
				return nil, err
			}
		}
	}
	cmd := exec.Command("git", "--git-dir", gitDir, "show", s.Commit+":"+s.Path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git show: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

func git(dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Lines returns a transcript as JSON Lines: a file that is one JSON array
// (the logs/chat.json a Stop hook of the hooks template writes) becomes
// one element a line, each compacted as written (escapes kept); any other
// file is returned as it is.
func Lines(data []byte) ([]byte, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return data, nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(trimmed, &elems); err != nil {
		return nil, fmt.Errorf("a JSON array that does not decode: %w", err)
	}
	var b bytes.Buffer
	for _, e := range elems {
		if err := json.Compact(&b, e); err != nil {
			return nil, err
		}
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
