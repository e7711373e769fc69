package affine

import (
	"math"
	"testing"
)

func TestIntervalArithmetic(t *testing.T) {
	cases := []struct {
		name      string
		got, want Interval
	}{
		{"add", Interval{1, 3}.Add(Interval{-2, 5}), Interval{-1, 8}},
		{"add saturates", Interval{1, math.MaxInt64 - 1}.Add(Interval{0, 5}), Interval{1, math.MaxInt64}},
		{"add unbounded below", Unbounded.Add(Interval{1, 1}), Unbounded},
		{"mul", Interval{-2, 3}.Mul(Interval{-4, 5}), Interval{-12, 15}},
		{"mul saturates", Interval{2, math.MaxInt64 / 2}.Mul(Interval{4, 4}), Interval{8, math.MaxInt64}},
		{"neg", Interval{-3, 7}.Neg(), Interval{-7, 3}},
		{"floordiv", Interval{-7, 9}.FloorDiv(4), Interval{-2, 2}},
		{"floordiv negative", Interval{-7, 9}.FloorDiv(-4), Interval{-3, 1}},
		{"floordiv unbounded", Interval{0, math.MaxInt64}.FloorDiv(4), Interval{0, math.MaxInt64}},
		{"ceildiv", Interval{-7, 9}.CeilDiv(4), Interval{-1, 3}},
		{"mod in range", Interval{2, 5}.Mod(8), Interval{2, 5}},
		{"mod wraps", Interval{2, 9}.Mod(8), Interval{0, 7}},
		{"min", Interval{0, 9}.Min(Interval{3, 5}), Interval{0, 5}},
		{"max", Interval{0, 9}.Max(Interval{3, 5}), Interval{3, 9}},
		{"intersect", Interval{0, 9}.Intersect(Interval{5, 20}), Interval{5, 9}},
		{"union", Interval{0, 2}.Union(Interval{5, 20}), Interval{0, 20}},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if n := (Interval{-3, 3}).NumElements(); n != 7 {
		t.Errorf("NumElements = %d", n)
	}
	if (Interval{0, -1}).IsFeasible() || !(Interval{2, 2}).IsPoint() || (Interval{0, 9}).ContainsInterval(Interval{3, 10}) {
		t.Error("predicates")
	}
	if s := (Interval{-1, 4}).String(); s != "[-1, 4]" {
		t.Errorf("String = %q", s)
	}
}
