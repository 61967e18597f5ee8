package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// hookCommands are the command lines hooks.json gives Claude Code for one
// event: every command hook of every group whose matcher matches what the
// event is matched on (the tool's name, SessionStart's source), which
// Claude Code starts in parallel and waits for, with
// ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA} substituted as Claude
// Code does. The shell form (no args) runs under sh -c, as Claude Code runs
// it.
func hookCommands(root, pluginData, event, matchOn string) ([][]string, error) {
	cfg, err := loadHooksJSON(root)
	if err != nil {
		return nil, err
	}
	sub := strings.NewReplacer("${CLAUDE_PLUGIN_ROOT}", root, "${CLAUDE_PLUGIN_DATA}", pluginData)
	var cmds [][]string
	for _, g := range cfg.Hooks[event] {
		if !matches(g.Matcher, matchOn) {
			continue
		}
		for _, h := range g.Hooks {
			if h.Type != "command" {
				continue
			}
			if h.Args == nil {
				cmds = append(cmds, []string{"/bin/sh", "-c", sub.Replace(h.Command)})
				continue
			}
			argv := []string{sub.Replace(h.Command)}
			for _, a := range *h.Args {
				argv = append(argv, sub.Replace(a))
			}
			cmds = append(cmds, argv)
		}
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("hooks.json runs no command for %s (%q)", event, matchOn)
	}
	return cmds, nil
}

// matches is Claude Code's matcher rule: empty or "*" matches everything,
// anything else is a regular expression over the whole value.
func matches(matcher, value string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	re, err := regexp.Compile("^(?:" + matcher + ")$")
	return err == nil && re.MatchString(value)
}

// hooksJSON is the part of hooks/hooks.json Claude Code runs.
type hooksJSON struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string    `json:"type"`
			Command string    `json:"command"`
			Args    *[]string `json:"args"`
		} `json:"hooks"`
	} `json:"hooks"`
}

func loadHooksJSON(root string) (*hooksJSON, error) {
	raw, err := os.ReadFile(filepath.Join(root, "hooks", "hooks.json"))
	if err != nil {
		return nil, err
	}
	var cfg hooksJSON
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("hooks.json: %w", err)
	}
	return &cfg, nil
}
