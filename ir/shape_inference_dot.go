package ir

import (
	"fmt"
	"slices"
)

// Shape inference of dot and convolution, and the window arithmetic that
// convolution, reduce-window and select-and-scatter share.

// InferDotShape is the shape of dot(lhs, rhs) with dimension numbers dnums:
// the batch dimensions, then lhs's free dimensions, then rhs's. Batch and
// contracting dimensions are in range, distinct within each operand, equal
// in number on both sides and equal in size pairwise. The element type is
// the operands' (which must agree), or preferred when it is not InvalidType
// (an integer result may not be narrower than the operands).
func InferDotShape(lhs, rhs Shape, dnums DotDimensionNumbers, preferred ElementType) (Shape, error) {
	const op = "dot"
	if err := expectArray(op, "lhs", lhs); err != nil {
		return Shape{}, err
	}
	if err := expectArray(op, "rhs", rhs); err != nil {
		return Shape{}, err
	}
	if err := mixedOperands(op, lhs, rhs, preferred); err != nil {
		return Shape{}, err
	}
	check := func(side string, s Shape, contracting, batch []int) error {
		seen := make(map[int]string)
		for _, list := range []struct {
			kind string
			dims []int
		}{{"contracting", contracting}, {"batch", batch}} {
			for _, d := range list.dims {
				if d < 0 || d >= s.Rank() {
					return errf(op, "%s %s dimension %d is out of range for %s", side, list.kind, d, human(s))
				}
				if prev, dup := seen[d]; dup {
					return errf(op, "%s dimension %d is listed twice (as %s and %s dimension)", side, d, prev, list.kind)
				}
				seen[d] = list.kind
			}
		}
		return nil
	}
	if err := check("lhs", lhs, dnums.LhsContracting, dnums.LhsBatch); err != nil {
		return Shape{}, err
	}
	if err := check("rhs", rhs, dnums.RhsContracting, dnums.RhsBatch); err != nil {
		return Shape{}, err
	}
	if len(dnums.LhsContracting) != len(dnums.RhsContracting) {
		return Shape{}, errf(op, "lhs has %d contracting dimensions %s, rhs has %d %s", len(dnums.LhsContracting), intList(dnums.LhsContracting), len(dnums.RhsContracting), intList(dnums.RhsContracting))
	}
	for i, l := range dnums.LhsContracting {
		r := dnums.RhsContracting[i]
		if lhs.Dims[l] != rhs.Dims[r] {
			return Shape{}, errf(op, "lhs contracting dimension %d has size %d, rhs contracting dimension %d has size %d", l, lhs.Dims[l], r, rhs.Dims[r])
		}
	}
	if len(dnums.LhsBatch) != len(dnums.RhsBatch) {
		return Shape{}, errf(op, "lhs has %d batch dimensions %s, rhs has %d %s", len(dnums.LhsBatch), intList(dnums.LhsBatch), len(dnums.RhsBatch), intList(dnums.RhsBatch))
	}
	var dims []int
	var dyn []bool
	for i, l := range dnums.LhsBatch {
		r := dnums.RhsBatch[i]
		if lhs.Dims[l] != rhs.Dims[r] {
			return Shape{}, errf(op, "lhs batch dimension %d has size %d, rhs batch dimension %d has size %d", l, lhs.Dims[l], r, rhs.Dims[r])
		}
		dims = append(dims, lhs.Dims[l])
		dyn = append(dyn, lhs.IsDynamicDim(l) || rhs.IsDynamicDim(r))
	}
	for i := range lhs.Dims {
		if !slices.Contains(dnums.LhsContracting, i) && !slices.Contains(dnums.LhsBatch, i) {
			dims = append(dims, lhs.Dims[i])
			dyn = append(dyn, lhs.IsDynamicDim(i))
		}
	}
	for i := range rhs.Dims {
		if !slices.Contains(dnums.RhsContracting, i) && !slices.Contains(dnums.RhsBatch, i) {
			dims = append(dims, rhs.Dims[i])
			dyn = append(dyn, rhs.IsDynamicDim(i))
		}
	}
	t, err := preferredType(op, widerOf(lhs.Elem, rhs.Elem), preferred)
	if err != nil {
		return Shape{}, err
	}
	return checkResult(op, makeShape(t, dims, dyn))
}

// preferredType is XLA's MaybeUpcast: the result type of a dot or
// convolution given the operands' type and the preferred one.
func preferredType(op string, from, preferred ElementType) (ElementType, error) {
	if preferred == InvalidType || preferred == from {
		return from, nil
	}
	if !preferred.IsArray() {
		return InvalidType, errf(op, "preferred element type %v is not an array element type", preferred)
	}
	if !from.IsFloat() && preferred.BitWidth() < from.BitWidth() {
		return InvalidType, errf(op, "preferred element type %v is narrower than the operands' type %v", preferred, from)
	}
	return preferred, nil
}

// InferConvolutionShape is the shape of convolution(lhs, rhs) with XLA's
// checks: group counts positive and not both above 1; dimension numbers a
// permutation of each operand's dimensions; input features = feature groups
// × kernel input features; kernel output features divisible by both group
// counts; input batch divisible by the batch group count; the window's
// sizes the kernel's spatial sizes. Output spatial sizes come from the
// window (padding, strides, lhs and rhs dilation); the output batch is input
// batch / batch_group_count, the output features the kernel's.
func InferConvolutionShape(lhs, rhs Shape, featureGroupCount, batchGroupCount int, window Window, dnums ConvDimensionNumbers, preferred ElementType) (Shape, error) {
	const op = "convolution"
	if err := expectArray(op, "lhs", lhs); err != nil {
		return Shape{}, err
	}
	if err := expectArray(op, "rhs", rhs); err != nil {
		return Shape{}, err
	}
	if err := mixedOperands(op, lhs, rhs, preferred); err != nil {
		return Shape{}, err
	}
	if featureGroupCount <= 0 {
		return Shape{}, errf(op, "feature_group_count must be positive, found %d", featureGroupCount)
	}
	if batchGroupCount <= 0 {
		return Shape{}, errf(op, "batch_group_count must be positive, found %d", batchGroupCount)
	}
	if featureGroupCount > 1 && batchGroupCount > 1 {
		return Shape{}, errf(op, "feature_group_count %d and batch_group_count %d cannot both be greater than 1", featureGroupCount, batchGroupCount)
	}
	n := len(dnums.InputSpatial)
	if len(dnums.KernelSpatial) != n || len(dnums.OutputSpatial) != n {
		return Shape{}, errf(op, "dimension numbers %s have %d input, %d kernel and %d output spatial dimensions (expected the same number)", convDnumsString(dnums), n, len(dnums.KernelSpatial), len(dnums.OutputSpatial))
	}
	if len(window.Dims) != n {
		return Shape{}, errf(op, "window has %d dimensions, the dimension numbers %d spatial dimensions", len(window.Dims), n)
	}
	rank := n + 2
	if lhs.Rank() != rank {
		return Shape{}, errf(op, "lhs %s must have rank %d (batch, feature and %d spatial dimensions)", human(lhs), rank, n)
	}
	if rhs.Rank() != rank {
		return Shape{}, errf(op, "rhs %s must have rank %d (input feature, output feature and %d spatial dimensions)", human(rhs), rank, n)
	}
	perm := func(which string, a, b int, spatial []int) error {
		all := append([]int{a, b}, spatial...)
		for _, d := range all {
			if d < 0 || d >= rank {
				return errf(op, "%s dimension number %d is out of range [0, %d) in %s", which, d, rank, convDnumsString(dnums))
			}
		}
		if !isPermutation(all, rank) {
			return errf(op, "%s dimension numbers must name each of the %d dimensions exactly once in %s", which, rank, convDnumsString(dnums))
		}
		return nil
	}
	if err := perm("input", dnums.InputBatch, dnums.InputFeature, dnums.InputSpatial); err != nil {
		return Shape{}, err
	}
	if err := perm("kernel", dnums.KernelInputFeature, dnums.KernelOutputFeature, dnums.KernelSpatial); err != nil {
		return Shape{}, err
	}
	if err := perm("output", dnums.OutputBatch, dnums.OutputFeature, dnums.OutputSpatial); err != nil {
		return Shape{}, err
	}
	inFeatures := lhs.Dims[dnums.InputFeature]
	inBatch := lhs.Dims[dnums.InputBatch]
	kIn := rhs.Dims[dnums.KernelInputFeature]
	kOut := rhs.Dims[dnums.KernelOutputFeature]
	if kOut%batchGroupCount != 0 {
		return Shape{}, errf(op, "kernel output feature dimension size %d must be a multiple of batch_group_count %d", kOut, batchGroupCount)
	}
	if inFeatures%featureGroupCount != 0 || inFeatures/featureGroupCount != kIn {
		return Shape{}, errf(op, "lhs feature dimension size %d must equal feature_group_count %d times the rhs input feature dimension size %d", inFeatures, featureGroupCount, kIn)
	}
	if kOut%featureGroupCount != 0 {
		return Shape{}, errf(op, "kernel output feature dimension size %d must be a multiple of feature_group_count %d", kOut, featureGroupCount)
	}
	if inBatch%batchGroupCount != 0 {
		return Shape{}, errf(op, "lhs batch dimension size %d must be a multiple of batch_group_count %d", inBatch, batchGroupCount)
	}
	base := make([]int, n)
	baseDyn := make([]bool, n)
	for i, d := range dnums.InputSpatial {
		base[i], baseDyn[i] = lhs.Dims[d], lhs.IsDynamicDim(d)
		k := rhs.Dims[dnums.KernelSpatial[i]]
		if window.Dims[i].Size != k {
			return Shape{}, errf(op, "window dimension %d has size %d, rhs spatial dimension %d has size %d", i, window.Dims[i].Size, dnums.KernelSpatial[i], k)
		}
		if rhs.IsDynamicDim(dnums.KernelSpatial[i]) {
			return Shape{}, errf(op, "rhs spatial dimension %d of %s is dynamic, which is not supported", dnums.KernelSpatial[i], human(rhs))
		}
	}
	if rhs.IsDynamicDim(dnums.KernelOutputFeature) {
		return Shape{}, errf(op, "rhs output feature dimension of %s is dynamic, which is not supported", human(rhs))
	}
	spatial, err := inferWindowOutputShape(op, makeShape(lhs.Elem, base, baseDyn), window, lhs.Elem)
	if err != nil {
		return Shape{}, err
	}
	dims := make([]int, rank)
	dyn := make([]bool, rank)
	dims[dnums.OutputBatch] = inBatch / batchGroupCount
	dyn[dnums.OutputBatch] = lhs.IsDynamicDim(dnums.InputBatch)
	dims[dnums.OutputFeature] = kOut
	for i, d := range dnums.OutputSpatial {
		dims[d], dyn[d] = spatial.Dims[i], spatial.IsDynamicDim(i)
	}
	t, err := preferredType(op, widerOf(lhs.Elem, rhs.Elem), preferred)
	if err != nil {
		return Shape{}, err
	}
	return checkResult(op, makeShape(t, dims, dyn))
}

// convDnumsString prints dimension numbers as XLA's dim_labels
// (`b01f_01io->b01f`), or as raw numbers when they do not name every
// dimension once.
func convDnumsString(d ConvDimensionNumbers) string {
	labels := func(a, b byte, ai, bi int, spatial []int) string {
		rank := len(spatial) + 2
		out := make([]byte, rank)
		set := func(i int, c byte) bool {
			if i < 0 || i >= rank || out[i] != 0 {
				return false
			}
			out[i] = c
			return true
		}
		ok := set(ai, a) && set(bi, b)
		for k, s := range spatial {
			if k < 10 {
				ok = ok && set(s, byte('0'+k))
			} else {
				ok = false
			}
		}
		if !ok {
			return fmt.Sprintf("%c=%d,%c=%d,spatial=%s", a, ai, b, bi, intList(spatial))
		}
		return string(out)
	}
	return labels('b', 'f', d.InputBatch, d.InputFeature, d.InputSpatial) + "_" +
		labels('i', 'o', d.KernelInputFeature, d.KernelOutputFeature, d.KernelSpatial) + "->" +
		labels('b', 'f', d.OutputBatch, d.OutputFeature, d.OutputSpatial)
}

// InferWindowOutputShape is the shape of sliding window over base: per
// dimension, the number of window positions in the base dilated by
// base_dilation and padded, for the window dilated by window_dilation, at
// the given stride. Window sizes and strides are positive and dilations at
// least 1.
func InferWindowOutputShape(base Shape, window Window, t ElementType) (Shape, error) {
	return inferWindowOutputShape("window", base, window, t)
}

func inferWindowOutputShape(op string, base Shape, window Window, t ElementType) (Shape, error) {
	if len(window.Dims) != base.Rank() {
		return Shape{}, errf(op, "window has %d dimensions, the base %s has rank %d", len(window.Dims), human(base), base.Rank())
	}
	dims := make([]int, base.Rank())
	for i, w := range window.Dims {
		switch {
		case w.Size <= 0:
			return Shape{}, errf(op, "window dimension %d has size %d, expected a positive size", i, w.Size)
		case w.Stride <= 0:
			return Shape{}, errf(op, "window dimension %d has stride %d, expected a positive stride", i, w.Stride)
		case w.BaseDilation < 1:
			return Shape{}, errf(op, "window dimension %d has base (lhs) dilation %d, expected at least 1", i, w.BaseDilation)
		case w.WindowDilation < 1:
			return Shape{}, errf(op, "window dimension %d has window (rhs) dilation %d, expected at least 1", i, w.WindowDilation)
		}
		base, ok := dilatedBound(base.Dims[i], w.BaseDilation)
		if ok {
			base, ok = addInts(base, w.PadLow)
		}
		if ok {
			base, ok = addInts(base, w.PadHigh)
		}
		win, ok2 := dilatedBound(w.Size, w.WindowDilation)
		if !ok || !ok2 {
			return Shape{}, errf(op, "window dimension %d: sizes overflow", i)
		}
		if base < 0 {
			return Shape{}, errf(op, "window dimension %d: padding %d_%d leaves a negative base size %d", i, w.PadLow, w.PadHigh, base)
		}
		dims[i] = stridedBound(base, win, w.Stride)
	}
	return makeShape(t, dims, dynamicFlags(base)), nil
}

// dilatedBound is the size of n elements with dilation-1 holes between them.
func dilatedBound(n, dilation int) (int, bool) {
	if n == 0 {
		return 0, true
	}
	m, ok := mulInts(n-1, dilation)
	if !ok {
		return 0, false
	}
	return addInts(m, 1)
}

// stridedBound is the number of positions of a window of size w in a base of
// size n at stride s.
func stridedBound(n, w, s int) int {
	if n == 0 || w > n {
		return 0
	}
	return (n-w)/s + 1
}

// PaddingType is the client-level padding of a window: PaddingValid (no
// padding; windows that do not fit are dropped) or PaddingSame (pad so that
// the output has ceil(input/stride) positions).
type PaddingType uint8

// Padding types.
const (
	PaddingValid PaddingType = iota
	PaddingSame
)

// MakePadding returns the (low, high) padding of each dimension for the
// given input sizes, window sizes, strides and padding type (XLA's
// MakePadding): SAME puts the smaller half of the padding low.
func MakePadding(input, window, strides []int, p PaddingType) ([][2]int, error) {
	if len(input) != len(window) || len(input) != len(strides) {
		return nil, fmt.Errorf("padding: %d input dimensions, %d window dimensions and %d strides (expected the same number)", len(input), len(window), len(strides))
	}
	out := make([][2]int, len(input))
	if p == PaddingValid {
		return out, nil
	}
	if p != PaddingSame {
		return nil, fmt.Errorf("padding: unknown padding type %d", p)
	}
	for i := range input {
		if strides[i] <= 0 {
			return nil, fmt.Errorf("padding: stride %d of dimension %d must be positive", strides[i], i)
		}
		outSize := (input[i] + strides[i] - 1) / strides[i]
		pad := max((outSize-1)*strides[i]+window[i]-input[i], 0)
		out[i] = [2]int{pad / 2, pad - pad/2}
	}
	return out, nil
}

// MakeWindow builds a window from its parts (XLA's
// InferWindowFromDimensions): strides, padding and dilations may each be
// empty (meaning 1, none and 1) or have one entry per window dimension.
func MakeWindow(sizes, strides []int, padding [][2]int, baseDilation, windowDilation []int) (Window, error) {
	n := len(sizes)
	for _, f := range []struct {
		name string
		len  int
	}{{"window strides", len(strides)}, {"padding entries", len(padding)}, {"lhs (base) dilation factors", len(baseDilation)}, {"rhs (window) dilation factors", len(windowDilation)}} {
		if f.len != 0 && f.len != n {
			return Window{}, fmt.Errorf("window: %d %s for %d window dimensions", f.len, f.name, n)
		}
	}
	w := Window{Dims: make([]WindowDim, n)}
	for i := range w.Dims {
		d := WindowDim{Size: sizes[i], Stride: 1, BaseDilation: 1, WindowDilation: 1}
		if len(strides) > 0 {
			d.Stride = strides[i]
		}
		if len(padding) > 0 {
			d.PadLow, d.PadHigh = padding[i][0], padding[i][1]
		}
		if len(baseDilation) > 0 {
			d.BaseDilation = baseDilation[i]
		}
		if len(windowDilation) > 0 {
			d.WindowDilation = windowDilation[i]
		}
		w.Dims[i] = d
	}
	return w, nil
}

// mixedOperands checks the operand types of a dot or convolution. They
// must agree unless the result type is given: XLA then accepts operands of
// different widths of one kind (s16 × s8 → s32, bf16 × f32 → f32), each
// converted to the result type.
func mixedOperands(op string, lhs, rhs Shape, preferred ElementType) error {
	a, b := lhs.Elem, rhs.Elem
	if a == b || sameIgnoringFpPrecision(a, b) {
		return nil
	}
	if preferred != InvalidType && ((a.IsInteger() && b.IsInteger()) || (a.IsFloatOrComplex() && b.IsFloatOrComplex())) {
		return nil
	}
	return errf(op, "lhs %s and rhs %s must have the same element type", human(lhs), human(rhs))
}

// widerOf is the wider of two operand types (a when they are as wide).
func widerOf(a, b ElementType) ElementType {
	if b.BitWidth() > a.BitWidth() {
		return b
	}
	return a
}

// sameIgnoringFpPrecision reports whether two element types are equal or
// both real floating-point types: what XLA's verifier accepts between a
// declared and an inferred type when it allows mixed precision, as XLA's
// own tests run it.
func sameIgnoringFpPrecision(a, b ElementType) bool {
	return a == b || (a.IsFloat() && b.IsFloat())
}
