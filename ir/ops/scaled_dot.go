package ops

// scaled-dot (block-scaled products, as MX formats use): each operand is
// multiplied by its scale — an array of the operand's rank whose every
// dimension divides the operand's, one scale element per block of operand
// elements (or a scalar for the whole operand) — in the result type, and
// the dot of the two products is taken as dot defines it. This is XLA's
// expansion of the op: convert the operand and the broadcast scale to the
// result type, multiply, dot.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// ScaledDotPlan is a scaled-dot: two dequantizations and a dot.
type ScaledDotPlan struct {
	T          ir.ElementType
	OutDims    []int
	lhs, rhs   dequant
	dot        *DotPlan
	lOff, rOff int
	dOff, size int
}

// dequant scales one operand into the result type.
type dequant struct {
	t, st  ir.ElementType
	dims   []int
	sdims  []int
	sstr   []int // scale strides
	block  []int // operand elements per scale element, per dimension
	scalar bool
	n      int
	outT   ir.ElementType
}

func newDequant(what string, t ir.ElementType, dims []int, st ir.ElementType, sdims []int, out ir.ElementType) (dequant, error) {
	d := dequant{t: t, st: st, dims: dims, sdims: sdims, n: Count(dims), outT: out, scalar: len(sdims) == 0}
	for _, x := range []ir.ElementType{t, st} {
		if !ConvertibleOperand(x, out) && !(x.IsFloat() && out.IsFloat()) {
			return d, &UnsupportedError{Op: ir.OpScaledDot, Detail: fmt.Sprintf("%s of type %v with result type %v", what, x, out)}
		}
	}
	if d.scalar {
		return d, nil
	}
	if len(sdims) != len(dims) {
		return d, fmt.Errorf("%s scale has dimensions %v, the operand %v: expected its rank", what, sdims, dims)
	}
	for i := range dims {
		if dims[i] == 0 && sdims[i] == 0 {
			d.block = append(d.block, 1) // no element to scale
			continue
		}
		if sdims[i] == 0 || dims[i]%sdims[i] != 0 {
			return d, fmt.Errorf("%s scale dimension %d has size %d, which does not divide the operand's %d", what, i, sdims[i], dims[i])
		}
		d.block = append(d.block, dims[i]/sdims[i])
	}
	d.sstr = Strides(sdims)
	return d, nil
}

// run writes the scaled operand x (scales s) as type outT into dst.
func (d *dequant) run(dst, x, s []byte) {
	var idx [MaxRank]int
	rank := len(d.dims)
	for i := 0; i < d.n; i++ {
		si := 0
		if !d.scalar {
			for k := 0; k < rank; k++ {
				si += idx[k] / d.block[k] * d.sstr[k]
			}
		}
		if KindOf(d.outT) == KindComplex {
			v := complexOf(x, d.t, i) * complexOf(s, d.st, si)
			SetComplexAt(dst, d.outT, i, v)
		} else if d.outT.IsFloat() {
			SetFloatAt(dst, d.outT, i, RoundFloat(d.outT, realOf(x, d.t, i))*RoundFloat(d.outT, realOf(s, d.st, si)))
		} else {
			SetIntAt(dst, d.outT, i, IntAt(x, d.t, i)*IntAt(s, d.st, si))
		}
		if rank > 0 {
			ir.NextIndex(d.dims, idx[:rank])
		}
	}
}

func realOf(b []byte, t ir.ElementType, i int) float64 {
	if t.IsFloat() {
		return FloatAt(b, t, i)
	}
	if t.IsSigned() {
		return float64(IntAt(b, t, i))
	}
	return float64(uint64(IntAt(b, t, i)))
}

func complexOf(b []byte, t ir.ElementType, i int) complex128 {
	if t.IsComplex() {
		return ComplexAt(b, t, i)
	}
	return complex(realOf(b, t, i), 0)
}

// NewScaledDot plans scaled-dot(lhs, rhs, lhsScale, rhsScale), XLA's
// operand order, of result type t.
func NewScaledDot(lt ir.ElementType, ld []int, rt ir.ElementType, rd []int, lst ir.ElementType, lsd []int, rst ir.ElementType, rsd []int,
	dn *ir.DotDimensionNumbers, t ir.ElementType) (*ScaledDotPlan, error) {
	if len(ld) > MaxRank || len(rd) > MaxRank {
		return nil, fmt.Errorf("scaled-dot of rank %d and %d, above the limit of %d", len(ld), len(rd), MaxRank)
	}
	p := &ScaledDotPlan{T: t}
	var err error
	if p.lhs, err = newDequant("lhs", lt, ld, lst, lsd, t); err != nil {
		return nil, err
	}
	if p.rhs, err = newDequant("rhs", rt, rd, rst, rsd, t); err != nil {
		return nil, err
	}
	if p.dot, err = NewDot(t, ld, t, rd, dn, t); err != nil {
		return nil, err
	}
	p.OutDims = p.dot.OutDims
	es := t.ByteSize()
	p.lOff = 0
	p.rOff = roundUp(Count(ld)*es, 64)
	p.dOff = p.rOff + roundUp(Count(rd)*es, 64)
	p.size = p.dOff + p.dot.WorkBytes()
	return p, nil
}

// WorkBytes is the work memory Run needs.
func (p *ScaledDotPlan) WorkBytes() int { return p.size }

// Run computes scaled-dot into out.
func (p *ScaledDotPlan) Run(out, lhs, rhs, lhsScale, rhsScale, work []byte) {
	l, r := work[p.lOff:p.rOff], work[p.rOff:p.dOff]
	p.lhs.run(l, lhs, lhsScale)
	p.rhs.run(r, rhs, rhsScale)
	p.dot.Run(out, l, r, work[p.dOff:])
}
