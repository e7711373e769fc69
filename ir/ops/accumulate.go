package ops

// The accumulation types of dot and convolution, following XLA's
// HloEvaluator (its ElementwiseT): F16, BF16 and F8 results accumulate in
// float32 and round once at the end, F32 in float32, F64 in float64, C64 in
// complex64, C128 in complex128, integers in 64 bits wrapped to the
// result's width on the way out (two's complement arithmetic commutes with
// that wrap), PRED as 0/1 integers (so a PRED dot is the OR of ANDs).
// Operands may have other types than the result (mixed precision such as
// s8×s8→s32, bf16×bf16→f32, s16×s8→s32): each is converted exactly to the
// accumulation type first. Every product is converted explicitly to the
// accumulation type before it is added, which forbids the compiler to fuse
// the multiply and the add, so results are identical on every machine.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// Family is the Go type a dot or convolution accumulates in.
type Family uint8

// The accumulation families.
const (
	FamF32 Family = iota
	FamF64
	FamC64
	FamC128
	FamInt
)

// FamilyOf returns the accumulation family of result type t.
func FamilyOf(t ir.ElementType) (Family, bool) {
	switch {
	case t == ir.F64:
		return FamF64, true
	case t.IsFloat():
		return FamF32, true
	case t == ir.C64:
		return FamC64, true
	case t == ir.C128:
		return FamC128, true
	case t.IsInteger() || t == ir.PRED:
		return FamInt, true
	}
	return 0, false
}

// Bytes is the size of one value of the family.
func (f Family) Bytes() int {
	switch f {
	case FamF32:
		return 4
	case FamC128:
		return 16
	}
	return 8
}

// ConvertibleOperand reports whether an operand of type from may feed a dot
// or convolution with result type to: integers into floats, reals into
// complex, narrow into wide.
func ConvertibleOperand(from, to ir.ElementType) bool {
	switch {
	case to.IsComplex():
		return from.IsFloatOrComplex() || from.IsInteger()
	case to.IsFloat():
		return from.IsFloat() || from.IsInteger() || from == ir.PRED
	case to.IsInteger():
		return from.IsInteger() || from == ir.PRED
	case to == ir.PRED:
		return from == ir.PRED
	}
	return false
}

// accumulation checks a dot's or convolution's operand and result types
// and returns the family.
func accumulation(op ir.Opcode, lt, rt, out ir.ElementType) (Family, error) {
	fam, ok := FamilyOf(out)
	if !ok {
		return 0, &UnsupportedError{Op: op, Detail: fmt.Sprintf("result element type %v is not numeric", out)}
	}
	for _, t := range []ir.ElementType{lt, rt} {
		if !ConvertibleOperand(t, out) {
			return 0, &UnsupportedError{Op: op, Detail: fmt.Sprintf("operand type %v with result type %v", t, out)}
		}
	}
	return fam, nil
}

// permutedLoad converts an operand to an accumulation family while
// transposing it: source element i (row-major over dims) is written at
// Σ idx[d]·dst[d].
type permutedLoad struct {
	t    ir.ElementType
	fam  Family
	dims []int
	dst  []int
	n    int
}

// newPermutedLoad plans writing an operand (dims) in the order perm (the
// operand dimension of each destination dimension).
func newPermutedLoad(t ir.ElementType, fam Family, dims, perm []int) permutedLoad {
	pd := make([]int, len(perm))
	for i, d := range perm {
		pd[i] = dims[d]
	}
	ps := Strides(pd)
	dst := make([]int, len(dims))
	for i, d := range perm {
		dst[d] = ps[i]
	}
	return permutedLoad{t: t, fam: fam, dims: dims, dst: dst, n: Count(dims)}
}

// run converts src into out (family values), through the wide register w
// (FoldTile values).
func (l *permutedLoad) run(out, src []byte, w Reg) {
	var idx [MaxRank]int
	rank := len(l.dims)
	pos := 0
	for start := 0; start < l.n; start += FoldTile {
		m := min(FoldTile, l.n-start)
		LoadWide(w, m, src, l.t, start)
		for j := 0; j < m; j++ {
			storeAcc(out, l.fam, pos, w, l.t, j)
			pos = Advance(l.dims, l.dst, idx[:rank], pos)
		}
	}
}

// storeAcc converts value j of wide register w (type t) to family fam and
// stores it at index pos of vals.
func storeAcc(vals []byte, fam Family, pos int, w Reg, t ir.ElementType, j int) {
	switch fam {
	case FamF32:
		Elems[float32](vals)[pos] = float32(wideReal(w, t, j))
	case FamF64:
		Elems[float64](vals)[pos] = wideReal(w, t, j)
	case FamC64:
		Elems[complex64](vals)[pos] = complex64(wideComplex(w, t, j))
	case FamC128:
		Elems[complex128](vals)[pos] = wideComplex(w, t, j)
	default:
		Elems[int64](vals)[pos] = w.I[j]
	}
}

// wideReal is value j of a wide register of type t as a float64 (unsigned
// integers as unsigned).
func wideReal(w Reg, t ir.ElementType, j int) float64 {
	switch {
	case t.IsFloat():
		return w.F[j]
	case !t.IsSigned():
		return float64(uint64(w.I[j]))
	}
	return float64(w.I[j])
}

func wideComplex(w Reg, t ir.ElementType, j int) complex128 {
	if t.IsComplex() {
		return w.C[j]
	}
	return complex(wideReal(w, t, j), 0)
}

// mulC64 and mulC128 are complex products with each partial product
// rounded (no fused multiply-add).
func mulC64(a, b complex64) complex64 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	return complex(float32(ar*br)-float32(ai*bi), float32(ar*bi)+float32(ai*br))
}

func mulC128(a, b complex128) complex128 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	return complex(float64(ar*br)-float64(ai*bi), float64(ar*bi)+float64(ai*br))
}

// storeFamily stores accumulator value i of vals (family f) as element o of
// dst, rounded to type t.
func storeFamily(dst []byte, t ir.ElementType, o int, f Family, vals []byte, i int) {
	switch f {
	case FamF32:
		x := Elems[float32](vals)[i]
		if t == ir.F32 {
			Elems[float32](dst)[o] = x
			return
		}
		SetFloatAt(dst, t, o, float64(x))
	case FamF64:
		SetFloatAt(dst, t, o, Elems[float64](vals)[i])
	case FamC64:
		SetComplexAt(dst, t, o, complex128(Elems[complex64](vals)[i]))
	case FamC128:
		SetComplexAt(dst, t, o, Elems[complex128](vals)[i])
	default:
		SetIntAt(dst, t, o, Elems[int64](vals)[i])
	}
}

// dotRow accumulates the k products of rows l[lo:lo+k] and r[ro:ro+k]
// (family values) into acc[0], starting from zero.
func dotRow(fam Family, l, r []byte, lo, ro, k int, acc []byte) {
	clear(acc[:16])
	accumulateRow(fam, acc, l, r, lo, ro, k)
}
