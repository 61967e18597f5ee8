package loops

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFailureKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Error: listen EADDRINUSE: address already in use :::3000", "address in use :3000"},
		// Windows' Store alias for python (ext-weeklypdca #66-#73); a
		// program that exits 49 saying more is not it.
		{"Exit code 49\nPython", StorePythonKey},
		{"Python was not found; run without arguments to install from the Microsoft Store, or disable this shortcut from Settings > Manage App Execution Aliases.", StorePythonKey},
		{"Exit code 49\nPython 3.12.1 traceback follows", ""},
		{"The following paths are ignored by one of your .gitignore files:\nathena\nhint: Use -f if you really want to add them.", "git add refused: the path is ignored by .gitignore"},
		{"OSError: [Errno 98] Address already in use (port 8000)", "address in use :8000"},
		{"error: password authentication failed for user \"app\"", "authentication failed for user \"app\""},
		{"ERROR 1045 (28000): Access denied for user 'root'@'localhost'", "access denied for user 'root'@'localhost'"},
		{"Error: Cannot find module 'express'\nRequire stack:", "missing express"},
		// What a bundler prints under its warnings is not the failure
		// (ext-solsmile #102-#106): Next's "Compiled with warnings", then
		// the type error after "Failed to compile"; webpack's "WARNING in"
		// block, then its "ERROR in" one.
		{"⚠ Compiled with warnings in 37.9s\n\nModule not found: Can't resolve '@react-native-async-storage/async-storage' in '/p/node_modules/@metamask/sdk'\n\nFailed to compile.\n\nError: Cannot find module 'express'", "missing express"},
		{"⚠ Compiled with warnings in 11.3s\n\nModule not found: Can't resolve '@react-native-async-storage/async-storage' in '/p'\n\n✓ Generating static pages (6/6)", ""},
		{"WARNING in ./src/a.js\nModule not found: Can't resolve 'fsevents' in '/p/src'\n\nERROR in ./src/b.js\nModule not found: Error: Can't resolve 'lodash' in '/p/src'", "missing lodash"},
		{"Module not found: Can't resolve 'lodash' in '/p/src'", "missing lodash"},
		{"ModuleNotFoundError: No module named 'requests'", "missing requests"},
		// One missing dependency, however it shows (attio-mcp-2, calls 76-79).
		{"> vitest run\n\nsh: vitest: command not found", "missing vitest"},
		{"ls: node_modules/.bin/vitest: No such file or directory", "missing vitest"},
		{"Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'vitest' imported from /p/vitest.config.ts", "missing vitest"},
		{"ls: node_modules/@types/node/index.d.ts: No such file or directory", "missing @types/node"},
		{"bash: ./deploy.sh: Permission denied", "permission denied ./deploy.sh"},
		{"ls: cannot access 'types/': No such file or directory", "no such file types/"},
		{"/root/.bashrc: line 3: nvm: command not found\nmake: *** [all] Error 2", ""},
		// Claude Code's Bash tool failing its own set-up, whatever the
		// command: no failure of the command's (y-brainflow2-10136fad,
		// s-homeprojects-19d8ea1e, t-claudeagents-49b5bf2c); an error of
		// the command's after it still counts.
		{"zsh:source:1: no such file or directory: /Users/b/.claude/shell-snapshots/snapshot-zsh-4a9fbb39.sh", ""},
		{"zsh:source:1: no such file or directory: /Users/b/.claude/shell-snapshots/snapshot-zsh-4a9fbb39.sh\nError: Cannot find module 'express'", "missing express"},
		{"EACCES: permission denied, mkdir '/tmp/claude-10603'", ""},
		{"Command failed: cygpath -u 'C:\\Users\\B\\AppData\\Local\\Temp'\n/usr/bin/bash: line 1: cygpath: command not found", ""},
		{"EACCES: permission denied, mkdir '/tmp/cache'", "permission denied /tmp/cache"},
		{"bash: tsc: command not found", "missing tsc"},
		// PowerShell and cmd.exe (ext-firstpr #4-#6).
		{"Exit code 1\ngh : The term 'gh' is not recognized as the name of a cmdlet, function, script file, or operable program.", "missing gh"},
		{"& : The term 'C:\\Program Files\\GitHub CLI\\bin\\gh.exe' is not recognized as the name of a cmdlet, function, script", "missing gh"},
		{"'node' is not recognized as an internal or external command,", "missing node"},
		{"The term is not recognized as the name of a cmdlet", ""},
		// A warning git prints on every call is no failure (mthis-action 76).
		{"warning: unable to access '/home/u/.gitignore_global': Permission denied\nerror: gpg failed to sign the data", ""},
		{"bash: ./node_modules/.bin/tsc: command not found", "missing tsc"},
		{"Exit code 1\n--- FAIL: TestAdd (0.00s)", ""},
		// Classes whose words say what failed, whatever command met them.
		{"Exit code 1\nsudo: a terminal is required to read the password; either use the -S option to read from standard input or configure an askpass helper\nsudo: a password is required", "sudo cannot ask for the password"},
		{"sudo: no tty present and no askpass program specified", "sudo cannot ask for the password"},
		// The CLI refusing a write to a file changed since it was read,
		// both wordings, whichever file (ext-pxappraisal, ext-omega).
		{"File has been unexpectedly modified. Read it again before attempting to write it.", "the file changed on disk after it was read"},
		{"<tool_use_error>File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.</tool_use_error>", "the file changed on disk after it was read"},
		{"<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>", ""},
		// The CLI's auto mode refusing a call: one long line, its reason
		// worded anew each time (ext-harnesslab #24).
		{"Error: Permission for this action was denied by the Claude Code auto mode classifier. Reason: `rtk` is an unknown wrapper prefixed onto `npm run build`, masking what actually executes from the classifier — a safety-check bypass pattern.. If you have other tasks that don't depend on this action, continue working on those. IMPORTANT: You *may* attempt to accomplish this action using other tools that might naturally be used to accomplish this goal, e.g. using head instead of cat. But you *should not* attempt to work around this denial in malicious ways.", "denied by Claude Code's auto-mode classifier"},
		{"The classifier says the Permission for this action was denied by the Claude Code auto mode classifier", ""},
		// Homebrew behind the release (mthis-tmuxapp #43-#44); installing
		// what is installed is no failure.
		{"✔︎ JSON API cask.jws.json\nWarning: Not upgrading claude-code, the latest version is already installed", "brew has no newer version to upgrade to"},
		{"Warning: jq 1.7.1 is already installed and up-to-date.\nTo reinstall 1.7.1, run:\n  brew reinstall jq", ""},
		// TaskOutput given a finished Task's agentId (procrypto-screenerstyle
		// #165 and #177, the sixteenth held-out set, marked by judges AI and AJ).
		{"<tool_use_error>No task found with ID: ac8de3d</tool_use_error>", "TaskOutput finds no task by a subagent's id"},
		{"<tool_use_error>No task found with ID: a2c2ff0b877db3be8</tool_use_error>", "TaskOutput finds no task by a subagent's id"},
		// A background shell's id is no subagent's (g-claudeconfig-81398a09 #19).
		{"<tool_use_error>No task found with ID: bxlj7393q</tool_use_error>", ""},
		// npm run from a directory whose package.json lacks the script,
		// whichever script (ext-restaurant #85-#92, marked by judges AQ
		// and AR on the twentieth set); pnpm says it its own way.
		{"npm error Missing script: \"lint\"\nnpm error\nnpm error To see a list of scripts, run:\nnpm error   npm run", "npm finds no such script in the package.json where it runs"},
		{"npm ERR! missing script: type-check", "npm finds no such script in the package.json where it runs"},
		{"ERR_PNPM_NO_SCRIPT  Missing script: build", "npm finds no such script in the package.json where it runs"},
		{"echo Missing script: lint", ""},
		// An Edit whose new text is its old text (ext-n8njson #3, #5,
		// marked by both judges of the twenty-ninth set).
		{"<tool_use_error>No changes to make: old_string and new_string are exactly the same.</tool_use_error>", "an Edit whose new text is the same as the old"},
		{"String to replace not found in file.\nString: No changes to make", ""},
		{"npm error To see a list of scripts, run:\nnpm error   npm run\nnpm error A complete log of this run can be found in: /Users/m/.npm/_logs/x-debug-0.log", "npm finds no such script in the package.json where it runs"},
		// A path split at its escaped space (athena-notesdb #1-#2).
		{"ls: /Users/j/Library/Group\\: No such file or directory\nls: Containers/: No such file or directory", "a path with an escaped space was split in two"},
		{"sudo: 3 incorrect password attempts", ""},
		{"Error processing C:\\Users\\m\\a.jsonl: bad escape \\U at position 2", "bad escape \\U"},
		{"Warning: Error processing a.jsonl line 176: incomplete escape \\U at position 3", "bad escape \\U"},
		{"SyntaxError: (unicode error) 'unicodeescape' codec can't decode bytes in position 2-3: truncated \\UXXXXXXXX escape", "bad escape \\U"},
		{"re.error: bad escape (end of pattern) at position 0", "bad escape"},
		{"      0 [main] bash 362 dofork: child -1 - forked process 12728 died unexpectedly, retry 0, exit code 0xC0000142, errno 11", ""},
		{"remote: error: GH013: Repository rule violations found for refs/heads/x.        ", "push refused by the repository's rules"},
		{"To github.com:o/r.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs", "push rejected main"},
		{" ! [remote rejected] HEAD -> feature (pre-receive hook declined)", "push rejected feature"},
		{"chmod: changing permissions of './w/a.yml': Operation not permitted", "permission denied ./w/a.yml"},
		{"EACCES: permission denied, open '/home/u/w/a.yml'", "permission denied /home/u/w/a.yml"},
		// The words of a class in a passing mention are not a failure.
		{"Fixed the escape handling; tests pass", ""},
		{"", ""},
	} {
		if got := FailureKey(tc.in); got != tc.want {
			t.Errorf("FailureKey(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestOutputFailureKey(t *testing.T) {
	for _, tc := range []struct{ cmd, out, want string }{
		{"node -e 'x'", "fail password authentication failed for user \"app\"", "authentication failed for user \"app\""},
		{"cd web && PORT=3 npm start", "Error: listen EADDRINUSE: address already in use :::3000", "address in use :3000"},
		{"grep -rn EADDRINUSE src", "src/a.ts:3: Error: listen EADDRINUSE: address already in use :::3000", ""},
		{"cat out.log | tail -5", "Error: listen EADDRINUSE: address already in use :::3000", ""},
		{"npm test", "src/a.test.ts:12: expect(e).toMatch('No such file or directory')", ""},
		{"npm test", "  // throws 'Cannot find module' when missing", ""},
		{"npm test", "Tests: 12 passed, 0 failed", ""},
		// A question left waiting for an answer no one can give
		// (ext-cityofperla #4-#7, ext-solsmile #48-#52: create-next-app
		// asked again however stdin was fed); one answered is not.
		{"npx create-next-app@latest x --ts", "\x1b[?25l\x1b[2K\x1b[1G\x1b[36m?\x1b[39m \x1b[1mWould you like to use React Compiler?\x1b[22m \x1b[90m›\x1b[39m \x1b[36m\x1b[4mNo\x1b[39m\x1b[24m \x1b[90m/\x1b[39m Yes\nnpm warn exec The following package was not found and will be installed: create-next-app@16.0.0", PromptKey},
		{"echo N | npx create-next-app@latest x", "\x1b[32m✔\x1b[39m Would you like to use React Compiler? … No / Yes\n\x1b[36m?\x1b[39m Would you like to use Turbopack? (recommended) \x1b[90m›\x1b[39m No / Yes", PromptKey},
		{"./install.sh", "Overwrite existing config? [y/N]", PromptKey},
		{"npx create-next-app@latest frontend < /dev/null", "\x1b[36m?\x1b[39m \x1b[1mWould you like to use \x1b[34mReact Compiler\x1b[39m?\x1b[22m \x1b[90m»\x1b[39m No \x1b[90m/\x1b[39m Yes", PromptKey},
		{"yes '' | npx create-next-app@latest x", "✔ Would you like to use Turbopack? … No / Yes\nCreating a new Next.js app in /w/x.\nSuccess! Created x", ""},
		{"cat notes.md", "Is this right? (see the docs)", ""},
	} {
		if got := OutputFailureKey(tc.cmd, tc.out); got != tc.want {
			t.Errorf("OutputFailureKey(%q, %q) = %q, want %q", tc.cmd, tc.out, got, tc.want)
		}
	}
}

// TestEventEdits: a shell command that writes a file, read from the parsed
// command, is marked as an edit (Event.Edits); one that only reads, or
// sends its output to a stream or /dev/null, is not. A heredoc rewrite
// longer than the key's bound is still read for its writes.
func TestEventEdits(t *testing.T) {
	long := "cat > \"$HOME/M/scripts/sync.py\" << 'SCRIPT_EOF'\n" + strings.Repeat("import os\n", 3000) + "SCRIPT_EOF"
	for cmd, want := range map[string]bool{
		"cat > \"$HOME/M/scripts/sync.py\" << 'SCRIPT_EOF'\nimport os\nSCRIPT_EOF": true,
		long:                                 true,
		"echo x >> notes.txt":                true,
		"go test ./... 2>&1 | tee out.log":   true,
		"sed -i 's/a/b/' main.go":            true,
		"cd src && sed -i.bak 's/a/b/' x.go": true,
		"sed -n 1,5p main.go":                false,
		"npm test 2>&1 | tail -20":           false,
		"make >/dev/null 2>&1":               false,
		"ls -la &> /dev/null":                false,
		"git log --oneline | tee":            false,
		"git push origin main":               false,
		"echo 'a -> b' && python -c 'x > 1'": false,
	} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		if e, _ := NewEventIn("Bash", in, cmd, "", "/p"); e.Edits != want {
			t.Errorf("Edits(%.60q) = %v, want %v", cmd, e.Edits, want)
		}
	}
}

func TestUnfinishedKey(t *testing.T) {
	for cmd, want := range map[string]string{
		`cd ~/M && git commit -m "$(cat <<'EOF'\nAdd reports\nEOF\n)"`:      "git commit did not finish",
		`powershell.exe -Command "cd 'C:\\M'; git commit -m 'Add reports'"`: "git commit did not finish",
		"git -C /repo push origin main":                                     "git push did not finish",
		"npm test":                                                          "",
		"cargo build --release":                                             "",
	} {
		if got := UnfinishedKey(cmd); got != want {
			t.Errorf("UnfinishedKey(%q) = %q, want %q", cmd, got, want)
		}
	}
}

func TestWebFetchKey(t *testing.T) {
	for result, want := range map[string]string{
		"Prompt is too long":    PageTooLongKey,
		" Prompt is too long\n": PageTooLongKey,
		"# Webhooks\n\nLinear sends webhooks… the prompt is too long to summarise": "",
		"": "",
	} {
		if got := WebFetchKey(result); got != want {
			t.Errorf("WebFetchKey(%q) = %q, want %q", result, got, want)
		}
	}
}

// TestWebFetchFailureKey: a WebFetch failing by HTTP status is keyed by
// the status's class and the site, so guessed pages of one site are one
// failure; other failures and addresses with no host have no key.
func TestWebFetchFailureKey(t *testing.T) {
	for _, tc := range []struct{ url, err, want string }{
		{"https://code.claude.com/docs/en/building/plugins", "Request failed with status code 404", MissingPageKey + "code.claude.com"},
		{"https://example.org/gone", "Request failed with status code 410", MissingPageKey + "example.org"},
		{"https://www.reddit.com/r/x", "Request failed with status code 403", RefusedPageKey + "www.reddit.com"},
		{"https://example.org/", "Request failed with status code 500", ""},
		{"https://example.org/", "Claude Code is unable to fetch from example.org", ""},
		{"not a url", "Request failed with status code 404", ""},
	} {
		if got := WebFetchFailureKey(tc.url, tc.err); got != tc.want {
			t.Errorf("WebFetchFailureKey(%q, %q) = %q, want %q", tc.url, tc.err, got, tc.want)
		}
	}
}

// TestSudoRefused: sudo's refusals for want of a password or a terminal,
// on any line, whatever case; not sudo's other errors nor a mention.
func TestSudoRefused(t *testing.T) {
	for text, want := range map[string]bool{
		"Exit code 1\nsudo: a terminal is required to read the password; either use the -S option": true,
		"sudo: a password is required\n":                          true,
		"  sudo: no tty present and no askpass program specified": true,
		"sudo: foo: command not found":                            false,
		"the docs say sudo: a password is required when …":        false,
		"": false,
	} {
		if got := SudoRefused(text); got != want {
			t.Errorf("SudoRefused(%q) = %v, want %v", text, got, want)
		}
	}
}
