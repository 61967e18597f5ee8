package risk

import (
	"strings"
	"testing"
)

func TestPickedOption(t *testing.T) {
	const options = "## Your Options:\n\n**Option 1:** Restore the deleted files from `47f62f9`\n```bash\ngit checkout 47f62f9 -- packages/admin/TokenVault\n```\n\n**Option 2:** Remove the imports and hide the TokenVault tab (quick fix)\n\n**Option 3:** Check if there was a reason for deleting these\n\nWhat would you like to do?"
	const korean = "**방법 1 (권장)**: 새로 git을 초기화하기\n```bash\nrm -rf .git\ngit push -u origin main --force\n```\n\n**방법 2**: 현재 저장소를 유지하기\n\n방법 1을 추천하는데, 진행하시겠어요?"
	const asked = "The command stopped awaiting approval.\n\nWould you like me to:\n1. Run it with `--dangerously-skip-permissions` to auto-approve actions\n2. Proceed with the steps manually (write tests, run them, analyze coverage)"
	const summary = "What Was Fixed:\n1. Restored TokenVault components\n2. Rebuilt Next.js\n\nThe Master Controller is functional."
	for _, tc := range []struct {
		name, prompt, message, want string
	}{
		{"option word", "Option 1 of course", options, "git checkout 47f62f9"},
		{"korean", "1번으로 진행해줘", korean, "rm -rf .git"},
		{"digit alone", "2", options, "Remove the imports"},
		{"verb of choosing", "go with 3", options, "Check if there was a reason"},
		{"hash", "#2.", options, "Remove the imports"},
		{"no such option", "option 4", options, ""},
		{"a numbered summary offers no options", "1", summary, ""},
		{"a count is no pick", "fix the 2 failing tests", options, ""},
		{"a version is no pick", "use node 1.5 instead", options, ""},
		{"two numbers", "option 1 or 2?", options, ""},
		{"a long prompt", "Option 1, but first tell me why the files were deleted in that commit and by whom", options, ""},
		{"one option offers no choice", "1", "**Option 1:** restore the files", ""},
		// ext-aqefleet #34 (the forty-fifth set): a numbered list after
		// "Would you like me to:" offers its items.
		{"a list asked for", "1", asked, "--dangerously-skip-permissions"},
		{"a list asked for, second item", "2", asked, "Proceed with the steps"},
		{"a list of steps then a question", "1", "Next steps:\n1. Run the migrations\n2. Restart the server\n\nWould you like me to continue?", ""},
		{"a list asked for that skips a number", "1", "Should I:\n1. Push now\n3. Wait", ""},
		// A short closing paragraph after the list (t-opencode-765a9806
		// #161, fifth draw).
		{"a list asked for, then a closing line", "1", asked + "\n\nI recommend the second.", "--dangerously-skip-permissions"},
		{"a list asked for, then a closing line, second", "2", "Would you like me to:\n1. **Create the remaining 4 security test suites** (C-3 through C-6)?\n2. **Run coverage analysis** to see current test coverage?\n3. **Create a final security audit report**?\n\nAll core functionality is now tested and passing! 🚀", "Run coverage analysis"},
		{"a list asked for, then another list", "1", asked + "\n\nSteps after that:\n1. Commit\n2. Push", ""},
		{"a list asked for, then a long text", "1", asked + "\n\n" + strings.Repeat("More notes about the run. ", 20), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := PickedOption(tc.prompt, tc.message)
			if tc.want == "" {
				if ok {
					t.Fatalf("picked %q", got)
				}
				return
			}
			if !ok || !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, %v; want it to hold %q", got, ok, tc.want)
			}
			if strings.Count(got, "**Option") > 1 || strings.Count(got, "**방법") > 1 {
				t.Errorf("the pick runs into the next option: %q", got)
			}
		})
	}
}

// TestPickedOptionCovers: the commands listed in the option picked are
// asked for; those of an option not picked are not.
func TestPickedOptionCovers(t *testing.T) {
	const korean = "**방법 1 (권장)**: 새로 git을 초기화하기\n```bash\nrm -rf .git\ngit push -u origin main --force\n```\n\n**방법 2**: 현재 저장소를 유지하고 git push --force 로 덮어쓰기"
	rm := Check(Call{Tool: "Bash", Command: "rm -rf .git", ProjectDir: "/Users/m/workspace/site"}.WithParse())
	push := Check(Call{Tool: "Bash", Command: "git push -u origin main --force", ProjectDir: "/Users/m/workspace/site"}.WithParse())
	if len(rm) == 0 || len(push) == 0 {
		t.Fatalf("findings: rm %v, push %v", rm, push)
	}
	picked, ok := PickedOption("1번으로 진행해줘", korean)
	if !ok {
		t.Fatal("no pick")
	}
	for _, f := range append(rm, push...) {
		if !Covered(f, []Instruction{{Text: picked}}) {
			t.Errorf("%s on %q not covered by the option picked", f.Entry.ID, f.Target)
		}
	}
	other, _ := PickedOption("2", korean)
	if Covered(rm[0], []Instruction{{Text: other}}) {
		t.Errorf("rm -rf .git covered by the option not picked: %q", other)
	}
}

// TestLastQuestion: the question a short yes answers is the last one of
// the message's last paragraph; a message that ends without one asks
// nothing.
func TestLastQuestion(t *testing.T) {
	for msg, want := range map[string]string{
		"Combined `CLAUDE.md` created with:\n- pricing\n- schema\n\nShould I delete `Concept_Clarification.md` now that everything is consolidated, or keep it as a backup?": "Should I delete `Concept_Clarification.md` now that everything is consolidated, or keep it as a backup?",
		"Want me to push? I can also open the PR.\n\nDone. The tests pass.":                                                                                                  "",
		"Two things changed. Shall I force-push the rebased branch? It rewrites origin.":                                                                                     "Shall I force-push the rebased branch?",
		"": "",
	} {
		if got := LastQuestion(msg); got != want {
			t.Errorf("LastQuestion(%q) = %q, want %q", msg, got, want)
		}
	}
}

// TestItemsNamed: a prompt that asks to delete names an item of the
// agent's numbered list by its title ("version managers ok cancella",
// ext-dotfoldercleanup #40); a title of one word, a title not all said, or
// a prompt that asks nothing picks none.
func TestItemsNamed(t *testing.T) {
	msg := "**Fatto.**\n\nProssimo step? Le opzioni sono:\n1. **Backup Claude** (~7MB) - 7 cartelle `.claude-backup-*`\n2. **Backup Shell** - file `.bashrc.*`\n3. **Version Managers** - `.rvm` (495MB) + `.asdf` (1.8GB)\n4. GitHub Actions Runners - 3 cartelle (1.5GB)\n5. **Cache** - `.npm`\n"
	for _, tc := range []struct {
		name, prompt string
		want         []string
	}{
		{"a bold title", "version managers ok cancella", []string{"**Version Managers** - `.rvm` (495MB) + `.asdf` (1.8GB)"}},
		{"a title before the dash", "remove the github actions runners", []string{"GitHub Actions Runners - 3 cartelle (1.5GB)"}},
		{"a title of one word", "delete the cache", nil},
		{"a title half said", "remove the version folders", nil},
		{"no delete verb", "what are version managers?", nil},
	} {
		got := ItemsNamed(tc.prompt, msg)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: ItemsNamed = %q, want %q", tc.name, got, tc.want)
		}
	}
}
