package ops

// scan: the body runs once per index of one dimension of the inputs (in
// reverse order with is_reverse), on the inputs' slices at that index and
// the carries; its results are the per-step outputs, which scan stacks
// along that dimension at the same index, then the new carries. The body
// itself is the caller's to run; this plan slices and stacks.

import (
	"fmt"
	"slices"
)

// ScanPlan slices a scan's inputs and places its per-step outputs.
type ScanPlan struct {
	Steps   int
	Dim     int
	Reverse bool
	ins     []scanSide
	outs    []scanSide
}

// scanSide is one input (or output): its slice's copy at index 0 and the
// element step of the scanned dimension.
type scanSide struct {
	SliceDims []int
	copy      Strided
	step      int
}

// NewScan plans scan over dimension dim of inputs of element sizes ins and
// dimensions inDims, whose per-step outputs have element sizes outs and
// dimensions outDims (before stacking).
func NewScan(ins []int, inDims [][]int, outs []int, outDims [][]int, dim int, reverse bool) (*ScanPlan, error) {
	if len(inDims) == 0 {
		return nil, fmt.Errorf("scan has no inputs")
	}
	if dim < 0 || dim >= len(inDims[0]) {
		return nil, fmt.Errorf("scan dimension %d is out of range for input 0 of dimensions %v", dim, inDims[0])
	}
	p := &ScanPlan{Steps: inDims[0][dim], Dim: dim, Reverse: reverse}
	for i, d := range inDims {
		if dim >= len(d) || d[dim] != p.Steps {
			return nil, fmt.Errorf("input %d has dimensions %v, expected size %d in scan dimension %d", i, d, p.Steps, dim)
		}
		if err := checkRank("scan input", len(d)); err != nil {
			return nil, err
		}
		sl := append(slices.Clone(d[:dim]), d[dim+1:]...)
		st := Strides(d)
		src := append(slices.Clone(st[:dim]), st[dim+1:]...)
		p.ins = append(p.ins, scanSide{SliceDims: sl, copy: NewStrided(ins[i], sl, Strides(sl), src, 0, 0), step: st[dim]})
	}
	for i, sl := range outDims {
		if dim > len(sl) {
			return nil, fmt.Errorf("scan dimension %d is out of range for output %d of dimensions %v", dim, i, sl)
		}
		full := append(append(slices.Clone(sl[:dim]), p.Steps), sl[dim:]...)
		if err := checkRank("scan output", len(full)); err != nil {
			return nil, err
		}
		st := Strides(full)
		dst := append(slices.Clone(st[:dim]), st[dim+1:]...)
		p.outs = append(p.outs, scanSide{SliceDims: full, copy: NewStrided(outs[i], sl, dst, Strides(sl), 0, 0), step: st[dim]})
	}
	return p, nil
}

// Index is the index of the scanned dimension that step k works on.
func (p *ScanPlan) Index(k int) int {
	if p.Reverse {
		return p.Steps - 1 - k
	}
	return k
}

// InputSlice returns the dimensions of input j's slices.
func (p *ScanPlan) InputSlice(j int) []int { return p.ins[j].SliceDims }

// OutputDims returns the dimensions of output j (stacked).
func (p *ScanPlan) OutputDims(j int) []int { return p.outs[j].SliceDims }

// Slice copies input j's slice at index i from src into dst.
func (p *ScanPlan) Slice(j int, dst, src []byte, i int) {
	s := &p.ins[j]
	if s.copy.Count() > 0 {
		s.copy.Run(dst, src, 0, i*s.step)
	}
}

// Place copies output j's per-step value src into its stacked output dst
// at index i.
func (p *ScanPlan) Place(j int, dst, src []byte, i int) {
	s := &p.outs[j]
	if s.copy.Count() > 0 {
		s.copy.Run(dst, src, i*s.step, 0)
	}
}
