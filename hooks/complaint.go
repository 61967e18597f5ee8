package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/djinn-cc/djinn/engines/drift"
	"github.com/djinn-cc/djinn/engines/lcs"
	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/internal/fit"
	"github.com/djinn-cc/djinn/internal/sat"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// Repeated complaints (issue 20). A user prompt that reports a failure is
// kept (its start and stems, the last few); at Stop, a sentence of the
// agent's last message that says something was fixed is kept as a claim. A
// later report that shares the failure with an earlier one, after a claim
// made since that earlier one, is the same complaint again: the agent's
// fixes did not reach what the user sees.

const (
	maxReports = 6
	maxClaims  = 4
	// complaintHead is how much of a prompt is read: a pasted log after
	// the complaint adds words that are not the user's report.
	complaintHead = 600
)

// The patterns of a failure report, of a report said again, and of a claim
// that something was fixed. Each is compiled on first use, and only when
// its prefilter says it may match: a prompt or a message without any of
// their words (most of them) compiles none.
var (
	failureRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(fail\w*|errors?|crash\w*|broken|breaks|exceptions?|kick\w*|wrong|hangs?|freez\w*|frozen|time[sd]? ?out|stuck|blank|slow(ly)?|(does ?n[o']?t|do ?n[o']?t|did ?n[o']?t|is ?n[o']?t|are ?n[o']?t|wo ?n'?t|ca ?n'?t|can ?n[o']?t|not) (work|load|start|run|connect|compile|build|show|open|pass|respond|see|hear|play|sound|speak|appear|display|render|save|persist)\w*|(not|no \w+) found|no such)\b`)
	})
	repeatRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(still|again|same|keeps?|once more)\b`)
	})
	claimRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(fixed|resolved|should (now )?(work|pass|run|succeed|be (fixed|working|resolved|gone))|should now (load|show|appear|display|render)|should (load|show|appear|display|render) (now|correctly|properly)|(now|all) (works?|passe?s?|passing|succeeds?)|works now|(is|are) (now )?working|(is|are) now (correct|right|fixed)|are passing|(tests?|checks?) (now |all )?pass(es|ing)?|no longer (fails?|crash\w*|errors?|happens?)|(now|please) (try (it )?again|retry)|(restart|reload|refresh|rebuild|redeploy)\w* (\w+ )?and (try (it )?again|retry))\b` +
			// "The slider should now:" and a list of what it does.
			`|\bshould now:` +
			// Japanese: 解決しました/修正完了 (fixed), 動作するはず (should
			// work), 表示されるはず (should show); and Hindi in Latin
			// script: "fix ho gaya", "ab try karo" (ext-jankengame,
			// ext-vercelrootdir, ext-qeegquota, the forty-first set).
			`|解決(?:しました|完了|済)|修正(?:しました|完了|済)|直(?:しました|りました)|(?:する|される|できる|動く|成功する)はず` +
			`|\b(?:fix|theek|thik|solve|resolve) ho gaya\b|\bab try karo\b`)
	})
)

// persistsRe matches a user saying that something is still wrong, in
// the words people use right after a claim of a fix: "still not working",
// "I still cant see it", "still same colors", "is still wrong", "still
// says ap mode", and the same in French, Spanish, German, Portuguese and
// Chinese ("toujours pas", "todavía no", "immer noch nicht", "还是不行");
// Korean is koreanPersistsRe's.
// "still" alone is no report ("we still need a footer", "do we still have
// these links"): it must be followed at once by a negation or a word of
// failure.
var persistsRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bstill,? (?:(?:does|do|did|is|are|was|were|has|have|can|could|will|would)\s?n[o']?t|ca ?n'?t|cannot|dont|doesnt|didnt|isnt|arent|wont|not|no|never|fail\w*|broken|wrong|bad|slow|crash\w*|(?:the )?same|blank|empty|missing|stuck|hang\w*|says|shows|showing|happening|pending|an? (?:issue|problem|error)|error\w*|throw\w*)\b|\btoujours (?:pas|rien|le même|la même|bloqué|en erreur)|\btodav[ií]a no\b|\bsigue sin\b|\bsigue (?:fallando|igual)\b|\b(?:immer|noch) (?:noch|immer) (?:nicht|kein)|\bainda não\b|(?:还是|仍然|依然|仍)(?:不|没|一样)|不管用|不好使|不起作用|没(?:有)?反应|没效果` +
		// An error that goes on, in Portuguese, Spanish and English: "os erros
		// continuam", "o erro ainda persiste", "el error sigue"
		// (ext-chatiainstall, thirty-second set, marked by both judges).
		// The noun must come first: "continua" alone is also "go on!".
		`|\b(?:erros?|errores|problemas?|falhas?|fallos?)\s+(?:ainda\s+|todav[ií]a\s+)?(?:continua|continuam|contin[uú]an?|persiste|persistem|persisten|sigue|siguen)\b|\bainda\s+persistem?\b` +
		`|\b(?:errors?|issues?|problems?)\s+(?:still\s+)?(?:persists?|continues?|remains?)\b` +
		// "the behavior is still unstable", "the values are still
		// -1000000 10000000" (ext-thresholdslider #28, #88, the
		// forty-first set, marked by both judges).
		`|\bstill,? (?:(?:unstable|unresponsive|unchanged|unusable|flicker\w*|glitch\w*|see|seeing|get|getting)\b|(?:(?:around|about|over|roughly|like|~)\s*)?[-+]?\d)` +
		// "huh where did you do that nothing changed, look at this image"
		// (ext-tenderactions #12, the forty-fifth set, marked by a judge):
		// the change the agent reported did not reach what the user sees.
		// "Nothing changed in the API since v2" says what is so, not that
		// the attempt failed: the words must end a clause.
		`|\bnothing (?:has )?chang(?:ed|es)(?:\s*(?:[,.!?;:]|$)|\s+(?:at all|look|see)\b)` +
		// Spanish and Portuguese with the negation first: "NO ESTOY VIENDO
		// LOS CORAZON TODA VIA" (not seeing them yet; ext-restaurant #139,
		// the twenty-second set), "mesmo fazendo o hard reload não sai da
		// splash screen" (even after a hard reload it does not leave;
		// ext-chatiainstall #222, the thirty-second), both marked by both
		// judges.
		// The verb must say something is not shown or not working: "no lo
		// hagas todavía" (don't do it yet) and "mesmo depois, não esqueça"
		// (even then, don't forget) ask.
		`|\bno\s+(?:(?:se|lo|la|los|las|me)\s+)?(?:est[aá]n?|estoy|veo|vemos|ven?|funciona\w*|carga\w*|aparece\w*|muestra\w*|sale\w*)\b[^.!?\n]{0,40}\btoda ?v[ií]a\b` +
		`|\bmesmo\s+(?:fazendo|depois|ap[oó]s|com)\b[^.!?\n]{0,60}\bn[aã]o\s+(?:sai\w*|funciona\w*|carrega\w*|aparece\w*|mostra\w*|abre|muda\w*|vejo|v[eê]|est[aá]|est[aã]o)\b`)
})

// japanesePersistsRe matches a Japanese report that the result did not
// come: だめだった / 駄目やね (no good), 変わらなかった (nothing changed),
// 相変わらず (as before), 表示されない / でない (does not show), 動かない
// (does not work), まだ…ない (still not) (ext-jankengame #63-#142, the
// forty-first set, marked by both judges). でない counts only at a
// sentence's end ("でないと" is "unless").
var japanesePersistsRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`だめ|ダメ|駄目|変わら(?:ない|なかった|ず)|変わってない|相変わらず|同じ(?:エラー|問題|症状)` +
		`|(?:表示され|出|動か|動作し|直ら|直って|動いて|反映され|効か|起動し|開か|消え)(?:ない|なかった|ません|ていない|てない|ず)|存在しない|存在しません` +
		`|で(?:ない|ません)(?:ね|よ|な|[。、！!？?\s]|$)|まだ[^。！？\n]{0,12}(?:ない|ません)`)
})

// hasJapanese tells a text with kana in it.
func hasJapanese(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.In(r, unicode.Hiragana, unicode.Katakana) })
}

// koreanPersistsRe matches a Korean report that the result did not come:
// "근데도 안돼" (even so it doesn't work), "안 없어진거 같은데" (it doesn't
// seem gone), "왜 안 지워지는지" (why it isn't deleted), "제거가 안되는데"
// (the removal doesn't happen) (ext-adminfilter #47, #90, #97, the
// thirty-fourth set, marked by both judges), "여전히 마찬가지야" (still the
// same; ext-materialtailwind, the thirty-fifth). A bare "안돼" is also
// "don't!", so it counts only after "still" (아직도, 여전히) or "even so";
// "아직 안" is "not yet" (ext-squeezelms #58, a new problem after "좋아");
// "안 지워지게" (so that it is not deleted) asks.
var koreanPersistsRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:아직도|여전히|그래도|근데도|그런데도)\s*(?:(?:안|못)\s*\S|마찬가지|똑같)` +
		`|안\s*(?:(?:없어|지워|사라|고쳐)(?:[진졌]|지[는네])|바뀐|바뀌었|바뀌[는네])` +
		`|(?:제거|삭제|수정|변경|적용|해결)(?:가|이)?\s*안\s*(?:되|돼|됐)`)
})

// stillWrong tells a prompt whose first sentence says something is still
// wrong: further on, "still" is seldom the report ("ok while that deploys,
// add a banner; we still dont have an agents page", ext-atlasgym). A
// Korean report often comes second, after what the user did ("다시 main
// 브랜치로 돌아왔거든? 근데도 안돼"): there the first two sentences count.
func stillWrong(head string) bool {
	first := strings.TrimSpace(imageRefRe().ReplaceAllString(head, ""))
	two := first
	if m := sentenceEnd().FindStringIndex(first); m != nil {
		first = first[:m[0]]
		rest := strings.TrimLeft(two[m[1]:], " \t\r\n")
		if n := sentenceEnd().FindStringIndex(rest); n != nil {
			rest = rest[:n[0]]
		}
		two = two[:m[1]] + rest
	}
	if mayMatch(first, persistsWords) && persistsRe().MatchString(puzzledRe().ReplaceAllString(first, "")) {
		return true
	}
	return hasHangul(two) && koreanPersistsRe().MatchString(two) || hasJapanese(two) && japanesePersistsRe().MatchString(two)
}

// puzzledRe matches a person saying they still do not follow the agent's
// reasoning ("I still do not understand why need module named
// ensurepip"): a question about the approach, no failure still there
// (g-claudeconfig-aa411226 #40, false to both judges of the fifteenth
// draw). "I still can't see it" stays a report.
var puzzledRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bstill,? (?:(?:do|does|did)\s?n[o']?t|dont|doesnt|didnt|can'?t|cannot) (?:understand|know|(?:get|see) (?:why|how|what))\b`)
})

// hasHangul tells a text with a Hangul syllable in it.
func hasHangul(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Hangul, r) })
}

// imageRefRe matches the CLI's placeholder for a pasted image, which may
// stand on a line of its own before the report.
var imageRefRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[Image #\d+\]`) })

// persistsWords hold a word every match of persistsRe contains.
var persistsWords = []string{"still", "toujours", "todav", "toda v", "sigue", "immer", "ainda", "mesmo", "erro", "problem", "falha", "fallo", "issue", "nothing"}

// fineRe matches a user saying the failure is gone: "it looks okay to
// me", "that worked", "works now".
var fineRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(looks? (okay|ok|good|fine)|(it|that|this) (works|worked)|(works|working) now|(that|this) fixed it|all good)\b`)
})

// fineWords hold a word every match of fineRe contains.
var fineWords = []string{"look", "work", "fixed", "good"}

// failureWords, repeatWords and claimWords hold, for each pattern, a word
// that every match of it contains (lower case): a text with none of them
// cannot match.
var (
	failureWords = []string{"fail", "error", "crash", "broke", "break", "exception", "kick", "wrong", "hang", "slow",
		"freez", "frozen", "time", "stuck", "blank", "work", "load", "start", "run", "connect", "compile", "build",
		"show", "open", "pass", "respond", "see", "hear", "play", "sound", "speak", "appear", "display", "render", "save", "persist", "found", "no such"}
	repeatWords = []string{"still", "again", "same", "keep", "once more"}
	claimWords  = []string{"fixed", "resolved", "should", "work", "pass", "succeed", "test", "check", "no longer", "try", "correct", "right", "ho gaya"}
)

// mayMatch is false only when re cannot match text because text is ASCII
// and holds none of words in any case (under (?i) the non-ASCII K and ſ
// fold to ASCII letters, so a text with other bytes is always tried).
func mayMatch(text string, words []string) bool {
	return mayMatchEach(text, words)[0]
}

// mayMatchEach is mayMatch for several lists of words, the text lowered
// once.
func mayMatchEach(text string, lists ...[]string) []bool {
	out := make([]bool, len(lists))
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			for j := range out {
				out[j] = true
			}
			return out
		}
	}
	lower := strings.ToLower(text)
	for j, words := range lists {
		for _, w := range words {
			if strings.Contains(lower, w) {
				out[j] = true
				break
			}
		}
	}
	return out
}

// failureStems are the stems of the failures a prompt's head reports:
// the last word of each failureRe match that no suppressVerbs word
// precedes.
// withoutDirs is text with each path of two or more folders cut to its
// last part: the folders of a pasted traceback ("/Users/lee/Documents/src/
// bep-oms-broker/.venv/lib/…/state.py") say where the code lives, not
// what failed, and two reports of different errors from one project share
// them all (ext-ormmappers #68: a TypeError and a ProgrammingError matched
// on "user, lee, document, src, bep, broker", false to both judges).
func withoutDirs(text string) string {
	if !strings.ContainsAny(text, "/\\") {
		return text
	}
	fields := strings.Fields(text)
	for i, f := range fields {
		if strings.Count(f, "/")+strings.Count(f, "\\") < 2 {
			continue
		}
		parts := strings.FieldsFunc(f, func(r rune) bool { return r == '/' || r == '\\' })
		if len(parts) > 0 {
			fields[i] = parts[len(parts)-1]
		}
	}
	return strings.Join(fields, " ")
}

func failureStems(head string) []string {
	if !mayMatch(head, failureWords) {
		return nil
	}
	head = reportedPart(head)
	var out []string
	for _, ix := range failureRe().FindAllStringIndex(head, 8) {
		if suppressed(head[:ix[0]]) || kickOff(head, ix[0], ix[1]) || inIdentifier(head, ix[0], ix[1]) {
			// "kick off the design" starts something; console.error() is
			// a name in code (ext-chromestoragetests #47, the forty-second
			// set).
			continue
		}
		f := strings.Fields(head[ix[0]:ix[1]])
		out = appendStem(out, drift.Stem(strings.ToLower(f[len(f)-1])))
	}
	if pastedException(head) {
		out = appendStem(out, "error")
	}
	return out
}

// kickOff tells a match of "kick…" followed by " off": "kick off the
// design" starts something.
func kickOff(text string, i, j int) bool {
	return j-i >= 4 && strings.EqualFold(text[i:i+4], "kick") && j+4 <= len(text) && strings.EqualFold(text[j:j+4], " off")
}

// pastedExceptionRe matches what a pasted exception shows: its class
// ("KeyError: 'Year'", "TypeError: ne.price.toFixed is not a function",
// "java.net.UnknownHostException"; the first letter may be lost in the
// paste, "eyError") or a Python traceback.
var pastedExceptionRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9]*(?:Error|Exception)\b|\bTraceback\b`)
})

// pastedException tells a prompt whose head pastes an exception, a
// failure whatever other words it has: the user pasting the traceback the
// app printed is reporting it, often with no word of their own
// (ext-camsdashboard #71 and #82, the same KeyError traceback pasted after
// "All column mapping issues have been resolved", marked by both judges of
// the forty-second set). A class named in code (errors.KeyError,
// KeyError()) or in a rule or a question is not pasted.
func pastedException(head string) bool {
	for _, ix := range pastedExceptionRe().FindAllStringIndex(head, 8) {
		if !inIdentifier(head, ix[0], ix[1]) {
			return true
		}
	}
	return false
}

// inIdentifier tells a match that is part of a name in code: right after
// a dot or an underscore, or right before a dot, an underscore or a
// parenthesis (console.error(), on_error, error.message).
func inIdentifier(text string, i, j int) bool {
	return i > 0 && (text[i-1] == '.' || text[i-1] == '_') || j < len(text) && (text[j] == '(' || text[j] == '_' || text[j] == '.' && j+1 < len(text) && text[j+1] != ' ' && text[j+1] != '\n')
}

// praised tells a prompt that opens by thanking or praising the agent:
// what it says next is no report that the fix failed.
func praised(head string) bool {
	t := strings.ToLower(strings.TrimSpace(head))
	for _, p := range []string{"thanks", "thank you", "thx", "you're awesome", "you are awesome", "awesome", "great job", "great work", "perfect", "excellent", "good job", "well done", "amazing", "nice work", "nice job"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// reportedPart is a prompt's head without the sentences that report
// nothing, whatever failure words they hold: a rule ("Always fix test
// warnings and errors", "- Never move on until the tests pass") and a
// question about what something means or how to do it ("What does the
// test \"combines storage and validation errors correctly\" mean?", "how
// do we fix those error logs?"); ext-chromestoragetests #52, #55, the
// forty-second set, false to both judges. "Why does it fail?" stays a
// report.
func reportedPart(head string) string {
	var b strings.Builder
	start := 0
	keep := func(end int) {
		sent := head[start:end]
		if !ruleOrQuestion(sent) {
			b.WriteString(sent)
		} else {
			b.WriteString(" ")
		}
		start = end
	}
	for _, m := range sentenceEnd().FindAllStringIndex(head, -1) {
		keep(m[1])
	}
	keep(len(head))
	return b.String()
}

// ruleOrQuestion tells a sentence that sets a rule or asks what something
// means or how to do something (reportedPart).
func ruleOrQuestion(sent string) bool {
	t := strings.ToLower(strings.TrimLeft(strings.TrimSpace(sent), "-*•0123456789. "))
	for _, p := range []string{"always ", "never ", "make sure ", "ensure ", "don't ", "do not ", "remember "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(t), "?") {
		return false
	}
	for _, p := range []string{"what does ", "what do ", "what's the difference", "what is the difference", "how do ", "how can ", "how should ", "should ", "can we ", "could we ", "would it ", "do we ", "is there "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// suppressVerbs ask for failures to be kept out of sight or handled
// ("remove any errors related to the page not existing", "ignore 404
// error pages", ext-backstopvrt #28 and #42, labelled false by both
// judges): the failure named after one is what a request is about, not a
// failure the user reports.
var suppressVerbs = map[string]bool{"ignore": true, "ignores": true, "ignoring": true, "remove": true, "removing": true,
	"skip": true, "skipping": true, "suppress": true, "silence": true, "hide": true, "filter": true, "exclude": true,
	"handle": true, "catch": true, "mute": true, "avoid": true}

// suppressed tells whether one of the last three words before a failure
// word asks for it to be suppressed (suppressVerbs).
func suppressed(before string) bool {
	ws := strings.FieldsFunc(strings.ToLower(before), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range ws[max(0, len(ws)-3):] {
		if suppressVerbs[w] {
			return true
		}
	}
	return false
}

// complaintStop are words too common to tie two reports together.
var complaintStop = map[string]bool{
	"the": true, "and": true, "but": true, "for": true, "with": true, "that": true, "this": true, "it": true,
	"its": true, "you": true, "your": true, "are": true, "was": true, "were": true, "is": true, "not": true,
	"now": true, "still": true, "again": true, "why": true, "what": true, "when": true, "how": true, "can": true,
	"just": true, "like": true, "get": true, "got": true, "have": true, "has": true, "had": true, "doe": true,
	"don": true, "didn": true, "isn": true, "won": true, "there": true, "then": true, "than": true, "they": true,
	"from": true, "into": true, "onli": true, "right": true, "well": true, "same": true, "all": true, "ani": true,
	"some": true, "after": true, "befor": true, "please": true, "pleas": true, "also": true, "one": true, "out": true,
	// "please" as people type it (e-dotai-4cd1e158 #95: two different
	// failures paired on "pls, fail", false to both judges of the
	// thirteenth draw).
	"pls": true, "plz": true, "plse": true, "thx": true, "thank": true, "thanks": true,
	"let": true, "make": true, "need": true, "want": true, "ultrathink": true, "think": true, "look": true, "see": true,
	// Negations typed without their apostrophe ("i cant see it").
	"cant": true, "dont": true, "doesnt": true, "isnt": true, "wont": true, "didnt": true, "arent": true,
	// What every pasted log says (a Vercel build log and an SQL error
	// shared run, file and fail: ext-atlasgym #155, labelled false by
	// judge BS of the twenty-ninth set).
	"run": true, "file": true, "line": true, "code": true, "exit": true,
}

// complaintStems are the stems of a prompt's words, without the common
// ones, and the stems of its failure words; none for a prompt that names
// no failure, unless it says something is still wrong (persists).
func complaintStems(text string, persists bool) (stems, failures []string) {
	head := fit.Runes(text, complaintHead)
	failures = failureStems(head)
	if len(failures) == 0 && !persists {
		return nil, nil
	}
	for _, t := range lcs.Normalize(withoutDirs(head)) {
		if len(t) < 3 || len(stems) >= 48 {
			continue
		}
		st := drift.Stem(t)
		if drift.UnsegmentedLetters(t) > 0 {
			// A run of Japanese or Chinese is a phrase, not a word: kept
			// to its start rather than dropped for its length.
			st = fit.Bytes(t, 60)
		}
		if len(st) < 3 || complaintStop[st] || complaintStop[t] || len(st) > 64 || allDigits(t) {
			continue
		}
		stems = appendStem(stems, st)
	}
	for _, f := range failures {
		if len(stems) < 48 {
			stems = appendStem(stems, f)
		}
	}
	return stems, failures
}

// claimAbout tells whether a claim that something was fixed may speak of
// the failure the reports describe: it shares a word with one of them, or
// names nothing at all ("It should now work"). "The API is working fine
// now" says nothing of a WiFi that will not connect.
func claimAbout(claim string, reports ...[]string) bool {
	named := claimStems(claim)
	for _, st := range named {
		for _, r := range reports {
			if slices.Contains(r, st) {
				return true
			}
		}
	}
	return len(named) == 0
}

// claimStems are the stems of what a claim of a fix names: its words but
// the common ones and those every claim is made of.
func claimStems(claim string) []string {
	var out []string
	for _, t := range lcs.Normalize(claim) {
		if len(t) < 2 || drift.UnsegmentedLetters(t) > 0 {
			// A run of Japanese or Chinese is many words with no space
			// between: it names nothing a report's words could share.
			continue
		}
		st := drift.Stem(t)
		if complaintStop[st] || complaintStop[t] || claimWord[st] {
			continue
		}
		out = append(out, st)
	}
	return out
}

// claimWord are the stems every claim of a fix is made of; sharing one says
// nothing about what was fixed.
var claimWord = map[string]bool{
	"fix": true, "resolv": true, "work": true, "pass": true, "should": true, "succeed": true, "now": true,
	"longer": true, "tri": true, "fine": true, "good": true, "correctli": true, "properli": true, "error": true, "fail": true, "issu": true, "problem": true,
	// What a claim asks the user to do before trying again ("Restart and
	// try again"): it names nothing that was fixed.
	"restart": true, "reload": true, "refresh": true, "rebuild": true, "redeploy": true, "retri": true,
}

func appendStem(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// userReport is what a prompt says in the user's own words: the prompt,
// or a slash command's arguments ("/full-context code highlighting isnt
// working"); ok is false for a command without arguments, a
// machine-injected prompt or a compaction summary.
func userReport(p *Payload) (string, bool) {
	t := strings.TrimSpace(p.Prompt)
	if p.Source != "" || t == "" || injectedTag(t) ||
		strings.HasPrefix(t, "This session is being continued from a previous conversation") {
		return "", false
	}
	if strings.HasPrefix(t, "/") {
		_, args, ok := strings.Cut(t, " ")
		args = strings.TrimSpace(args)
		return args, ok && args != ""
	}
	return t, true
}

// minEcho is the fewest words in a row a prompt must share with the
// agent's last message to be quoting it.
const minEcho = 5

// withoutEcho drops from a prompt the runs of minEcho words or more it
// quotes from the agent's last message (markdown aside): the person
// pasting the agent's own words back reports nothing by them ("Why that ❌
// Issue Found & FIXED: - Path Reference Error: … Happened ?", a question
// about the agent's fix: g-omarclaudecontrolplane-ca171b89 #37, false to
// both judges of the fifteenth draw).
func withoutEcho(prompt, last string) string {
	if last == "" {
		return prompt
	}
	norm := func(s string) []string {
		return strings.Fields(strings.Map(func(r rune) rune {
			switch r {
			case '*', '`', '#', '\\':
				return ' '
			}
			return unicode.ToLower(r)
		}, s))
	}
	msg := " " + strings.Join(norm(fit.Runes(last, 4*complaintHead)), " ") + " "
	words := norm(fit.Runes(prompt, 4*complaintHead))
	var kept []string
	echoed := false
	for i := 0; i < len(words); {
		// The run from i grows a word at a time while msg holds it.
		j, run := i, " "
		for j < len(words) && strings.Contains(msg, run+words[j]+" ") {
			run += words[j] + " "
			j++
		}
		if j-i >= minEcho {
			echoed = true
			i = j
			continue
		}
		kept = append(kept, words[i])
		i++
	}
	if !echoed {
		return prompt
	}
	return strings.Join(kept, " ")
}

// injectedTag tells a prompt Claude Code wrote, which opens with a tag
// (<task-notification>, <command-message>, <local-command-stdout>), from a
// user's paste that opens with "<" and a space: "< Failed to fetch Twitter
// timeline: … failed", a line of the bot's console, pasted three times
// after claims of a fix (ext-gilasintents #63-#71, marked by both judges
// of the forty-fifth set).
func injectedTag(t string) bool {
	return len(t) > 1 && t[0] == '<' && (t[1] >= 'a' && t[1] <= 'z' || t[1] >= 'A' && t[1] <= 'Z' || t[1] == '/' || t[1] == '!' || t[1] == '?')
}

// noteClaim keeps, at the main agent's Stop, the last sentence of its last
// message that says something was fixed (the closing summary, where the
// agent states the outcome).
func (s *session) noteClaim(p *Payload) {
	if p.HookEventName != Stop || p.LastAssistantMessage == "" {
		return
	}
	text := p.LastAssistantMessage
	may := mayMatchEach(text, claimWords, doneWords)
	var all [][]int
	if may[0] {
		all = claimRe().FindAllStringIndex(text, -1)
	}
	s.noteDone(text, all, may[1])
	if len(all) == 0 {
		return
	}
	claim := ""
	for i := len(all) - 1; i >= 0 && claim == ""; i-- {
		if negatedClaim(text, all[i][0]) {
			continue
		}
		if st := sentenceAround(text, all[i][0], all[i][1]); !offer(st) {
			claim = st
		}
	}
	if claim == "" {
		return
	}
	c := s.complaints()
	sat.Inc(&c.Clock)
	c.Claims = append(c.Claims, state.Claim{Clock: c.Clock, Seq: s.w.ToolCalls, Text: fit.Runes(claim, 300)})
	if len(c.Claims) > maxClaims {
		c.Claims = c.Claims[len(c.Claims)-maxClaims:]
	}
}

// negatedClaim tells a match of claimRe at i that a negation before it
// turns round: "the crashes haven't been properly fixed", "is not yet
// resolved" say the opposite of a fix (a pool session, p-nikaido #113,
// where that sentence was quoted as the agent saying it was fixed; false
// to both judges).
func negatedClaim(text string, i int) bool {
	return negatedBefore().MatchString(text[max(0, i-48):i])
}

// negatedBefore is a negation and at most three words before the end: what
// is left of "haven't been properly " before "fixed".
var negatedBefore = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(not|never|n't|nothing|nor|yet to be)(\s+[\w']+){0,3}\s+$|n't(\s+[\w']+){0,3}\s+$`)
})

// doneRe matches a sentence that says the work was done or works, beyond
// claimRe's claims of a fix: "started successfully", "is now running",
// "all set".
var doneRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(successfully|succeeded|(is|are) (now )?(running|ready|live|up and running|done|complete)|all set|(is|are|has been|have been) (now )?(created|added|installed|updated|set up|configured|deployed))\b`)
})

// doneWords hold a word every match of doneRe contains.
var doneWords = []string{"success", "succeeded", "running", "ready", "live", "done", "complete", "all set", "created", "added", "installed", "updated", "set up", "configured", "deployed"}

// noteDone keeps the last sentence of the agent's last message that says
// the work was done or works (a claim of a fix, or doneRe), or none: what
// a request sent again word for word answers. claims are claimRe's
// matches in text (noteClaim's); dones tells whether doneRe may match
// (its prefilter, mayMatchEach).
func (s *session) noteDone(text string, claims [][]int, dones bool) {
	var done *state.Claim
	if len(claims) > 0 || dones {
		all := slices.Clone(claims)
		if dones {
			all = append(all, doneRe().FindAllStringIndex(text, -1)...)
		}
		slices.SortFunc(all, func(a, b []int) int { return a[0] - b[0] })
		for i := len(all) - 1; i >= 0; i-- {
			if st := sentenceAround(text, all[i][0], all[i][1]); !offer(st) {
				done = &state.Claim{Seq: s.w.ToolCalls, Text: fit.Runes(st, 300)}
				break
			}
		}
	}
	if done == nil && s.w.Complaints == nil {
		return
	}
	c := s.complaints()
	if done != nil {
		done.Clock = c.Clock
	}
	c.Done = done
}

// askedAgain is the advisory for a request (a prompt that reports no
// failure) sent again word for word right after the agent's last message
// said the work was done: the user is saying it was not. Short replies
// ("continue", "check again") are sent again as a matter of course.
func (s *session) askedAgain(prompt string) []advice.Advisory {
	c := s.complaints()
	now := strings.ToLower(strings.Join(strings.Fields(prompt), " "))
	asked, done := c.Asked, c.Done
	c.Asked = askedKey(now)
	// What the agent said was done answers the request before this one:
	// the next Stop notes the answer to this one. A request the CLI
	// aborted before any answer, sent again, is no complaint
	// (ext-chromestoragetests #52: "API Error: Request was aborted.", false
	// to both judges of the forty-second set).
	c.Done = nil
	if asked == "" || asked != c.Asked || len(strings.Fields(now)) < 3 {
		return nil
	}
	if done == nil || done.Seq != s.w.ToolCalls {
		return nil
	}
	return []advice.Advisory{advice.RepeatComplaint(advice.ComplaintFacts{
		Now: prompt, Reports: 2, Claims: []string{done.Text}, Request: true,
	})}
}

// askedKey is what Complaints.Asked keeps of a request: the request
// itself, or, past 300 runes, its first 282 and a hash of the whole, so
// that two long messages are the same request only when they are the
// same to the last word (a pool session's two console logs pasted with
// the same first lines were read as one request sent again word for word:
// p-claudeagents-0a82ee99 #19, false to both judges).
func askedKey(now string) string {
	if utf8.RuneCountInString(now) <= 300 {
		return now
	}
	sum := sha256.Sum256([]byte(now))
	return fit.Runes(now, 282) + " #" + hex.EncodeToString(sum[:8])
}

// offer tells a sentence that asks, offers or supposes rather than
// claims: a question ("Want me to build a fixed version from source?"), an
// offer ("I can apply the fix now", "Shall I…"), or a condition ("Let me
// know if the verification succeeds - that tells us if the deployment is
// working").
func offer(sentence string) bool {
	t := strings.TrimSpace(strings.Trim(strings.TrimSpace(sentence), "*_ "))
	if strings.HasSuffix(strings.TrimRight(t, "*_ "), "?") {
		return true
	}
	low := strings.ToLower(t)
	if strings.HasPrefix(low, "if ") || strings.Contains(low, " if ") || strings.Contains(low, "whether ") {
		return true
	}
	for _, p := range []string{"want me to", "shall i", "should i", "would you like", "do you want", "i can ", "i could "} {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	return false
}

// sentenceAround returns the sentence of text that holds [i, j), on one
// line: a sentence ends at a line break or at ".", "!" or "?" before a
// space (so "main.go" does not end one).
func sentenceAround(text string, i, j int) string {
	start := 0
	for _, m := range sentenceEnd().FindAllStringIndex(text[:i], -1) {
		start = m[1]
	}
	end := len(text)
	if m := sentenceEnd().FindStringIndex(text[j:]); m != nil {
		_, size := utf8.DecodeRuneInString(text[j+m[0]:])
		end = j + m[0] + size
	}
	return strings.Join(strings.Fields(text[start:end]), " ")
}

var sentenceEnd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[.!?](\s|$)|[。！？]|\n`) })

func (s *session) complaints() *state.Complaints {
	if s.w.Complaints == nil {
		s.w.Complaints = &state.Complaints{}
	}
	return s.w.Complaints
}

// repeatComplaint keeps a prompt that reports a failure and returns the
// advisory when it reports again one reported before a claim of a fix.
func (s *session) repeatComplaint(p *Payload) []advice.Advisory {
	if !s.env.Settings.Loops.Enabled || s.disabled("loops") || s.mode(advice.KindRepeatComplaint) == settings.Off {
		return nil
	}
	prompt, ok := userReport(p)
	if !ok {
		return nil
	}
	defer s.noteTurn()
	// The report is read from the person's own words, not the agent's
	// they quote; it is shown as they typed it.
	said := withoutEcho(prompt, s.w.LastAssistant)
	head := fit.Runes(said, complaintHead)
	persists := stillWrong(head)
	stems, failures := complaintStems(said, persists)
	if len(stems) == 0 && len(failures) == 0 {
		return s.noReport(p, prompt, fit.Runes(prompt, complaintHead))
	}
	if c := s.w.Complaints; c != nil {
		// A report is no request to send again.
		c.Asked = ""
	}
	again := persists || mayMatch(head, repeatWords) && repeatRe().MatchString(head)
	c := s.complaints()
	earlier, shared, reports := sameReports(c.Reports, head, stems, failures, again)
	var out []advice.Advisory
	thanked := praised(head)
	switch {
	case thanked:
		// "You're awesome. Thanks for figuring out how to fix all of
		// those warnings. Now how do we fix those error logs?": the fix
		// held, and what follows is a new request (ext-chromestoragetests
		// #46, the forty-second set, false to both judges).
	case earlier != nil:
		out = s.reportedAgain(prompt, earlier, reports, shared, stems)
	}
	if len(out) == 0 && !thanked && (earlier == nil || persists) {
		// A first report, or one reported before with no claim since but
		// still wrong after a turn that changed files: that attempt did
		// not reach it either ("Still not seeing spinners",
		// ext-uploadqueuechips #79, marked by both judges of the
		// forty-third set).
		out = s.rightAfterClaim(prompt, stems, failures, again, persists)
	}
	sat.Inc(&c.Clock)
	if len(out) > 0 {
		c.Said, c.SaidWrites = c.Clock, s.mainWrites()
	}
	c.Reports = append(c.Reports, state.Report{Clock: c.Clock, Seq: s.w.ToolCalls, Text: fit.Runes(strings.Join(strings.Fields(prompt), " "), 300), Stems: stems})
	if len(c.Reports) > maxReports {
		c.Reports = c.Reports[len(c.Reports)-maxReports:]
	}
	return out
}

// noReport handles a prompt that reports no failure: the user saying it
// works now ("no, it looks okay to me") ends the complaints made so far (a
// later report is a new one), and a request sent again word for word may
// say the work was not done (askedAgain). A slash command run again with
// the same arguments runs the command again, often one the agent just
// changed, to try it (ext-notebooklmpipeline #113, labelled false by both
// judges of the thirty-ninth set): no request sent again.
func (s *session) noReport(p *Payload, prompt, head string) []advice.Advisory {
	if c := s.w.Complaints; c != nil && len(c.Reports) > 0 && mayMatch(prompt, fineWords) && fineRe().MatchString(head) {
		c.Reports = nil
	}
	if strings.HasPrefix(strings.TrimSpace(p.Prompt), "/") {
		return nil
	}
	return s.askedAgain(prompt)
}

// sameReports finds the earlier reports of the failure a report (its
// head, stems and failure stems) describes: those that share a failure
// stem with it, and another word unless it says the failure is there
// again, and do not name another exception. It returns the oldest, the
// words they share and the count of reports, this one included.
func sameReports(reports []state.Report, head string, stems, failures []string, again bool) (earlier *state.Report, shared []string, n int) {
	n = 1
	for i := range reports {
		r := &reports[i]
		if namedApart(r.Text, head) {
			continue
		}
		sh, fail := overlap(r.Stems, stems, failures)
		if !fail || (len(sh) < 2 && !again) {
			continue
		}
		n++
		if earlier == nil {
			earlier, shared = r, sh
		}
	}
	return earlier, shared, n
}

// rightAfterClaim is the advisory for the first report of a failure made
// right after the agent's last message said it was fixed, about the same
// thing: the claim did not hold where the user looks. A bare "still not
// working" names nothing but says the same thing is still failing: it
// answers the claim whatever it names.
//
// A report that says the thing is still wrong ("still not working", "I
// still cant see it", "still same colors") answers the agent's last turn
// whatever it names: it draws the advisory after a claim that may be about
// it (claimAbout), or after a turn that changed files, the attempt the
// user is answering.
func (s *session) rightAfterClaim(prompt string, stems, failures []string, again, persists bool) []advice.Advisory {
	if cl, ok := s.lastClaim(); ok {
		sh := claimShared(cl.Text, stems)
		if len(sh) >= 2 || again && bare(stems, failures) || persists && claimAbout(cl.Text, stems) {
			return []advice.Advisory{advice.RepeatComplaint(advice.ComplaintFacts{
				Now: prompt, Reports: 1, Claims: []string{cl.Text}, Shared: sh,
			})}
		}
	}
	c := s.complaints()
	if !persists {
		return nil
	}
	if w := s.mainWrites(); w > c.TurnWrites {
		return []advice.Advisory{advice.RepeatComplaint(advice.ComplaintFacts{
			Now: prompt, Reports: 1, Writes: int(min(w-c.TurnWrites, 1000)),
		})}
	}
	return nil
}

// noteTurn remembers the main agent's file writes at this prompt, so that
// the next one can tell whether the turn between them changed files.
func (s *session) noteTurn() {
	if w := s.mainWrites(); w > 0 {
		s.complaints().TurnWrites = w
	}
}

// reportedAgain is the advisory for a failure reported again after claims
// of a fix made since the earlier report; said again only after a new
// attempt at a fix (a claim, or a file written) since it was last said.
func (s *session) reportedAgain(prompt string, earlier *state.Report, reports int, shared, stems []string) []advice.Advisory {
	c := s.complaints()
	var claims []string
	fresh := c.Said == 0 || s.mainWrites() > c.SaidWrites
	for _, cl := range c.Claims {
		if cl.Clock > earlier.Clock && claimAbout(cl.Text, earlier.Stems, stems) {
			claims = append(claims, cl.Text)
			fresh = fresh || cl.Clock > c.Said
		}
	}
	if len(claims) == 0 || !fresh {
		return nil
	}
	return []advice.Advisory{advice.RepeatComplaint(advice.ComplaintFacts{
		Now: prompt, Earlier: earlier.Text, Reports: reports, Claims: claims, Shared: shared,
	})}
}

// errorNameRe matches the name of an exception or error class
// (KeyError, FunctionClauseError, NullPointerException), which says which
// failure a report is about.
var errorNameRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b[A-Z][A-Za-z0-9]*(?:Error|Exception)\b`)
})

// namedApart tells two reports that each name an exception or error class
// and share none: two failures, however alike their words ("Check errors:
// FunctionClauseError in server.ex", then "Check errors: KeyError in
// delegating_handler.ex").
func namedApart(a, b string) bool {
	na, nb := errorNameRe().FindAllString(a, 8), errorNameRe().FindAllString(b, 8)
	if len(na) == 0 || len(nb) == 0 {
		return false
	}
	for _, x := range na {
		if slices.Contains(nb, x) {
			return false
		}
	}
	return true
}

// bare tells a report whose every word is a failure word ("still not
// working", "same error", "still broken"): it names no new failure.
func bare(stems, failures []string) bool {
	for _, st := range stems {
		if !slices.Contains(failures, st) {
			return false
		}
	}
	return true
}

// mainWrites counts the main agent's successful file writes so far.
func (s *session) mainWrites() uint64 {
	if st := s.w.Loops["main"]; st != nil {
		return st.Writes
	}
	return 0
}

// lastClaim is the claim of a fix in the agent's last message before this
// prompt (no tool call since it), made after the latest report.
func (s *session) lastClaim() (state.Claim, bool) {
	c := s.complaints()
	if len(c.Claims) == 0 {
		return state.Claim{}, false
	}
	cl := c.Claims[len(c.Claims)-1]
	if cl.Seq != s.w.ToolCalls || (len(c.Reports) > 0 && c.Reports[len(c.Reports)-1].Clock > cl.Clock) {
		return state.Claim{}, false
	}
	return cl, true
}

// claimShared are the stems a claim of a fix names (not the words every
// claim is made of) that a report holds too.
func claimShared(claim string, report []string) []string {
	var shared []string
	for _, st := range claimStems(claim) {
		if len(st) >= 3 && slices.Contains(report, st) {
			shared = appendStem(shared, st)
		}
	}
	return shared
}

// overlap returns the stems two reports share and whether they share a
// failure stem.
func overlap(a, b, failures []string) (shared []string, fail bool) {
	for _, x := range b {
		if slices.Contains(a, x) {
			shared = append(shared, x)
			if slices.Contains(failures, x) {
				fail = true
			}
		}
	}
	return shared, fail
}

// allDigits tells a number (a line, a port, a count): two reports sharing
// one say nothing of the same failure.
func allDigits(t string) bool {
	return strings.Trim(t, "0123456789") == ""
}
