package shellword

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func word(t *testing.T, src string) *syntax.Word {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader("x "+src), "")
	if err != nil {
		t.Fatal(err)
	}
	return f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]
}

func TestText(t *testing.T) {
	for _, tc := range []struct {
		src     string
		params  bool
		text    string
		ok      bool
		lenient string
	}{
		{`plain`, false, "plain", true, "plain"},
		{`'single quoted'`, false, "single quoted", true, "single quoted"},
		{`"double $HOME"`, true, "double $HOME", true, "double $HOME"},
		{`"double $HOME"`, false, "", false, "double $HOME"},
		{`"${CLAUDE_PLUGIN_ROOT}/hooks/djinn"`, true, "$CLAUDE_PLUGIN_ROOT/hooks/djinn", true, "$CLAUDE_PLUGIN_ROOT/hooks/djinn"},
		{`a\ b`, false, "a b", true, "a b"},
		{`"a\"b\x"`, false, `a"b\x`, true, `a"b\x`},
		{`$'a\tb'`, false, "", false, `$'a\tb'`},
		{`$(pwd)/x`, true, "", false, "$(pwd)/x"},
		{`${X:-d}`, true, "", false, "${X:-d}"},
	} {
		w := word(t, tc.src)
		text, ok := Text(w, tc.params)
		if text != tc.text || ok != tc.ok {
			t.Errorf("Text(%s, %v) = %q, %v; want %q, %v", tc.src, tc.params, text, ok, tc.text, tc.ok)
		}
		if got := Lenient(w); got != tc.lenient {
			t.Errorf("Lenient(%s) = %q, want %q", tc.src, got, tc.lenient)
		}
	}
}

func TestSSHRemote(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"root@h", "netstat -tuln | grep 5335"}, "netstat -tuln | grep 5335"},
		{[]string{"-p", "2222", "-i", "k", "h", "ls", "-la"}, "ls -la"},
		{[]string{"-tt", "-o", "BatchMode=yes", "h", "uptime"}, "uptime"},
		{[]string{"-p2222", "h", "uptime"}, "uptime"},
		{[]string{"h"}, ""},
		{[]string{"-p"}, ""},
		{nil, ""},
	} {
		if got := SSHRemote(tc.args); got != tc.want {
			t.Errorf("SSHRemote(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestSSHSplit(t *testing.T) {
	for _, tc := range []struct {
		args         []string
		dest, remote string
	}{
		{[]string{"root@h", "cat > /etc/x << 'EOF'\na\nEOF"}, "root@h", "cat > /etc/x << 'EOF'\na\nEOF"},
		{[]string{"-p", "2222", "h", "ls"}, "h", "ls"},
		{[]string{"h"}, "h", ""},
		{[]string{"-i", "k"}, "", ""},
	} {
		if dest, remote := SSHSplit(tc.args); dest != tc.dest || remote != tc.remote {
			t.Errorf("SSHSplit(%q) = %q, %q, want %q, %q", tc.args, dest, remote, tc.dest, tc.remote)
		}
	}
}

func TestWords(t *testing.T) {
	f, err := syntax.NewParser().Parse(strings.NewReader(`ssh -p 2222 "root@h" 'uptime' $(date)`), "")
	if err != nil {
		t.Fatal(err)
	}
	c := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if got, ok := Words(c.Args[:4], false); !ok || strings.Join(got, "|") != "ssh|-p|2222|root@h" {
		t.Errorf("Words = %q, %v", got, ok)
	}
	if got, ok := Words(c.Args, false); ok || got != nil {
		t.Errorf("Words with a command substitution = %q, %v; want nil, false", got, ok)
	}
}

// TestHomeOf: the home a path shows, below another prefix too; none for a
// path under no home.
func TestHomeOf(t *testing.T) {
	for _, tc := range []struct{ p, want string }{
		{"/home/ana/src/app", "/home/ana"},
		{"/Users/ana/app", "/Users/ana"},
		{"/dev/shm/replay/fs/Users/ana/app", "/dev/shm/replay/fs/Users/ana"},
		{"/home/ana", "/home/ana"},
		{"/srv/app", ""},
		{"/home/", ""},
	} {
		if got := HomeOf(tc.p); got != tc.want {
			t.Errorf("HomeOf(%q) = %q, want %q", tc.p, got, tc.want)
		}
	}
}
