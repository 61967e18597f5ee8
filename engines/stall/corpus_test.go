package stall

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// message is one natural text fed to the detector as an assistant message.
type message struct {
	source string // "go-md", "go-code", "transcript" or "transcript-block"
	name   string // file path, or file#message id
	text   string
}

// goRoot returns the Go installation to read, or "" if there is none.
func goRoot() string {
	if *flagGoRoot != "" {
		return *flagGoRoot
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// corpusDir returns the transcript directory: the flag, else ../shared beside
// the repository (the test runs in engines/stall).
func corpusDir() string {
	if *flagCorpus != "" {
		return *flagCorpus
	}
	return filepath.Join("..", "..", "..", "shared", "corpus", "transcripts")
}

// goFiles lists the files under root whose names end in ext, sorted.
func goFiles(root, ext string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ext) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", root, err)
	}
	slices.Sort(out)
	return out, nil
}

// goMarkdown reads every .md file of the Go installation, as it is.
func goMarkdown(root string) ([]message, error) {
	paths, err := goFiles(root, ".md")
	if err != nil {
		return nil, err
	}
	var out []message
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, message{source: "go-md", name: rel, text: string(b)})
	}
	return out, nil
}

// fenceGo shows a Go file the way an assistant would: in a ```go fence,
// after a sentence, as the whole answer.
func fenceGo(name, src string) string {
	if !strings.HasSuffix(src, "\n") {
		src += "\n"
	}
	return "Here is `" + name + "`:\n\n```go\n" + src + "```\n"
}

// assistantMessages reads every *.jsonl transcript in dir and returns the
// text of each assistant message, its text blocks joined by a blank line per
// message id, and each text block on its own (the count of 212).
func assistantMessages(dir string) (msgs, blocks []message, err error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", dir, err)
	}
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("no transcripts in %s: %w", dir, fs.ErrNotExist)
	}
	slices.Sort(paths)
	type line struct {
		Type    string `json:"type"`
		Message struct {
			ID      string `json:"id"`
			Content json.RawMessage
		} `json:"message"`
	}
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, nil, fmt.Errorf("open %s: %w", p, err)
		}
		byID := map[string]int{} // message id → index in msgs
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
		for sc.Scan() {
			var l line
			if json.Unmarshal(sc.Bytes(), &l) != nil || l.Type != "assistant" {
				continue
			}
			var content []block
			if json.Unmarshal(l.Message.Content, &content) != nil {
				continue // a plain-string content carries no text blocks here
			}
			for _, b := range content {
				if b.Type != "text" {
					continue
				}
				name := filepath.Base(p) + "#" + l.Message.ID
				blocks = append(blocks, message{source: "transcript-block", name: name, text: b.Text})
				if i, ok := byID[l.Message.ID]; ok && l.Message.ID != "" {
					msgs[i].text += "\n\n" + b.Text
					continue
				}
				byID[l.Message.ID] = len(msgs)
				msgs = append(msgs, message{source: "transcript", name: name, text: b.Text})
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", p, err)
		}
	}
	return msgs, blocks, nil
}
