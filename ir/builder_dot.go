package ir

import "slices"

// The Builder's dot products and convolutions.

// DotOptions are the optional settings of Dot and DotGeneral.
type DotOptions struct {
	// Precision is empty, or one precision per operand (lhs, rhs).
	Precision []Precision
	// PreferredType is the result element type (InvalidType: the operands').
	PreferredType ElementType
}

func oneOption[T any](b *Builder, op string, opts []T) (T, bool) {
	var zero T
	switch len(opts) {
	case 0:
		return zero, true
	case 1:
		return opts[0], true
	}
	b.failf(op, "at most one options value may be given, found %d", len(opts))
	return zero, false
}

// Dot adds the dot product of lhs and rhs: vector·vector gives a scalar,
// matrix·vector a vector, matrix·matrix a matrix; it contracts lhs's last
// dimension (its only one for a vector) with rhs's first.
func (b *Builder) Dot(lhs, rhs Op, opts ...DotOptions) Op {
	const op = "dot"
	if !b.use(op, lhs, rhs) {
		return Op{b: b}
	}
	c := 1
	if lhs.in.Shape.Rank() == 1 {
		c = 0
	}
	return b.DotGeneral(lhs, rhs, DotDimensionNumbers{LhsContracting: []int{c}, RhsContracting: []int{0}}, opts...)
}

// DotGeneral adds the dot product of lhs and rhs with explicit batch and
// contracting dimensions: the result has the batch dimensions, then lhs's
// remaining dimensions, then rhs's.
func (b *Builder) DotGeneral(lhs, rhs Op, dnums DotDimensionNumbers, opts ...DotOptions) Op {
	const op = "dot"
	if !b.use(op, lhs, rhs) {
		return Op{b: b}
	}
	o, ok := oneOption(b, op, opts)
	if !ok {
		return Op{b: b}
	}
	s, err := InferDotShape(lhs.in.Shape, rhs.in.Shape, dnums, o.PreferredType)
	if err != nil {
		return b.fail(err)
	}
	raw, err := precisionAttr(op, o.Precision)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpDot, Shape: s, Operands: []*Instruction{lhs.in, rhs.in}, Raw: raw}
	in.DotDims = &DotDimensionNumbers{
		LhsBatch:       cloneOrEmpty(dnums.LhsBatch),
		RhsBatch:       cloneOrEmpty(dnums.RhsBatch),
		LhsContracting: cloneOrEmpty(dnums.LhsContracting),
		RhsContracting: cloneOrEmpty(dnums.RhsContracting),
	}
	return b.emit(in)
}

// ScaledDot adds the block-scaled dot product of lhs and rhs with dimension
// numbers dnums, its operands in XLA's order (lhs, rhs, lhs scale, rhs
// scale): each operand is multiplied by its scale (broadcast over
// the blocks it covers) before the products are summed. The result has
// the shape DotGeneral gives, of type opts' PreferredType (default: lhs's).
func (b *Builder) ScaledDot(lhs, rhs, lhsScale, rhsScale Op, dnums DotDimensionNumbers, opts ...DotOptions) Op {
	const op = "scaled-dot"
	if !b.use(op, lhs, rhs, lhsScale, rhsScale) {
		return Op{b: b}
	}
	o, ok := oneOption(b, op, opts)
	if !ok {
		return Op{b: b}
	}
	s, err := InferScaledDotShape(lhs.in.Shape, rhs.in.Shape, lhsScale.in.Shape, rhsScale.in.Shape, dnums, o.PreferredType)
	if err != nil {
		return b.fail(err)
	}
	raw, err := precisionAttr(op, o.Precision)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpScaledDot, Shape: s, Operands: []*Instruction{lhs.in, rhs.in, lhsScale.in, rhsScale.in}, Raw: raw}
	in.DotDims = cloneDotDims(dnums)
	return b.emit(in)
}

// RaggedDot adds the ragged dot product of lhs and rhs (StableHLO's
// ragged_dot): lhs's dimension lhsRagged is split into groups of the sizes
// groupSizes holds, and each group is multiplied by its own slice of rhs
// (along rhs's group dimension, rhsGroup < 0 for none). See
// InferRaggedDotShape for the three modes.
func (b *Builder) RaggedDot(lhs, rhs, groupSizes Op, dnums DotDimensionNumbers, lhsRagged, rhsGroup int, opts ...DotOptions) Op {
	const op = "ragged-dot"
	if !b.use(op, lhs, rhs, groupSizes) {
		return Op{b: b}
	}
	o, ok := oneOption(b, op, opts)
	if !ok {
		return Op{b: b}
	}
	group := []int{}
	if rhsGroup >= 0 {
		group = []int{rhsGroup}
	}
	s, err := InferRaggedDotShape(lhs.in.Shape, rhs.in.Shape, groupSizes.in.Shape, dnums, []int{lhsRagged}, group, o.PreferredType)
	if err != nil {
		return b.fail(err)
	}
	raw, err := precisionAttr(op, o.Precision)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpRaggedDot, Shape: s, Operands: []*Instruction{lhs.in, rhs.in, groupSizes.in}, Raw: raw}
	in.DotDims = cloneDotDims(dnums)
	in.LhsRaggedDims, in.RhsGroupDims = []int{lhsRagged}, group
	return b.emit(in)
}

func cloneDotDims(dnums DotDimensionNumbers) *DotDimensionNumbers {
	return &DotDimensionNumbers{
		LhsBatch:       cloneOrEmpty(dnums.LhsBatch),
		RhsBatch:       cloneOrEmpty(dnums.RhsBatch),
		LhsContracting: cloneOrEmpty(dnums.LhsContracting),
		RhsContracting: cloneOrEmpty(dnums.RhsContracting),
	}
}

func cloneOrEmpty(v []int) []int {
	if v == nil {
		return []int{}
	}
	return slices.Clone(v)
}

// ConvOptions are the optional settings of the convolutions.
type ConvOptions struct {
	// FeatureGroupCount groups the input features (0 or 1: no grouping;
	// depthwise convolution sets it to the number of input features).
	FeatureGroupCount int
	// BatchGroupCount groups the batch (0 or 1: no grouping).
	BatchGroupCount int
	// Precision is empty, or one precision per operand (lhs, rhs).
	Precision []Precision
	// PreferredType is the result element type (InvalidType: the operands').
	PreferredType ElementType
}

// DefaultConvDimensionNumbers returns the dimension numbers of an input
// [batch, feature, spatial…], a kernel [output feature, input feature,
// spatial…] and an output [batch, feature, spatial…] (`bf01_oi01->bf01`).
func DefaultConvDimensionNumbers(spatialDims int) ConvDimensionNumbers {
	sp := make([]int, spatialDims)
	for i := range sp {
		sp[i] = i + 2
	}
	return ConvDimensionNumbers{
		InputBatch: 0, InputFeature: 1, InputSpatial: sp,
		KernelOutputFeature: 0, KernelInputFeature: 1, KernelSpatial: slices.Clone(sp),
		OutputBatch: 0, OutputFeature: 1, OutputSpatial: slices.Clone(sp),
	}
}

// checkConvDims is XlaBuilder::VerifyConvolution: operands of equal rank at
// least 2 and spatial dimension numbers of the right count, in range.
func checkConvDims(lhs, rhs Shape, d ConvDimensionNumbers) error {
	const op = "convolution"
	if lhs.Rank() != rhs.Rank() {
		return errf(op, "lhs %s and rhs %s must have the same rank", human(lhs), human(rhs))
	}
	if lhs.Rank() < 2 {
		return errf(op, "operands must have rank at least 2, found %s and %s", human(lhs), human(rhs))
	}
	n := lhs.Rank() - 2
	for _, f := range []struct {
		name string
		dims []int
	}{{"input_spatial_dimensions", d.InputSpatial}, {"kernel_spatial_dimensions", d.KernelSpatial}, {"output_spatial_dimensions", d.OutputSpatial}} {
		if len(f.dims) != n {
			return errf(op, "%s %s must have %d entries for operands of rank %d", f.name, intList(f.dims), n, lhs.Rank())
		}
		for _, x := range f.dims {
			if x < 0 || x >= lhs.Rank() {
				return errf(op, "%s %s: dimension %d is out of range", f.name, intList(f.dims), x)
			}
		}
	}
	return nil
}

// Conv adds a convolution with the default dimension numbers, the given
// window strides and VALID or SAME padding.
func (b *Builder) Conv(lhs, rhs Op, strides []int, padding PaddingType, opts ...ConvOptions) Op {
	const op = "convolution"
	if !b.use(op, lhs, rhs) {
		return Op{b: b}
	}
	return b.ConvWithGeneralDimensions(lhs, rhs, strides, padding, DefaultConvDimensionNumbers(lhs.in.Shape.Rank()-2), opts...)
}

// ConvWithGeneralPadding adds a convolution with the default dimension
// numbers and explicit (low, high) padding per spatial dimension.
func (b *Builder) ConvWithGeneralPadding(lhs, rhs Op, strides []int, padding [][2]int, opts ...ConvOptions) Op {
	const op = "convolution"
	if !b.use(op, lhs, rhs) {
		return Op{b: b}
	}
	return b.ConvGeneralDilated(lhs, rhs, strides, padding, nil, nil, DefaultConvDimensionNumbers(lhs.in.Shape.Rank()-2), opts...)
}

// ConvWithGeneralDimensions adds a convolution with the given dimension
// numbers and VALID or SAME padding.
func (b *Builder) ConvWithGeneralDimensions(lhs, rhs Op, strides []int, padding PaddingType, dnums ConvDimensionNumbers, opts ...ConvOptions) Op {
	const op = "convolution"
	if !b.use(op, lhs, rhs) {
		return Op{b: b}
	}
	ls, rs := lhs.in.Shape, rhs.in.Shape
	if err := checkConvDims(ls, rs, dnums); err != nil {
		return b.fail(err)
	}
	base := make([]int, len(dnums.InputSpatial))
	win := make([]int, len(dnums.KernelSpatial))
	for i := range base {
		base[i] = ls.Dims[dnums.InputSpatial[i]]
		win[i] = rs.Dims[dnums.KernelSpatial[i]]
	}
	pads, err := MakePadding(base, win, strides, padding)
	if err != nil {
		return b.fail(errf(op, "%v", err))
	}
	return b.ConvGeneralDilated(lhs, rhs, strides, pads, nil, nil, dnums, opts...)
}

// ConvGeneral adds a convolution with the given dimension numbers and
// explicit padding.
func (b *Builder) ConvGeneral(lhs, rhs Op, strides []int, padding [][2]int, dnums ConvDimensionNumbers, opts ...ConvOptions) Op {
	return b.ConvGeneralDilated(lhs, rhs, strides, padding, nil, nil, dnums, opts...)
}

// ConvGeneralDilated adds the general convolution: window strides, (low,
// high) padding, lhs (base) and rhs (window) dilation per spatial dimension
// (each may be empty for the default), dimension numbers, and group counts
// in opts.
func (b *Builder) ConvGeneralDilated(lhs, rhs Op, strides []int, padding [][2]int, lhsDilation, rhsDilation []int, dnums ConvDimensionNumbers, opts ...ConvOptions) Op {
	const op = "convolution"
	if !b.use(op, lhs, rhs) {
		return Op{b: b}
	}
	o, ok := oneOption(b, op, opts)
	if !ok {
		return Op{b: b}
	}
	ls, rs := lhs.in.Shape, rhs.in.Shape
	if err := checkConvDims(ls, rs, dnums); err != nil {
		return b.fail(err)
	}
	sizes := make([]int, len(dnums.KernelSpatial))
	for i, d := range dnums.KernelSpatial {
		sizes[i] = rs.Dims[d]
	}
	window, err := MakeWindow(sizes, strides, padding, lhsDilation, rhsDilation)
	if err != nil {
		return b.fail(errf(op, "%v", err))
	}
	fgc, bgc := max(o.FeatureGroupCount, 1), max(o.BatchGroupCount, 1)
	if o.FeatureGroupCount < 0 || o.BatchGroupCount < 0 {
		return b.failf(op, "group counts must be positive, found feature_group_count %d and batch_group_count %d", o.FeatureGroupCount, o.BatchGroupCount)
	}
	s, err := InferConvolutionShape(ls, rs, fgc, bgc, window, dnums, o.PreferredType)
	if err != nil {
		return b.fail(err)
	}
	raw, err := precisionAttr(op, o.Precision)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpConvolution, Shape: s, Operands: []*Instruction{lhs.in, rhs.in}, Raw: raw}
	in.Window = &window
	in.ConvDims = &ConvDimensionNumbers{
		InputBatch: dnums.InputBatch, InputFeature: dnums.InputFeature, InputSpatial: cloneOrEmpty(dnums.InputSpatial),
		KernelInputFeature: dnums.KernelInputFeature, KernelOutputFeature: dnums.KernelOutputFeature, KernelSpatial: cloneOrEmpty(dnums.KernelSpatial),
		OutputBatch: dnums.OutputBatch, OutputFeature: dnums.OutputFeature, OutputSpatial: cloneOrEmpty(dnums.OutputSpatial),
	}
	in.FeatureGroupCount, in.BatchGroupCount = fgc, bgc
	return b.emit(in)
}
