package loops

import (
	"encoding/json"
	"testing"
)

// TestHeredocWrite: a file written whole from a heredoc, here or over ssh,
// is a write of that file with the hash of what was written; appends,
// expansions and writes of several files are not.
func TestHeredocWrite(t *testing.T) {
	body := "a: 1\nb: 2\n"
	for _, tc := range []struct {
		name, cmd, file string
		text            string // what the file holds after; "" when none is known
	}{
		{"quoted delimiter", "cat > /etc/blocky/config.yml << 'EOF'\na: 1\nb: 2\nEOF", "/etc/blocky/config.yml", body},
		{"redirect after the heredoc, relative path", "cat <<EOF > conf/x.yml\na: 1\nb: 2\nEOF", "/p/conf/x.yml", body},
		{"tee", "tee /p/x.yml << 'EOF' >/dev/null\na: 1\nb: 2\nEOF", "/p/x.yml", body},
		{"tabs dropped by <<-", "cat > x.yml <<-EOF\n\ta: 1\n\tb: 2\n\tEOF", "/p/x.yml", body},
		{"then a restart", "cat > /etc/x.conf << 'EOF'\na: 1\nb: 2\nEOF\n/etc/init.d/x restart", "/etc/x.conf", body},
		{"over ssh", "ssh root@10.0.0.1 'cat > /etc/blocky/config.yml << \"EOF\"\na: 1\nb: 2\nEOF'", "10.0.0.1:/etc/blocky/config.yml", body},
		{"over ssh with options", "ssh -p 2222 -o BatchMode=yes admin@router \"cat > /etc/x << 'EOF'\na: 1\nb: 2\nEOF\"", "router:/etc/x", body},
		{"unquoted with a variable", "cat > x.sh << EOF\necho $HOME\nEOF", "", ""},
		{"quoted with a variable", "cat > x.sh << 'EOF'\necho $HOME\nEOF", "/p/x.sh", "echo $HOME\n"},
		{"append", "cat >> x.yml << 'EOF'\na: 1\nEOF", "", ""},
		{"tee -a", "tee -a x.yml << 'EOF'\na: 1\nEOF", "", ""},
		{"cat of a file", "cat a.yml > x.yml", "", ""},
		{"heredoc into a program", "python3 << 'EOF'\nprint(1)\nEOF", "", ""},
		{"to a stream", "cat > /dev/stderr << 'EOF'\nx\nEOF", "", ""},
		{"login only", "ssh root@h", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, _ := json.Marshal(map[string]string{"command": tc.cmd})
			e, _ := NewEventIn("Bash", in, tc.cmd, "", "/p")
			want := ""
			if tc.text != "" {
				want = ShortHash([]byte(tc.text))
			}
			if e.Wrote != tc.file || e.After != want {
				t.Errorf("wrote %q after %q, want %q %q", e.Wrote, e.After, tc.file, want)
			}
			if tc.file != "" && !e.Edits {
				t.Errorf("a whole write not counted as an edit")
			}
		})
	}
}
