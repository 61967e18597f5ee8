package advice

import (
	"fmt"

	"github.com/djinn-cc/djinn/internal/thousands"
)

// CompactedFacts describe one shortened tool output.
type CompactedFacts struct {
	Tool, Target  string
	Before, After int
	// Cuts says what was cut and how much.
	Cuts string
	// Saved is where the full output was kept ("" if it was not).
	Saved string
}

// Compacted words the note that goes with a shortened tool output.
func Compacted(f CompactedFacts) Advisory {
	nums := map[string]float64{"before": float64(f.Before), "after": float64(f.After)}
	where := "Run the call again with a narrower range (offset/limit, head, grep) for the parts that were cut."
	if f.Saved != "" {
		where = fmt.Sprintf("The full output is saved at %s; Read it with offset/limit, or Grep it, for the parts that were cut.", f.Saved)
	}
	return withGist(finish(KindCompacted, Info, nums, "The output of %s was shortened to fit the context: %s. %s",
		Quote(f.Target, 120), Clean(f.Cuts, 300), where),
		"the output of %s was shortened to fit the context (%s to %s characters)", Quote(f.Target, 60), thousands.Group(f.Before), thousands.Group(f.After))
}
