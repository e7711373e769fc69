package ops

// reduce. XLA leaves the order in which a reduction applies its computation
// unspecified; Kiln's order is sequential: for each output element (in
// row-major order) the accumulator starts at the init value and is combined
// with each input element in row-major order of the reduced indices, as
// f(accumulator, element) — XLA's HloEvaluator's order.

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/ir"
)

// ReducePlan reduces N operands of one shape over some of their dimensions.
type ReducePlan struct {
	N     int
	Types []ir.ElementType // the operands'
	// Inits are the init values' types, Out the results' (the reducer's).
	Inits, Out []ir.ElementType
	OutDims    []int
	fold       *Reducer
	kept       []int // dims kept, their strides
	keptSt     []int
	red        []int // dims reduced, their strides
	redSt      []int
	count      int
	redN       int
}

// NewReduce plans reduce of operands of element types ts and dimensions
// dims over dimensions `reduced`, onto init values of types inits, with
// reducer f (see NewReducer for the types it may differ in).
func NewReduce(ts, inits []ir.ElementType, dims, reduced []int, f *Func) (*ReducePlan, error) {
	if len(dims) > MaxRank {
		return nil, fmt.Errorf("reduce of rank %d, above the limit of %d", len(dims), MaxRank)
	}
	if err := CheckDims("reduced", reduced, len(dims)); err != nil {
		return nil, err
	}
	p := &ReducePlan{N: len(ts), Types: ts, Inits: inits, Out: resultTypes(f, inits)}
	st := Strides(dims)
	for d, n := range dims {
		if slices.Contains(reduced, d) {
			p.red = append(p.red, n)
			p.redSt = append(p.redSt, st[d])
		} else {
			p.kept = append(p.kept, n)
			p.keptSt = append(p.keptSt, st[d])
		}
	}
	p.OutDims = slices.Clone(p.kept)
	if p.OutDims == nil {
		p.OutDims = []int{}
	}
	p.count, p.redN = Count(p.kept), Count(p.red)
	if len(p.red) == 0 {
		p.red, p.redSt = []int{1}, []int{0}
	}
	fold, err := NewReducer(f, ts, inits)
	if err != nil {
		if p.count == 0 || p.redN == 0 {
			// The reducer never runs (it may not even be defined for
			// these types): every output element is its init value.
			return p, nil
		}
		return nil, err
	}
	p.fold = fold
	return p, nil
}

// ScratchBytes is the scratch Run needs.
func (p *ReducePlan) ScratchBytes() int {
	if p.fold == nil {
		return 0
	}
	return p.fold.ScratchBytes()
}

// Reducer is the plan's reducer (nil when it never runs).
func (p *ReducePlan) Reducer() *Reducer { return p.fold }

// Run reduces the operands ins (dense, row-major) onto the scalar init
// values inits, writing the outputs outs.
func (p *ReducePlan) Run(ins, inits, outs [][]byte, scratch []byte) error {
	if p.fold == nil || p.redN == 0 {
		fillInits(outs, p.Out, inits, p.Inits, p.count)
		return nil
	}
	f := p.fold
	f.Begin(scratch)
	pos := f.Positions(scratch)
	var kept [MaxRank]int
	base := 0
	// An argmax or argmin over one contiguous dimension folds its rows in
	// place, without positions.
	rowwise := f.arg != nil && len(p.red) == 1 && p.redSt[0] == 1
	for o := 0; o < p.count; o++ {
		var acc Acc
		f.Start(scratch, &acc, inits, 0)
		if rowwise {
			f.foldArgRow(&acc, ins, base, p.redN)
			f.Finish(scratch, &acc, outs, o)
			base = Advance(p.kept, p.keptSt, kept[:len(p.kept)], base)
			continue
		}
		for start := 0; start < p.redN; start += FoldTile {
			m := min(FoldTile, p.redN-start)
			Positions(pos[:m], p.red, p.redSt, base, start)
			if err := f.Fold(scratch, &acc, ins, pos[:m]); err != nil {
				return err
			}
		}
		f.Finish(scratch, &acc, outs, o)
		base = Advance(p.kept, p.keptSt, kept[:len(p.kept)], base)
	}
	return nil
}

// resultTypes are the types a reducer's results have: its own, or the init
// values' when there is no usable reducer.
func resultTypes(f *Func, inits []ir.ElementType) []ir.ElementType {
	if f != nil && len(f.ResultT) == len(inits) {
		return f.ResultT
	}
	return inits
}

// fillInits fills the first count elements of each output (of types outT)
// with its init value (of type initT, converted).
func fillInits(outs [][]byte, outT []ir.ElementType, inits [][]byte, initT []ir.ElementType, count int) {
	for i, o := range outs {
		es := outT[i].ByteSize()
		if count == 0 {
			continue
		}
		if initT[i] == outT[i] {
			FillElements(o[:count*es], inits[i][:es])
			continue
		}
		var buf [WideBytes]byte
		r := RegAt(buf[:], 0, 1, 1)
		LoadWide(r, 1, inits[i], initT[i], 0)
		StoreWide(o, outT[i], 0, r, 1)
		FillElements(o[:count*es], o[:es])
	}
}

// CheckDims reports a dimension list with entries outside [0, rank) or
// repeated.
func CheckDims(name string, dims []int, rank int) error {
	for i, d := range dims {
		if d < 0 || d >= rank {
			return fmt.Errorf("%s dimension %d is out of range for rank %d", name, d, rank)
		}
		if slices.Contains(dims[:i], d) {
			return fmt.Errorf("%s dimension %d is listed twice", name, d)
		}
	}
	return nil
}
