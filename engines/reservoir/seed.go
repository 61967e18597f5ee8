package reservoir

import (
	"encoding/binary"
	"hash/fnv"
)

// Seed derives a reproducible RNG seed from strings (a session and its
// anchor), so a hook, a replay and /djinn:status draw the same numbers from
// the same state without a global random source.
func Seed(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		_, _ = h.Write([]byte(p))
		_ = binary.Write(h, binary.LittleEndian, uint8(0))
	}
	return h.Sum64()
}
