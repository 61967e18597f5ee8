package hooks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/djinn-cc/djinn/settings"
)

// turn is one exchange: the user's prompt, a tool call of the agent, and
// its last message at Stop.
func (s *sim) turn(prompt, reply string) Response {
	r := s.userPrompt(prompt)
	s.tool("Bash", jsonStr(map[string]any{"command": fmt.Sprintf("go build ./... # %d", s.calls)}), map[string]any{"stdout": "", "stderr": ""})
	s.run(&Payload{HookEventName: Stop, LastAssistantMessage: reply})
	return r
}

// TestRepeatComplaintFires: the user reports the same crash three times,
// and after each of the first two the agent says it is fixed; the third
// report (and the second) draws the advisory, which quotes the claims.
func TestRepeatComplaintFires(t *testing.T) {
	s := newSim(t)
	s.turn("The app crashes on startup with a nil pointer in the config loader", "I patched the config loader. The crash is fixed: the server starts and curl -I returns 200.")
	s.turn("It still crashes on startup, same nil pointer", "Rebuilt and verified. It should now work.")
	if n := s.count("repeat-complaint"); n != 1 {
		t.Fatalf("second report: %d repeat-complaint advisories, want 1: %q", n, s.said)
	}
	r := s.userPrompt("still crashes on startup!!")
	if len(r.Context) == 0 || !strings.Contains(strings.Join(r.Context, "\n"), "[djinn:repeat-complaint]") {
		t.Fatalf("third report: no advisory: %q", r.Context)
	}
	text := r.Context[0]
	for _, want := range []string{`"It should now work."`, `"The crash is fixed: the server starts`, "3 reports", "the way the user sees it"} {
		if !strings.Contains(text, want) {
			t.Errorf("advisory lacks %q:\n%s", want, text)
		}
	}
	w := s.window()
	if c := w.Complaints; c == nil || len(c.Reports) != 3 || len(c.Claims) != 2 {
		t.Fatalf("window complaints = %+v", w.Complaints)
	}
}

// TestRepeatComplaintAfterOneClaim: a report, a claim of a fix, and the
// same failure reported again draw one advisory, however the report is
// worded or pasted.
func TestRepeatComplaintAfterOneClaim(t *testing.T) {
	tb := "KeyError: 'Year'\nTraceback:\nFile \"C:\\Users\\julie\\wintermute\\dashboard.py\", line 138, in <module>\n    report = analyzer.generate_summary_report(df, nation)"
	line := "< Failed to fetch Twitter timeline: Waiting for selector `input[type=\"password\"]` failed"
	for _, c := range []struct{ name, report, claim, again string }{
		// procrypto-screener #112, seventh held-out set, marked by both
		// judges.
		{"a slowness", "why are the token names in the watchlist loading so slowly?", "SUMMARY: Fixed slow token symbols by using the watchlist WebSocket store.",
			"they are loading slowly - is it because we fill the watchlist from the slow source first?"},
		// "didn't respond" is a failure report (procrypto-briefing #7,
		// marked by both judges of the twelfth set).
		{"a check that did not respond", "Your request URL responded with an HTTP error. Update your URL to receive a new request and challenge value.",
			"Fixed. Now redeploy, then retry the Request URL in Slack. It should verify now.",
			"Request URL Your URL didn't respond with the value of the challenge parameter."},
		{"the same exception named", "Check errors: KeyError in delegating_handler.ex:8", "Fixed! The KeyError is resolved, the handler reads the key with Map.get.",
			"Check errors: KeyError in delegating_handler.ex:8"},
		// A traceback pasted with no word of the user's own, its first
		// letter lost in the paste (ext-camsdashboard #82, marked by both
		// judges of the forty-second set).
		{"a pasted traceback", tb, "All column mapping issues have been resolved and the dashboard is robust to different CSV formats.", tb[1:]},
		// A console line pasted with its "< " prompt; "Restart and try
		// again" claims a fix (ext-gilasintents #64, the forty-fifth set,
		// marked by both judges).
		{"a pasted console line", line, "Now it waits for whichever field appears first. Timeouts are bumped to 15 seconds. Restart and try again.", line},
		// A negation elsewhere in the message does not turn the claim
		// round.
		{"a claim beside a negation", "Claude keeps crashing when I open the second session", "It was not the config after all. The crash is fixed: the launcher waits for the lock now.",
			"it still crashes when I open the second session"},
		// ext-diplocaption #101, the forty-fifth set, marked by both judges.
		{"does not save", "The styles are not saving, it says failed to save.", "After restarting the server, the migration will run correctly and saving should work.",
			"The issue is that when I try to change the name of the styles, it does not save them."},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSim(t)
			s.turn(c.report, c.claim)
			s.userPrompt(c.again)
			if n := s.count("repeat-complaint"); n != 1 {
				t.Errorf("%d repeat-complaint advisories, want 1: %q", n, s.said)
			}
		})
	}
}

// TestRepeatComplaintQuiet: a new, different request after a claim, and a
// repeated report with no claim of a fix in between, say nothing.
func TestRepeatComplaintQuiet(t *testing.T) {
	for name, turns := range map[string][][2]string{
		"new request": {
			{"The login page crashes with a TypeError when the password is empty", "Fixed: the handler now checks for an empty password."},
			{"Now add a dark mode toggle to the settings page", "Added the toggle."},
			{"The export button fails with a 500 error on large reports", "Resolved: the export streams now."},
		},
		// openshrooly (real session): the only claim since the first report
		// is about something else, the server's API, not the WiFi.
		"a claim about something else": {
			{"The device shows WiFi connection failed and will not connect to the network", "The API is working fine now."},
			{"it still does not connect to the WiFi network, it kicks me off", "Try entering the password again."},
		},
		// A sentence that says it was not fixed is no claim that it was
		// (the pool, p-nikaido #113, false to both judges).
		"a fix denied": {
			{"Claude keeps crashing when I open the second session", "I changed the launcher, but the Claude crashes haven't been properly fixed yet: the second session still needs a look."},
			{"it still crashes when I open the second session", "Looking at it."},
		},
		// e-dotai-4cd1e158 #95 (the thirteenth draw, false to both
		// judges): two failures that share only "pls" and "fail".
		"two failures that share a filler": {
			{"the backend server is failing to start. pls fix it", "## Issues Fixed: the backend starts now."},
			{"pls update the setup config. the security section doesnt exist. and also on opening in new window i get this error: LTI Launch Failed Invalid LTI signature", "Looking at it."},
		},
		// athena-keyerror #81 (seventh held-out set, labelled false): the
		// same words ("Check errors: … in …") name two exceptions.
		"another exception by the same words": {
			{"Check errors: FunctionClauseError in server.ex:358", "The FunctionClauseError is fixed after the recompile and restart."},
			{"Check errors: KeyError in delegating_handler.ex:8", "Looking at the logs now."},
		},
		// athena-keyerror #126 (seventh held-out set, labelled false by
		// both judges): the user had said it looks okay since.
		"the user said it works since": {
			{"Check errors: KeyError in delegating_handler.ex:8", "Fixed! The KeyError is resolved."},
			{"no, it looks okay to me. Lets check our status here and maybe commit", "Committed the change."},
			{"is our app named ash_chat now? Check errors: KeyError in delegating_handler.ex:8", "Yes, it is."},
		},
		// The forty-second set, false to both judges: thanks for the fix,
		// then a new request (ext-chromestoragetests #46); questions
		// about what tests named after failures mean (#55); rules for
		// CLAUDE.md that name errors (#52); console.error() as a name in
		// code (#47); "kick off" (ext-gadcommands #57).
		"thanks, then a new request": {
			{"The tests print act() warnings and error logs", "Now all tests pass and the act() warnings have been eliminated."},
			{"You're awesome. Thanks for figuring out how to fix all of those warnings. Now how do we fix those error logs? Just because we're testing error conditions doesn't mean there should be error logs in the console.", "Removed them."},
		},
		"questions about test names": {
			{"Questions to answer:\n1. What's the difference between the \"sets error state when storage operations fail\" and \"handles errors gracefully\" tests?", "The first checks the state, the second the log. All tests pass now."},
			{"What does the test \"combines storage and validation errors correctly\" mean?", "It checks both errors are kept."},
		},
		"rules that name errors": {
			{"The tests fail with errors", "Fixed: all tests pass now."},
			{"Update @CLAUDE.md to instruct Claude to do the following:\n- Always fix test warnings and errors.\n- Never move on until all of the tests are passing with no warnings or errors.\n", "Added the rules."},
		},
		"a name in code": {
			{"the error tests fail and print console logs on every run", "Fixed: the error tests pass now and print no console logs."},
			{"Instead of mocking calls to `console.error()` let's get rid of the calls to `console.error()` in the tests", "Removed them."},
		},
		"an exception class named in code": {
			{"The import fails with a KeyError: 'Year' in the dashboard", "Fixed: the dashboard maps the column names now."},
			{"Let's raise errors.ValidationError() from the loader and wrap it with a KeyError() subclass", "Done."},
		},
		// What Claude Code injects opens with a tag, not the user's words.
		"an injected notification": {
			{"<task-notification> <status>failed</status> <summary>Background command \"npm test\" failed (exit code 1)</summary> </task-notification>", "Fixed: the test passes now. Restart and try again."},
			{"<task-notification> <status>failed</status> <summary>Background command \"npm test\" failed (exit code 1)</summary> </task-notification>", "Looking."},
		},
		"kick off": {
			{"so I could kick off the app design with /design and fine tune features with /feat; the design errors show up later?", "This is exactly how architectural design should work."},
			{"how about this instead: /designcode kicks off the design process for each feature", "Sounds good."},
		},
		"a slowness of something else": {
			{"the dashboard page loads slowly", "Fixed: the dashboard query uses the index now."},
			{"the test suite is slow, can you make the CI faster?", "I split the suite into shards."},
		},
		// speakfree #34 (eighth held-out set, labelled false by both
		// judges): an offer to fix is no claim that it is fixed.
		"an offer, not a claim": {
			{"It crashes for me occasionally when the audio device switches, can you look into the crash?", "The crash comes from the audio device switching. **Want me to build a fixed version from source?** I'd patch the device listener."},
			{"The app could crash when the audio device switches, and the window could close: what other settings are there?", "Here are the settings."},
		},
		// ext-atlasgym #155 (twenty-ninth set, labelled false): two pasted
		// logs of different failures share only what every log says.
		"two logs of different failures": {
			{"part 1 error Error: Failed to run sql query: syntax error at or near line 104 in file scan.l", "Fixed the SQL: the separator lines are gone."},
			{"all done, now give me the next task", "Next: rotate the keys."},
			{"Running build in pdx1 on 104 cores. Cloning the repository: failed to fetch one file; the build command exited with 1", "Looking at the build log."},
		},
		// ext-backstopvrt #28 and #42 (thirty-first set, labelled false
		// by both judges): requests to keep errors out of the run, after
		// a report of another failure, report nothing.
		"a request to ignore errors": {
			{"docker compose run backstop approve BackstopJS v6.3.23 Loading config: /src/backstop.json Copying from /src/bitmaps_test to /src/bitmaps_reference. Error: ENOENT: no such file", "These are VRT errors, not setup errors: BackstopJS is working perfectly."},
			{"can we remove any errors related to the page not existing? and just test pages that exist?", "Done: missing pages are skipped."},
			{"update the testing suite again to ignore 404 error pages", "Updated."},
		},
		"no claim between": {
			{"The app crashes on startup with a nil pointer in the config loader", "I am looking at the config loader; I have not found the cause yet."},
			{"It still crashes on startup, same nil pointer", "Can you paste the full stack trace?"},
			{"still crashes on startup, here is the trace: nil pointer at loader.go:42", "Thanks, reading it now."},
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			for _, tu := range turns {
				s.turn(tu[0], tu[1])
			}
			if n := s.count("repeat-complaint"); n != 0 {
				t.Fatalf("%d repeat-complaint advisories: %q", n, s.said)
			}
		})
	}
}

// TestRepeatComplaintNeedsANewClaim: said again only after a new attempt
// at a fix since it was last said, a claim or a file written (judges M and
// N labelled the repeats with neither between them useless,
// cctrace-export #68, #75).
func TestRepeatComplaintNeedsANewClaim(t *testing.T) {
	s := newSim(t)
	s.turn("The app crashes on startup with a nil pointer in the config loader", "I patched the config loader. The crash is fixed.")
	s.userPrompt("It still crashes on startup, same nil pointer")
	if n := s.count("repeat-complaint"); n != 1 {
		t.Fatalf("after a claim: %d advisories, want 1: %q", n, s.said)
	}
	s.tool("Bash", jsonStr(map[string]any{"command": "go run . # 1"}), map[string]any{"stdout": "", "stderr": ""})
	s.run(&Payload{HookEventName: Stop, LastAssistantMessage: "Can you paste the full stack trace?"})
	s.userPrompt("still crashes on startup, here is the nil pointer trace again")
	if n := s.count("repeat-complaint"); n != 1 {
		t.Fatalf("no new claim since it was said: %d advisories, want 1: %q", n, s.said)
	}
	s.tool("Bash", jsonStr(map[string]any{"command": "go run . # 2"}), map[string]any{"stdout": "", "stderr": ""})
	s.run(&Payload{HookEventName: Stop, LastAssistantMessage: "Found it: the loader read a nil map. The crash is fixed now."})
	s.userPrompt("still crashes on startup with the nil pointer")
	if n := s.count("repeat-complaint"); n != 2 {
		t.Fatalf("a new claim, then the same crash: %d advisories, want 2: %q", n, s.said)
	}
	// A new attempt without a claim (a file written) counts too.
	s.tool("Edit", jsonStr(map[string]any{"file_path": s.file("loader.go", "a"), "old_string": "a", "new_string": "b"}), map[string]any{})
	s.run(&Payload{HookEventName: Stop, LastAssistantMessage: "I changed the loader's map initialisation."})
	s.userPrompt("it still crashes on startup, same nil pointer")
	if n := s.count("repeat-complaint"); n != 3 {
		t.Fatalf("a new edit, then the same crash: %d advisories, want 3: %q", n, s.said)
	}
}

// TestFailureRightAfterAClaim: the first report of a failure, made right
// after the agent's last message said the thing works, and naming the same
// thing, says the claim did not hold; a report about something else, a
// prompt that reports nothing, or a claim the agent worked past stays
// quiet.
// TestAgentQuotedBack: the person pasting the agent's own words back, to
// ask about them, reports nothing by them (g-omarclaudecontrolplane-
// ca171b89 #37, false to both judges of the fifteenth draw); a report that
// quotes the agent and says in its own words what is still broken is one.
func TestAgentQuotedBack(t *testing.T) {
	const claim = "## **❌ Issue Found & FIXED**:\n- **Path Reference Error**: In CURRENT-WORK.md, I had written `global/data/analysis/...`\n- **Fixed to**: `data/analysis/...` (correct relative path from CURRENT-WORK.md location)"
	for _, tc := range []struct {
		prompt string
		want   bool
	}{
		{"Why that   ❌ Issue Found & FIXED:\n\n  - Path Reference Error: In CURRENT-WORK.md, I had written global/data/analysis/...\n  - Fixed to: data/analysis/... (correct relative path from CURRENT-WORK.md location)\\\n\\\nHappened ?", false},
		{"Fixed to: data/analysis/... (correct relative path from CURRENT-WORK.md location) - no, the data/analysis link is still broken", true},
	} {
		s := newSim(t)
		s.turn("check the links in CURRENT-WORK.md", claim)
		r := s.userPrompt(tc.prompt)
		if got := strings.Contains(strings.Join(r.Context, "\n"), "[djinn:repeat-complaint]"); got != tc.want {
			t.Errorf("prompt %q: advisory %v, want %v (%q)", tc.prompt, got, tc.want, r.Context)
		}
	}
}

func TestFailureRightAfterAClaim(t *testing.T) {
	const claim = "I killed the stale server. The `npm run dev` command is working correctly now."
	const report = "Error: Command timed out after 2m 0.0s\n> site@1.0.0 dev\n> bundle exec jekyll serve --livereload"
	s := newSim(t)
	s.turn("Make npm run dev start the site", claim)
	r := s.userPrompt(report)
	text := strings.Join(r.Context, "\n")
	for _, want := range []string{"[djinn:repeat-complaint]", "right after the agent said it was fixed", "working correctly now", "in common: dev, command"} {
		if !strings.Contains(text, want) {
			t.Fatalf("advisory lacks %q: %q", want, r.Context)
		}
	}

	// A bare "still not working" right after the agent asked the user to
	// retry (procrypto-briefing #20, marked by judges AA and AB).
	s2 := newSim(t)
	s2.turn("Deploy the Slack endpoint", "Deployed. Now retry the Slack URL verification:")
	r2 := s2.userPrompt("still not working")
	if text := strings.Join(r2.Context, "\n"); !strings.Contains(text, `now "still not working"; the agent's last message said "Now retry the Slack URL verification:". The claim`) {
		t.Errorf("a bare complaint after a retry request: %q", r2.Context)
	}

	// "can't see it" right after "should now show" (ext-pegasus #93,
	// marked by both judges of the twenty-fifth set).
	s3 := newSim(t)
	s3.turn("can you fix my website so i can preview it", "The dev server is running on port 5000 and your Replit preview should now show the site correctly.")
	if r3 := s3.userPrompt("its still crashing and i cant see it"); !strings.Contains(strings.Join(r3.Context, "\n"), "[djinn:repeat-complaint]") {
		t.Errorf("a complaint after \"should now show\": %q", r3.Context)
	}

	// A failure heard, not seen: "I didn't hear my own prompt" again after
	// "Fixed! The TTS will now always include your prompt"
	// (ext-ttshookprompt #39, marked by both judges of the forty-ninth
	// set, in-sample since); a report that names no failure is none.
	for _, c := range []struct {
		report string
		want   bool
	}{
		{"Can you review the log because I didn't hear my own prompt?", true},
		{"Can you review the log and tell me what my own prompt was?", false},
	} {
		s := newSim(t)
		s.userPrompt("I didn't hear my own prompt which said hello")
		s.turn("make the TTS read my prompt", "Fixed! The TTS will now always include your prompt + my response.")
		r := s.userPrompt(c.report)
		if got := strings.Contains(strings.Join(r.Context, "\n"), "[djinn:repeat-complaint]"); got != c.want {
			t.Errorf("report %q: advisory %v, want %v (%q)", c.report, got, c.want, r.Context)
		}
	}

	// Two tracebacks of different errors from one project share only the
	// folders their paths run through: not the same report
	// (ext-ormmappers #68, false to both judges).
	s4 := newSim(t)
	// The earlier report as kept (its first 300 characters) names no
	// exception: the traceback's folders come first.
	s4.userPrompt(`File "/Users/lee/Documents/src/bep-oms-broker/.venv/lib/python3.12/site-packages/sqlalchemy/orm/state.py", line 569, in _initialize_instance
  File "/Users/lee/Documents/src/bep-oms-broker/.venv/lib/python3.12/site-packages/sqlalchemy/orm/decl_base.py", line 2179, in _declarative_constructor
  File "/Users/lee/Documents/src/bep-oms-broker/app/order/repository.py", line 40 error: 'account_id' is an invalid keyword argument for Order`)
	s4.turn("fix it", "Order Repository - Fixed domain mapping in the order repository.")
	r4 := s4.userPrompt(`File "/Users/lee/Documents/src/bep-oms-broker/.venv/lib/python3.12/site-packages/asyncpg/connection.py", line 12 ProgrammingError: column "updated_at" does not exist; call: /order.OrderService/CreateOrder took 28756.87ms`)
	if strings.Contains(strings.Join(r4.Context, "\n"), "reports a failure again") {
		t.Errorf("two errors matched on their paths' folders: %q", r4.Context)
	}
	if got := withoutDirs(`File "/Users/lee/src/app/state.py", line 5 and C:\\proj\\src\\main.go failed`); got != `File state.py", line 5 and main.go failed` {
		t.Errorf("withoutDirs = %q", got)
	}

	// Claims in Japanese and in Hindi written in Latin script, and an
	// English claim that lists what now holds (ext-jankengame #62,
	// ext-qeegquota #46, ext-thresholdslider #27 and #87, the forty-first
	// set, marked by both judges).
	for _, c := range []struct{ claim, report string }{
		{"現在のコードは正常に動作するはずなので、強制リロードしてください。", "リロードしたけどだめだったよ"},
		{"Quota wala issue fix ho gaya hai.", "still not working, same quota error"},
		{"The slider should now: - Not snap back - Update smoothly", "the slider behavior is still unstable"},
		{"The threshold behavior is now correct: [0, 0] shows all values.", "the starting threshold values are still -1000000 10000000"},
	} {
		s := newSim(t)
		s.turn("fix it", c.claim)
		if r := s.userPrompt(c.report); !strings.Contains(strings.Join(r.Context, "\n"), "right after the agent said it was fixed") {
			t.Errorf("claim %q, report %q: %q", c.claim, c.report, r.Context)
		}
	}

	for name, run := range map[string]func(s *sim) Response{
		// openshrooly #158 (labelled false): what the user should see is
		// no claim of a fix.
		"a Japanese claim over another failure's words": func(s *sim) Response {
			s.turn("画面を直して", "ボタンの色を修正しました。")
			return s.userPrompt("The export button fails with a 500 error on large reports")
		},
		"an expectation, not a claim": func(s *sim) Response {
			s.turn("Flash the OpenShrooly firmware", "Can you check the Shrooly's screen — it should display the IP address.")
			return s.userPrompt("its still not connecting and i cant see the network")
		},
		"a failure of something else": func(s *sim) Response {
			s.turn("Make npm run dev start the site", claim)
			return s.userPrompt("The export button fails with a 500 error on large reports")
		},
		"no failure reported": func(s *sim) Response {
			s.turn("Make npm run dev start the site", claim)
			return s.userPrompt("Thanks, the dev command is fine; now add a footer")
		},
		"the agent worked on after its claim": func(s *sim) Response {
			s.turn("Make npm run dev start the site", claim)
			s.tool("Bash", jsonStr(map[string]any{"command": "git status"}), map[string]any{"stdout": "", "stderr": ""})
			return s.userPrompt(report)
		},
		"a bare complaint with no claim before it": func(s *sim) Response {
			s.turn("Deploy the Slack endpoint", "Deployed. The build log shows the function bundled.")
			return s.userPrompt("still not working")
		},
		"a bare complaint after the agent worked on": func(s *sim) Response {
			s.turn("Deploy the Slack endpoint", "Deployed. Now retry the Slack URL verification.")
			s.tool("Bash", jsonStr(map[string]any{"command": "vercel logs"}), map[string]any{"stdout": "", "stderr": ""})
			return s.userPrompt("still not working")
		},
		"a complaint naming something new after a retry request": func(s *sim) Response {
			s.turn("Deploy the Slack endpoint", "Deployed. Now retry the Slack URL verification.")
			return s.userPrompt("the export button still fails with a 500 error")
		},
		"no claim": func(s *sim) Response {
			s.turn("Make npm run dev start the site", "I started the server; the `npm run dev` command prints its banner.")
			return s.userPrompt(report)
		},
		// procrypto-briefing, before #2 (labelled false by both judges of
		// the twelfth set): a condition is no claim.
		"a condition, not a claim": func(s *sim) Response {
			s.turn("Set up the Slack events endpoint", "Paste the Request URL in Slack. Let me know if the Request URL verification succeeds or fails - that tells us if the deployment is working.")
			return s.userPrompt("Your request URL responded with an HTTP error. Update your URL to receive a new request and challenge value.")
		},
	} {
		t.Run(name, func(t *testing.T) {
			if r := run(newSim(t)); len(r.Context) != 0 {
				t.Fatalf("said %q", r.Context)
			}
		})
	}
}

// TestStillWrongAfterAnEarlierReport: a report of a failure reported
// before, with no claim since, that says it is still wrong right after a
// turn that changed files, draws the advisory (ext-uploadqueuechips #79,
// "Still not seeing spinners", marked by both judges of the forty-third
// set): the turn's attempt did not reach it either.
func TestStillWrongAfterAnEarlierReport(t *testing.T) {
	s := newSim(t)
	s.editTurn("show spinners on the chips while the queue loads", "I changed the chips to show a spinner while loading.")
	s.userPrompt("I'm not seeing spinners on the chips")
	f := s.file("chips.vue", "<span>count</span>")
	s.tool("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "count", "new_string": "spinner"}), map[string]any{})
	s.run(&Payload{HookEventName: Stop, LastAssistantMessage: "I added a 50ms delay before the chips read the flag."})
	r := s.userPrompt("Still not seeing spinners on the chips.")
	if text := strings.Join(r.Context, "\n"); !strings.Contains(text, "last turn, which made 1 file write") {
		t.Fatalf("no advisory after the second attempt: %q", r.Context)
	}
}

// TestRepeatComplaintObservedByDefault: the kind is observed until it is
// measured precise enough; the agent is not told.
func TestRepeatComplaintObservedByDefault(t *testing.T) {
	if m := settings.Default().Advisories.Mode("repeat-complaint"); m != settings.Observe {
		t.Fatalf("default mode %q, want observe", m)
	}
	s := newSim(t)
	s.env.Settings.Advisories = settings.Default().Advisories
	s.turn("The build fails on the lint step in CI", "Fixed the lint errors; CI should now pass.")
	r := s.userPrompt("CI still fails on the lint step")
	if len(r.Context) != 0 || len(r.Observed) != 1 || !strings.HasPrefix(r.Observed[0], "[djinn:repeat-complaint]") {
		t.Fatalf("context %q observed %q", r.Context, r.Observed)
	}
}

// TestRepeatComplaintBounded: many reports and claims keep the state at its
// bounds, and the window still validates.
func TestRepeatComplaintBounded(t *testing.T) {
	s := newSim(t)
	long := strings.Repeat("the parser crashes on unicode input in a very long pasted log line ", 40)
	for i := 0; i < 12; i++ {
		s.turn(fmt.Sprintf("%s %d", long, i), "Fixed the parser; it should now work. "+strings.Repeat("x", 500)+" fixed.")
	}
	c := s.window().Complaints
	if c == nil || len(c.Reports) != maxReports || len(c.Claims) != maxClaims {
		t.Fatalf("complaints = %+v", c)
	}
	for _, r := range c.Reports {
		if len([]rune(r.Text)) > 300 || len(r.Stems) > 48 {
			t.Errorf("report not bounded: %d runes, %d stems", len([]rune(r.Text)), len(r.Stems))
		}
	}
}

// TestRequestSentAgain: the same request sent again word for word right
// after the agent said the work was done is the user saying it was not
// (athena-termmcp #2-#3: "try the terminal mcp", then "The Terminal MCP
// server started successfully", then "try the terminal mcp" again).
func TestRequestSentAgain(t *testing.T) {
	s := newSim(t)
	s.turn("try the terminal mcp", "The Terminal MCP server started successfully without errors. It's now running and ready to accept MCP protocol messages via stdin/stdout.")
	r := s.userPrompt("Try the  terminal MCP")
	if n := s.count("repeat-complaint"); n != 1 {
		t.Fatalf("the request sent again after \"started successfully\": %d advisories, want 1: %q", n, s.said)
	}
	text := strings.Join(r.Context, "\n")
	for _, want := range []string{"word for word", `"The Terminal MCP server started successfully without errors."`, `"Try the terminal MCP"`} {
		if !strings.Contains(text, want) {
			t.Errorf("advisory lacks %q:\n%s", want, text)
		}
	}
}

// TestRequestSentAgainLong: a long message is the same request only when
// it is the same to the last word; two pasted logs that share their first
// lines are two messages (p-claudeagents-0a82ee99 #19, the pool, false to
// both judges).
func TestRequestSentAgainLong(t *testing.T) {
	head := strings.Repeat("Here are the notes from the research notebook on the quarterly planning sessions, pasted as they came out. ", 4)
	for _, tc := range []struct {
		name, first, again string
		want               int
	}{
		{"the same long message", head + "Add them to the roadmap page under the second quarter.", head + "Add them to the roadmap page under the second quarter.", 1},
		{"another message with the same start", head + "Add them to the roadmap page under the second quarter.", head + "Now turn the same notes into a one-page summary for the team.", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t)
			s.turn(tc.first, "Fixed! The tag list now loads and deletes work.")
			s.userPrompt(tc.again)
			if n := s.count("repeat-complaint"); n != tc.want {
				t.Errorf("%d repeat-complaint advisories, want %d: %q", n, tc.want, s.said)
			}
			c := s.window().Complaints
			if c != nil && len([]rune(c.Asked)) > 300 {
				t.Errorf("asked kept %d runes, want at most 300", len([]rune(c.Asked)))
			}
		})
	}
}

// TestRequestSentAgainQuiet: a request sent again stays quiet when it is a
// short reply, when the agent's last message said nothing was done (a
// status, a question, the CLI's error), when the agent worked on after it,
// and when the words differ.
func TestRequestSentAgainQuiet(t *testing.T) {
	cases := map[string]struct {
		prompt, reply, again string
		toolAfter            bool
	}{
		"short reply":   {"check again", "The copy finished successfully.", "check again", false},
		"status":        {"check the tart copy again", "The Tart copy is still running (17GB of 42GB copied).", "check the tart copy again", false},
		"question":      {"search for related projects online", "Found three. Ready to add this to your Phase 1.3 setup?", "search for related projects online", false},
		"api error":     {"perfect - i agree, engage!", "API Error: Connection error.", "perfect - i agree, engage!", false},
		"worked on":     {"try the terminal mcp", "The server started successfully.", "try the terminal mcp", true},
		"other request": {"try the terminal mcp", "The server started successfully.", "now try the browser mcp", false},
		// The same slash command run again, to try the skill the agent
		// just changed (ext-notebooklmpipeline #113).
		"command again": {"/notebooklm-research VCF 9 Supervisor", "The skill now works exactly as you originally intended.", "/notebooklm-research VCF 9 Supervisor", false},
	}
	// A request the CLI aborted before any answer, sent again
	// (ext-chromestoragetests #52, "API Error: Request was aborted.", no
	// Stop between the two): the done before it answered another request.
	t.Run("aborted, sent again", func(t *testing.T) {
		s := newSim(t)
		s.turn("make the tests run clean", "Perfect! The test suite is all set: it runs clean.")
		s.userPrompt("Update CLAUDE.md with the testing rules we agreed on")
		s.userPrompt("Update CLAUDE.md with the testing rules we agreed on")
		if n := s.count("repeat-complaint"); n != 0 {
			t.Errorf("%d repeat-complaint advisories, want none: %q", n, s.said)
		}
	})
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			s.turn(c.prompt, c.reply)
			if c.toolAfter {
				s.tool("Bash", jsonStr(map[string]any{"command": "ls"}), map[string]any{"stdout": "a", "stderr": ""})
			}
			s.userPrompt(c.again)
			if n := s.count("repeat-complaint"); n != 0 {
				t.Errorf("%d repeat-complaint advisories, want none: %q", n, s.said)
			}
		})
	}
}

// editTurn is an exchange in which the agent edits a file before its last
// message: an attempt at what the prompt asked.
func (s *sim) editTurn(prompt, reply string) {
	s.userPrompt(prompt)
	f := s.file(fmt.Sprintf("page%d.css", s.calls), "color: black")
	s.tool("Edit", jsonStr(map[string]any{"file_path": f, "old_string": "black", "new_string": "green"}), map[string]any{})
	s.run(&Payload{HookEventName: Stop, LastAssistantMessage: reply})
}

// TestStillWrongAfterATurn: a prompt whose first sentence says the thing
// is still wrong, right after a turn that changed files, draws the
// advisory whatever the agent's message said (ext-cc2html #49 "nope, still
// same colors", ext-harumd #37, ext-stratwatch #164 "toujours pas", marked
// by the judges of the twenty-fourth to twenty-eighth sets), and a slash
// command's arguments are the user's words; "still" that is no report, a
// turn that changed nothing, or a report further on stays quiet.
func TestStillWrongAfterATurn(t *testing.T) {
	const reply = "Done! The diff output now uses green and red."
	for _, c := range []struct {
		name, prompt string
		edit, want   bool
	}{
		{"still same", "nope, still same colors. also: the code blocks are messed up", true, true},
		{"still doesn't", "Much of the report still doesn't have citations. Please use the fact-checker.", true, true},
		{"still bad after an image", "[Image #1]\nworkspace indicator id still bad can we highlight the current day", true, true},
		{"french", "toujours pas, vérifie que ça écoute pas juste sur localhost", true, true},
		{"cant see", "I still cant see it", true, true},
		// An error that goes on (ext-chatiainstall, thirty-second set);
		// "continua" alone asks to go on.
		{"portuguese errors continue", "ultrathink faça uma nova análise do log pois os erros continuam", true, true},
		{"portuguese still persists", "ultrathink o erro ainda persiste \"errored\"", true, true},
		{"english persists", "the error persists after the restart", true, true},
		{"continua as a request", "continua com a próxima tarefa", true, false},
		{"slash command arguments", "/full-context [Image #1] the diff colors are still wrong", true, true},
		{"no change in the turn", "nope, still same colors", false, false},
		{"still further on", "ok while that deploys add a banner to the page. We still dont have an agents page either.", true, false},
		{"still as a request", "we still need a footer on the page", true, false},
		{"still as a question", "do we still have these links in the README?", true, false},
		{"still have no idea", "i still have no idea whether the data reaches the backend", true, false},
		// Not following the agent's reasoning is no failure still there
		// (g-claudeconfig-aa411226 #40, the fifteenth draw).
		{"still do not understand why", "simply source venv, I still do not understand why need module named ensurepip", true, false},
		{"still don't get how", "i still don't get how the cache is filled", true, false},
		{"still don't see it", "I still don't see it on the page", true, true},
		// ext-tenderactions #12, the forty-fifth set: nothing changed where
		// the user looks; "nothing changed in the API" says what is so.
		{"nothing changed", "huh where did you do that nothing changed, look at this image: attached_assets/image_1.png", true, true},
		{"nothing changed in something", "Nothing changed in the API since v2, so add the endpoint to the client too", true, false},
		// Spanish and Portuguese with the negation first (ext-restaurant
		// #139, ext-chatiainstall #222); "not yet" and "even then, don't"
		// ask.
		// A measure still off after "The page should now load in under 1
		// second" (ext-wunwebsite #43, the twenty-sixth set).
		{"still around a number", "Still around 2 secs. Anyway that we can optimize and make it faster?", true, true},
		{"still at a count", "we are still at 3 of 10 tasks, go on with the next one", true, false},
		{"spanish not seeing yet", "NO ESTOY VIENDO LOS CORAZON TODA VIA. NUNCA ASUMAS SIEMPRE COMPRIEBA", true, true},
		{"spanish don't yet", "no lo hagas todavía, primero revisa el plan", true, false},
		{"portuguese even after", "mesmo fazendo o hard reload não sai da splash screen", true, true},
		{"portuguese even then, don't", "mesmo depois disso, não esqueça de rodar os testes", true, false},
		{"slash command alone", "/full-context", true, false},
		// Korean says it with the result negated (ext-adminfilter #47,
		// #90, #97, the thirty-fourth set, marked by both judges); a bare
		// "안돼" forbids, and a question that names no result asks.
		{"korean not gone", "클로드야 안 없어진거 같은데? 다시 확인해볼래?", true, true},
		{"korean even so", "다시 main 브랜치로 돌아왔거든? 근데도 안돼 이유가 뭘까?", true, true},
		{"korean removal does not happen", "완전히 새로고침을 해도 제거가 안되는데 캐시 삭제하는 법 좀 알려주라", true, true},
		{"korean forbidding", "그건 안돼, 다른 방법으로 해줘", true, false},
		{"korean asking it kept", "설정 파일은 안 지워지게 해줘", true, false},
		{"korean not yet, a new problem", "좋아 그리고 지금 문제가 하나 있는데 답변은 볼 수 있는데 질문을 볼수가 없어. 아직 안나와.", true, false},
		{"korean still", "여전히 안 나와, 다시 확인해줘", true, true},
		{"korean still the same", "여전히 마찬가지야. 인풋 컴포넌트가 왜 정상 표시되지 않는지 확인해줘.", true, true},
		{"korean the same, asked", "이것도 마찬가지로 바꿔줘", true, false},
		{"korean further on", "좋아, 잘했어. 다음으로 로그인 화면을 봐줘. 아까 버튼이 안 바뀐건 괜찮아", true, false},
		{"korean request", "필터 적용 버튼의 배경부분을 수정해야하는데 어디 부분인지 파악 좀 해볼래?", true, false},
		{"korean, no change in the turn", "클로드야 안 없어진거 같은데?", false, false},
		// Japanese (ext-jankengame #63-#142, the forty-first set, marked by
		// both judges): no good, nothing changed, does not show; "でないと"
		// (unless) and a request are none.
		{"japanese no good", "リロードしたけどだめだったよ", true, true},
		{"japanese nothing changed", "変わらなかった", true, true},
		{"japanese does not show", "新しいゲムでない。Script loaded DOM loaded", true, true},
		{"japanese as before", "相変わらずでないしログも若干広くなった気がする", true, true},
		{"japanese unless", "ボタンを押さないでないと困るので、色を青にして", true, false},
		{"japanese request", "もう変化がわかるように派手にしてくれる？", true, false},
		{"japanese, no change in the turn", "変わらなかった", false, false},
		// Still seeing, still getting (ext-uploadqueuechips #49, the
		// forty-third set); Chinese "does not work" with no "still"
		// (ext-hyprlandwifi #94); Japanese "not shown" in the second
		// sentence, after a blank line (ext-weeklypdca #36).
		{"still seeing", "No, I still see the count, not a spinner.", true, true},
		{"still getting", "[Image #1] still getting this error", true, true},
		{"chinese does not work", "super w 不管用啊。。。", true, true},
		{"japanese second sentence", "Notion書き込みを週次として反映してください。\n\nサイドバーの「予定済み」に週次PDCAが表示されません。", true, true},
		{"japanese not shown, terse", "再起動しましたが、サイドバーに表示されず。", true, true},
		// Still unstable, still the old value (ext-thresholdslider #28,
		// #88, marked by both judges of the forty-first set).
		{"still unstable", "the behavior is still unstable and now the mouse gets stuck", true, true},
		{"still the old value", "the starting threshold values are still -1000000 10000000", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSim(t)
			if c.edit {
				s.editTurn("make the diff colours green and red", reply)
			} else {
				s.turn("make the diff colours green and red", "I looked at the stylesheet; the colours come from the theme.")
			}
			r := s.userPrompt(c.prompt)
			got := s.count("repeat-complaint") == 1
			if got != c.want {
				t.Fatalf("advised %v, want %v: %q", got, c.want, s.said)
			}
			if c.want {
				text := strings.Join(r.Context, "\n")
				if !strings.Contains(text, "last turn, which made 1 file write") && !strings.Contains(text, "said it was fixed") {
					t.Errorf("advisory does not say what it answers: %q", text)
				}
			}
		})
	}
}
