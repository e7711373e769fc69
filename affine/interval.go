package affine

import (
	"math"
	"strconv"
)

// Interval is a set of consecutive integers [Lo, Hi], both bounds included.
// It is empty when Lo > Hi.
//
// Arithmetic saturates: math.MinInt64 as a lower bound and math.MaxInt64 as
// an upper bound mean "unbounded", and a result that does not fit in int64 is
// widened to unbounded rather than wrapped, so range analysis stays sound
// whatever the constants.
type Interval struct {
	Lo, Hi int64
}

// Unbounded is the interval of every int64.
var Unbounded = Interval{math.MinInt64, math.MaxInt64}

func pointInterval(v int64) Interval { return Interval{v, v} }

// emptyInterval is the canonical empty interval, as XLA writes it.
var emptyInterval = Interval{0, -1}

// IsEmpty reports whether the interval contains no integer.
func (a Interval) IsEmpty() bool { return a.Lo > a.Hi }

// IsPoint reports whether the interval contains exactly one integer.
func (a Interval) IsPoint() bool { return a.Lo == a.Hi }

// IsBounded reports whether both bounds are finite.
func (a Interval) IsBounded() bool { return a.Lo != math.MinInt64 && a.Hi != math.MaxInt64 }

// Contains reports whether v is in the interval.
func (a Interval) Contains(v int64) bool { return a.Lo <= v && v <= a.Hi }

// ContainsInterval reports whether every element of b is in a. The empty
// interval is contained in every interval.
func (a Interval) ContainsInterval(b Interval) bool {
	return b.IsEmpty() || (a.Lo <= b.Lo && b.Hi <= a.Hi)
}

// NumElements is the number of integers in the interval, saturated at
// math.MaxInt64.
func (a Interval) NumElements() int64 {
	if a.IsEmpty() {
		return 0
	}
	d, ok := addChecked(a.Hi, -a.Lo)
	if !ok || a.Lo == math.MinInt64 || d == math.MaxInt64 {
		return math.MaxInt64
	}
	return d + 1
}

// Intersect is the set of integers in both a and b.
func (a Interval) Intersect(b Interval) Interval {
	r := Interval{max(a.Lo, b.Lo), min(a.Hi, b.Hi)}
	if r.IsEmpty() {
		return emptyInterval
	}
	return r
}

// Union is the smallest interval that contains both a and b (their convex
// hull); an empty operand is ignored.
func (a Interval) Union(b Interval) Interval {
	if a.IsEmpty() {
		return b
	}
	if b.IsEmpty() {
		return a
	}
	return Interval{min(a.Lo, b.Lo), max(a.Hi, b.Hi)}
}

// Add is {x + y : x in a, y in b}.
func (a Interval) Add(b Interval) Interval {
	if a.IsEmpty() || b.IsEmpty() {
		return emptyInterval
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if a.Lo != math.MinInt64 && b.Lo != math.MinInt64 {
		lo = satAdd(a.Lo, b.Lo)
	}
	if a.Hi != math.MaxInt64 && b.Hi != math.MaxInt64 {
		hi = satAdd(a.Hi, b.Hi)
	}
	return Interval{lo, hi}
}

// Neg is {-x : x in a}.
func (a Interval) Neg() Interval {
	if a.IsEmpty() {
		return emptyInterval
	}
	// -MinInt64 does not fit: it saturates to MaxInt64, like an unbounded side.
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if a.Hi != math.MaxInt64 && a.Hi != math.MinInt64 {
		lo = -a.Hi
	} else if a.Hi == math.MinInt64 {
		lo = math.MaxInt64
	}
	if a.Lo != math.MinInt64 {
		hi = -a.Lo
	}
	return Interval{lo, hi}
}

// Scale is {c * x : x in a} as an interval (its convex hull when |c| > 1).
func (a Interval) Scale(c int64) Interval {
	if a.IsEmpty() {
		return emptyInterval
	}
	switch {
	case c == 0:
		return pointInterval(0)
	case c < 0:
		if c == math.MinInt64 {
			return Unbounded
		}
		return a.Neg().Scale(-c)
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if a.Lo != math.MinInt64 {
		lo = satMul(a.Lo, c)
	}
	if a.Hi != math.MaxInt64 {
		hi = satMul(a.Hi, c)
	}
	return Interval{lo, hi}
}

// FloorDiv is {⌊x/c⌋ : x in a}. It panics if c is zero.
func (a Interval) FloorDiv(c int64) Interval {
	if c == 0 {
		panic("affine: Interval.FloorDiv by zero")
	}
	if a.IsEmpty() {
		return emptyInterval
	}
	if c < 0 {
		if c == math.MinInt64 {
			return Unbounded
		}
		// ⌊x/c⌋ = ⌊-x/-c⌋.
		return a.Neg().FloorDiv(-c)
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if a.Lo != math.MinInt64 {
		lo = floorDiv(a.Lo, c)
	}
	if a.Hi != math.MaxInt64 {
		hi = floorDiv(a.Hi, c)
	}
	return Interval{lo, hi}
}

// CeilDiv is {⌈x/c⌉ : x in a}. It panics if c is zero.
func (a Interval) CeilDiv(c int64) Interval {
	if c == 0 {
		panic("affine: Interval.CeilDiv by zero")
	}
	if a.IsEmpty() {
		return emptyInterval
	}
	if c < 0 {
		if c == math.MinInt64 {
			return Unbounded
		}
		return a.Neg().CeilDiv(-c)
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if a.Lo != math.MinInt64 {
		lo = ceilDiv(a.Lo, c)
	}
	if a.Hi != math.MaxInt64 {
		hi = ceilDiv(a.Hi, c)
	}
	return Interval{lo, hi}
}

// Mod is {x mod c : x in a} with floor semantics (the result has the sign of
// c), as an interval. It panics if c is zero.
func (a Interval) Mod(c int64) Interval {
	if c == 0 {
		panic("affine: Interval.Mod by zero")
	}
	if a.IsEmpty() {
		return emptyInterval
	}
	if c < 0 {
		if c == math.MinInt64 {
			return Unbounded
		}
		// x mod c = -((-x) mod -c).
		return a.Neg().Mod(-c).Neg()
	}
	if a.IsBounded() && floorDiv(a.Lo, c) == floorDiv(a.Hi, c) {
		return Interval{floorMod(a.Lo, c), floorMod(a.Hi, c)}
	}
	return Interval{0, c - 1}
}

// String formats the interval as XLA does: "[lo, hi]".
func (a Interval) String() string {
	b := make([]byte, 0, 24)
	b = append(b, '[')
	b = strconv.AppendInt(b, a.Lo, 10)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, a.Hi, 10)
	b = append(b, ']')
	return string(b)
}
