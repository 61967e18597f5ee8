package main

import (
	"os"
	"strings"
	"testing"

	"github.com/djinn-cc/djinn/hooks/advice"
	"github.com/djinn-cc/djinn/settings"
	"github.com/djinn-cc/djinn/state"
)

// TestReadmeListsEverySetting keeps the README's settings table complete.
func TestReadmeListsEverySetting(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range settings.Keys() {
		if !strings.Contains(string(raw), "| `"+k+"` |") {
			t.Errorf("README.md does not document the setting %s", k)
		}
	}
}

// TestAdvisoriesDocCoversEveryKind keeps docs/advisories.md complete: every
// kind an advisories.jsonl line may have (state.AdvisoryKinds, which every
// recorded advisory is validated against) has a section, and the section
// states the kind's default mode as settings.Default has it.
func TestAdvisoriesDocCoversEveryKind(t *testing.T) {
	raw, err := os.ReadFile("../../docs/advisories.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	def := settings.Default().Advisories
	for _, k := range state.AdvisoryKinds() {
		head := "\n## " + k + "\n"
		i := strings.Index(doc, head)
		if i < 0 {
			t.Errorf("docs/advisories.md has no section %q", strings.TrimSpace(head))
			continue
		}
		section := doc[i+len(head):]
		if j := strings.Index(section, "\n## "); j >= 0 {
			section = section[:j]
		}
		if want := "**Default: `" + string(def.Mode(k)) + "`**"; !strings.Contains(section, want) {
			t.Errorf("docs/advisories.md, section %s: does not say %s", k, want)
		}
		// A family of the kind with a mode of its own states its default too.
		if fam, ok := families[k]; ok {
			key := strings.ReplaceAll(fam, "-", "_")
			if want := "(`advisories." + key + "`) **Default: `" + string(def.Mode(fam)) + "`**"; !strings.Contains(section, want) {
				t.Errorf("docs/advisories.md, section %s: does not say %s", k, want)
			}
		}
	}
}

// families are the advisory families with a mode of their own, by kind.
var families = map[string]string{advice.KindToolLoop: advice.FamilyToolLoopRepeat}

// TestReadmeLinksAdvisoriesDoc: the README points at docs/advisories.md
// near the top, before its first section.
func TestReadmeLinksAdvisoriesDoc(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	top, _, _ := strings.Cut(string(raw), "\n## ")
	if !strings.Contains(top, "(docs/advisories.md)") {
		t.Error("README.md does not link docs/advisories.md before its first section")
	}
}
