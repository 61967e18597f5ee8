package thousands

import (
	"math"
	"testing"
)

func TestGroup(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", 183402: "183,402", 1234567: "1,234,567",
		-1: "-1", -123: "-123", -1000: "-1,000", -123456: "-123,456",
		math.MaxInt64: "9,223,372,036,854,775,807", math.MinInt64: "-9,223,372,036,854,775,808",
	} {
		if got := Group(n); got != want {
			t.Errorf("Group(%d) = %q, want %q", n, got, want)
		}
		if n == int64(int(n)) {
			if got := Group(int(n)); got != want {
				t.Errorf("Group(int(%d)) = %q, want %q", n, got, want)
			}
		}
	}
}
