package sat

import (
	"math"
	"testing"
)

func TestInc(t *testing.T) {
	i := math.MaxInt64 - 1
	Inc(&i)
	Inc(&i)
	if i != math.MaxInt64 {
		t.Errorf("int: %d", i)
	}
	var u uint64 = math.MaxUint64
	Inc(&u)
	if u != math.MaxUint64 {
		t.Errorf("uint64: %d", u)
	}
	var n int64 = -1
	Inc(&n)
	if n != 0 {
		t.Errorf("int64 from -1: %d", n)
	}
	if got := Next(int8(math.MaxInt8)); got != math.MaxInt8 {
		t.Errorf("int8: %d", got)
	}
	if got := Next(uint8(7)); got != 8 {
		t.Errorf("uint8: %d", got)
	}
}
