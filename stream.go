package kiln

import (
	"fmt"
	"slices"
	"unsafe"
)

// vectorPart is the length of the part of an n-element operand that the
// assembly kernels of a level take: whole vectors of lanes elements (a power
// of two); the twins take the rest.
func vectorPart(n, lanes int) int { return n &^ (lanes - 1) }

// checkLen panics unless every length equals the first, naming the function
// and the arguments (a programmer error, like a BLAS size mismatch).
func checkLen(fn string, names string, lens ...int) {
	for _, l := range lens[1:] {
		if l != lens[0] {
			// Formatting a copy keeps lens from escaping, so the
			// variadic array stays on the stack and calls do not allocate.
			lengthPanic(fn, names, slices.Clone(lens))
		}
	}
}

// lengthPanic reports mismatched slice lengths, a programmer error.
//
//go:noinline
func lengthPanic(fn, names string, lens []int) {
	panic(fmt.Sprintf("kiln: %s: the lengths of %s must be equal, found %v", fn, names, lens))
}

// ntMinElems is the output length, in float32, from which the kernels that
// have a non-temporal variant use it: half the last-level cache, so that
// outputs that could not stay in the caches anyway do not evict everything
// else and cost no read-for-ownership.
var ntMinElems = clamp(cpuState.l3, 1<<20, 64<<20) / 2 / 4

// alignedHead returns how many leading elements of dst come before the
// first one aligned to a vector of lanes float32 (non-temporal stores need
// aligned addresses), at most len(dst).
func alignedHead(dst []float32, lanes int) int {
	if len(dst) == 0 {
		return 0
	}
	vb := uintptr(lanes) * 4
	a := uintptr(unsafe.Pointer(unsafe.SliceData(dst)))
	return min(int((vb-a%vb)%vb/4), len(dst))
}
