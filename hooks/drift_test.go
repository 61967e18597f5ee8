package hooks

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDarkModeOnTask is the case the original Djinn got wrong: goal "Add
// dark-mode support with a11y keyboard-trap tests", the agent writes
// src/theme/dark.ts, edits the theme index, writes and runs the
// keyboard-trap test and keeps working on those files. The original scored
// the first write 0.118, LOST. After at least 6 tool calls the verdict must
// be on_task with N ≥ 5, and no drift advisory given.
func TestDarkModeOnTask(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Add dark-mode support with a11y keyboard-trap tests")
	dark := s.file("src/theme/dark.ts", "")
	index := s.file("src/theme/index.ts", "export * from './light'\n")
	test := s.file("src/theme/keyboard-trap.test.ts", "")
	s.assistant("I'll add a dark theme module, wire it into the theme index, then cover focus trapping with a test.", 20000)
	s.tool("Write", jsonStr(map[string]any{"file_path": dark, "content": "export const dark = {bg: '#000'}\n"}), map[string]any{"type": "create", "filePath": dark, "originalFile": nil})
	s.tool("Edit", jsonStr(map[string]any{"file_path": index, "old_string": "light'", "new_string": "light'\nexport * from './dark'"}), map[string]any{"filePath": index, "originalFile": "export * from './light'\n"})
	s.tool("Write", jsonStr(map[string]any{"file_path": test, "content": "test('focus stays in the dialog', () => {})\n"}), map[string]any{"type": "create", "filePath": test, "originalFile": nil})
	s.assistant("Now run the keyboard-trap test.", 24000)
	s.tool("Bash", jsonStr(map[string]any{"command": "npx vitest run src/theme/keyboard-trap.test.ts", "description": "Run the keyboard-trap test"}), map[string]any{"stdout": "1 passed", "stderr": ""})
	s.tool("Read", jsonStr(map[string]any{"file_path": dark}), map[string]any{"type": "text", "file": map[string]any{"content": "x", "numLines": 1, "startLine": 1, "totalLines": 1}})
	s.tool("Edit", jsonStr(map[string]any{"file_path": dark, "old_string": "'#000'", "new_string": "'#111', fg: '#eee'"}), map[string]any{"filePath": dark, "originalFile": "export const dark = {bg: '#000'}\n"})
	s.tool("Bash", jsonStr(map[string]any{"command": "npx vitest run src/theme", "description": "Run theme tests"}), map[string]any{"stdout": "3 passed", "stderr": ""})

	w := s.window()
	v := w.Drift.Verdict
	if v == nil || v.Kind != "on_task" || v.N < 5 {
		t.Fatalf("verdict = %+v, want on_task with N ≥ 5", v)
	}
	if n := s.count("drift"); n != 0 {
		t.Fatalf("%d drift advisories on on-task work: %q", n, s.said)
	}
}

// drifted runs an on-task start, then unrelated work, and returns the sim.
func drifted(t *testing.T, offTask int) *sim {
	s := newSim(t)
	s.userPrompt("Add dark-mode support with a11y keyboard-trap tests")
	dark := s.file("src/theme/dark.ts", "")
	for i := 0; i < 14; i++ {
		s.tool("Edit", jsonStr(map[string]any{"file_path": dark, "old_string": "a", "new_string": fmt.Sprintf("b%d", i)}), map[string]any{"filePath": dark})
	}
	s.readBilling("invoice", offTask)
	return s
}

// readBilling runs n Reads of unrelated billing files, billing/<name>_0.go
// on, each answered with a one-line "package billing".
func (s *sim) readBilling(name string, n int) {
	for i := 0; i < n; i++ {
		f := s.file(fmt.Sprintf("billing/%s_%d.go", name, i), "")
		s.tool("Read", jsonStr(map[string]any{"file_path": f}), map[string]any{"type": "text", "file": map[string]any{"content": "package billing", "numLines": 1, "startLine": 1, "totalLines": 1}})
	}
}

// TestDriftFiresOnUnrelatedWork: after the goal's work, a run of calls on
// unrelated files gives one [djinn:drift] naming the anchor and the
// evidence, with the numbers.
func TestDriftFiresOnUnrelatedWork(t *testing.T) {
	s := drifted(t, 8)
	if n := s.count("drift"); n != 1 {
		t.Fatalf("%d drift advisories, want 1: %q", n, s.said)
	}
	adv := s.lastSaid("drift")
	for _, want := range []string{"dark-mode", "billing/invoice_", "95% CI", "N=", "threshold 0.70", "Next step:"} {
		if !strings.Contains(adv, want) {
			t.Errorf("advisory lacks %q: %s", want, adv)
		}
	}
	if v := s.window().Drift.Verdict; v.Kind != "real_drift" {
		t.Errorf("verdict %s, want real_drift", v.Kind)
	}
}

// TestDriftWaitsForWork: a short off-goal stretch that only looks around
// (reads, git status, ls) is orientation and stays quiet; the first call
// in it that does something (an edit of an unrelated file) is drift.
func TestDriftWaitsForWork(t *testing.T) {
	s := drifted(t, 4)
	s.tool("Bash", jsonStr(map[string]any{"command": "git status && ls billing", "description": "Look"}), map[string]any{"stdout": "clean", "stderr": ""})
	if n := s.count("drift"); n != 0 {
		t.Fatalf("%d drift advisories on a stretch that only looked: %q", n, s.said)
	}
	if d := s.window().Drift; d.OffGoal < 5 || d.OffChanges != 0 {
		t.Fatalf("off-goal %d, changing %d: want 5 or more, 0", d.OffGoal, d.OffChanges)
	}
	f := s.file("billing/invoice_0.go", "package billing")
	s.tool("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "package billing", "new_string": "package billing // v2"}), map[string]any{"filePath": f})
	if n := s.count("drift"); n != 1 {
		t.Fatalf("%d drift advisories after an off-goal edit, want 1: %q", n, s.said)
	}
}

// TestDriftCooldown: drift advisories are at least drift.cooldown tool
// calls apart, and persistent drift is repeated after it.
func TestDriftCooldown(t *testing.T) {
	s := drifted(t, 40)
	seqs := s.advisorySeqs("drift")
	if len(seqs) < 2 {
		t.Fatalf("drift advisories at calls %v: persistent drift should be repeated after the cooldown", seqs)
	}
	for i := 1; i < len(seqs); i++ {
		if gap := seqs[i] - seqs[i-1]; gap < s.env.Settings.Drift.Cooldown {
			t.Errorf("drift advisories at calls %d and %d: %d apart, cooldown %d", seqs[i-1], seqs[i], gap, s.env.Settings.Drift.Cooldown)
		}
	}
}

// TestDriftSilentOnShortDetour: two unrelated calls in on-task work stay
// silent (the window still holds mostly anchored calls).
func TestDriftSilentOnShortDetour(t *testing.T) {
	s := drifted(t, 2)
	if n := s.count("drift"); n != 0 {
		t.Fatalf("%d drift advisories on a 2-call detour: %q", n, s.said)
	}
}

// TestDriftNeverOnStop: whatever the verdict, Stop carries no drift
// context (it would make the model run again).
func TestDriftNeverOnStop(t *testing.T) {
	s := drifted(t, 8)
	r := s.run(&Payload{HookEventName: Stop, LastAssistantMessage: "Done."})
	if len(r.Context) != 0 || r.Block {
		t.Fatalf("Stop response %+v", r)
	}
}

// TestDriftInsufficientData: N < 5 gives insufficient_data, never advice.
func TestDriftInsufficientData(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Add dark-mode support with a11y keyboard-trap tests")
	for i := 0; i < 4; i++ {
		f := s.file(fmt.Sprintf("billing/x%d.go", i), "")
		s.tool("Read", jsonStr(map[string]any{"file_path": f}), map[string]any{})
	}
	if v := s.window().Drift.Verdict; v.Kind != "insufficient_data" || v.N != 4 {
		t.Fatalf("verdict %+v, want insufficient_data with N=4", v)
	}
}

// TestShortAnchorInsufficient: "fix it" is too short to measure against
// (and no work has taught it anything): insufficient_data, not a guess.
func TestShortAnchorInsufficient(t *testing.T) {
	s := newSim(t)
	s.userPrompt("please fix it")
	if a := s.anchor(); a == nil {
		t.Fatal("no anchor")
	}
	for i := 0; i < 6; i++ {
		s.tool("Bash", jsonStr(map[string]any{"command": "ls"}), map[string]any{"stdout": ""})
	}
	if v := s.window().Drift.Verdict; v.Kind != "insufficient_data" {
		t.Fatalf("verdict %s, want insufficient_data", v.Kind)
	}
}

// TestTicketSwitch: a goal naming ticket spotter-gqc, then commands on
// sibling ticket spotter-dov, is drift even though the files overlap.
func TestTicketSwitch(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Work on bead spotter-gqc: implement the review annotations")
	f := s.file("lib/review.ex", "")
	s.edits(f, "b", 14)
	s.tool("Bash", jsonStr(map[string]any{"command": "bd show spotter-dov"}), map[string]any{"stdout": ""})
	s.tool("Bash", jsonStr(map[string]any{"command": "bd update spotter-dov.1 --status in_progress"}), map[string]any{"stdout": ""})
	s.edits(f, "c", 6)
	if n := s.count("drift"); n == 0 {
		t.Fatalf("no drift advisory after switching tickets: %q", s.said)
	}
	// Naming the goal's ticket again ends the switch.
	s2 := newSim(t)
	s2.userPrompt("Work on bead spotter-gqc: implement the review annotations")
	s2.edits(f, "b", 14)
	for _, c := range []string{"bd show spotter-gqc.1", "bd update spotter-gqc.2 --status in_progress", "bd close spotter-gqc.1"} {
		s2.tool("Bash", jsonStr(map[string]any{"command": c}), map[string]any{"stdout": ""})
	}
	if n := s2.count("drift"); n != 0 {
		t.Fatalf("drift on the goal's own sub-tickets: %q", s2.said)
	}
}

// TestTicketTeaches: the goal's sub-ticket, shown, teaches the anchor the
// files it names (spotter-fum #82: bd show spotter-fum.3, then work on its
// output files, labelled false as drift by both judges); without the show,
// the same work is a detour.
func TestTicketTeaches(t *testing.T) {
	show := "○ spotter-gqc.3 · Integrate highlight.js for syntax colouring   [● P2 · OPEN]\n\nDESCRIPTION\nColour the code blocks.\n\n## Output Files\n- `assets/js/hljs_hook.js`\n- `assets/vendor/palette.css`\n"
	for _, shown := range []bool{true, false} {
		s := newSim(t)
		s.userPrompt("Work on bead spotter-gqc: implement the review annotations")
		f := s.file("lib/review.ex", "")
		s.edits(f, "b", 14)
		if shown {
			s.tool("Bash", jsonStr(map[string]any{"command": "bd show spotter-gqc.3"}), map[string]any{"stdout": show})
		}
		s.tool("Bash", jsonStr(map[string]any{"command": "npm install highlight.js"}), map[string]any{"stdout": "added 1 package"})
		for _, rel := range []string{"assets/js/hljs_hook.js", "assets/vendor/palette.css", "assets/js/hljs_hook.js", "assets/vendor/palette.css"} {
			s.edit(rel)
		}
		if n := s.count("drift"); shown && n != 0 || !shown && n == 0 {
			t.Errorf("ticket shown %v: %d drift advisories (%q)", shown, n, s.said)
		}
	}
}

// TestFailedRunTeaches: the files a failing on-goal check names are the
// task's, all of them, not only the few a call's signal keeps (templar-lint
// #85: flake.nix named late in a long lint output, edited after "you have
// not fixed all the issues", labelled false as drift by both judges).
func TestFailedRunTeaches(t *testing.T) {
	var out strings.Builder
	out.WriteString("./src/alpha.go:3:2: undefined: fmt\n")
	for _, name := range []string{"billing", "invoice", "ledger", "payroll", "refund", "tax", "vendor", "wallet", "audit", "budget", "cashflow", "credit", "debit", "expense", "grant", "journal", "mortgage", "quota"} {
		fmt.Fprintf(&out, "./%s/%s_test.go:9:2: undefined: fmt\n", name, name)
	}
	out.WriteString("deadnix: unused declaration in ./deploy/flake.nix:12:3\n")
	for _, learned := range []bool{true, false} {
		s := newSim(t)
		s.userPrompt("fix the lint errors and warnings, starting with src/alpha.go")
		if learned {
			s.fail("Bash", jsonStr(map[string]any{"command": "make lint"}), "Exit code 1\n"+out.String())
		}
		for i := 0; i < 14; i++ {
			s.edit("src/alpha.go")
		}
		for i := 0; i < 8; i++ {
			s.edit("deploy/flake.nix")
		}
		if n := s.count("drift"); learned && n != 0 || !learned && n == 0 {
			t.Errorf("lint run failing first %v: %d drift advisories (%q)", learned, n, s.said)
		}
	}
}

const poolGoal = "Now let's work on the database layer instead: add connection pooling to db/pool.go"

// edit runs one Edit of a project file.
func (s *sim) edit(rel string) Response {
	f := s.file(rel, "a")
	return s.tool("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "a", "new_string": "b"}), map[string]any{"filePath": f})
}

// editRound runs n edits, taking the project files in turn and starting
// again from the first when they run out.
func (s *sim) editRound(files []string, n int) {
	for i := 0; i < n; i++ {
		s.edit(files[i%len(files)])
	}
}

// webDetour is work on a web front end that no database goal speaks of.
var webDetour = []string{"web/landing/hero.tsx", "web/analytics/events.ts", "web/landing/pricing.tsx", "web/analytics/tracker.ts"}

// TestDriftEarlyDetour: a switch to unrelated work is advised within 8
// tool calls wherever it starts, the first calls included (the first calls
// no longer teach the anchor whatever they are).
func TestDriftEarlyDetour(t *testing.T) {
	for _, start := range []int{0, 2, 5, 10, 20} {
		t.Run(fmt.Sprint(start), func(t *testing.T) {
			s := newSim(t)
			s.userPrompt(poolGoal)
			for i := 0; i < start; i++ {
				s.edit("db/pool.go")
			}
			s.editRound(webDetour, 8)
			seqs := s.advisorySeqs("drift")
			t.Logf("detour from call %d: drift at %v", start+1, seqs)
			if len(seqs) == 0 || seqs[0] <= start || seqs[0] > start+8 {
				t.Fatalf("detour from call %d: drift advisories at %v, want one within 8 calls: %q", start+1, seqs, s.said)
			}
		})
	}
}

// TestDriftQuietBesideGoalFiles: after a goal naming db/pool.go, work on
// db/pool6.go, db/pool7.go, files beside it and tests named like it stays
// quiet, with TodoWrite between.
func TestDriftQuietBesideGoalFiles(t *testing.T) {
	s := newSim(t)
	s.userPrompt(poolGoal)
	for i := 0; i < 30; i++ {
		switch i % 5 {
		case 0:
			s.edit(fmt.Sprintf("db/pool%d.go", 6+i%2))
		case 1:
			s.edit("db/conn.go")
		case 2:
			s.tool("TodoWrite", jsonStr(map[string]any{"todos": []map[string]string{{"content": "pool sizing", "status": "completed"}}}), map[string]any{})
		case 3:
			f := s.file("internal/pool_test.go", "")
			s.tool("Read", jsonStr(map[string]any{"file_path": f}), map[string]any{})
		default:
			s.tool("Bash", jsonStr(map[string]any{"command": "go test ./db/...", "description": "Run the db tests"}), map[string]any{"stdout": "ok"})
		}
	}
	if n := s.count("drift"); n != 0 {
		t.Fatalf("%d drift advisories on work beside the goal's file: %q", n, s.said)
	}
}

// TestDriftSaidAgainFirmer: drift that goes on after an advisory is said
// again after the cooldown, firmer, with the count of off-goal calls; it
// stops once the user lets the work go on.
func TestDriftSaidAgainFirmer(t *testing.T) {
	s := drifted(t, 40)
	advs := ofKind(s.said, "drift")
	if len(advs) < 2 {
		t.Fatalf("drift said %d times over 40 off-goal calls: %q", len(advs), advs)
	}
	again := advs[1]
	for _, want := range []string{"still away from the session's goal", "off-goal tool calls since it last served the goal", "after 1 drift notice", "dark-mode", "Next step: stop and return to the goal"} {
		if !strings.Contains(again, want) {
			t.Errorf("repeat lacks %q: %s", want, again)
		}
	}
	if strings.Contains(advs[0], "still away") {
		t.Errorf("first advisory worded as a repeat: %s", advs[0])
	}
	// The user lets the billing work go on: no more drift on it.
	s.userPrompt("yes, the billing invoices need that, carry on")
	before := len(s.advisorySeqs("drift"))
	for i := 0; i < 40; i++ {
		f := s.file(fmt.Sprintf("billing/invoice_%d.go", i%8), "")
		s.tool("Read", jsonStr(map[string]any{"file_path": f}), map[string]any{})
	}
	if after := len(s.advisorySeqs("drift")); after != before {
		t.Fatalf("drift said again after the user let the work go on: %d then %d", before, after)
	}
	if d := s.window().Drift; d.OffGoal != 0 || d.Repeated != 0 {
		t.Fatalf("off-goal stretch not ended: %+v", d)
	}
}

// TestDriftRepeatStopsWhenWorkComesBack: after an advisory the agent
// returns to the goal; the next detour is a first notice again, not a
// repeat.
func TestDriftRepeatStopsWhenWorkComesBack(t *testing.T) {
	s := drifted(t, 8)
	dark := s.file("src/theme/dark.ts", "")
	s.edits(dark, "c", 20)
	if d := s.window().Drift; d.OffGoal != 0 || d.Repeated != 0 {
		t.Fatalf("back on the goal: off_goal %d repeated %d", d.OffGoal, d.Repeated)
	}
	for i := 0; i < 10; i++ {
		f := s.file(fmt.Sprintf("billing/ledger_%d.go", i), "")
		s.tool("Read", jsonStr(map[string]any{"file_path": f}), map[string]any{})
	}
	last := s.lastSaid("drift")
	if s.count("drift") != 2 || strings.Contains(last, "still away") {
		t.Fatalf("second detour: %d advisories, last %s", s.count("drift"), last)
	}
}

// TestDriftTodoWordsNeverEvidence: TodoWrite items and statuses are never
// shown as off-goal work.
func TestDriftTodoWordsNeverEvidence(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Add dark-mode support with a11y keyboard-trap tests")
	dark := s.file("src/theme/dark.ts", "")
	s.edits(dark, "b", 10)
	for i := 0; i < 12; i++ {
		s.tool("TodoWrite", jsonStr(map[string]any{"todos": []map[string]string{{"content": "Wire quarterly ledger export", "status": "completed"}, {"content": "Reconcile ledger", "status": "in_progress"}}}), map[string]any{})
		f := s.file(fmt.Sprintf("billing/invoice_%d.go", i), "")
		s.tool("Read", jsonStr(map[string]any{"file_path": f}), map[string]any{})
	}
	if s.count("drift") == 0 {
		t.Fatalf("no drift on the billing detour: %q", s.said)
	}
	for _, p := range s.said {
		if !strings.HasPrefix(p, "[djinn:drift]") {
			continue
		}
		for _, w := range []string{"completed", "in_progress", "ledger", "quarterly", "reconcile"} {
			if strings.Contains(strings.ToLower(p), w) {
				t.Errorf("todo word %q shown as evidence: %s", w, p)
			}
		}
	}
}

// TestBookkeepingTurnsCarryNoDrift: a TodoWrite is logged as a turn but with
// no drift score or topic of its own (it would repeat the previous call's).
func TestBookkeepingTurnsCarryNoDrift(t *testing.T) {
	s := newSim(t)
	s.userPrompt("Add dark-mode support with a11y keyboard-trap tests")
	dark := s.file("src/theme/dark.ts", "")
	s.edits(dark, "b", 6)
	s.tool("TodoWrite", jsonStr(map[string]any{"todos": []map[string]string{{"content": "dark mode", "status": "completed"}}}), map[string]any{})
	turns := s.turns()
	last, prev := turns[len(turns)-1], turns[len(turns)-2]
	if prev.Score == nil || prev.Topic == "" {
		t.Fatalf("the edit before has no score or topic: %+v", prev)
	}
	if last.Tool != "TodoWrite" || last.Score != nil || last.Topic != "" {
		t.Errorf("the TodoWrite turn carries drift: %+v", last)
	}
}

// edits makes n Edit calls on file f, each writing its own text (prefix and
// the call's number).
func (s *sim) edits(f, prefix string, n int) {
	for i := 0; i < n; i++ {
		s.tool("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "a", "new_string": fmt.Sprintf("%s%d", prefix, i)}), map[string]any{})
	}
}

// TestDriftQuietWhileUnblocking: after a call fails, chasing what failed
// (the code a failing test names, a missing toolchain) stays quiet for
// drift.failure_grace calls, and the words of the failure count as the
// work's; a detour that goes on past the grace still fires.
func TestDriftQuietWhileUnblocking(t *testing.T) {
	failing := map[string]any{"stdout": " FAIL  test/pool.test.ts > pool > reuses connections\nAssertionError: expected 2 to be 1\n ❯ src/handlers/tool-configs/limiter.ts:41:7\n Tests  1 failed | 40 passed", "stderr": ""}
	// failed is a session two edits into the pool work whose test run
	// (call 3) just failed.
	failed := func(t *testing.T) *sim {
		s := newSim(t)
		s.userPrompt(poolGoal)
		s.edit("db/pool.go")
		s.edit("db/pool.go")
		s.tool("Bash", `{"command":"npm test 2>&1 | tail -30"}`, failing)
		return s
	}
	t.Run("chasing the failure", func(t *testing.T) {
		s := failed(t)
		for _, f := range []string{"src/handlers/tool-configs/limiter.ts", "src/handlers/tool-configs/schemas.ts", "src/handlers/tool-configs/limiter-rules.ts", "src/handlers/shared.ts", "src/handlers/tool-configs/index.ts", "src/handlers/tool-configs/universal/limits.ts", "src/handlers/tool-configs/universal/schemas.ts", "src/handlers/tool-configs/universal/shared-handlers.ts"} {
			s.edit(f)
		}
		if seqs := s.advisorySeqs("drift"); len(seqs) != 0 {
			t.Errorf("drift advisories at %v while the agent chased the failing test: %q", seqs, s.said)
		}
	})
	t.Run("detour after the failure", func(t *testing.T) {
		s := failed(t)
		s.editRound(webDetour, 16)
		seqs := s.advisorySeqs("drift")
		if len(seqs) == 0 || seqs[0] > 3+s.env.Settings.Drift.FailureGrace+8 {
			t.Fatalf("detour after a failure: drift advisories at %v, want one within the grace and 8 calls", seqs)
		}
	})
}

// TestRealProject: the files a failing command's output names are made
// project-relative against the project as the tools printed it: replay
// keeps the session's files under FSRoot and maps the calls' inputs there,
// not what the tools printed (templar-lint #1's lint errors named
// /home/…/templar/flake.nix while the project was /dev/shm/…/fs/home/…).
func TestRealProject(t *testing.T) {
	for _, tc := range []struct{ root, project, want string }{
		{"", "/home/u/p", "/home/u/p"},
		{"/dev/shm/r/fs", "/dev/shm/r/fs/home/u/p", "/home/u/p"},
		{"/dev/shm/r/fs/", "/dev/shm/r/fs/home/u/p", "/home/u/p"},
		{"/dev/shm/r/fs", "/elsewhere/p", "/elsewhere/p"},
	} {
		s := &session{env: &Env{FSRoot: tc.root}}
		s.w.ProjectDir = tc.project
		if got := s.realProject(); got != tc.want {
			t.Errorf("realProject(root %q, project %q) = %q, want %q", tc.root, tc.project, got, tc.want)
		}
	}
}

// unrelatedFiles are work no goal of these tests speaks of.
var unrelatedFiles = []string{"analytics/tracker.go", "analytics/heatmap.go", "marketing/newsletter.go"}

// wantDrift fails the test unless the session drew a drift advisory
// exactly when want says.
func (s *sim) wantDrift(want bool) {
	s.t.Helper()
	if got := s.count("drift") > 0; got != want {
		s.t.Fatalf("drift advisories at %v, want %v: %q", s.advisorySeqs("drift"), want, s.said)
	}
}

// longSpec is a specification prompt of more than maxAnchorText runes
// whose last section, past the part the anchor keeps as text, asks for the
// frontend (ext-solsmile's shape: a 43 KB build spec whose Section 9 is the
// Next.js and Tailwind frontend).
func longSpec() string {
	var b strings.Builder
	b.WriteString("# Ledger build specification\nImplement the settlement contracts in contracts/Ledger.sol with Hardhat.\n")
	for i := 0; b.Len() < 2*maxAnchorText; i++ {
		fmt.Fprintf(&b, "Rule %d: the settlement contract escrows deposits, emits a Settled event, and the Hardhat tests cover the escrow, refunds and disputes.\n", i)
	}
	b.WriteString("## Section 9: frontend\nBuild the frontend with Tailwind: a postcss config, the tailwind theme, and wallet pages.\n")
	return b.String()
}

// TestDriftLongSpecTail: a goal longer than the anchor keeps as text is
// measured against all of its words, so the frontend work its last
// section asks for stays quiet; unrelated work after it still fires.
func TestDriftLongSpecTail(t *testing.T) {
	frontend := []string{"frontend/postcss.config.mjs", "frontend/tailwind.config.ts", "frontend/app/wallet/page.tsx"}
	for _, tc := range []struct {
		name   string
		detour []string
		want   bool
	}{
		{"the spec's last section", frontend, false},
		{"unrelated work", unrelatedFiles, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt(longSpec())
			if a := s.anchor(); utf8.RuneCountInString(a.Text) > maxAnchorText || !slices.Contains(a.Words, "tailwind") {
				t.Fatalf("anchor text %d bytes, words %v: want the text cut and the tail's words kept", len(a.Text), a.Words)
			}
			for i := 0; i < 6; i++ {
				s.edit("contracts/Ledger.sol")
				s.bash("npx hardhat test")
			}
			s.editRound(tc.detour, 12)
			s.wantDrift(tc.want)
		})
	}
}

// TestDriftUnsegmentedGoal: a goal mostly in Chinese (ext-cutesticky's
// shape: a request naming "Claude code" amid Chinese clauses) gives drift
// no words to compare the work's with; the first calls' work would only
// guess at the task, so no drift is said, on the same work or on another
// (State.measurable; TestDriftVagueGoal has the cases that still fire).
func TestDriftUnsegmentedGoal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		later []string
		want  bool
	}{
		{"the same work", []string{"src/sticky/note.ts", "src/sticky/links.ts", "src/components/StickyWindow.tsx"}, false},
		{"unrelated work", unrelatedFiles, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("我想做一个可爱的桌面便签应用，一直挂在桌面上，可以随时看到，用 Tauri 来做，问题用 Claude code 内置的那个栏")
			for _, f := range []string{"src/sticky/note.ts", "src/components/StickyWindow.tsx", "src-tauri/capabilities/default.json",
				"src/sticky/storage.ts", "src/styles/pastel.css", "src-tauri/tauri.conf.json", "src/sticky/reminder.ts", "src/components/TrayMenu.tsx"} {
				s.edit(f)
			}
			for _, c := range []string{"npm run tauri build", "npm run tauri dev", "npx tsc --noEmit", "npm run lint"} {
				s.bash(c)
			}
			s.editRound(tc.later, 12)
			s.wantDrift(tc.want)
		})
	}
}

// TestDriftGoalDocument: a goal that points at a document ("complete work
// order 044") is measured, once an MCP tool fetched the document, by what
// the document says (ext-gameplan's shape): the endpoint the work order
// asks for stays quiet; without the fetch it was drift, and unrelated work
// after the fetch still is.
func TestDriftGoalDocument(t *testing.T) {
	order := map[string]any{"work_order": map[string]any{"number": "044", "title": "Registration flow: submit form endpoint",
		"description": "Add an endpoint that accepts a submitted registration form: validate its fields, store them in the registration form data table and return the saved submission."}}
	endpoint := []string{"routes/registrationFlow.js", "validators/registrationForm.js", "models/registrationFormData.js"}
	for _, tc := range []struct {
		name  string
		fetch bool
		work  []string
		want  bool
	}{
		{"the work order's endpoint", true, endpoint, false},
		{"the same work, the order never fetched", false, endpoint, true},
		{"unrelated work after the fetch", true, unrelatedFiles, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("use the software factory and complete work order 044, think about this and complete this")
			if tc.fetch {
				s.tool("mcp__software-factory__get_work_order", jsonStr(map[string]any{"work_order_number": "044"}), order)
			}
			s.editRound(tc.work, 16)
			s.wantDrift(tc.want)
		})
	}
}

// TestDriftNamedTool: a goal that names an MCP tool ("serena onboarding")
// is measured, once the tool ran, by what it returned, the procedure to
// follow (ext-serenafe #21, thirty-second set: drift labelled false by both
// judges while the agent gathered the project's purpose and stack and wrote
// them down as the onboarding said). The same instructions from a tool the
// goal does not name teach nothing, and that work drifts; unrelated work
// after the named tool still does.
func TestDriftNamedTool(t *testing.T) {
	howTo := "You are viewing the project for the first time. Identify the project's purpose, tech stack, code style and conventions, the commands for testing, formatting and linting, and the codebase structure; then write memories for each."
	notes := []string{"# Project Purpose\n6ixGo Hochiminh lifestyle matching platform, a frontend for a living guide", "# Tech Stack\n## Frontend Framework\nNext.js 14 App Router, React 18, TypeScript",
		"# Code Style & Conventions\nESLint Airbnb TypeScript, Prettier", "# Suggested commands\nnpm run dev, npm run lint", "# Codebase structure\nsrc/app, src/components"}
	for _, tc := range []struct {
		name      string
		tool      string
		unrelated bool
		want      bool
	}{
		{"the onboarding's steps", "mcp__serena__onboarding", false, false},
		{"the same steps, a tool the goal does not name", "mcp__serena__initial_instructions", false, true},
		{"unrelated work after the onboarding", "mcp__serena__onboarding", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("use serena active project")
			s.tool("mcp__serena__get_current_config", "{}", "Active project: FE at /p/FE, TypeScript")
			s.userPrompt("~/workspace/yrism/FE")
			s.tool("mcp__serena__activate_project", `{"project":"~/workspace/yrism/FE"}`, "Project FE activated")
			s.userPrompt("serena check onboarding performance")
			s.tool("mcp__serena__check_onboarding_performed", "{}", "Onboarding not performed yet. Call the onboarding tool.")
			s.userPrompt("serena onboarding")
			s.tool(tc.tool, "{}", howTo)
			for _, f := range []string{"package.json", "README.md", "tsconfig.json", ".eslintrc.json", ".prettierrc.json", "tailwind.config.ts", "next.config.js", ".husky/pre-commit"} {
				s.readFile(s.file(f, "x"), "x", nil)
			}
			for i := 0; i < 10; i++ {
				if tc.unrelated {
					s.edit(unrelatedFiles[i%len(unrelatedFiles)])
					continue
				}
				s.tool("mcp__serena__write_memory", jsonStr(map[string]any{"content": notes[i%len(notes)], "memory_name": fmt.Sprint(i)}), "ok")
			}
			s.wantDrift(tc.want)
		})
	}
}

// TestDriftApprovedPlan: the work of a plan the person approved is on the
// goal (ext-echocontext #27, twenty-third set: README edits that were step
// 5 of the plan approved at #7, drift labelled false by both judges); the
// same work under a plan they refused, or work the plan does not name,
// drifts. The CLI 1.0 name of the tool, exit_plan_mode, counts too.
func TestDriftApprovedPlan(t *testing.T) {
	plan := "## Plan: /start-development command\n1. Create commands/start-development.md\n2. Add lib/development-initiator.js\n3. Templates in templates/development-prompts/\n4. Register the scenarios in data/scenarios.json\n5. Update README.md and CHANGELOG.md, and add branding/neurodivergent-friendly-notes.txt"
	readme := []string{"README.md", "CHANGELOG.md", "branding/neurodivergent-friendly-notes.txt"}
	for _, tc := range []struct {
		name    string
		tool    string
		refused bool
		work    []string
		want    bool
	}{
		{"the plan's README step", "ExitPlanMode", false, readme, false},
		{"the same under the CLI 1.0 name", "exit_plan_mode", false, readme, false},
		{"the same, the plan refused", "ExitPlanMode", true, readme, true},
		{"work the plan does not name", "ExitPlanMode", false, unrelatedFiles, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("design a command that bridges the gap between the generated project docs and starting to code")
			in := jsonStr(map[string]any{"plan": plan})
			if tc.refused {
				s.fail(tc.tool, in, "The user doesn't want to proceed with this tool use. The tool use was rejected.")
			} else {
				s.tool(tc.tool, in, "User has approved your plan. You can now start coding.")
			}
			s.editRound(tc.work, 16)
			s.wantDrift(tc.want)
		})
	}
}

// TestReadsDocument: the MCP tools whose own name (not their server's)
// says they read count; built-in tools and writers do not.
func TestReadsDocument(t *testing.T) {
	for _, tc := range []struct {
		tool string
		want bool
	}{
		{"mcp__software-factory__get_work_order", true},
		{"mcp__tracker__view_issue", true},
		{"mcp__docs__Fetch_Page", true},
		{"mcp__software-factory__update_work_order", false},
		{"mcp__get-server__update_item", false},
		{"Read", false},
		{"WebFetch", false},
	} {
		if got := readsDocument(tc.tool); got != tc.want {
			t.Errorf("readsDocument(%s) = %v, want %v", tc.tool, got, tc.want)
		}
	}
}

// TestDriftTodosAfterPrompt: the to-do list the agent writes right after a
// prompt is its reading of the request, and teaches the anchor
// (ext-bytebridges #58: migrations after "lets continue to use local",
// listed at once, labelled false by both judges); one written later, or
// work it does not list, teaches nothing.
func TestDriftTodosAfterPrompt(t *testing.T) {
	todos := jsonStr(map[string]any{"todos": []map[string]any{
		{"content": "Write README.md for the release", "status": "in_progress", "activeForm": "Writing"},
		{"content": "Update CHANGELOG.md and branding/neurodivergent-friendly-notes.txt", "status": "pending", "activeForm": "Updating"},
	}})
	readme := []string{"README.md", "CHANGELOG.md", "branding/neurodivergent-friendly-notes.txt"}
	for _, tc := range []struct {
		name string
		late bool
		work []string
		want bool
	}{
		{"the list written at once", false, readme, false},
		{"the same list written later", true, readme, true},
		{"work the list does not name", false, unrelatedFiles, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt("design a command that bridges the gap between the generated project docs and starting to code")
			if tc.late {
				for i := 0; i < 4; i++ {
					s.tool("Read", jsonStr(map[string]any{"file_path": s.project + "/commands/start.md"}), `{"type":"text"}`)
				}
			}
			s.tool("TodoWrite", todos, `{"oldTodos":[],"newTodos":[]}`)
			s.editRound(tc.work, 16)
			s.wantDrift(tc.want)
		})
	}
}

// TestDriftDiagnosisReads: while the task is to find a failure's cause,
// reading wherever it leads is the diagnosis (ext-casacolina: six drift
// advisories on reads of a framework's internals after "are u able to
// check the log?", labelled false); the same reads under a task that
// builds something are still drift, and so is an edit under the diagnosis.
func TestDriftDiagnosisReads(t *testing.T) {
	for _, tc := range []struct {
		name, prompt string
		edit         bool
		want         bool
	}{
		{"reads, diagnosing", "i'm getting an error on the design command page, check the log for the error", false, false},
		{"reads, building", "design a command that bridges the gap between the generated project docs and starting to code", false, true},
		{"edits, diagnosing", "i'm getting an error on the design command page, check the log for the error", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt(tc.prompt)
			for i := 0; i < 24; i++ {
				f := unrelatedFiles[i%len(unrelatedFiles)]
				if tc.edit {
					s.edit(f)
				} else {
					s.tool("Read", jsonStr(map[string]any{"file_path": s.project + "/" + f}), `{"type":"text"}`)
				}
			}
			s.wantDrift(tc.want)
		})
	}
}

// TestDriftVagueGoal: a goal too short to say what it is about ("can you
// fix my website so i can preview it", ext-pegasus: six drift advisories
// on its diagnosis, labelled false by both judges of the twenty-fifth set)
// is not measured by what the first calls happen to do; one that points
// at a ticket by its identifier is, and so is one a to-do list written
// for the request has taught.
func TestDriftVagueGoal(t *testing.T) {
	todos := jsonStr(map[string]any{"todos": []map[string]any{
		{"content": "Fix the vite server crash in server/vite.ts and the supabase client config", "status": "in_progress", "activeForm": "Fixing"},
		{"content": "Check the landing page components, navigation and admin bar render in the preview", "status": "pending", "activeForm": "Checking"},
	}})
	for _, tc := range []struct {
		name, goal string
		todos      bool
		want       bool
	}{
		{"a vague goal", "can you fix my website so i can preview it", false, false},
		{"a ticket by its identifier", "Implement spotter-gqc", false, true},
		{"a vague goal its to-do list names", "can you fix my website so i can preview it", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.userPrompt(tc.goal)
			if tc.todos {
				s.tool("TodoWrite", todos, `{"oldTodos":[],"newTodos":[]}`)
			}
			for _, f := range []string{"server/vite.ts", "client/src/lib/supabase.ts", "client/src/components/Navigation.tsx",
				"server/index.ts", "client/src/components/AdminBar.tsx", "client/src/pages/Landing.tsx"} {
				s.edit(f)
			}
			for _, c := range []string{"npm run dev", "npm run build", "npx tsc --noEmit", "npm run lint", "npm run check", "npm test"} {
				s.bash(c)
			}
			s.editRound(unrelatedFiles, 16)
			s.wantDrift(tc.want)
		})
	}
}
