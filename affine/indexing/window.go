package indexing

import (
	"fmt"

	"github.com/kilnml/kiln/affine"
	"github.com/kilnml/kiln/ir"
)

// windowMap is the map from the elements of a windowed op's output to the
// elements of its input that its windows cover, XLA's
// ComposeIndexingMapsForWindow: the window positions (range variables) over
// the padded, base-dilated input, composed with the map of the pad that
// builds that input, so that positions on padding or between dilated
// elements read nothing. A window dimension of size 1 needs no range
// variable: its one position is the output's index times the stride.
func windowMap(op ir.Opcode, in, out []int, w []ir.WindowDim) (*affine.IndexingMap, error) {
	if len(w) != len(in) || len(out) != len(in) {
		return nil, fmt.Errorf("%s: the window has %d dimensions, the input %d and the output %d", op, len(w), len(in), len(out))
	}
	res := make([]affine.Expr, len(in))
	var ranges []affine.Interval
	padded := make([]int, len(in))
	p := make([]ir.PaddingDim, len(in))
	for i, wd := range w {
		stride, wdil, bdil := max(wd.Stride, 1), max(wd.WindowDilation, 1), max(wd.BaseDilation, 1)
		if wd.Size < 1 {
			return nil, fmt.Errorf("%s: window dimension %d has size %d", op, i, wd.Size)
		}
		res[i] = affine.Dim(i).Mul(int64(stride))
		if wd.Size > 1 {
			res[i] = res[i].Add(affine.RangeVar(len(ranges)).Mul(int64(wdil)))
			ranges = append(ranges, affine.Interval{Lo: 0, Hi: int64(wd.Size) - 1})
		}
		p[i] = ir.PaddingDim{Low: wd.PadLow, High: wd.PadHigh, Interior: bdil - 1}
		padded[i] = in[i] + wd.PadLow + wd.PadHigh + max(in[i]-1, 0)*(bdil-1)
		span := (wd.Size-1)*wdil + 1
		want := 0
		if padded[i] >= span {
			want = (padded[i]-span)/stride + 1
		}
		if want != out[i] {
			return nil, fmt.Errorf("%s: window dimension %d (size %d, stride %d, padding %d_%d, dilations %d and %d) over %d elements gives %d, the output has %d",
				op, i, wd.Size, stride, wd.PadLow, wd.PadHigh, bdil, wdil, in[i], want, out[i])
		}
	}
	noPadding := newMap(res, bounds(out), ranges, nil)
	m, err := noPadding.Compose(*padMap(padded, p))
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// reduceWindow: every input is read through the window map, every init at
// its one element.
func reduceWindow(op *Op, out ir.Shape) (*Indexing, error) {
	if len(op.Operands)%2 != 0 {
		return nil, fmt.Errorf("reduce-window: expected as many inits as inputs, found %d operands", len(op.Operands))
	}
	n := len(op.Operands) / 2
	w := op.attrs().Window
	if w == nil {
		return nil, fmt.Errorf("reduce-window: no window")
	}
	in := op.Operands[0]
	if err := checkScalars(op, n); err != nil {
		return nil, err
	}
	for k := range n {
		if !op.Operands[k].IsArray() || !sameDims(op.Operands[k].Dims, in.Dims) {
			return nil, fmt.Errorf("reduce-window: input %d has shape %v, input 0 %v", k, op.Operands[k], in)
		}
	}
	inputs, err := windowMap(op.Opcode, in.Dims, out.Dims, w.Dims)
	if err != nil {
		return nil, err
	}
	inits := scalarMap(out.Dims)
	x := newIndexing(len(op.Operands))
	for k := range n {
		x.Operands[k] = []*affine.IndexingMap{inputs}
		x.Operands[n+k] = []*affine.IndexingMap{inits}
	}
	return x, nil
}

// convolution, as XLA's ComputeOutputToInputConvolutionOpIndexing: the
// input's spatial dimensions through the window map, its feature dimension
// as a range variable over one feature group; the kernel's spatial and input
// feature dimensions as range variables, its output feature dimension the
// output's. With batch groups, the input batch read is the one of the output
// feature's group (XLA's map lets it range over every group).
func convolution(op *Op, out ir.Shape) (*Indexing, error) {
	if len(op.Operands) != 2 {
		return nil, fmt.Errorf("convolution: expected 2 operands, found %d", len(op.Operands))
	}
	a := op.attrs()
	lhs, rhs := op.Operands[0], op.Operands[1]
	rank := len(out.Dims)
	if rank < 2 || len(lhs.Dims) != rank || len(rhs.Dims) != rank {
		return nil, fmt.Errorf("convolution: input %v, kernel %v and result %v must have the same rank, at least 2", lhs, rhs, out)
	}
	spatial := rank - 2
	dn := a.ConvDims
	if dn == nil {
		d := ir.DefaultConvDimensionNumbers(spatial)
		dn = &d
	}
	if len(dn.InputSpatial) != spatial || len(dn.KernelSpatial) != spatial || len(dn.OutputSpatial) != spatial {
		return nil, fmt.Errorf("convolution: dim_labels %v do not have %d spatial dimensions", dn, spatial)
	}
	for _, c := range []struct {
		name string
		dims []int
	}{
		{"input dimensions", append([]int{dn.InputBatch, dn.InputFeature}, dn.InputSpatial...)},
		{"kernel dimensions", append([]int{dn.KernelInputFeature, dn.KernelOutputFeature}, dn.KernelSpatial...)},
		{"output dimensions", append([]int{dn.OutputBatch, dn.OutputFeature}, dn.OutputSpatial...)},
	} {
		if err := checkAxes(op.Opcode, c.name, c.dims, rank); err != nil {
			return nil, err
		}
	}
	var window []ir.WindowDim
	if a.Window != nil {
		window = a.Window.Dims
	}
	inSp, kSp, outSp := make([]int, spatial), make([]int, spatial), make([]int, spatial)
	for i := range spatial {
		inSp[i] = lhs.Dims[dn.InputSpatial[i]]
		kSp[i] = rhs.Dims[dn.KernelSpatial[i]]
		outSp[i] = out.Dims[dn.OutputSpatial[i]]
		if i < len(window) && window[i].Size != kSp[i] {
			return nil, fmt.Errorf("convolution: window size %d in spatial dimension %d, the kernel has %d", window[i].Size, i, kSp[i])
		}
	}
	fgc, bgc := max(a.FeatureGroupCount, 1), max(a.BatchGroupCount, 1)
	kernelIn := rhs.Dims[dn.KernelInputFeature]
	outF, outB := out.Dims[dn.OutputFeature], out.Dims[dn.OutputBatch]
	switch {
	case lhs.Dims[dn.InputFeature] != kernelIn*fgc:
		return nil, fmt.Errorf("convolution: input feature size %d, expected the kernel's input features %d times feature_group_count %d", lhs.Dims[dn.InputFeature], kernelIn, fgc)
	case outF%fgc != 0 || outF%bgc != 0:
		return nil, fmt.Errorf("convolution: output feature size %d is not divisible by feature_group_count %d and batch_group_count %d", outF, fgc, bgc)
	case lhs.Dims[dn.InputBatch] != outB*bgc:
		return nil, fmt.Errorf("convolution: input batch %d, expected the output batch %d times batch_group_count %d", lhs.Dims[dn.InputBatch], outB, bgc)
	case rhs.Dims[dn.KernelOutputFeature] != outF:
		return nil, fmt.Errorf("convolution: kernel output feature size %d, the output's %d", rhs.Dims[dn.KernelOutputFeature], outF)
	}
	sm, err := windowMap(op.Opcode, inSp, outSp, window)
	if err != nil {
		return nil, err
	}
	// The window map's dimension i is output spatial dimension i.
	toOut := make([]affine.Expr, spatial)
	outBounds := bounds(out.Dims)
	for i, d := range dn.OutputSpatial {
		toOut[i] = affine.Dim(d)
		outBounds[d] = sm.DimBound(i)
	}
	inExprs := make([]affine.Expr, rank)
	for i, d := range dn.InputSpatial {
		inExprs[d] = sm.Result(i).Replace(toOut, nil, nil)
	}
	var cs []affine.Constraint
	for _, c := range sm.Constraints() {
		cs = append(cs, affine.Constraint{Expr: c.Expr.Replace(toOut, nil, nil), Range: c.Range})
	}
	inRanges := sm.RangeVarBounds()
	features := affine.Interval{Lo: 0, Hi: int64(kernelIn) - 1}
	inExprs[dn.InputFeature] = affine.RangeVar(len(inRanges))
	inRanges = append(inRanges, features)
	fDim := affine.Dim(dn.OutputFeature)
	if fgc > 1 {
		inExprs[dn.InputFeature] = fDim.FloorDiv(int64(outF / fgc)).Mul(int64(kernelIn)).Add(inExprs[dn.InputFeature])
	}
	inExprs[dn.InputBatch] = affine.Dim(dn.OutputBatch)
	if bgc > 1 {
		// XLA lets the input batch range over every batch group.
		inExprs[dn.InputBatch] = affine.RangeVar(len(inRanges)).Mul(int64(outB)).Add(affine.Dim(dn.OutputBatch))
		inRanges = append(inRanges, affine.Interval{Lo: 0, Hi: int64(bgc) - 1})
	}
	kExprs := make([]affine.Expr, rank)
	for i, d := range dn.KernelSpatial {
		kExprs[d] = affine.RangeVar(i)
		if i < len(window) && window[i].Reversal {
			kExprs[d] = affine.RangeVar(i).Neg().AddConst(int64(kSp[i] - 1))
		}
	}
	kExprs[dn.KernelInputFeature] = affine.RangeVar(spatial)
	kExprs[dn.KernelOutputFeature] = fDim
	kRanges := append(bounds(kSp), features)
	input, _ := affine.Simplify(*newMap(inExprs, outBounds, inRanges, nil, cs...)).RemoveUnusedSymbols()
	kernel, _ := affine.Simplify(*newMap(kExprs, bounds(out.Dims), kRanges, nil)).RemoveUnusedSymbols()
	return fromMaps(&input, &kernel), nil
}
