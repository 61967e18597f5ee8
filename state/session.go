package state

import (
	"errors"
	"fmt"
)

// MaxSessionIDLen bounds a session id; Claude Code's are 36-character UUIDs.
const MaxSessionIDLen = 128

// ErrBadSessionID is returned for a session id that is not a plain id.
var ErrBadSessionID = errors.New("invalid session id")

// ValidateSessionID accepts only [A-Za-z0-9_-]{1,128}. A session id becomes a
// path component, so anything else (a slash, "..", NUL, a huge string) is
// refused rather than cleaned.
func ValidateSessionID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: empty", ErrBadSessionID)
	}
	if len(id) > MaxSessionIDLen {
		return fmt.Errorf("%w: %d bytes (max %d)", ErrBadSessionID, len(id), MaxSessionIDLen)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
		if !ok {
			return fmt.Errorf("%w: character %q at %d", ErrBadSessionID, c, i)
		}
	}
	return nil
}
