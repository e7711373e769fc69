package detrand

import (
	"testing"

	"github.com/kilnml/kiln/ir"
)

func TestLiteralIsDeterministicAndScaled(t *testing.T) {
	s := ir.MakeShape(ir.F32, 64, 16)
	a, b := Literal(s, 7), Literal(s, 7)
	if !a.Equal(b) {
		t.Fatal("same seed gave different literals")
	}
	if Literal(s, 8).Equal(a) {
		t.Fatal("different seeds gave equal literals")
	}
	limit := float32(1.0 / 8) // 1/sqrt(64)
	var pos, neg int
	for _, v := range a.Float32s() {
		if v < -limit || v >= limit {
			t.Fatalf("value %v outside [-%v, %v)", v, limit, limit)
		}
		if v > 0 {
			pos++
		} else {
			neg++
		}
	}
	if pos < 400 || neg < 400 {
		t.Errorf("signs unbalanced: %d positive, %d not", pos, neg)
	}
}

func TestLiteralEveryType(t *testing.T) {
	for _, et := range ir.ElementTypes {
		l := Literal(ir.MakeShape(et, 3, 5), Seed("x", 1))
		if l.ElementCount() != 15 {
			t.Errorf("%v: %d elements", et, l.ElementCount())
		}
	}
}

func TestSourceKnownValues(t *testing.T) {
	// splitmix64 with seed 0: the reference sequence of Vigna's splitmix64.c.
	s := New(0)
	want := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}
	for i, w := range want {
		if got := s.Uint64(); got != w {
			t.Errorf("value %d: %#x, want %#x", i, got, w)
		}
	}
}
