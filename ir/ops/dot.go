package ops

// dot (DotGeneral): sums of products over the contracting dimensions, for
// each index of the batch dimensions, the lhs free dimensions and the rhs
// free dimensions, in that output order. One accumulator per output element
// adds the products in row-major order of the contracting indices (in the
// order lhs_contracting_dims lists them), in the accumulation type of the
// result (accumulate.go).

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// DotPlan is a dot reduced to a batch of [M,K]×[N,K] products: both
// operands are converted to the accumulation type and transposed to
// (batch…, free…, contracting…).
type DotPlan struct {
	T            ir.ElementType
	OutDims      []int
	fam          Family
	b, m, n, k   int
	lload, rload permutedLoad
	lOff, rOff   int
	accOff, wOff int
	size         int
}

// DefaultDotDims are the dimension numbers of a dot written without them:
// the last dimension of lhs (its only one for rank 1) with the first of rhs.
func DefaultDotDims(lhsRank int) *ir.DotDimensionNumbers {
	lc := 0
	if lhsRank > 1 {
		lc = lhsRank - 1
	}
	return &ir.DotDimensionNumbers{LhsContracting: []int{lc}, RhsContracting: []int{0}}
}

// NewDot plans a dot of lhs (type lt, dimensions ld) and rhs (rt, rd) with
// dimension numbers dn (nil: DefaultDotDims) and result type t.
func NewDot(lt ir.ElementType, ld []int, rt ir.ElementType, rd []int, dn *ir.DotDimensionNumbers, t ir.ElementType) (*DotPlan, error) {
	if dn == nil {
		dn = DefaultDotDims(len(ld))
	}
	if len(ld) > MaxRank || len(rd) > MaxRank {
		return nil, fmt.Errorf("dot of rank %d and %d, above the limit of %d", len(ld), len(rd), MaxRank)
	}
	if len(dn.LhsBatch) != len(dn.RhsBatch) {
		return nil, fmt.Errorf("lhs has %d batch dimensions and rhs %d, expected equal counts", len(dn.LhsBatch), len(dn.RhsBatch))
	}
	if len(dn.LhsContracting) != len(dn.RhsContracting) {
		return nil, fmt.Errorf("lhs has %d contracting dimensions and rhs %d, expected equal counts", len(dn.LhsContracting), len(dn.RhsContracting))
	}
	if err := CheckDims("lhs batch or contracting", append(append([]int{}, dn.LhsBatch...), dn.LhsContracting...), len(ld)); err != nil {
		return nil, err
	}
	if err := CheckDims("rhs batch or contracting", append(append([]int{}, dn.RhsBatch...), dn.RhsContracting...), len(rd)); err != nil {
		return nil, err
	}
	for i := range dn.LhsBatch {
		if a, b := ld[dn.LhsBatch[i]], rd[dn.RhsBatch[i]]; a != b {
			return nil, fmt.Errorf("lhs batch dimension %d has size %d, rhs batch dimension %d has size %d", dn.LhsBatch[i], a, dn.RhsBatch[i], b)
		}
	}
	for i := range dn.LhsContracting {
		if a, b := ld[dn.LhsContracting[i]], rd[dn.RhsContracting[i]]; a != b {
			return nil, fmt.Errorf("lhs contracting dimension %d has size %d, rhs contracting dimension %d has size %d",
				dn.LhsContracting[i], a, dn.RhsContracting[i], b)
		}
	}
	fam, err := accumulation(ir.OpDot, lt, rt, t)
	if err != nil {
		return nil, err
	}
	lf := Complement(len(ld), dn.LhsBatch, dn.LhsContracting)
	rf := Complement(len(rd), dn.RhsBatch, dn.RhsContracting)
	p := &DotPlan{T: t, fam: fam,
		b: Count(pick(ld, dn.LhsBatch)), m: Count(pick(ld, lf)), n: Count(pick(rd, rf)), k: Count(pick(ld, dn.LhsContracting))}
	p.OutDims = append(append(pick(ld, dn.LhsBatch), pick(ld, lf)...), pick(rd, rf)...)
	p.lload = newPermutedLoad(lt, fam, ld, append(append(append([]int{}, dn.LhsBatch...), lf...), dn.LhsContracting...))
	p.rload = newPermutedLoad(rt, fam, rd, append(append(append([]int{}, dn.RhsBatch...), rf...), dn.RhsContracting...))
	fb := fam.Bytes()
	p.rOff = roundUp(p.lload.n*fb, 64)
	p.accOff = p.rOff + roundUp(p.rload.n*fb, 64)
	p.wOff = p.accOff + 64
	p.size = p.wOff + FoldTile*WideBytes
	return p, nil
}

// pick returns dims[i] for each i in idx.
func pick(dims, idx []int) []int {
	out := make([]int, len(idx))
	for j, i := range idx {
		out[j] = dims[i]
	}
	return out
}

// WorkBytes is the work memory Run needs.
func (p *DotPlan) WorkBytes() int { return p.size }

// Run computes the dot of lhs and rhs into out.
func (p *DotPlan) Run(out, lhs, rhs, work []byte) { p.RunUntil(nil, out, lhs, rhs, work) }

// RunUntil is Run polling stop between output elements (see Stop).
func (p *DotPlan) RunUntil(stop Stop, out, lhs, rhs, work []byte) {
	w := RegAt(work[p.wOff:], 0, FoldTile, FoldTile)
	l, r, acc := work[:p.rOff], work[p.rOff:p.accOff], work[p.accOff:p.wOff]
	p.lload.run(l, lhs, w)
	p.rload.run(r, rhs, w)
	b, m, n, k := p.b, p.m, p.n, p.k
	o := 0
	poll := newPoller(stop, k)
	for bi := 0; bi < b; bi++ {
		for mi := 0; mi < m; mi++ {
			lo := (bi*m + mi) * k
			for ni := 0; ni < n; ni++ {
				if poll.stopped() {
					return
				}
				dotRow(p.fam, l, r, lo, (bi*n+ni)*k, k, acc)
				storeFamily(out, p.T, o, p.fam, acc, 0)
				o++
			}
		}
	}
}
