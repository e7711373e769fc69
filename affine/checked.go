package affine

import (
	"math"
	"math/bits"
)

// addChecked returns a+b, or false if the sum overflows int64.
func addChecked(a, b int64) (int64, bool) {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		return 0, false
	}
	return s, true
}

// mulChecked returns a*b, or false if the product overflows int64.
func mulChecked(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	neg := (a < 0) != (b < 0)
	hi, lo := bits.Mul64(absU(a), absU(b))
	if hi != 0 {
		return 0, false
	}
	if neg {
		if lo > 1<<63 {
			return 0, false
		}
		return int64(-lo), true
	}
	if lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-a)
	}
	return uint64(a)
}

// floorDiv is ⌊a/b⌋ for b ≠ 0 (LLVM's divideFloorSigned).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// ceilDiv is ⌈a/b⌉ for b ≠ 0 (LLVM's divideCeilSigned).
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) == (b < 0) {
		q++
	}
	return q
}

// floorMod is XLA's remainder: a - b⌊a/b⌋ for b > 0, in [0, b); for b < 0
// it is in [0, |b|), as XLA evaluates (a % b + |b|) % b.
func floorMod(a, b int64) int64 {
	if b == -1 {
		return 0
	}
	r := a % b
	if b > 0 {
		if r < 0 {
			r += b
		}
		return r
	}
	if r < 0 {
		r -= b
	}
	return r
}

func gcd(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	return a / gcd(a, b) * b
}
