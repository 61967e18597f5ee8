package hooks

// IsSelfCall reports whether the hooks take a tool call for Djinn's own
// command (a skill's /djinn:status), which takes no call number: replay
// counts the calls as the hooks do.
func IsSelfCall(p *Payload, getenv func(string) string) bool {
	return isSelfCall(p, getenv)
}
