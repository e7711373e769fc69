package eval

// Data-movement ops: they rearrange elements without looking at their
// values, so they work on element storage (whatever the element type) with
// one strided block copy, blockCopy, underneath.
//
// Rules chosen where the specification leaves room, following XLA:
//   - dynamic-slice and dynamic-update-slice clamp each start index to
//     [0, operand_dim - size]; gather clamps its start indices the same way
//     (per start_index_map dimension, against the slice size).
//   - scatter skips a whole update window when any part of it would fall
//     outside the operand (XLA's HloEvaluator); updates are applied one
//     after another in row-major order of the scatter indices, and within a
//     window in row-major order, so duplicate indices combine in that order.
//   - broadcast also accepts an operand dimension of size 1 mapped to a
//     larger output dimension (broadcast_in_dim's degenerate broadcasting).
//   - bitcast reinterprets the physical bytes under both shapes' layouts;
//     tiled and padded layouts are refused.

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/kilnml/kiln/ir"
)

func init() {
	register(evalReshape, ir.OpReshape)
	register(evalTranspose, ir.OpTranspose)
	register(evalBroadcast, ir.OpBroadcast)
	register(evalSlice, ir.OpSlice)
	register(evalDynamicSlice, ir.OpDynamicSlice)
	register(evalDynamicUpdateSlice, ir.OpDynamicUpdateSlice)
	register(evalPad, ir.OpPad)
	register(evalConcatenate, ir.OpConcatenate)
	register(evalReverse, ir.OpReverse)
	register(evalIota, ir.OpIota)
	register(evalGather, ir.OpGather)
	register(evalScatter, ir.OpScatter)
	register(evalBitcast, ir.OpBitcast)
	register(evalCopy, ir.OpCopy, ir.OpDomain)
	register(evalTuple, ir.OpTuple)
	register(evalGetTupleElement, ir.OpGetTupleElement)
	register(evalConstant, ir.OpConstant)
	register(evalOptimizationBarrier, ir.OpOptimizationBarrier)
}

// ---- strided block copy ---------------------------------------------------

// rowMajorStrides returns the element strides of dense row-major storage.
func rowMajorStrides(dims []int) []int {
	s := make([]int, len(dims))
	stride := 1
	for i := len(dims) - 1; i >= 0; i-- {
		s[i] = stride
		stride *= dims[i]
	}
	return s
}

// blockCopy copies the elements of a block of the given dims: block index b
// reads src element srcBase + Σ b[i]*srcStrides[i] and writes dst element
// dstBase + Σ b[i]*dstStrides[i]. Elements are es bytes wide.
func blockCopy(dst, src []byte, es int, dims []int, dstBase int, dstStrides []int, srcBase int, srcStrides []int) {
	for _, d := range dims {
		if d == 0 {
			return
		}
	}
	switch es {
	case 1:
		blockCopyT(dst, src, dims, dstBase, dstStrides, srcBase, srcStrides)
	case 2:
		blockCopyT(asSlice[uint16](dst), asSlice[uint16](src), dims, dstBase, dstStrides, srcBase, srcStrides)
	case 4:
		blockCopyT(asSlice[uint32](dst), asSlice[uint32](src), dims, dstBase, dstStrides, srcBase, srcStrides)
	case 8:
		blockCopyT(asSlice[uint64](dst), asSlice[uint64](src), dims, dstBase, dstStrides, srcBase, srcStrides)
	case 16:
		blockCopyT(asSlice[[2]uint64](dst), asSlice[[2]uint64](src), dims, dstBase, dstStrides, srcBase, srcStrides)
	default:
		panic(fmt.Sprintf("eval: blockCopy of %d-byte elements", es))
	}
}

// asSlice views literal storage (aligned for every element type) as []T.
func asSlice[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

func blockCopyT[T any](dst, src []T, dims []int, dstBase int, dstStrides []int, srcBase int, srcStrides []int) {
	rank := len(dims)
	if rank == 0 {
		dst[dstBase] = src[srcBase]
		return
	}
	inner := dims[rank-1]
	ds, ss := dstStrides[rank-1], srcStrides[rank-1]
	idx := make([]int, rank)
	d, s := dstBase, srcBase
	for {
		if ds == 1 && ss == 1 {
			copy(dst[d:d+inner], src[s:s+inner])
		} else {
			for j, dj, sj := 0, d, s; j < inner; j, dj, sj = j+1, dj+ds, sj+ss {
				dst[dj] = src[sj]
			}
		}
		// Advance the outer dimensions like an odometer.
		k := rank - 2
		for ; k >= 0; k-- {
			idx[k]++
			d += dstStrides[k]
			s += srcStrides[k]
			if idx[k] < dims[k] {
				break
			}
			d -= dims[k] * dstStrides[k]
			s -= dims[k] * srcStrides[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// arrayOperand checks that ops has n operands and that the first is an array.
func arrayOperand(ops []*ir.Literal, n int) (*ir.Literal, error) {
	if len(ops) != n {
		return nil, fmt.Errorf("expected %d operands, found %d", n, len(ops))
	}
	if !ops[0].Shape().IsArray() {
		return nil, fmt.Errorf("operand has shape %v, expected an array", ops[0].Shape())
	}
	return ops[0], nil
}

// ---- reshape, transpose, broadcast, reverse -------------------------------

func evalReshape(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(ops, 1)
	if err != nil {
		return nil, err
	}
	if n, m := in.Shape.ElementCount(), x.ElementCount(); n != m {
		return nil, fmt.Errorf("cannot reshape %v (%d elements) to %v (%d elements)",
			x.Shape().StringWithoutLayout(), m, in.Shape.StringWithoutLayout(), n)
	}
	return ir.LiteralFromBytes(ir.MakeShape(x.Shape().Elem, in.Shape.Dims...), x.Bytes())
}

// checkPermutation reports whether perm is a permutation of 0..rank-1.
func checkPermutation(perm []int, rank int, what string) error {
	if len(perm) != rank {
		return fmt.Errorf("%s %v has %d entries, expected %d (the operand's rank)", what, perm, len(perm), rank)
	}
	seen := make([]bool, rank)
	for _, p := range perm {
		if p < 0 || p >= rank || seen[p] {
			return fmt.Errorf("%s %v is not a permutation of 0..%d", what, perm, rank-1)
		}
		seen[p] = true
	}
	return nil
}

func evalTranspose(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(ops, 1)
	if err != nil {
		return nil, err
	}
	xd := x.Shape().Dims
	perm := in.Dimensions
	if err := checkPermutation(perm, len(xd), "permutation"); err != nil {
		return nil, err
	}
	dims := make([]int, len(perm))
	srcStrides := make([]int, len(perm))
	xs := rowMajorStrides(xd)
	for i, p := range perm {
		dims[i] = xd[p]
		srcStrides[i] = xs[p]
	}
	out, err := newArray(x.Shape().Elem, dims)
	if err != nil {
		return nil, err
	}
	blockCopy(out.Bytes(), x.Bytes(), elementBytes(x), dims, 0, rowMajorStrides(dims), 0, srcStrides)
	return out, nil
}

func evalBroadcast(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(ops, 1)
	if err != nil {
		return nil, err
	}
	xd := x.Shape().Dims
	dims := in.Shape.Dims
	if len(in.Dimensions) != len(xd) {
		return nil, fmt.Errorf("dimensions=%v has %d entries for an operand of rank %d", in.Dimensions, len(in.Dimensions), len(xd))
	}
	xs := rowMajorStrides(xd)
	srcStrides := make([]int, len(dims))
	for i, d := range in.Dimensions {
		if d < 0 || d >= len(dims) || slices.Contains(in.Dimensions[:i], d) {
			return nil, fmt.Errorf("dimensions=%v must be distinct output dimensions below %d", in.Dimensions, len(dims))
		}
		switch xd[i] {
		case dims[d]:
			srcStrides[d] = xs[i]
		case 1: // degenerate: repeated along the output dimension
		default:
			return nil, fmt.Errorf("operand dimension %d has size %d, output dimension %d has size %d", i, xd[i], d, dims[d])
		}
	}
	out, err := newArray(x.Shape().Elem, dims)
	if err != nil {
		return nil, err
	}
	blockCopy(out.Bytes(), x.Bytes(), elementBytes(x), dims, 0, rowMajorStrides(dims), 0, srcStrides)
	return out, nil
}

func evalReverse(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(ops, 1)
	if err != nil {
		return nil, err
	}
	dims := x.Shape().Dims
	srcStrides := rowMajorStrides(dims)
	base := 0
	for _, d := range in.Dimensions {
		if d < 0 || d >= len(dims) {
			return nil, fmt.Errorf("reverse dimension %d is out of range for rank %d", d, len(dims))
		}
		if srcStrides[d] < 0 {
			return nil, fmt.Errorf("reverse dimension %d is listed twice", d)
		}
		base += (dims[d] - 1) * srcStrides[d]
		srcStrides[d] = -srcStrides[d]
	}
	out, err := newArray(x.Shape().Elem, dims)
	if err != nil {
		return nil, err
	}
	blockCopy(out.Bytes(), x.Bytes(), elementBytes(x), dims, 0, rowMajorStrides(dims), base, srcStrides)
	return out, nil
}

// ---- slices ---------------------------------------------------------------

func evalSlice(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(ops, 1)
	if err != nil {
		return nil, err
	}
	xd := x.Shape().Dims
	if len(in.Slice) != len(xd) {
		return nil, fmt.Errorf("slice has %d dimensions for an operand of rank %d", len(in.Slice), len(xd))
	}
	xs := rowMajorStrides(xd)
	dims := make([]int, len(xd))
	srcStrides := make([]int, len(xd))
	base := 0
	for i, s := range in.Slice {
		if s.Start < 0 || s.Limit < s.Start || s.Limit > xd[i] || s.Stride < 1 {
			return nil, fmt.Errorf("slice [%d:%d:%d] is invalid for dimension %d of size %d", s.Start, s.Limit, s.Stride, i, xd[i])
		}
		dims[i] = (s.Limit - s.Start + s.Stride - 1) / s.Stride
		srcStrides[i] = xs[i] * s.Stride
		base += s.Start * xs[i]
	}
	out, err := newArray(x.Shape().Elem, dims)
	if err != nil {
		return nil, err
	}
	blockCopy(out.Bytes(), x.Bytes(), elementBytes(x), dims, 0, rowMajorStrides(dims), base, srcStrides)
	return out, nil
}

// startIndices reads the start indices of dynamic-slice and
// dynamic-update-slice: either one scalar operand per dimension, or (the old
// form) a single rank-1 operand holding them all. Each is clamped to
// [0, dims[i] - sizes[i]].
func startIndices(ops []*ir.Literal, dims, sizes []int) ([]int, error) {
	rank := len(dims)
	var raw []int64
	allScalars := len(ops) == rank
	for _, o := range ops {
		allScalars = allScalars && o.Shape().Rank() == 0
	}
	switch {
	case allScalars:
		for _, o := range ops {
			v, err := scalarIndex(o, 0)
			if err != nil {
				return nil, err
			}
			raw = append(raw, v)
		}
	case len(ops) == 1 && ops[0].Shape().Rank() == 1 && ops[0].ElementCount() == rank:
		// The older form: one rank-1 operand holding every start index.
		for i := 0; i < rank; i++ {
			v, err := scalarIndex(ops[0], i)
			if err != nil {
				return nil, err
			}
			raw = append(raw, v)
		}
	default:
		return nil, fmt.Errorf("found %d start index operands, expected %d scalars (one per dimension)", len(ops), rank)
	}
	starts := make([]int, rank)
	for i, v := range raw {
		hi := int64(dims[i] - sizes[i])
		starts[i] = int(min(max(v, 0), hi))
	}
	return starts, nil
}

func evalDynamicSlice(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) < 1 || !ops[0].Shape().IsArray() {
		return nil, fmt.Errorf("expected an array operand and start indices")
	}
	x := ops[0]
	xd := x.Shape().Dims
	sizes := in.DynamicSliceSizes
	if len(sizes) != len(xd) {
		return nil, fmt.Errorf("dynamic_slice_sizes=%v has %d entries for an operand of rank %d", sizes, len(sizes), len(xd))
	}
	for i, s := range sizes {
		if s < 0 || s > xd[i] {
			return nil, fmt.Errorf("slice size %d is out of range for dimension %d of size %d", s, i, xd[i])
		}
	}
	starts, err := startIndices(ops[1:], xd, sizes)
	if err != nil {
		return nil, err
	}
	xs := rowMajorStrides(xd)
	base := 0
	for i, s := range starts {
		base += s * xs[i]
	}
	out, err := newArray(x.Shape().Elem, sizes)
	if err != nil {
		return nil, err
	}
	blockCopy(out.Bytes(), x.Bytes(), elementBytes(x), sizes, 0, rowMajorStrides(sizes), base, xs)
	return out, nil
}

func evalDynamicUpdateSlice(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) < 2 || !ops[0].Shape().IsArray() || !ops[1].Shape().IsArray() {
		return nil, fmt.Errorf("expected an array operand, an array update and start indices")
	}
	x, u := ops[0], ops[1]
	xd, ud := x.Shape().Dims, u.Shape().Dims
	if u.Shape().Elem != x.Shape().Elem {
		return nil, fmt.Errorf("update has element type %v, operand %v", u.Shape().Elem, x.Shape().Elem)
	}
	if len(ud) != len(xd) {
		return nil, fmt.Errorf("update has rank %d, operand rank %d", len(ud), len(xd))
	}
	for i := range ud {
		if ud[i] > xd[i] {
			return nil, fmt.Errorf("update dimension %d has size %d, larger than the operand's %d", i, ud[i], xd[i])
		}
	}
	starts, err := startIndices(ops[2:], xd, ud)
	if err != nil {
		return nil, err
	}
	xs := rowMajorStrides(xd)
	base := 0
	for i, s := range starts {
		base += s * xs[i]
	}
	out := x.Clone()
	blockCopy(out.Bytes(), u.Bytes(), elementBytes(x), ud, base, xs, 0, rowMajorStrides(ud))
	return out, nil
}

// ---- pad, concatenate -----------------------------------------------------

func evalPad(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(ops, 2)
	if err != nil {
		return nil, err
	}
	pv := ops[1]
	if !pv.Shape().IsScalar() || pv.Shape().Elem != x.Shape().Elem {
		return nil, fmt.Errorf("padding value has shape %v, expected a %v scalar", pv.Shape(), x.Shape().Elem)
	}
	xd := x.Shape().Dims
	if len(in.Padding) != len(xd) {
		return nil, fmt.Errorf("padding has %d dimensions for an operand of rank %d", len(in.Padding), len(xd))
	}
	dims := make([]int, len(xd))
	for i, p := range in.Padding {
		if p.Interior < 0 {
			return nil, fmt.Errorf("interior padding %d of dimension %d is negative", p.Interior, i)
		}
		n := xd[i]
		if n > 0 {
			n += (n - 1) * p.Interior
		}
		dims[i] = p.Low + n + p.High
		if dims[i] < 0 {
			return nil, fmt.Errorf("padding %d_%d_%d of dimension %d of size %d gives a negative size", p.Low, p.High, p.Interior, i, xd[i])
		}
	}
	out, err := newArray(x.Shape().Elem, dims)
	if err != nil {
		return nil, err
	}
	es := elementBytes(x)
	dst, val := out.Bytes(), pv.Bytes()
	for i := 0; i < len(dst); i += es {
		copy(dst[i:i+es], val)
	}
	// Operand element j of dimension i lands at Low + j*(Interior+1); keep
	// the range of j that lands inside the output.
	os := rowMajorStrides(dims)
	xs := rowMajorStrides(xd)
	block := make([]int, len(xd))
	dstStrides := make([]int, len(xd))
	dstBase, srcBase := 0, 0
	for i, p := range in.Padding {
		step := p.Interior + 1
		lo := 0
		if p.Low < 0 {
			lo = (-p.Low + step - 1) / step
		}
		hi := xd[i] // exclusive
		if last := dims[i] - 1 - p.Low; last < 0 {
			hi = 0
		} else {
			hi = min(hi, last/step+1)
		}
		if hi <= lo {
			return out, nil // nothing of the operand survives
		}
		block[i] = hi - lo
		dstStrides[i] = os[i] * step
		dstBase += (p.Low + lo*step) * os[i]
		srcBase += lo * xs[i]
	}
	blockCopy(dst, x.Bytes(), es, block, dstBase, dstStrides, srcBase, xs)
	return out, nil
}

func evalConcatenate(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) == 0 {
		return nil, fmt.Errorf("concatenate needs at least one operand")
	}
	if len(in.Dimensions) != 1 {
		return nil, fmt.Errorf("dimensions=%v, expected one concatenation dimension", in.Dimensions)
	}
	d := in.Dimensions[0]
	first := ops[0].Shape()
	if !first.IsArray() || d < 0 || d >= first.Rank() {
		return nil, fmt.Errorf("concatenation dimension %d is out of range for operand shape %v", d, first)
	}
	dims := slices.Clone(first.Dims)
	dims[d] = 0
	for i, o := range ops {
		s := o.Shape()
		if s.Elem != first.Elem || s.Rank() != first.Rank() {
			return nil, fmt.Errorf("operand %d has shape %v, operand 0 %v", i, s.StringWithoutLayout(), first.StringWithoutLayout())
		}
		for k := range s.Dims {
			if k != d && s.Dims[k] != first.Dims[k] {
				return nil, fmt.Errorf("operand %d has shape %v, operand 0 %v: dimension %d differs", i, s.StringWithoutLayout(), first.StringWithoutLayout(), k)
			}
		}
		dims[d] += s.Dims[d]
	}
	out, err := newArray(first.Elem, dims)
	if err != nil {
		return nil, err
	}
	os := rowMajorStrides(dims)
	offset := 0
	for _, o := range ops {
		od := o.Shape().Dims
		blockCopy(out.Bytes(), o.Bytes(), elementBytes(o), od, offset*os[d], os, 0, rowMajorStrides(od))
		offset += od[d]
	}
	return out, nil
}

// ---- iota -----------------------------------------------------------------

func evalIota(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 0 {
		return nil, fmt.Errorf("iota takes no operands, found %d", len(ops))
	}
	s := in.Shape
	if !s.IsArray() || in.IotaDimension < 0 || in.IotaDimension >= s.Rank() {
		return nil, fmt.Errorf("iota_dimension %d is out of range for shape %v", in.IotaDimension, s)
	}
	t := s.Elem
	out, err := newArray(t, s.Dims)
	if err != nil {
		return nil, err
	}
	n := out.ElementCount()
	strides := rowMajorStrides(s.Dims)
	d := in.IotaDimension
	iota := make([]int64, n)
	for i := range iota {
		iota[i] = int64(i / strides[d] % s.Dims[d])
	}
	switch {
	case t == ir.PRED || t.IsInteger():
		setInts(out, iota)
	case t.IsFloat():
		res := make([]float64, n)
		for i, v := range iota {
			res[i] = intToFloat(ir.S64, t, v)
		}
		setFloats(out, res)
	case t.IsComplex():
		res := make([]complex128, n)
		for i, v := range iota {
			res[i] = complex(intToFloat(ir.S64, t, v), 0)
		}
		setComplex(out, res)
	default:
		return nil, fmt.Errorf("iota of element type %v", t)
	}
	return out, nil
}

// ---- gather ---------------------------------------------------------------

// indexValues reads an integer index array as int64 values (U64 above
// MaxInt64 saturates, so it clamps like any too-large index).
func indexValues(l *ir.Literal) ([]int64, error) {
	t := l.Shape().Elem
	if !t.IsInteger() {
		return nil, fmt.Errorf("indices have element type %v, expected an integer type", t)
	}
	v := intValues(l)
	if t == ir.U64 {
		for i, x := range v {
			if x < 0 {
				v[i] = 1<<63 - 1
			}
		}
	}
	return v, nil
}

// indexBatchShape returns the dims of an index array with index_vector_dim
// removed (it may equal the rank: an implicit trailing 1) and the number of
// components of each index vector.
func indexBatchShape(dims []int, ivd int) ([]int, int, error) {
	if ivd < 0 || ivd > len(dims) {
		return nil, 0, fmt.Errorf("index_vector_dim %d is out of range for indices of rank %d", ivd, len(dims))
	}
	if ivd == len(dims) {
		return slices.Clone(dims), 1, nil
	}
	return append(slices.Clone(dims[:ivd]), dims[ivd+1:]...), dims[ivd], nil
}

// indexVectorStride is the distance in elements between the components of
// an index vector (1 for an implicit trailing dimension).
func indexVectorStride(dims []int, ivd int) int {
	if ivd == len(dims) {
		return 1
	}
	return rowMajorStrides(dims)[ivd]
}

// complement returns the integers in [0, n) not in any of the lists, ascending.
func complement(n int, lists ...[]int) []int {
	var out []int
	for i := 0; i < n; i++ {
		found := false
		for _, l := range lists {
			if slices.Contains(l, i) {
				found = true
			}
		}
		if !found {
			out = append(out, i)
		}
	}
	return out
}

// checkDims reports a dimension list with entries outside [0, rank) or repeated.
func checkDims(name string, dims []int, rank int) error {
	for i, d := range dims {
		if d < 0 || d >= rank || slices.Contains(dims[:i], d) {
			return fmt.Errorf("%s=%v: entry %d is out of range [0, %d) or repeated", name, dims, d, rank)
		}
	}
	return nil
}

func evalGather(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(ops, 2)
	if err != nil {
		return nil, err
	}
	idxLit := ops[1]
	dn := in.GatherDims
	if dn == nil {
		return nil, fmt.Errorf("gather has no dimension numbers")
	}
	xd := x.Shape().Dims
	rank := len(xd)
	sizes := in.GatherSliceSizes
	if len(sizes) != rank {
		return nil, fmt.Errorf("slice_sizes=%v has %d entries for an operand of rank %d", sizes, len(sizes), rank)
	}
	for i, s := range sizes {
		if s < 0 || s > xd[i] {
			return nil, fmt.Errorf("slice size %d is out of range for operand dimension %d of size %d", s, i, xd[i])
		}
	}
	indices, err := indexValues(idxLit)
	if err != nil {
		return nil, err
	}
	id := idxLit.Shape().Dims
	batchDims, vecLen, err := indexBatchShape(id, dn.IndexVectorDim)
	if err != nil {
		return nil, err
	}
	if len(dn.StartIndexMap) != vecLen {
		return nil, fmt.Errorf("start_index_map=%v has %d entries, the index vectors have %d components", dn.StartIndexMap, len(dn.StartIndexMap), vecLen)
	}
	if len(dn.OperandBatchingDims) != len(dn.StartIndicesBatchingDims) {
		return nil, fmt.Errorf("operand_batching_dims=%v and start_indices_batching_dims=%v differ in length", dn.OperandBatchingDims, dn.StartIndicesBatchingDims)
	}
	for _, c := range []struct {
		name string
		dims []int
		rank int
	}{{"start_index_map", dn.StartIndexMap, rank}, {"collapsed_slice_dims", dn.CollapsedSliceDims, rank},
		{"operand_batching_dims", dn.OperandBatchingDims, rank}, {"start_indices_batching_dims", dn.StartIndicesBatchingDims, len(id)},
		{"offset_dims", dn.OffsetDims, len(batchDims) + len(dn.OffsetDims)}} {
		if err := checkDims(c.name, c.dims, c.rank); err != nil {
			return nil, err
		}
	}
	for i, d := range dn.OperandBatchingDims {
		if sd := dn.StartIndicesBatchingDims[i]; xd[d] != id[sd] {
			return nil, fmt.Errorf("operand batching dimension %d has size %d, start indices batching dimension %d has size %d", d, xd[d], sd, id[sd])
		}
	}
	for _, d := range append(slices.Clone(dn.CollapsedSliceDims), dn.OperandBatchingDims...) {
		if sizes[d] != 1 {
			return nil, fmt.Errorf("collapsed or batching operand dimension %d has slice size %d, expected 1", d, sizes[d])
		}
	}
	// The operand dimensions the offset dims of the output walk, in order.
	offsetOperandDims := complement(rank, dn.CollapsedSliceDims, dn.OperandBatchingDims)
	if len(offsetOperandDims) != len(dn.OffsetDims) {
		return nil, fmt.Errorf("offset_dims=%v has %d entries, the slice has %d uncollapsed dimensions", dn.OffsetDims, len(dn.OffsetDims), len(offsetOperandDims))
	}
	outRank := len(batchDims) + len(dn.OffsetDims)
	outBatchDims := complement(outRank, dn.OffsetDims)
	outDims := make([]int, outRank)
	for k, d := range dn.OffsetDims {
		outDims[d] = sizes[offsetOperandDims[k]]
	}
	for k, d := range outBatchDims {
		outDims[d] = batchDims[k]
	}
	out, err := newArray(x.Shape().Elem, outDims)
	if err != nil {
		return nil, err
	}
	if out.ElementCount() == 0 {
		return out, nil
	}
	// For each operand batching dimension, the position of its partner
	// (a start_indices dimension) among the batch dimensions.
	batchingPos := make([]int, len(dn.OperandBatchingDims))
	for i, d := range dn.StartIndicesBatchingDims {
		if d == dn.IndexVectorDim {
			return nil, fmt.Errorf("start_indices_batching_dims=%v contains index_vector_dim %d", dn.StartIndicesBatchingDims, d)
		}
		batchingPos[i] = d
		if d > dn.IndexVectorDim {
			batchingPos[i]--
		}
	}
	xs := rowMajorStrides(xd)
	os := rowMajorStrides(outDims)
	is := rowMajorStrides(id)
	vecStride := indexVectorStride(id, dn.IndexVectorDim)
	// The offset block: dims and strides in output and operand.
	blockDims := make([]int, len(dn.OffsetDims))
	dstStrides := make([]int, len(dn.OffsetDims))
	srcStrides := make([]int, len(dn.OffsetDims))
	for k, d := range dn.OffsetDims {
		blockDims[k] = outDims[d]
		dstStrides[k] = os[d]
		srcStrides[k] = xs[offsetOperandDims[k]]
	}
	es := elementBytes(x)
	g := make([]int, len(batchDims)) // batch index
	for {
		// Locate the index vector of batch index g.
		pos, k := 0, 0
		for i := range id {
			if i == dn.IndexVectorDim {
				continue
			}
			pos += g[k] * is[i]
			k++
		}
		srcBase := 0
		for k, d := range dn.StartIndexMap {
			v := indices[pos+k*vecStride]
			start := min(max(v, 0), int64(xd[d]-sizes[d]))
			srcBase += int(start) * xs[d]
		}
		for i, d := range dn.OperandBatchingDims {
			srcBase += g[batchingPos[i]] * xs[d]
		}
		dstBase := 0
		for k, d := range outBatchDims {
			dstBase += g[k] * os[d]
		}
		blockCopy(out.Bytes(), x.Bytes(), es, blockDims, dstBase, dstStrides, srcBase, srcStrides)
		if len(g) == 0 || !ir.NextIndex(batchDims, g) {
			break
		}
	}
	return out, nil
}

// ---- scatter --------------------------------------------------------------

func evalScatter(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) < 3 || len(ops)%2 == 0 {
		return nil, fmt.Errorf("scatter takes N operands, the indices and N updates; found %d operands", len(ops))
	}
	n := (len(ops) - 1) / 2
	operands, idxLit, updates := ops[:n], ops[n], ops[n+1:]
	dn := in.ScatterDims
	if dn == nil {
		return nil, fmt.Errorf("scatter has no dimension numbers")
	}
	if in.ToApply == nil {
		return nil, fmt.Errorf("scatter has no to_apply computation")
	}
	xd := operands[0].Shape().Dims
	ud := updates[0].Shape().Dims
	for i := 0; i < n; i++ {
		if !operands[i].Shape().IsArray() || !slices.Equal(operands[i].Shape().Dims, xd) {
			return nil, fmt.Errorf("operand %d has shape %v, operand 0 has dimensions %v", i, operands[i].Shape(), xd)
		}
		if !updates[i].Shape().IsArray() || !slices.Equal(updates[i].Shape().Dims, ud) {
			return nil, fmt.Errorf("update %d has shape %v, update 0 has dimensions %v", i, updates[i].Shape(), ud)
		}
		if updates[i].Shape().Elem != operands[i].Shape().Elem {
			return nil, fmt.Errorf("update %d has element type %v, operand %d %v", i, updates[i].Shape().Elem, i, operands[i].Shape().Elem)
		}
	}
	rank := len(xd)
	indices, err := indexValues(idxLit)
	if err != nil {
		return nil, err
	}
	id := idxLit.Shape().Dims
	scatterBatch, vecLen, err := indexBatchShape(id, dn.IndexVectorDim)
	if err != nil {
		return nil, err
	}
	if len(dn.ScatterDimsToOperandDims) != vecLen {
		return nil, fmt.Errorf("scatter_dims_to_operand_dims=%v has %d entries, the index vectors have %d components",
			dn.ScatterDimsToOperandDims, len(dn.ScatterDimsToOperandDims), vecLen)
	}
	if len(dn.InputBatchingDims) != len(dn.ScatterIndicesBatchingDims) {
		return nil, fmt.Errorf("input_batching_dims=%v and scatter_indices_batching_dims=%v differ in length", dn.InputBatchingDims, dn.ScatterIndicesBatchingDims)
	}
	for _, c := range []struct {
		name string
		dims []int
		rank int
	}{{"scatter_dims_to_operand_dims", dn.ScatterDimsToOperandDims, rank}, {"inserted_window_dims", dn.InsertedWindowDims, rank},
		{"input_batching_dims", dn.InputBatchingDims, rank}, {"scatter_indices_batching_dims", dn.ScatterIndicesBatchingDims, len(id)},
		{"update_window_dims", dn.UpdateWindowDims, len(ud)}} {
		if err := checkDims(c.name, c.dims, c.rank); err != nil {
			return nil, err
		}
	}
	for i, d := range dn.InputBatchingDims {
		if sd := dn.ScatterIndicesBatchingDims[i]; xd[d] != id[sd] {
			return nil, fmt.Errorf("input batching dimension %d has size %d, scatter indices batching dimension %d has size %d", d, xd[d], sd, id[sd])
		}
	}
	windowOperandDims := complement(rank, dn.InsertedWindowDims, dn.InputBatchingDims)
	if len(windowOperandDims) != len(dn.UpdateWindowDims) {
		return nil, fmt.Errorf("update_window_dims=%v has %d entries, the operand has %d dimensions that are neither inserted nor batching",
			dn.UpdateWindowDims, len(dn.UpdateWindowDims), len(windowOperandDims))
	}
	updateScatterDims := complement(len(ud), dn.UpdateWindowDims)
	if len(updateScatterDims) != len(scatterBatch) {
		return nil, fmt.Errorf("updates of rank %d have %d scatter dimensions, the indices have %d", len(ud), len(updateScatterDims), len(scatterBatch))
	}
	scatterDims := make([]int, len(updateScatterDims))
	for k, d := range updateScatterDims {
		if ud[d] != scatterBatch[k] {
			return nil, fmt.Errorf("update scatter dimension %d has size %d, the indices' batch dimension %d", d, ud[d], scatterBatch[k])
		}
		scatterDims[k] = ud[d]
	}
	windowDims := make([]int, len(dn.UpdateWindowDims))
	// Window size of each operand dimension (1 for inserted and batching dims).
	windowSize := make([]int, rank)
	for i := range windowSize {
		windowSize[i] = 1
	}
	for k, d := range dn.UpdateWindowDims {
		windowDims[k] = ud[d]
		od := windowOperandDims[k]
		windowSize[od] = ud[d]
		if ud[d] > xd[od] {
			return nil, fmt.Errorf("update window dimension %d has size %d, larger than operand dimension %d of size %d", d, ud[d], od, xd[od])
		}
	}
	batchingPos := make([]int, len(dn.InputBatchingDims))
	for i, d := range dn.ScatterIndicesBatchingDims {
		if d == dn.IndexVectorDim {
			return nil, fmt.Errorf("scatter_indices_batching_dims=%v contains index_vector_dim %d", dn.ScatterIndicesBatchingDims, d)
		}
		batchingPos[i] = d
		if d > dn.IndexVectorDim {
			batchingPos[i]--
		}
	}

	comb, err := newCombiner(e, in.ToApply, operands)
	if err != nil {
		return nil, err
	}
	results := make([]*ir.Literal, n)
	for i, o := range operands {
		results[i] = o.Clone()
	}
	if slices.Contains(scatterDims, 0) {
		return scatterResult(results), nil // no updates
	}
	xs := rowMajorStrides(xd)
	us := rowMajorStrides(ud)
	is := rowMajorStrides(id)
	vecStride := indexVectorStride(id, dn.IndexVectorDim)
	start := make([]int, rank)
	g := make([]int, len(scatterDims))
	w := make([]int, len(windowDims))
	windowCount := 1
	for _, d := range windowDims {
		windowCount *= d
	}
	for scatterCount := 0; ; scatterCount++ {
		if err := e.checkContext(); err != nil {
			return nil, err
		}
		pos, k := 0, 0
		for i := range id {
			if i == dn.IndexVectorDim {
				continue
			}
			pos += g[k] * is[i]
			k++
		}
		clear(start)
		for k, d := range dn.ScatterDimsToOperandDims {
			start[d] = int(max(min(indices[pos+k*vecStride], math.MaxInt>>1), math.MinInt>>1))
		}
		for i, d := range dn.InputBatchingDims {
			start[d] = g[batchingPos[i]]
		}
		inBounds := true
		for d := range start {
			if start[d] < 0 || start[d] > xd[d]-windowSize[d] {
				inBounds = false
			}
		}
		if inBounds && windowCount > 0 {
			xBase, uBase := 0, 0
			for d, s := range start {
				xBase += s * xs[d]
			}
			for k, d := range updateScatterDims {
				uBase += g[k] * us[d]
			}
			clear(w)
			for {
				xi, ui := xBase, uBase
				for k, d := range dn.UpdateWindowDims {
					xi += w[k] * xs[windowOperandDims[k]]
					ui += w[k] * us[d]
				}
				if err := comb.combine(results, xi, updates, ui); err != nil {
					return nil, err
				}
				if len(w) == 0 || !ir.NextIndex(windowDims, w) {
					break
				}
			}
		}
		if len(g) == 0 || !ir.NextIndex(scatterDims, g) {
			break
		}
	}
	return scatterResult(results), nil
}

// scatterResult is the single result of a one-operand scatter, else the tuple.
func scatterResult(results []*ir.Literal) *ir.Literal {
	if len(results) == 1 {
		return results[0]
	}
	return ir.NewTupleLiteral(results...)
}

// ---- bitcast, copy, tuples, constants -------------------------------------

// evalBitcast reinterprets the operand's bytes in memory, laid out under its
// shape's layout, as the result shape under its own layout. With default
// layouts on both sides that is a reshape.
func evalBitcast(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	x, err := arrayOperand(ops, 1)
	if err != nil {
		return nil, err
	}
	// The operand's layout is its instruction's: literals are row-major
	// whatever layout they were produced under.
	xs, rs := x.Shape(), in.Shape
	if len(in.Operands) == 1 && in.Operands[0].Shape.Layout != nil {
		xs = xs.WithLayout(in.Operands[0].Shape.Layout)
	}
	for _, s := range []ir.Shape{xs, rs} {
		if s.Layout != nil && (s.Layout.Tiles != nil || s.Layout.PaddedDims != nil || s.Layout.ElementSizeBits != 0) {
			return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
				Detail: fmt.Sprintf("bitcast with the tiled, padded or sub-byte layout %v", s.Layout)}
		}
	}
	if xs.ByteSize() != rs.ByteSize() || xs.Elem.ByteSize() != rs.Elem.ByteSize() {
		return nil, fmt.Errorf("bitcast of %v to %v: sizes differ", xs, rs)
	}
	if xs.Elem != rs.Elem {
		return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
			Detail: fmt.Sprintf("bitcast that changes the element type (%v to %v); use bitcast-convert", xs.Elem, rs.Elem)}
	}
	out, err := newArray(rs.Elem, rs.Dims)
	if err != nil {
		return nil, err
	}
	es := elementBytes(x)
	src, dst := x.Bytes(), out.Bytes()
	if xs.HasDefaultLayout() && rs.HasDefaultLayout() {
		copy(dst, src)
		return out, nil
	}
	// Physical position p holds operand element xs.MultiIndex(p) and result
	// element rs.MultiIndex(p).
	xIdx := make([]int, xs.Rank())
	rIdx := make([]int, rs.Rank())
	n := out.ElementCount()
	for p := 0; p < n; p++ {
		xs.MultiIndexInto(p, xIdx)
		rs.MultiIndexInto(p, rIdx)
		si := ir.RowMajorIndex(xs.Dims, xIdx) * es
		di := ir.RowMajorIndex(rs.Dims, rIdx) * es
		copy(dst[di:di+es], src[si:si+es])
	}
	return out, nil
}

func evalCopy(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 1 {
		return nil, fmt.Errorf("expected 1 operand, found %d", len(ops))
	}
	return ops[0].Clone(), nil
}

func evalTuple(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	return ir.NewTupleLiteral(ops...), nil
}

func evalGetTupleElement(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 1 || !ops[0].Shape().IsTuple() {
		return nil, fmt.Errorf("expected one tuple operand")
	}
	t := ops[0]
	if in.TupleIndex < 0 || in.TupleIndex >= len(t.Elements()) {
		return nil, fmt.Errorf("index %d is out of range for a tuple of %d elements", in.TupleIndex, len(t.Elements()))
	}
	return t.Element(in.TupleIndex), nil
}

func evalConstant(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if in.LiteralElided || in.Literal == nil {
		return nil, fmt.Errorf("constant of shape %v has no value (printed as {...}); the module must be exported with its constants", in.Shape.StringWithoutLayout())
	}
	return in.Literal.Clone(), nil
}

func evalOptimizationBarrier(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 1 {
		return nil, fmt.Errorf("expected 1 operand, found %d", len(ops))
	}
	return ops[0], nil
}
