package main

import (
	"math/bits"
	"strings"
	"testing"
)

// TestMemoryLimitBoundsElidedConstants fills an elided constant of 8 GiB
// (--fill-elided) under --memory-limit 256MiB: kiln run, kiln run
// --reference and kiln bench refuse it before allocating it, naming the
// constant and both sizes.
func TestMemoryLimitBoundsElidedConstants(t *testing.T) {
	if bits.UintSize < 64 {
		t.Skip("an 8 GiB shape does not fit a 32-bit int")
	}
	huge := writeTemp(t, "elided.hlo", `HloModule elided
ENTRY main {
  c = f32[2048,1024,1024] constant({...})
  ROOT n = f32[2048,1024,1024] negate(c)
}
`)
	want := `constant "c": literal of shape f32[2048,1024,1024] needs 8589934592 bytes, above the limit of 268435456`
	for _, args := range [][]string{
		{"run", "--memory-limit", "256MiB", "--fill-elided", huge},
		{"run", "--memory-limit", "256MiB", "--fill-elided", "--reference", huge},
		{"bench", "--memory-limit", "256MiB", "--fill-elided", huge},
	} {
		code, _, errs := runKiln(args...)
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", args, code, errs, want)
		}
	}
}
