package risk

import (
	"slices"
	"strings"
	"testing"
)

// TestDoesWork: looking around (reads of the shell, queries of a tool's
// state, git reading or recording, notes) is not work; a command that
// builds, installs, edits or runs a program is, and so is a write of a
// source file. Each case is labelled by hand.
func TestDoesWork(t *testing.T) {
	const project = "/home/u/app"
	for _, tc := range []struct {
		tool, command, file string
		want                bool
	}{
		{"Bash", "ls -la && cat README.md | head -20", "", false},
		{"Bash", "git status && git diff HEAD~1 -- src/", "", false},
		{"Bash", "git add -A && git commit -m 'wip' && git push", "", false},
		{"Bash", "git checkout -b other", "", true},
		{"Bash", "git branch -D old", "", true},
		{"Bash", "git branch -a", "", false},
		{"Bash", "lsof -i -P | grep LISTEN | head -40", "", false},
		{"Bash", "dscl . -list /Users | while read user; do groups \"$user\"; done", "", false},
		{"Bash", "csrutil status && spctl --status", "", false},
		{"Bash", "systemctl status nginx", "", false},
		{"Bash", "systemctl restart nginx", "", true},
		{"Bash", "gh pr view 12 && bd show spotter-fum", "", false},
		{"Bash", "bd create --title=x", "", true},
		{"Bash", "sed -n 1,20p main.go", "", false},
		{"Bash", "sed -i 's/a/b/' main.go", "", true},
		{"Bash", "npm install highlight.js", "", true},
		{"Bash", "go test ./...", "", true},
		{"Bash", "node --version", "", false},
		{"Bash", "echo hi > src/x.go", "", true},
		{"Bash", "echo hi > /tmp/x.txt", "", false},
		{"Bash", "grep -rn TODO . > notes.md", "", false},
		{"Write", "", project + "/src/app.go", true},
		{"Edit", "", project + "/CHANGELOG.md", false},
		{"Write", "", "/tmp/scratch.go", false},
		{"Read", "", project + "/src/app.go", false},
	} {
		c := Call{Tool: tc.tool, Command: tc.command, FilePath: tc.file, ProjectDir: project}
		if got := DoesWork(c); got != tc.want {
			t.Errorf("%s %q %q: DoesWork = %v, want %v", tc.tool, tc.command, tc.file, got, tc.want)
		}
		if tc.tool == "Bash" {
			if got := DoesWork(c.WithParse()); got != tc.want {
				t.Errorf("%s %q parsed once: DoesWork = %v, want %v", tc.tool, tc.command, got, tc.want)
			}
		}
	}
}

// TestPlaces: where a command would put, move or delete things, as written.
func TestPlaces(t *testing.T) {
	for _, tc := range []struct {
		command string
		want    []string
	}{
		{"mkdir -p ../projects/a ../projects/b", []string{"../projects"}},
		{"mkdir -p src data/input", []string{"src", "data/input"}},
		{"mv project-journal athena-ingest/", []string{"athena-ingest"}},
		{`mv ~/Library/x "/Volumes/Stick 4TB/Off/"`, []string{"/Volumes/Stick 4TB/Off"}},
		{"cp -R a b && ln -s b c", []string{"b", "c"}},
		{"rm -rf build/tmp notes.txt", []string{"build/tmp", "notes.txt"}},
		{"rm -rf *.log", nil},
		{"git status && ls", nil},
	} {
		got := Places(Call{Tool: "Bash", Command: tc.command})
		if !slices.Equal(got, tc.want) {
			t.Errorf("Places(%q) = %q, want %q", tc.command, got, tc.want)
		}
	}
}

// TestGoAhead: a short yes lets a declined step go on; anything longer, or
// with a no in it, does not.
func TestDefers(t *testing.T) {
	for _, tc := range []struct {
		prompt string
		want   bool
	}{
		{"wait,  before we do so, let's create a new  Github Issue about the cd error", true},
		{"Before that, let's back up the database", true},
		{"first, let's check what is in there", true},
		{"wait first let's commit", true},
		{"before you do that, run the tests", true},
		{"no, don't create those folders", false},
		{"don't do that", false},
		{"I want it done before the release, first thing tomorrow", false},
		{"check it before we merge", false},
	} {
		if got := Defers(tc.prompt); got != tc.want {
			t.Errorf("Defers(%q) = %v, want %v", tc.prompt, got, tc.want)
		}
	}
}

func TestGoAhead(t *testing.T) {
	for _, tc := range []struct {
		prompt string
		want   bool
	}{
		{"go", true},
		{"yes, do it", true},
		{"ok proceed", true},
		{"Did you stop docker first", false},
		{"no, wait", false},
		{"ok but don't move it", false},
		{"yes please go ahead and move all of the docker data now", false},
		// Another step instead (ext-skogci #32).
		{"do a pr instead", false},
		{"오케이 업로드완료 분석시작", true},
		{"实施", true},
		// The verb with its polite ending is one word in Japanese and
		// Korean (q-dotfiles-3aaea8a5 #48).
		{"実施してください", true},
		{"진행해주세요", true},
		{"実施しないでください", false},
		// Capitals count as the same word (ext-fluxmemisolate #69, #133).
		{"Go ahead with this", true},
		{"Sure go for phase 3", true},
		{"OK", true},
		// Run what the message showed (u-claudecode-9f866ded #26).
		{"run this commands", true},
		{"Run them.", true},
		{"execute it", true},
		{"run the tests", false},
		{"run it but not on prod", false},
		{"이번주에 사이잘룩러그 아이보리색상이 출시되었어", false},
	} {
		if got := GoAhead(tc.prompt); got != tc.want {
			t.Errorf("GoAhead(%q) = %v, want %v", tc.prompt, got, tc.want)
		}
	}
}

// TestAnswersOffer: a short reply to a question that ends the agent's
// message answers it, in whatever language, unless it refuses or asks back.
func TestAnswersOffer(t *testing.T) {
	const asked = "The old memory folder is now empty.\n\nShall I delete it?"
	for _, tc := range []struct {
		prompt, last string
		want         bool
	}{
		{"có", asked, true},
		{"전부", asked, true},
		{"a", "[A] delete new_folder (recommended)\n[B] keep it\nWhich one?", true},
		{"実施してください", asked, true},
		{"645866 is the password to this computer", "I need sudo for this. Can you give me the password?", true},
		{"không", asked, false},
		{"no, keep it", asked, false},
		{"keep it", asked, false},
		{"いいえ、残して", asked, false},
		{"아니요", asked, false},
		{"不要删除", asked, false},
		{"why?", asked, false},
		// Nothing was asked: a short prompt is no answer.
		{"có", "The old memory folder is now empty.", false},
		// A question long before the end is not what the reply answers.
		{"có", "Shall I delete it?" + strings.Repeat(" Then I listed the files.", 20), false},
		// Long text is no short reply, however few its spaces.
		{strings.Repeat("删除所有的旧文件并且重新生成配置", 5), asked, false},
		{"please also update the readme and the changelog files", asked, false},
	} {
		if got := AnswersOffer(tc.prompt, tc.last); got != tc.want {
			t.Errorf("AnswersOffer(%q, …%q) = %v, want %v", tc.prompt, tail(tc.last, 30), got, tc.want)
		}
	}
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

// TestInstallInPlace: a path deleted and filled again in the same command
// with the session's own copy (built in a temporary directory, or made by
// the session) is an install in place, not a deletion (mthis-1password
// #17, labelled useless by both judges); with a copy from elsewhere it is
// still rm-outside.
func TestInstallInPlace(t *testing.T) {
	const project = "/Users/m/proj"
	for _, tc := range []struct {
		command string
		written []string
		want    string
	}{
		{`if [ -d "/Applications/Claude Code.app" ]; then rm -rf "/Applications/Claude Code.app"; fi && cp -R "/tmp/Claude Code.app" /Applications/`, nil, ""},
		{`rm -rf ~/bin/tool && cp build/tool ~/bin/tool`, []string{project + "/build/tool"}, ""},
		{`rm -rf "/Applications/Claude Code.app" && cp -R ~/Downloads/Other.app /Applications/`, nil, "rm-outside"},
		{`rm -rf "/Applications/Claude Code.app"`, nil, "rm-outside"},
		// A folder with one thing moved out first is still a deletion of
		// what else it held (athena-reorg #36, labelled useful).
		{`mv ../projects/third-party dev-tools/ && rm -rf ../projects`, nil, "rm-outside"},
	} {
		got := idsOf(Check(Call{Tool: "Bash", Command: tc.command, ProjectDir: project, Written: tc.written}))
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%q: findings %s, want %q", tc.command, got, tc.want)
		}
	}
}

// TestAsksToDelete: a prompt or an offer that asks to delete, in the
// languages the labelled sessions were in.
func TestAsksToDelete(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"remove the old build folder", true},
		{"cancella i file orfani", true},
		{"xóa thư mục cũ", true},
		{"상태: 완전히 비어있음\n액션: 삭제", true},
		{"古い.npmディレクトリを削除", true},
		{"删除旧文件", true},
		{"rename the old build folder", false},
		{"상태: 완전히 비어있음\n액션: README 추가", false},
		{"armor the build", false},
	} {
		if got := AsksToDelete(tc.text); got != tc.want {
			t.Errorf("AsksToDelete(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestSudoInputCovers: the password a command echoes into sudo -S covers
// the step where the person typed it themselves; a variable, a short one,
// or one the person never typed does not.
func TestSudoInputCovers(t *testing.T) {
	for _, tc := range []struct {
		command, prompt string
		want            bool
	}{
		{`echo "645866" | sudo -S systemctl restart docker`, "645866 is the password to this computer", true},
		{`printf '%s\n' 'hunter22' | sudo -S apt install jq`, "use hunter22 for sudo", true},
		{`echo 'hunter22\n' | sudo -S ls /root`, "the password is hunter22", true},
		{`echo "645866" | sudo -S systemctl restart docker`, "restart docker please", false},
		{`echo "$PW" | sudo -S ls /root`, "my password is in $PW", false},
		{`echo "7" | sudo -S ls /root`, "7 days ago it worked", false},
	} {
		var f Finding
		for _, x := range Check(Call{Tool: "Bash", Command: tc.command}) {
			if x.Entry == SecretSudo {
				f = x
			}
		}
		if f.Entry == nil {
			t.Fatalf("%q: no secret-sudo finding", tc.command)
		}
		if got := Covered(f, []Instruction{{Text: tc.prompt}}); got != tc.want {
			t.Errorf("%q after %q: covered %v, want %v", tc.command, tc.prompt, got, tc.want)
		}
	}
}
