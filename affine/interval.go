package affine

import (
	"math"
	"strconv"
)

// Interval is a set of consecutive integers [Lo, Hi], both bounds included.
// It is infeasible (empty) when Lo > Hi.
//
// Arithmetic follows XLA's Interval: math.MinInt64 as a lower bound and
// math.MaxInt64 as an upper bound mean "unbounded", and a bound that
// overflows saturates to them rather than wrapping.
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

// IsFeasible reports whether the interval contains an integer.
func (a Interval) IsFeasible() bool { return a.Lo <= a.Hi }

// IsPoint reports whether the interval contains exactly one integer.
func (a Interval) IsPoint() bool { return a.Lo == a.Hi }

// IsBounded reports whether both bounds are finite.
func (a Interval) IsBounded() bool { return a.Lo != math.MinInt64 && a.Hi != math.MaxInt64 }

// Contains reports whether v is in the interval.
func (a Interval) Contains(v int64) bool { return a.Lo <= v && v <= a.Hi }

// ContainsInterval reports whether every element of b is in a (XLA's
// Interval::Contains of an interval): b's bounds lie within a's.
func (a Interval) ContainsInterval(b Interval) bool { return a.Lo <= b.Lo && b.Hi <= a.Hi }

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

// Intersect is [max(Lo), min(Hi)], XLA's Interval::Intersect. The result may
// be infeasible.
func (a Interval) Intersect(b Interval) Interval {
	return Interval{max(a.Lo, b.Lo), min(a.Hi, b.Hi)}
}

// Union is the smallest interval that contains both a and b (their convex
// hull), XLA's Interval::Union.
func (a Interval) Union(b Interval) Interval {
	return Interval{min(a.Lo, b.Lo), max(a.Hi, b.Hi)}
}

// Add is {x + y : x in a, y in b} with saturation, XLA's Interval::operator+.
func (a Interval) Add(b Interval) Interval {
	lo, loOK := addChecked(a.Lo, b.Lo)
	hi, hiOK := addChecked(a.Hi, b.Hi)
	if !loOK || a.Lo == math.MinInt64 || b.Lo == math.MinInt64 {
		if a.Lo < 0 || b.Lo < 0 {
			lo = math.MinInt64
		} else {
			lo, hi = math.MaxInt64, math.MaxInt64
			hiOK = true
		}
	}
	if !hiOK || a.Hi == math.MaxInt64 || b.Hi == math.MaxInt64 {
		if a.Hi > 0 || b.Hi > 0 {
			hi = math.MaxInt64
		} else {
			lo, hi = math.MinInt64, math.MinInt64
		}
	}
	return Interval{lo, hi}
}

// Neg is {-x : x in a}.
func (a Interval) Neg() Interval { return a.Mul(pointInterval(-1)) }

// Scale is {c * x : x in a}, as an interval.
func (a Interval) Scale(c int64) Interval { return a.Mul(pointInterval(c)) }

// Mul is the hull of {x * y : x in a, y in b} with saturation, XLA's
// Interval::operator*.
func (a Interval) Mul(b Interval) Interval {
	return a.mulPoint(b.Lo).Union(a.mulPoint(b.Hi))
}

func (a Interval) mulPoint(p int64) Interval {
	l, u := a.Lo, a.Hi
	if p < 0 {
		l, u = u, l
	}
	lo, ok := mulChecked(l, p)
	if !ok || (p == -1 && l == math.MaxInt64) {
		lo = math.MinInt64
	}
	hi, ok := mulChecked(u, p)
	if !ok {
		hi = math.MaxInt64
	}
	return Interval{lo, hi}
}

// FloorDiv is the hull of {⌊x/c⌋ : x in a}, saturating unbounded ends, XLA's
// Interval::FloorDiv. It panics if c is zero.
func (a Interval) FloorDiv(c int64) Interval {
	if c == 0 {
		panic("affine: Interval.FloorDiv by zero")
	}
	x, y := satDiv(a.Lo, c, floorDiv), satDiv(a.Hi, c, floorDiv)
	return Interval{min(x, y), max(x, y)}
}

// CeilDiv is the hull of {⌈x/c⌉ : x in a}. It panics if c is zero.
func (a Interval) CeilDiv(c int64) Interval {
	if c == 0 {
		panic("affine: Interval.CeilDiv by zero")
	}
	x, y := satDiv(a.Lo, c, ceilDiv), satDiv(a.Hi, c, ceilDiv)
	return Interval{min(x, y), max(x, y)}
}

func satDiv(v, c int64, div func(a, b int64) int64) int64 {
	switch v {
	case math.MinInt64:
		if c > 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	case math.MaxInt64:
		if c > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return div(v, c)
}

// Mod is the range XLA's RangeEvaluator gives x mod c for x in a: a itself
// when 0 <= a < c, [0, c-1] otherwise. It panics if c is zero.
func (a Interval) Mod(c int64) Interval {
	if c == 0 {
		panic("affine: Interval.Mod by zero")
	}
	if 0 <= a.Lo && a.Hi < c {
		return a
	}
	if c < 0 {
		return Interval{0, -c - 1}
	}
	return Interval{0, c - 1}
}

// Min is the hull of {min(x, y) : x in a, y in b}.
func (a Interval) Min(b Interval) Interval { return Interval{min(a.Lo, b.Lo), min(a.Hi, b.Hi)} }

// Max is the hull of {max(x, y) : x in a, y in b}.
func (a Interval) Max(b Interval) Interval { return Interval{max(a.Lo, b.Lo), max(a.Hi, b.Hi)} }

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
