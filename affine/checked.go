package affine

import (
	"errors"
	"math"
	"math/bits"
)

// Coefficients and constants of expressions stay in [-MaxInt64, MaxInt64]:
// excluding MinInt64 makes negation total, so `-e` never overflows.

var (
	errOverflow = errors.New("integer overflow: a coefficient or constant does not fit in int64")
	errDivZero  = errors.New("division by zero")
)

// addChecked returns a+b, or false if the sum leaves [-MaxInt64, MaxInt64].
func addChecked(a, b int64) (int64, bool) {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) || s == math.MinInt64 {
		return 0, false
	}
	return s, true
}

// mulChecked returns a*b, or false if the product leaves [-MaxInt64, MaxInt64].
func mulChecked(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if a == math.MinInt64 || b == math.MinInt64 {
		return 0, false
	}
	hi, lo := bits.Mul64(absU(a), absU(b))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if (a < 0) != (b < 0) {
		return -int64(lo), true
	}
	return int64(lo), true
}

func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-a)
	}
	return uint64(a)
}

// floorDiv is ⌊a/b⌋ for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// ceilDiv is ⌈a/b⌉ for b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}

// floorMod is a - b⌊a/b⌋ for b > 0: the result is in [0, b).
func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
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

// satAdd adds two finite values, clamping on overflow.
func satAdd(a, b int64) int64 {
	s, ok := addChecked(a, b)
	if ok {
		return s
	}
	if a > 0 {
		return math.MaxInt64
	}
	return math.MinInt64
}

// satMul multiplies two finite values, clamping on overflow.
func satMul(a, b int64) int64 {
	p, ok := mulChecked(a, b)
	if ok {
		return p
	}
	if (a < 0) != (b < 0) {
		return math.MinInt64
	}
	return math.MaxInt64
}
