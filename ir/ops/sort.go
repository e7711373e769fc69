package ops

// sort and top-k.
//
// sort orders every slice along its dimension with a stable bottom-up merge
// sort, whatever is_stable says: XLA permits any order of the elements its
// comparator calls equal when is_stable is false, and the stable order is
// one of them. The merge places an element of the right run before one of
// the left run only when comparator(right, left) is true, so a comparator
// that is not a strict weak order (FLOAT LT with NaNs) still gives one
// deterministic result. A comparator that is LT or GT of one operand's pair
// of parameters sorts typed keys with the compare op's own rules (the same
// merges, so the same permutation); any other runs the comparator per
// comparison.
//
// top-k follows XLA's CPU runtime: per row along the last dimension, the k
// largest (or smallest) values in the total order (-NaN < -Inf < … < -0 <
// +0 < … < +Inf < +NaN for floats), ties broken by the lower index; the
// indices are S32.

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/kilnml/kiln/ir"
)

type keyKind uint8

const (
	keySigned   keyKind = iota // int64, compared signed
	keyUnsigned                // uint64
	keyFloat                   // float64 (IEEE order, NaN unordered)
)

// sortKeys describes how one operand's elements become keys whose
// ascending order is the comparator's.
type sortKeys struct {
	operand int
	t       ir.ElementType
	kind    keyKind
	total   bool // float total order: bits to signed keys
	reverse bool // GT: keys complemented (floats negated)
}

// keyedComparator recognises comparators compare(p[2k], p[2k+1]) (or the
// pair swapped) with direction LT or GT.
func keyedComparator(c *Computation, ts []ir.ElementType) (*sortKeys, bool) {
	if c == nil {
		return nil, false
	}
	r := c.Nodes[c.Root]
	if r.Op != ir.OpCompare || len(r.Args) != 2 || r.Attrs == nil {
		return nil, false
	}
	a, b := paramNumber(c, r.Args[0]), paramNumber(c, r.Args[1])
	if a < 0 || b < 0 || a/2 != b/2 || a == b {
		return nil, false
	}
	k := &sortKeys{operand: a / 2, t: ts[a/2]}
	switch r.Attrs.Direction {
	case ir.CmpLT:
	case ir.CmpGT:
		k.reverse = true
	default:
		return nil, false
	}
	if a%2 == 1 {
		k.reverse = !k.reverse
	}
	t := k.t
	ct := r.Attrs.CompareType
	if ct == ir.CmpTypeDefault {
		ct = ir.DefaultComparisonType(t)
	}
	switch {
	case t.IsFloat() && ct == ir.CmpTypeTotalOrder:
		k.kind, k.total = keySigned, true
	case t.IsFloat() && ct == ir.CmpTypeFloat:
		k.kind = keyFloat
	case (t.IsInteger() || t == ir.PRED) && ct == ir.CmpTypeSigned:
		k.kind = keySigned
	case (t.IsInteger() || t == ir.PRED) && ct == ir.CmpTypeUnsigned:
		k.kind = keyUnsigned
	default:
		return nil, false
	}
	return k, true
}

// paramNumber returns the parameter number of node nd, or -1.
func paramNumber(c *Computation, nd int) int {
	for i, p := range c.Params {
		if p == nd {
			return i
		}
	}
	return -1
}

// load writes the keys of the elements at positions pos of src into keys.
func (k *sortKeys) load(keys []uint64, src []byte, pos []int) {
	t := k.t
	w := t.BitWidth()
	for i, p := range pos {
		switch {
		case k.total:
			var b [1]uint64
			LoadBits(b[:], src, t, p)
			keys[i] = uint64(TotalOrderKey(b[0], w))
		case k.kind == keyFloat:
			f := FloatAt(src, t, p)
			if k.reverse {
				f = -f
			}
			keys[i] = math.Float64bits(f)
		default:
			x := IntAt(src, t, p)
			switch {
			case k.kind == keySigned:
				x = SignExtend(x, w)
			case w < 64:
				x &= 1<<w - 1
			}
			keys[i] = uint64(x)
		}
		if k.reverse && k.kind != keyFloat {
			keys[i] = ^keys[i]
		}
	}
}

// permutation sorts the keys of the elements at positions pos.
func (k *sortKeys) permutation(src []byte, pos, idx, buf []int, keys []uint64) []int {
	k.load(keys, src, pos)
	switch k.kind {
	case keyFloat:
		return mergeSortKeys(idx, buf, Elems[float64](unsafeBytesU(keys)))
	case keySigned:
		return mergeSortKeys(idx, buf, Elems[int64](unsafeBytesU(keys)))
	}
	return mergeSortKeys(idx, buf, keys)
}

// MergeSort is a bottom-up stable merge sort of 0..n-1 (n = len(idx)) by
// less(a, b), using idx and buf as work memory; it returns the sorted
// permutation (one of the two).
func MergeSort(idx, buf []int, less func(a, b int) (bool, error)) ([]int, error) {
	n := len(idx)
	for i := range idx {
		idx[i] = i
	}
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

// mergeSortKeys is MergeSort with less = keys[a] < keys[b] (the same merges,
// so the same permutation).
func mergeSortKeys[K int64 | uint64 | float64](idx, buf []int, keys []K) []int {
	n := len(idx)
	for i := range idx {
		idx[i] = i
	}
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

// PermuteElements writes dst[pos[i]] = src[pos[perm[i]]] for elements of es
// bytes.
func PermuteElements(dst, src []byte, es int, pos, perm []int) {
	switch es {
	case 1:
		for i, p := range perm {
			dst[pos[i]] = src[pos[p]]
		}
	case 2:
		d, x := Elems[uint16](dst), Elems[uint16](src)
		for i, p := range perm {
			d[pos[i]] = x[pos[p]]
		}
	case 4:
		d, x := Elems[uint32](dst), Elems[uint32](src)
		for i, p := range perm {
			d[pos[i]] = x[pos[p]]
		}
	case 8:
		d, x := Elems[uint64](dst), Elems[uint64](src)
		for i, p := range perm {
			d[pos[i]] = x[pos[p]]
		}
	case 16:
		d, x := Elems[[2]uint64](dst), Elems[[2]uint64](src)
		for i, p := range perm {
			d[pos[i]] = x[pos[p]]
		}
	}
}

// SortPlan sorts N operands of one shape along one dimension.
type SortPlan struct {
	N      int
	Types  []ir.ElementType
	Dims   []int
	count  int // slices
	length int // elements per slice
	stride int // element step along the dimension
	inner  int // elements of the dimensions after it
	keys   *sortKeys
	cmp    *Func
}

// NewSort plans sort of operands of types ts and dimensions dims along
// dimension d (the last when dims is nil) with comparator f.
func NewSort(ts []ir.ElementType, dims []int, d int, f *Func) (*SortPlan, error) {
	n := len(ts)
	if n == 0 {
		return nil, fmt.Errorf("sort needs at least one operand")
	}
	if f == nil {
		return nil, fmt.Errorf("sort has no comparator")
	}
	if len(f.ParamT) != 2*n {
		return nil, fmt.Errorf("comparator %s takes %d parameters, %d operands need %d", f.Name, len(f.ParamT), n, 2*n)
	}
	for i, t := range f.ParamT {
		if t != ts[i/2] {
			return nil, fmt.Errorf("comparator parameter %d must be a %v scalar, found %v", i, ts[i/2], t)
		}
	}
	if len(f.ResultT) != 1 || f.ResultT[0] != ir.PRED {
		return nil, fmt.Errorf("comparator %s returns %v, expected pred[]", f.Name, f.ResultT)
	}
	p := &SortPlan{N: n, Types: ts, Dims: dims, cmp: f}
	if len(dims) == 0 {
		p.count, p.length = 1, 1
		return p, nil
	}
	if d < 0 || d >= len(dims) {
		return nil, fmt.Errorf("sort dimension %d is out of range for rank %d", d, len(dims))
	}
	p.length = dims[d]
	p.inner = Count(dims[d+1:])
	p.stride = p.inner
	p.count = Count(dims) / max(dims[d], 1)
	p.keys, _ = keyedComparator(f.Computation(), ts)
	return p, nil
}

// WorkBytes is the work memory Run needs (positions, permutations and
// keys of one slice).
func (p *SortPlan) WorkBytes() int { return 4 * max(p.length, 1) * 8 }

// ScratchBytes is the register memory of the comparator.
func (p *SortPlan) ScratchBytes() int { return p.cmp.RegBytes() }

// Run sorts the operands ins into outs, which must not overlap them.
func (p *SortPlan) Run(outs, ins [][]byte, work, scratch []byte) error {
	return p.RunUntil(nil, outs, ins, work, scratch)
}

// RunUntil is Run polling stop between slices (see Stop).
func (p *SortPlan) RunUntil(stop Stop, outs, ins [][]byte, work, scratch []byte) error {
	total := Count(p.Dims)
	for i := range outs {
		es := p.Types[i].ByteSize()
		copy(outs[i][:total*es], ins[i][:total*es])
	}
	L := p.length
	if L <= 1 || total == 0 {
		return nil
	}
	pos := Elems[int](work[:L*8])[:L]
	idx := Elems[int](work[L*8 : 2*L*8])[:L]
	buf := Elems[int](work[2*L*8 : 3*L*8])[:L]
	keys := Elems[uint64](work[3*L*8 : 4*L*8])
	if p.keys == nil {
		p.cmp.LoadConsts(scratch)
	}
	less := func(a, b int) (bool, error) {
		for k := 0; k < p.N; k++ {
			p.cmp.Load(scratch, 2*k, ins[k], pos[a])
			p.cmp.Load(scratch, 2*k+1, ins[k], pos[b])
		}
		if err := p.cmp.Run(scratch); err != nil {
			return false, err
		}
		return p.cmp.Truth(scratch, 0), nil
	}
	// A slice sorts in about L·log L comparisons and moves.
	poll := newPoller(stop, L*bits.Len(uint(L)))
	for sl := 0; sl < p.count; sl++ {
		if poll.stopped() {
			return nil
		}
		base := sl/p.inner*L*p.inner + sl%p.inner
		for i := range pos {
			pos[i] = base + i*p.stride
		}
		var perm []int
		if p.keys != nil {
			perm = p.keys.permutation(ins[p.keys.operand], pos, idx, buf, keys)
		} else {
			var err error
			if perm, err = MergeSort(idx, buf, less); err != nil {
				return err
			}
		}
		for k := 0; k < p.N; k++ {
			PermuteElements(outs[k], ins[k], p.Types[k].ByteSize(), pos, perm)
		}
	}
	return nil
}

// TopKPlan writes, per row of the last dimension, the k first elements in
// rank order and their indices.
type TopKPlan struct {
	T          ir.ElementType
	OutDims    []int
	keys       sortKeys
	rows, n, k int
}

// NewTopK plans top-k of an operand of type t and dimensions dims.
func NewTopK(t ir.ElementType, dims []int, k int, largest bool) (*TopKPlan, error) {
	if len(dims) == 0 {
		return nil, fmt.Errorf("topk operand must have rank at least 1")
	}
	n := dims[len(dims)-1]
	if k < 0 || k > n {
		return nil, fmt.Errorf("k = %d, the last dimension has size %d", k, n)
	}
	p := &TopKPlan{T: t, rows: Count(dims[:len(dims)-1]), n: n, k: k}
	p.OutDims = append(append([]int{}, dims[:len(dims)-1]...), k)
	p.keys = sortKeys{t: t, reverse: largest}
	switch {
	case t.IsFloat():
		p.keys.kind, p.keys.total = keySigned, true
	case t.IsSigned():
		p.keys.kind = keySigned
	case t.IsUnsigned() || t == ir.PRED:
		p.keys.kind = keyUnsigned
	default:
		return nil, &UnsupportedError{Op: ir.OpTopK, Detail: fmt.Sprintf("element type %v has no order", t)}
	}
	return p, nil
}

// WorkBytes is the work memory Run needs.
func (p *TopKPlan) WorkBytes() int { return 4 * max(p.n, 1) * 8 }

// Run writes the values and S32 indices of the top k of each row of x.
func (p *TopKPlan) Run(vals, ids, x, work []byte) { p.RunUntil(nil, vals, ids, x, work) }

// RunUntil is Run polling stop between rows (see Stop).
func (p *TopKPlan) RunUntil(stop Stop, vals, ids, x, work []byte) {
	if p.k == 0 || p.rows == 0 {
		return
	}
	n := p.n
	pos := Elems[int](work[:n*8])[:n]
	idx := Elems[int](work[n*8 : 2*n*8])[:n]
	buf := Elems[int](work[2*n*8 : 3*n*8])[:n]
	keys := Elems[uint64](work[3*n*8 : 4*n*8])
	es := p.T.ByteSize()
	id := Elems[int32](ids)
	poll := newPoller(stop, n*bits.Len(uint(n)))
	for r := 0; r < p.rows; r++ {
		if poll.stopped() {
			return
		}
		base := r * n
		for i := range pos {
			pos[i] = base + i
		}
		perm := p.keys.permutation(x, pos, idx, buf, keys)
		for j := 0; j < p.k; j++ {
			o := r*p.k + j
			copy(vals[o*es:(o+1)*es], x[(base+perm[j])*es:(base+perm[j]+1)*es])
			id[o] = int32(perm[j])
		}
	}
}
