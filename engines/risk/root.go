package risk

import (
	"path"
	"slices"
	"strings"

	"github.com/djinn-cc/djinn/internal/shellword"
)

// asRoot tells a command run as root: under sudo or doas, with no -u (or
// --user) naming another user.
func asRoot(x cmd) bool {
	if x.call == nil || len(x.call.Args) == 0 {
		return false
	}
	if b := path.Base(shellword.Lenient(x.call.Args[0])); b != "sudo" && b != "doas" {
		return false
	}
	for i := 1; i < len(x.call.Args); i++ {
		a := shellword.Lenient(x.call.Args[i])
		switch {
		case a == "-u" && i+1 < len(x.call.Args):
			return shellword.Lenient(x.call.Args[i+1]) == "root"
		case strings.HasPrefix(a, "--user="):
			return a == "--user=root"
		case !strings.HasPrefix(a, "-"):
			return true
		}
	}
	return true
}

// checkRoot reads a command run as root: a system package install
// (SudoInstall), or a step on a file the system refused this session
// (SudoDenied).
func checkRoot(c Call, x cmd) []Finding {
	if !asRoot(x) || len(x.args) == 0 {
		return nil
	}
	var out []Finding
	if pkgs, ok := systemInstall(x.args); ok {
		t := strings.Join(x.args[:min(len(x.args), 4)], " ")
		out = append(out, Finding{Entry: SudoInstall, Target: t, Names: pkgs})
	}
	for _, a := range x.args[1:] {
		if strings.HasPrefix(a, "-") || a == "" {
			continue
		}
		p := resolve(expandHome(a, homeOf(c.ProjectDir)), x.cwd)
		if slices.ContainsFunc(c.Denied, func(d string) bool { return samePlace(p, d) }) {
			out = append(out, Finding{Entry: SudoDenied, Target: a, Names: []string{a}})
			break
		}
	}
	return out
}

// packageManagers are the system package managers, each with the
// subcommands that install.
var packageManagers = map[string][]string{
	"apt": {"install", "reinstall"}, "apt-get": {"install", "reinstall"}, "aptitude": {"install", "reinstall"},
	"dnf": {"install", "reinstall"}, "yum": {"install", "reinstall"}, "zypper": {"install", "in"}, "apk": {"add"},
	"snap": {"install"}, "port": {"install"}, "pkg": {"install"}, "gem": {"install"},
	"pip": {"install"}, "pip3": {"install"}, "npm": {"install", "i", "add"}, "pnpm": {"add", "install", "i"}, "yarn": {"add"},
}

// systemInstall tells a package manager's install, run as root, and the
// packages it names: apt, dnf, yum, zypper, apk, snap, port, pkg install;
// pacman -S or -U (not a query: -Ss, -Si, -Sl, -Sg, -Sp, -Sc, -Sw);
// dpkg -i; pip, gem install; npm, pnpm, yarn installs only when global.
func systemInstall(args []string) ([]string, bool) {
	name := path.Base(args[0])
	flags, params := splitFlags(args[1:])
	switch name {
	case "pacman":
		for _, f := range flags {
			if (strings.HasPrefix(f, "-S") && !strings.ContainsAny(f[2:], "silgpcw")) || strings.HasPrefix(f, "-U") || f == "--sync" || f == "--upgrade" {
				return params, true
			}
		}
		return nil, false
	case "dpkg":
		if slices.Contains(flags, "-i") || slices.Contains(flags, "--install") {
			return params, true
		}
		return nil, false
	case "npm", "pnpm", "yarn":
		global := slices.Contains(flags, "-g") || slices.Contains(flags, "--global") || len(params) > 0 && params[0] == "global"
		if !global {
			return nil, false
		}
		if len(params) > 0 && params[0] == "global" {
			params = params[1:]
		}
	}
	subs, ok := packageManagers[name]
	if !ok || len(params) == 0 || !slices.Contains(subs, params[0]) {
		return nil, false
	}
	return params[1:], true
}

// checkFirewall reads a command that opens the machine's firewall: ufw
// allow, firewall-cmd --add-port/--add-service/--add-rich-rule,
// iptables -A/-I INPUT … -j ACCEPT, netsh advfirewall firewall add rule
// … action=allow.
func checkFirewall(name string, x cmd) []Finding {
	args := x.args[1:]
	open := false
	switch strings.TrimSuffix(name, ".exe") {
	case "ufw":
		i := 0
		if len(args) > 1 && (args[0] == "insert" || args[0] == "prepend" || args[0] == "route") {
			i = 1
			if args[0] == "insert" && len(args) > 2 {
				i = 2
			}
		}
		open = len(args) > i && args[i] == "allow" || len(args) > 2 && args[0] == "default" && args[1] == "allow"
	case "firewall-cmd":
		open = slices.ContainsFunc(args, func(a string) bool {
			return strings.HasPrefix(a, "--add-port") || strings.HasPrefix(a, "--add-service") || strings.HasPrefix(a, "--add-rich-rule") || strings.HasPrefix(a, "--add-source")
		})
	case "iptables", "ip6tables":
		chain := slices.IndexFunc(args, func(a string) bool { return a == "-A" || a == "-I" || a == "--append" || a == "--insert" })
		jump := slices.IndexFunc(args, func(a string) bool { return a == "-j" || a == "--jump" })
		open = chain >= 0 && chain+1 < len(args) && args[chain+1] == "INPUT" && jump >= 0 && jump+1 < len(args) && args[jump+1] == "ACCEPT"
	case "netsh":
		low := strings.ToLower(strings.Join(args, " "))
		open = strings.Contains(low, "advfirewall firewall add rule") && strings.Contains(low, "action=allow")
	}
	if !open {
		return nil
	}
	return []Finding{{Entry: FirewallOpen, Target: strings.Join(x.args[:min(len(x.args), 5)], " ")}}
}

// deniedRe finds the file a refusal names: "EACCES: permission denied,
// open '/p/x'", "cat: ./x.yml: Permission denied", "chmod: changing
// permissions of 'x': Operation not permitted".
var deniedRe = lazy(`(?i)(?:permission denied|operation not permitted|EACCES|EPERM)[^'\n]*'([^'\n]+)'|'([^'\n]+)'[^\n]*(?:permission denied|operation not permitted)|([^\s:'"]+): (?:permission denied|operation not permitted)`)

// DeniedPaths are the files an error says the system refused, at most
// four; none when it names no refusal.
func DeniedPaths(errText string) []string {
	var out []string
	for _, m := range deniedRe().FindAllStringSubmatch(errText, 4) {
		p := m[1] + m[2] + m[3]
		if p != "" && p != "." && p != ".." && !slices.Contains(out, p) && (strings.ContainsAny(p, "/.") || len(p) >= 4) {
			out = append(out, p)
		}
	}
	return out
}
