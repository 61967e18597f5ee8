package main

import (
	"os"
	"strings"
	"testing"

	"github.com/djinn-cc/djinn/settings"
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
