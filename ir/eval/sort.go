package eval

// sort and topk.
//
// sort orders every slice along its dimension with a stable merge sort,
// whatever is_stable says: XLA permits any order of elements its comparator
// calls equal when is_stable is false, and the stable order is one of them.
// The merge places an element of the right run before one of the left run
// only when comparator(right, left) is true, so a comparator that is not a
// strict weak order (FLOAT LT with NaNs) still gives one deterministic result.
// When the comparator is a single compare of one operand's pair of
// parameters it is evaluated on typed keys with the compare op's own rules
// (elementwise.go); otherwise the computation is called per comparison. Both
// run the same merge sort, so they give the same permutation.
//
// topk follows XLA's CPU runtime: per row along the last dimension, the k
// largest (or smallest) values in the total order (-NaN < -Inf < … < -0 <
// +0 < … < +Inf < +NaN for floats), ties broken by the lower index; indices
// are S32.

import (
	"fmt"
	"math"

	"github.com/kilnml/kiln/ir"
)

func init() {
	register(evalSort, ir.OpSort)
	register(evalTopK, ir.OpTopK)
}

// compareFunc returns compare(x[i], x[j]) with the given direction and
// comparison type as a function of element positions of x, evaluated as the
// compare op evaluates it. It reports false for combinations compare does not
// define (they are left to the general path, which reports the error).
func compareFunc(x *ir.Literal, dir ir.ComparisonDirection, ct ir.ComparisonType) (func(i, j int) bool, bool) {
	t := x.Shape().Elem
	if dir == ir.CmpInvalid {
		return nil, false
	}
	if ct == ir.CmpTypeDefault {
		ct = ir.DefaultComparisonType(t)
	}
	switch {
	case t.IsFloat() && ct == ir.CmpTypeTotalOrder:
		b, w := floatBits(x)
		keys := make([]int64, len(b))
		for i, v := range b {
			keys[i] = totalOrderKey(v, w)
		}
		return func(i, j int) bool { return compareResult(dir, cmp3(keys[i], keys[j])) }, true
	case t.IsFloat() && ct == ir.CmpTypeFloat:
		keys := floatValues(x)
		return func(i, j int) bool { return compareResult(dir, cmp3(keys[i], keys[j])) }, true
	case (t.IsInteger() || t == ir.PRED) && ct == ir.CmpTypeSigned:
		keys := intValues(x)
		w := t.BitWidth()
		for i := range keys {
			keys[i] = signExtend(keys[i], w)
		}
		return func(i, j int) bool { return compareResult(dir, cmp3(keys[i], keys[j])) }, true
	case (t.IsInteger() || t == ir.PRED) && ct == ir.CmpTypeUnsigned:
		xs := intValues(x)
		var mask uint64 = math.MaxUint64
		if w := t.BitWidth(); w < 64 {
			mask = 1<<w - 1
		}
		keys := make([]uint64, len(xs))
		for i, v := range xs {
			keys[i] = uint64(v) & mask
		}
		return func(i, j int) bool { return compareResult(dir, cmp3(keys[i], keys[j])) }, true
	}
	return nil, false
}

// stableSort returns the permutation of 0..n-1 that sorts positions by less
// (a bottom-up merge sort; less errors abort the sort).
func stableSort(n int, less func(a, b int) (bool, error)) ([]int, error) {
	idx := iotaInts(n)
	buf := make([]int, n)
	for width := 1; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			i, j, o := lo, mid, lo
			for i < mid && j < hi {
				before, err := less(idx[j], idx[i])
				if err != nil {
					return nil, err
				}
				if before {
					buf[o] = idx[j]
					j++
				} else {
					buf[o] = idx[i]
					i++
				}
				o++
			}
			o += copy(buf[o:], idx[i:mid])
			copy(buf[o:], idx[j:hi])
		}
		idx, buf = buf, idx
	}
	return idx, nil
}

// sortKeyed is stableSort specialised to "keys[a] < keys[b]": the same
// merges in the same order, so it returns the same permutation as
// stableSort with that predicate.
func sortKeyed[K int64 | uint64 | float64](keys []K) []int {
	n := len(keys)
	idx := iotaInts(n)
	buf := make([]int, n)
	for width := 1; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			i, j, o := lo, mid, lo
			for i < mid && j < hi {
				if keys[idx[j]] < keys[idx[i]] {
					buf[o] = idx[j]
					j++
				} else {
					buf[o] = idx[i]
					i++
				}
				o++
			}
			o += copy(buf[o:], idx[i:mid])
			copy(buf[o:], idx[j:hi])
		}
		idx, buf = buf, idx
	}
	return idx
}

// sortKeys holds one operand's keys transformed so that the comparator is
// "a < b" on them (GT reverses them), for the typed sort.
type sortKeys struct {
	i []int64
	u []uint64
	f []float64
}

// keyedComparator recognises comparators compare(p[2k], p[2k+1]) (or
// swapped) with direction LT or GT and returns the transformed keys of
// operand k.
func keyedComparator(c *ir.Computation, ops []*ir.Literal) (*sortKeys, bool) {
	r := c.Root
	if r == nil || r.Opcode != ir.OpCompare || len(r.Operands) != 2 ||
		r.Operands[0].Opcode != ir.OpParameter || r.Operands[1].Opcode != ir.OpParameter {
		return nil, false
	}
	a, b := r.Operands[0].ParameterNumber, r.Operands[1].ParameterNumber
	if a/2 != b/2 || a == b || c.Parameters[a] != r.Operands[0] || c.Parameters[b] != r.Operands[1] {
		return nil, false
	}
	var reverse bool
	switch r.Direction {
	case ir.CmpLT:
	case ir.CmpGT:
		reverse = true
	default:
		return nil, false
	}
	if a%2 == 1 {
		reverse = !reverse
	}
	x := ops[a/2]
	t := x.Shape().Elem
	ct := r.CompareType
	if ct == ir.CmpTypeDefault {
		ct = ir.DefaultComparisonType(t)
	}
	k := &sortKeys{}
	switch {
	case t.IsFloat() && ct == ir.CmpTypeTotalOrder:
		b, w := floatBits(x)
		k.i = make([]int64, len(b))
		for i, v := range b {
			k.i[i] = totalOrderKey(v, w)
		}
	case t.IsFloat() && ct == ir.CmpTypeFloat:
		k.f = floatValues(x)
		if reverse {
			for i := range k.f {
				k.f[i] = -k.f[i]
			}
			reverse = false
		}
	case (t.IsInteger() || t == ir.PRED) && ct == ir.CmpTypeSigned:
		k.i = intValues(x)
		for i := range k.i {
			k.i[i] = signExtend(k.i[i], t.BitWidth())
		}
	case (t.IsInteger() || t == ir.PRED) && ct == ir.CmpTypeUnsigned:
		var mask uint64 = math.MaxUint64
		if w := t.BitWidth(); w < 64 {
			mask = 1<<w - 1
		}
		for _, v := range intValues(x) {
			k.u = append(k.u, uint64(v)&mask)
		}
	default:
		return nil, false
	}
	if reverse {
		for i := range k.i {
			k.i[i] = ^k.i[i]
		}
		for i := range k.u {
			k.u[i] = ^k.u[i]
		}
	}
	return k, true
}

// permutation sorts the slice at positions pos by the keys.
func (k *sortKeys) permutation(pos []int) []int {
	switch {
	case k.i != nil:
		return sortKeyed(gatherAt(k.i, pos))
	case k.u != nil:
		return sortKeyed(gatherAt(k.u, pos))
	}
	return sortKeyed(gatherAt(k.f, pos))
}

func gatherAt[T any](v []T, pos []int) []T {
	out := make([]T, len(pos))
	for i, p := range pos {
		out[i] = v[p]
	}
	return out
}

// sortSlices describes the slices of an array along one dimension: slice s
// has elements base(s) + i*stride for i < length.
type sortSlices struct {
	count, length, stride, inner int
}

func slicesAlong(dims []int, d int) sortSlices {
	inner := numElements(dims[d+1:])
	return sortSlices{count: numElements(dims) / max(dims[d], 1), length: dims[d], stride: inner, inner: inner}
}

func (s sortSlices) base(i int) int {
	if s.inner == 0 {
		return 0
	}
	return i/s.inner*s.length*s.inner + i%s.inner
}

func evalSort(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) == 0 {
		return nil, fmt.Errorf("sort needs at least one operand")
	}
	dims := ops[0].Shape().Dims
	for i, o := range ops {
		if !o.Shape().IsArray() || !sameInts(o.Shape().Dims, dims) {
			return nil, fmt.Errorf("operand %d has shape %v, expected an array with dimensions %v", i, o.Shape(), dims)
		}
	}
	shapes, err := resultArrayShapes(in.Shape, len(ops))
	if err != nil {
		return nil, err
	}
	for i, s := range shapes {
		if s.Elem != ops[i].Shape().Elem || !fitsDims(s, dims) {
			return nil, fmt.Errorf("result %d has shape %v, operand %d has %v", i, s, i, ops[i].Shape())
		}
	}
	outs := make([]*ir.Literal, len(ops))
	for i, o := range ops {
		outs[i] = o.Clone()
	}
	if len(dims) == 0 {
		return packResults(outs, in.Shape), nil
	}
	d := len(dims) - 1
	if len(in.Dimensions) > 0 {
		d = in.Dimensions[0]
	}
	if d < 0 || d >= len(dims) {
		return nil, fmt.Errorf("sort dimension %d is out of range for rank %d", d, len(dims))
	}
	less, err := sortComparator(e, in, ops)
	if err != nil {
		return nil, err
	}
	keys, keyed := keyedComparator(in.ToApply, ops)
	sl := slicesAlong(dims, d)
	pos := make([]int, sl.length)
	for s := 0; s < sl.count; s++ {
		b := sl.base(s)
		for i := range pos {
			pos[i] = b + i*sl.stride
		}
		var perm []int
		if keyed {
			perm = keys.permutation(pos)
		} else if perm, err = stableSort(sl.length, func(a, b int) (bool, error) { return less(pos[a], pos[b]) }); err != nil {
			return nil, err
		}
		for k, o := range ops {
			es := o.Shape().Elem.ByteSize()
			src, dst := o.Bytes(), outs[k].Bytes()
			for i, p := range perm {
				copy(dst[pos[i]*es:(pos[i]+1)*es], src[pos[p]*es:(pos[p]+1)*es])
			}
		}
	}
	return packResults(outs, in.Shape), nil
}

// sortComparator returns comparator(x[a], x[b]) over element positions.
func sortComparator(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (func(a, b int) (bool, error), error) {
	c := in.ToApply
	if c == nil {
		return nil, fmt.Errorf("sort has no comparator")
	}
	if len(c.Parameters) != 2*len(ops) {
		return nil, fmt.Errorf("comparator %s takes %d parameters, %d operands need %d", c.Name, len(c.Parameters), len(ops), 2*len(ops))
	}
	for i, p := range c.Parameters {
		if p == nil || !p.Shape.IsScalar() || p.Shape.Elem != ops[i/2].Shape().Elem {
			return nil, fmt.Errorf("comparator parameter %d must be a %v scalar", i, ops[i/2].Shape().Elem)
		}
	}
	if r := c.Root; r != nil && r.Opcode == ir.OpCompare && len(r.Operands) == 2 &&
		r.Operands[0].Opcode == ir.OpParameter && r.Operands[1].Opcode == ir.OpParameter {
		a, b := r.Operands[0].ParameterNumber, r.Operands[1].ParameterNumber
		if a/2 == b/2 && a != b && c.Parameters[a] == r.Operands[0] && c.Parameters[b] == r.Operands[1] {
			if cmp, ok := compareFunc(ops[a/2], r.Direction, r.CompareType); ok {
				if a%2 == 0 {
					return func(x, y int) (bool, error) { return cmp(x, y), nil }, nil
				}
				return func(x, y int) (bool, error) { return cmp(y, x), nil }, nil
			}
		}
	}
	args := make([]*ir.Literal, 2*len(ops))
	return func(x, y int) (bool, error) {
		for k, o := range ops {
			args[2*k] = scalarLiteralAt(o, x)
			args[2*k+1] = scalarLiteralAt(o, y)
		}
		res, err := e.call(c, args)
		if err != nil {
			return false, err
		}
		if !res.Shape().IsScalar() || res.Shape().Elem != ir.PRED {
			return false, fmt.Errorf("comparator %s returned %v, expected pred[]", c.Name, res.Shape())
		}
		return ir.Values[bool](res)[0], nil
	}, nil
}

func evalTopK(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 1 {
		return nil, fmt.Errorf("expected 1 operand, found %d", len(ops))
	}
	x := ops[0]
	dims := x.Shape().Dims
	t := x.Shape().Elem
	if len(dims) == 0 {
		return nil, fmt.Errorf("topk operand must have rank at least 1")
	}
	n, k := dims[len(dims)-1], in.K
	if k < 0 || k > n {
		return nil, fmt.Errorf("k = %d, the last dimension has size %d", k, n)
	}
	outDims := append(append([]int{}, dims[:len(dims)-1]...), k)
	if !in.Shape.IsTuple() || len(in.Shape.Tuple) != 2 ||
		in.Shape.Tuple[0].Elem != t || !fitsDims(in.Shape.Tuple[0], outDims) ||
		in.Shape.Tuple[1].Elem != ir.S32 || !fitsDims(in.Shape.Tuple[1], outDims) {
		return nil, fmt.Errorf("result shape %v, expected (%v%v, s32%v)", in.Shape, t, outDims, outDims)
	}
	// Keys whose ascending order is the rank order (largest: reversed).
	keys := &sortKeys{}
	switch {
	case t.IsFloat():
		b, w := floatBits(x)
		keys.i = make([]int64, len(b))
		for i, v := range b {
			keys.i[i] = totalOrderKey(v, w)
		}
	case t.IsSigned():
		keys.i = intValues(x)
	case t.IsUnsigned() || t == ir.PRED:
		for _, v := range intValues(x) {
			keys.u = append(keys.u, uint64(v))
		}
	default:
		return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name, Detail: fmt.Sprintf("element type %v has no order", t)}
	}
	if in.Largest {
		for i := range keys.i {
			keys.i[i] = ^keys.i[i]
		}
		for i := range keys.u {
			keys.u[i] = ^keys.u[i]
		}
	}
	pos := make([]int, n)
	vals, err := newArray(t, outDims)
	if err != nil {
		return nil, err
	}
	idxs, err := newArray(ir.S32, outDims)
	if err != nil {
		return nil, err
	}
	es := t.ByteSize()
	src, dst, id := x.Bytes(), vals.Bytes(), ir.Values[int32](idxs)
	rows := numElements(dims[:len(dims)-1])
	for r := 0; r < rows; r++ {
		base := r * n
		for i := range pos {
			pos[i] = base + i
		}
		perm := keys.permutation(pos)
		for j := 0; j < k; j++ {
			copy(dst[(r*k+j)*es:(r*k+j+1)*es], src[(base+perm[j])*es:(base+perm[j]+1)*es])
			id[r*k+j] = int32(perm[j])
		}
	}
	return ir.NewTupleLiteral(vals, idxs), nil
}
