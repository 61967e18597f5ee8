package risk

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// PickedOption is the text of the option a short prompt picks by its
// number ("Option 1 of course", "1번으로 진행해줘", "go with 2", "3") from
// those the agent's last message offered under named headings ("**Option
// 1:** Restore the deleted files …", "**방법 1 (권장)**", "Approach 2"):
// what the person chose, with the commands it lists, is asked for, as an
// answer to AskUserQuestion is (ext-profilesite #12 and #15, rm -rf .git
// and a force push listed in the option picked; ext-mastercontroller #66, a
// git checkout of the option picked; false to both judges of the thirtieth
// set). ok is false when the prompt picks nothing or the message offered
// no such option.
func PickedOption(prompt, message string) (string, bool) {
	n, ok := pickedNumber(prompt)
	if !ok {
		return "", false
	}
	opts := offeredOptions(message)
	text, ok := opts[n]
	return text, ok
}

// maxPickRunes bounds a prompt read as a pick: a longer one says more
// than which option.
const maxPickRunes = 60

// pickedNumber is the option number a short prompt picks: its one digit
// from 1 to 9 standing alone, in a prompt that is that digit, names an
// option word, or starts with a verb of choosing.
func pickedNumber(prompt string) (int, bool) {
	t := strings.TrimSpace(prompt)
	if t == "" || utf8.RuneCountInString(t) > maxPickRunes {
		return 0, false
	}
	ds := loneDigitRe().FindAllStringSubmatchIndex(t, -1)
	if len(ds) != 1 {
		return 0, false
	}
	d := t[ds[0][2]:ds[0][3]]
	rest := strings.TrimSpace(t[:ds[0][2]] + " " + t[ds[0][3]:])
	if strings.Trim(rest, " .!#:)(") != "" && !pickWordRe().MatchString(t) {
		return 0, false
	}
	n, _ := strconv.Atoi(d)
	return n, true
}

// loneDigitRe matches a digit from 1 to 9 not part of a longer number,
// a version or a time (1.5, 10, 3:00).
var loneDigitRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^\d.:,])([1-9])(?:$|[^\d.:,%]|[.:,](?:\s|$))`)
})

// pickWordRe matches the words of a pick: an option word, or a verb of
// choosing at the start.
var pickWordRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:option|opt|approach|method|choice|plan|opción|opcion|opção|opcao|choix|variante)\b|방법|옵션|번|方案|选项|選項|方法|^\s*(?:let'?s\s+)?(?:go with|go for|do|use|pick|choose|take|proceed with|apply|run|implement)\s+#?\d\b`)
})

// optionHeadRe matches the heading of an option an agent offers: an
// option word and its number at the start of a line, after any markdown
// (**Option 1:**, ### Approach 2, - 방법 1).
var optionHeadRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)^[\s>#*_\-]*(?:option|approach|method|choice|plan|opción|opcion|opção|opcao|choix|variante|방법|옵션|方案|选项|選項|方法)\s*#?([1-9])\b`)
})

// offeredOptions are the options a message offers, by number: each from
// its heading to the next heading or the end. Fewer than two headings
// offer no choice.
func offeredOptions(message string) map[int]string {
	heads := optionHeadRe().FindAllStringSubmatchIndex(message, 12)
	if len(heads) < 2 {
		return askedList(message)
	}
	out := map[int]string{}
	for i, h := range heads {
		end := len(message)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		n, _ := strconv.Atoi(message[h[2]:h[3]])
		if _, seen := out[n]; !seen {
			out[n] = strings.TrimSpace(message[h[0]:end])
		}
	}
	return out
}

// askLeadRe matches a line that asks the person to choose and leads into
// a list: "Would you like me to:", "Do you want me to", "Should I:",
// "Which do you prefer?".
var askLeadRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)^.*\b(?:would you like|do you want|should i|shall i|which (?:one|option|would|do)|(?:do|would) you prefer)\b.*[:?]\s*$`)
})

// listItemRe matches an item of a numbered list: "1. Run it", "2) Proceed".
var listItemRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:[*_]{0,2})([1-9])[.)](?:[*_]{0,2})\s+(\S.*)$`)
})

// askedList are the options of a numbered list that follows the last line
// of a message asking the person to choose ("Would you like me to:\n1. Run
// it with --dangerously-skip-permissions …\n2. Proceed with the steps
// manually"; ext-aqefleet #34, the option picked by "1", false to both
// judges of the forty-fifth set): its items, numbered from 1 with none
// skipped, each to the next. After the list, past a blank line, the
// message may close with a short paragraph that lists nothing ("All core
// functionality is now tested and passing!": t-opencode-765a9806 #161,
// fifth draw, where "1" picked the first of three). A numbered list of
// steps that asks nothing offers no choice.
func askedList(message string) map[int]string {
	leads := askLeadRe().FindAllStringIndex(message, -1)
	if len(leads) == 0 {
		return nil
	}
	rest := strings.Split(strings.TrimSpace(message[leads[len(leads)-1][1]:]), "\n")
	out := map[int]string{}
	cur, blank := 0, false
	for i, line := range rest {
		if strings.TrimSpace(line) == "" {
			blank = true
			continue
		}
		m := listItemRe().FindStringSubmatch(line)
		if m == nil {
			if cur == 0 {
				return nil
			}
			// An item's second line, or the list is over.
			if !blank && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) {
				out[cur] += " " + strings.TrimSpace(line)
				continue
			}
			if !blank || !closing(rest[i:]) {
				return nil
			}
			break
		}
		blank = false
		n, _ := strconv.Atoi(m[1])
		if n != cur+1 {
			return nil
		}
		cur = n
		out[n] = strings.TrimSpace(m[2])
	}
	if cur < 2 {
		return nil
	}
	return out
}

// maxClosing bounds the paragraph that may close a message after the
// list of options it offers.
const maxClosing = 300

// closing tells lines after an offered list that only close the message:
// short, with no numbered item of their own.
func closing(lines []string) bool {
	n := 0
	for _, l := range lines {
		if listItemRe().MatchString(l) {
			return false
		}
		n += len(l)
	}
	return n <= maxClosing
}

// LastQuestion is the last sentence of an agent's message that asks the
// person something (it ends in "?"), "" when its last paragraph asks
// nothing: a short yes after it answers that question, not one asked
// further up.
func LastQuestion(message string) string {
	paras := strings.Split(strings.TrimSpace(message), "\n\n")
	last := strings.TrimSpace(paras[len(paras)-1])
	if !strings.Contains(last, "?") {
		return ""
	}
	ss := sentences(last)
	for i := len(ss) - 1; i >= 0; i-- {
		if strings.HasSuffix(ss[i][0], "?") {
			return ss[i][0]
		}
	}
	return ""
}

// boldRe matches the bold title of a list item: **Version Managers**.
var boldRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\*\*([^*]+)\*\*`)
})

// ItemsNamed are the items of the numbered lists of an agent's message
// that a prompt asking to delete something names by their title: every
// word of the title (its bold part, else its text before " - "), two words
// or more of three letters or more, is a word of the prompt. "version
// managers ok cancella" names "3. **Version Managers** - `.rvm` (495MB) +
// `.asdf` (1.8GB)", so the folders that item lists are asked to be
// deleted (ext-dotfoldercleanup #40). One word ("remove the cache") names
// no item.
func ItemsNamed(prompt, message string) []string {
	toks := tokens(prompt)
	if message == "" || !asksToDelete(toks) {
		return nil
	}
	var out []string
	for line := range strings.Lines(message) {
		m := listItemRe().FindStringSubmatch(strings.TrimRight(line, "\r\n"))
		if m == nil {
			continue
		}
		item := m[2]
		title := item
		if b := boldRe().FindStringSubmatch(item); b != nil {
			title = b[1]
		} else if before, _, ok := strings.Cut(item, " - "); ok {
			title = before
		} else {
			continue
		}
		n, all := 0, true
		for _, w := range letterWords(strings.ToLower(title)) {
			if utf8.RuneCountInString(w) < 3 {
				continue
			}
			n++
			all = all && toks[w]
		}
		if all && n >= 2 {
			out = append(out, item)
		}
	}
	return out
}
