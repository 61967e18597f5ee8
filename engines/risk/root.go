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
		return params, slices.ContainsFunc(flags, pacmanInstalls)
	case "dpkg":
		return params, slices.Contains(flags, "-i") || slices.Contains(flags, "--install")
	case "npm", "pnpm", "yarn":
		if len(params) > 0 && params[0] == "global" {
			params = params[1:]
		} else if !slices.Contains(flags, "-g") && !slices.Contains(flags, "--global") {
			return nil, false
		}
	}
	subs, ok := packageManagers[name]
	if !ok || len(params) == 0 || !slices.Contains(subs, params[0]) {
		return nil, false
	}
	return params[1:], true
}

// pacmanInstalls tells a pacman option that installs: -S (with no query
// letter) or -U.
func pacmanInstalls(f string) bool {
	return strings.HasPrefix(f, "-S") && !strings.ContainsAny(f[2:], "silgpcw") || strings.HasPrefix(f, "-U") || f == "--sync" || f == "--upgrade"
}

// checkFirewall reads a command that opens the machine's firewall
// (firewallOpeners).
func checkFirewall(name string, x cmd) []Finding {
	opens, ok := firewallOpeners[strings.TrimSuffix(name, ".exe")]
	if !ok || !opens(x.args[1:]) {
		return nil
	}
	return []Finding{{Entry: FirewallOpen, Target: strings.Join(x.args[:min(len(x.args), 5)], " ")}}
}

// firewallOpeners are the programs that open a firewall, each with the
// arguments that do: ufw allow (also insert N allow, route allow, default
// allow), firewall-cmd --add-port/--add-service/--add-rich-rule/
// --add-source, iptables -A/-I INPUT … -j ACCEPT, netsh advfirewall
// firewall add rule … action=allow.
var firewallOpeners = map[string]func(args []string) bool{
	"ufw": func(a []string) bool {
		i := 0
		switch {
		case len(a) > 2 && a[0] == "insert":
			i = 2
		case len(a) > 1 && (a[0] == "prepend" || a[0] == "route"):
			i = 1
		}
		return len(a) > i && a[i] == "allow" || len(a) > 2 && a[0] == "default" && a[1] == "allow"
	},
	"firewall-cmd": func(a []string) bool {
		return slices.ContainsFunc(a, func(w string) bool {
			return hasPrefix(w, []string{"--add-port", "--add-service", "--add-rich-rule", "--add-source"})
		})
	},
	"iptables":  iptablesAccepts,
	"ip6tables": iptablesAccepts,
	"netsh": func(a []string) bool {
		low := strings.ToLower(strings.Join(a, " "))
		return strings.Contains(low, "advfirewall firewall add rule") && strings.Contains(low, "action=allow")
	},
}

// iptablesAccepts tells an iptables rule appended or inserted into INPUT
// that accepts.
func iptablesAccepts(a []string) bool {
	valueOf := func(opts ...string) string {
		if i := slices.IndexFunc(a, func(w string) bool { return slices.Contains(opts, w) }); i >= 0 && i+1 < len(a) {
			return a[i+1]
		}
		return ""
	}
	return valueOf("-A", "-I", "--append", "--insert") == "INPUT" && valueOf("-j", "--jump") == "ACCEPT"
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
