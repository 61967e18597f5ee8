package report

import "testing"

func TestIsCheckRun(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want bool
	}{
		{"go test ./...", true},
		{"go build ./cmd/djinn", true},
		{"nix develop --command go build -o connix .", true},
		{"npm run build", true},
		{"npm test", true},
		{"pnpm run test:unit", true},
		{"cargo check --all", true},
		{"python -m pytest -q tests/", true},
		{"timeout 60 pytest", true},
		{"make", true},
		{"make check", true},
		{"cd web && npx tsc --noEmit", true},
		{"go vet ./... && staticcheck ./...", true},
		{"go mod tidy", false},
		{"go run main.go", false},
		{"ls tests", false},
		{"git commit -m 'add test'", false},
		{"make clean", false},
		{"npm install", false},
		{"cat build.log", false},
		{"echo \"unbalanced", false},
		{"", false},
	} {
		if got := isCheckRun(tc.cmd); got != tc.want {
			t.Errorf("isCheckRun(%q) = %v, want %v", tc.cmd, got, tc.want)
		}
	}
}

// FuzzIsCheckRun: any command line, a summary cut anywhere included, is
// read without a panic.
func FuzzIsCheckRun(f *testing.F) {
	for _, s := range []string{"go test ./...", "nix develop --command go build -o x .", "a && b | c; make", "echo $(go test)", "x'…"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) { isCheckRun(cmd) })
}
