package risk

import (
	"slices"
	"strings"
	"testing"
)

// TestGivenWords: the words beside a password word on its line are given;
// a line with none gives nothing.
func TestGivenWords(t *testing.T) {
	for _, tc := range []struct {
		text      string
		has, lack []string
	}{
		{"## Access\n- Sudo Password: 7 (for system operations)\n- Node 20", []string{"7"}, []string{"Node", "20"}},
		{"645866 is the computer password", []string{"645866"}, nil},
		{"use password=hunter2 for the test db", []string{"hunter2"}, nil},
		{"the wifi passwort ist 'Zug-7f!x'", []string{"Zug-7f!x"}, nil},
		{"ssh mac@192.168.0.1 (password: 645866)", []string{"645866"}, nil},
		{"le mot de passe est 645866", []string{"645866"}, nil},
		{"le match se passe bien, 645866 spectateurs", nil, []string{"645866"}},
		{"fix the login page, it returns 500", nil, []string{"500", "login"}},
		{"first line 12345\nsecond line: password below\n", nil, []string{"12345"}},
	} {
		got := GivenWords(tc.text)
		for _, w := range tc.has {
			if !slices.Contains(got, w) {
				t.Errorf("GivenWords(%q) = %q, lacks %q", tc.text, got, w)
			}
		}
		for _, w := range tc.lack {
			if slices.Contains(got, w) {
				t.Errorf("GivenWords(%q) = %q, has %q", tc.text, got, w)
			}
		}
	}
}

// TestWordHash: the hash is SHA-256's first 16 hex digits (the known
// digest of "abc"), and keeps no word.
func TestWordHash(t *testing.T) {
	if got := WordHash("abc"); got != "ba7816bf8f01cfea" {
		t.Errorf("WordHash(abc) = %s", got)
	}
}

// BenchmarkGivenWords reads a prompt of 4 KB (the most a kept prompt
// holds) with a password line in it, as every prompt is read.
func BenchmarkGivenWords(b *testing.B) {
	text := strings.Repeat("please fix the failing build on the server and check the logs again\n", 60) + "the sudo password is hunter2\n"
	b.ReportAllocs()
	for b.Loop() {
		GivenWords(text)
	}
}
