package affine

import (
	"math"
	"testing"
)

// Over small intervals, every operation contains every pointwise result, and
// is exact where interval arithmetic is.
func TestIntervalOpsContainPointwiseResults(t *testing.T) {
	var ivs []Interval
	for lo := int64(-6); lo <= 6; lo++ {
		for hi := lo - 1; hi <= lo+7; hi++ {
			ivs = append(ivs, Interval{lo, hi})
		}
	}
	hull := func(vals []int64) Interval {
		r := emptyInterval
		for _, v := range vals {
			r = r.Union(Interval{v, v})
		}
		return r
	}
	for _, a := range ivs {
		for _, c := range []int64{-4, -3, -1, 1, 2, 3, 5} {
			var sc, fd, cd, md []int64
			for x := a.Lo; x <= a.Hi; x++ {
				sc = append(sc, x*c)
				fd = append(fd, floorDiv(x*sign(c), abs(c)))
				cd = append(cd, ceilDiv(x*sign(c), abs(c)))
				md = append(md, x-c*int64(math.Floor(float64(x)/float64(c))))
			}
			exact := func(name string, got Interval, vals []int64) {
				if want := hull(vals); got != want && !(got.IsEmpty() && want.IsEmpty()) {
					t.Errorf("%s %s %d = %s, want %s", a, name, c, got, want)
				}
			}
			exact("scale", a.Scale(c), sc)
			exact("floordiv", a.FloorDiv(c), fd)
			exact("ceildiv", a.CeilDiv(c), cd)
			if got := a.Mod(c); !got.ContainsInterval(hull(md)) {
				t.Errorf("%s mod %d = %s misses %s", a, c, got, hull(md))
			}
		}
		for _, b := range ivs {
			var sums []int64
			for x := a.Lo; x <= a.Hi; x++ {
				for y := b.Lo; y <= b.Hi; y++ {
					sums = append(sums, x+y)
				}
			}
			if got, want := a.Add(b), hull(sums); got != want && !(got.IsEmpty() && want.IsEmpty()) {
				t.Errorf("%s + %s = %s, want %s", a, b, got, want)
			}
			in := a.Intersect(b)
			for x := int64(-8); x <= 14; x++ {
				if in.Contains(x) != (a.Contains(x) && b.Contains(x)) {
					t.Errorf("%s ∩ %s = %s wrong at %d", a, b, in, x)
				}
				if u := a.Union(b); (a.Contains(x) || b.Contains(x)) && !u.Contains(x) {
					t.Errorf("%s ∪ %s = %s misses %d", a, b, u, x)
				}
			}
		}
	}
}

func sign(c int64) int64 {
	if c < 0 {
		return -1
	}
	return 1
}

func abs(c int64) int64 { return c * sign(c) }

// Bounds that do not fit widen to unbounded; they never wrap.
func TestIntervalSaturates(t *testing.T) {
	big := Interval{math.MaxInt64 - 10, math.MaxInt64 - 1}
	cases := []struct {
		name      string
		got, want Interval
	}{
		{"sum past MaxInt64", big.Add(Interval{5, 20}), Interval{math.MaxInt64 - 5, math.MaxInt64}},
		{"product past MaxInt64", Interval{1, 1 << 62}.Scale(4), Interval{4, math.MaxInt64}},
		{"product past MinInt64", Interval{1, 1 << 62}.Scale(-4), Interval{math.MinInt64, -4}},
		{"unbounded stays unbounded", Interval{0, math.MaxInt64}.Add(Interval{-5, -5}), Interval{-5, math.MaxInt64}},
		{"negation of unbounded", Interval{math.MinInt64, 3}.Neg(), Interval{-3, math.MaxInt64}},
		{"floordiv of unbounded", Unbounded.FloorDiv(4), Unbounded},
		{"mod of unbounded", Unbounded.Mod(4), Interval{0, 3}},
		{"mod by a negative divisor", Interval{0, 10}.Mod(-4), Interval{-3, 0}},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %s, want %s", c.name, c.got, c.want)
		}
	}
	if n := Unbounded.NumElements(); n != math.MaxInt64 {
		t.Errorf("NumElements of Unbounded = %d", n)
	}
	if n := (Interval{3, 7}).NumElements(); n != 5 {
		t.Errorf("NumElements of [3, 7] = %d", n)
	}
	if !(Interval{0, -1}).IsEmpty() || (Interval{2, 2}).IsEmpty() || !(Interval{2, 2}).IsPoint() {
		t.Errorf("IsEmpty/IsPoint")
	}
	if s := (Interval{-3, 12}).String(); s != "[-3, 12]" {
		t.Errorf("String: %s", s)
	}
}
