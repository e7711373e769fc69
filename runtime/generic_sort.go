package runtime

// sort and topk. sort runs the evaluator's bottom-up stable merge sort on
// every slice along its dimension — the same merges in the same order, so a
// comparator that is not a strict weak order (FLOAT LT with NaNs) still
// gives the evaluator's permutation. A comparator that is LT or GT of one
// operand's pair of parameters sorts typed keys (total-order keys for
// TOTALORDER floats); any other comparator runs as a compiled scalar
// function per comparison. topk ranks each row along the last dimension in
// the total order, ties to the lower index, as XLA's CPU runtime does.

import (
	"math"
	"slices"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	genericSteps[ssa.OpSort] = buildSort
	genericSteps[ssa.Op(ir.OpTopK)] = buildTopK
}

// keyKind is the Go type of typed sort keys.
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
func keyedComparator(f *ssa.Func, ts []ir.ElementType) (*sortKeys, bool) {
	r := f.Root
	if r == nil || r.Op != ssa.OpCompare || len(r.Args) != 2 {
		return nil, false
	}
	a, b := slices.Index(f.Params, r.Args[0]), slices.Index(f.Params, r.Args[1])
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

// load writes the keys of the elements at positions pos of src into keys
// (8 bytes each), as the evaluator's keyedComparator transforms them.
func (k *sortKeys) load(keys []uint64, src []byte, pos []int) {
	t := k.t
	w := t.BitWidth()
	for i, p := range pos {
		switch {
		case k.total:
			var b [1]uint64
			loadBits(b[:], src, t, p)
			keys[i] = uint64(totalOrderKey(b[0], w))
		case k.kind == keyFloat:
			var f [1]float64
			loadFloats(f[:], src, t, p)
			if k.reverse {
				f[0] = -f[0]
			}
			keys[i] = math.Float64bits(f[0])
		default:
			var x [1]int64
			loadInts(x[:], src, t, p)
			switch {
			case k.kind == keySigned:
				x[0] = signExtend(x[0], w)
			case w < 64:
				x[0] &= 1<<w - 1
			}
			keys[i] = uint64(x[0])
		}
		if k.reverse && k.kind != keyFloat {
			keys[i] = ^keys[i]
		}
	}
}

// mergeSort is the evaluator's bottom-up stable merge sort of 0..n-1 by
// less(a, b), using idx and buf (n entries each); it returns the sorted
// permutation (one of the two).
func mergeSort(idx, buf []int, less func(a, b int) bool) []int {
	n := len(idx)
	for i := range idx {
		idx[i] = i
	}
	for width := 1; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			i, j, o := lo, mid, lo
			for i < mid && j < hi {
				if less(idx[j], idx[i]) {
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

// mergeSortKeys is mergeSort with less = keys[a] < keys[b] for keys of type K
// (the same merges, so the same permutation).
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

// sortStep sorts every slice of its operands along one dimension.
type sortStep struct {
	n         int
	ins, outs []loc
	es        []int
	count     int // slices
	length    int // elements per slice
	stride    int // element step along the dimension
	inner     int // elements of the dimensions after it
	keys      *sortKeys
	cmp       *scalarFunc
	cmpRegs   int
	area      loc // pos, idx, buf, keys: length entries of 8 bytes each (in the arena)
}

func buildSort(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	n := len(v.Args)
	if n == 0 || n > maxVariadic || len(v.Funcs) != 1 {
		return nil, nil
	}
	dims := v.Args[0].Shape.Dims
	s := &sortStep{n: n, outs: c.leaves(k.Out)}
	ts := make([]ir.ElementType, n)
	for i, a := range v.Args {
		b := inputBuffer(k, a)
		if b == nil || !denseArray(a.Shape) || !slices.Equal(a.Shape.Dims, dims) {
			return nil, nil
		}
		s.ins = append(s.ins, c.loc(b))
		s.es = append(s.es, a.Shape.Elem.ByteSize())
		ts[i] = a.Shape.Elem
	}
	if len(s.outs) != n {
		return nil, nil
	}
	for i, os := range leafShapes(v.Shape) {
		if !denseArray(os) || os.Elem != ts[i] || !slices.Equal(os.Dims, dims) {
			return nil, nil
		}
	}
	f := v.Funcs[0]
	if len(f.Params) != 2*n {
		return nil, nil
	}
	for i, prm := range f.Params {
		if !prm.Shape.IsScalar() || prm.Shape.Elem != ts[i/2] {
			return nil, nil
		}
	}
	if len(dims) == 0 {
		s.count, s.length = 1, 1
	} else {
		d := len(dims) - 1
		if len(v.Attrs.Dimensions) > 0 {
			d = v.Attrs.Dimensions[0]
		}
		if d < 0 || d >= len(dims) {
			return nil, nil
		}
		s.length = dims[d]
		s.inner = prod(dims[d+1:])
		s.stride = s.inner
		s.count = prod(dims) / max(dims[d], 1)
	}
	var sp scratchPlan
	if keys, ok := keyedComparator(f, ts); ok {
		s.keys = keys
	} else {
		fn := compileScalarFunc(f)
		if fn == nil || len(fn.results) != 1 || fn.resultT[0] != ir.PRED {
			return nil, nil
		}
		s.cmp = fn
		s.cmpRegs = sp.take(fn.size())
	}
	s.area = privateArena(p, 4*max(s.length, 1)*8)
	sp.reserve(p)
	return s, nil
}

func (s *sortStep) name() string { return "sort" }

func (s *sortStep) exec(fr *frame) error {
	var ins, outs [maxVariadic][]byte
	for i := 0; i < s.n; i++ {
		ins[i], outs[i] = fr.bytes(s.ins[i]), fr.bytes(s.outs[i])
		copy(outs[i], ins[i])
	}
	L := s.length
	if L <= 1 {
		return nil
	}
	area := fr.bytes(s.area)
	pos := elems[int](area[:L*8])[:L]
	idx := elems[int](area[L*8 : 2*L*8])[:L]
	buf := elems[int](area[2*L*8 : 3*L*8])[:L]
	keyBytes := area[3*L*8 : 4*L*8]
	keys := elems[uint64](keyBytes)
	var regs []byte
	if s.cmp != nil {
		regs = fr.scratch[0][s.cmpRegs:]
		s.cmp.loadConsts(regs)
	}
	less := func(a, b int) bool {
		for k := 0; k < s.n; k++ {
			s.cmp.load(regs, 2*k, ins[k], pos[a])
			s.cmp.load(regs, 2*k+1, ins[k], pos[b])
		}
		s.cmp.run(regs)
		return s.cmp.truth(regs, 0)
	}
	for sl := 0; sl < s.count; sl++ {
		base := sl/s.inner*L*s.inner + sl%s.inner
		for i := range pos {
			pos[i] = base + i*s.stride
		}
		var perm []int
		switch {
		case s.cmp != nil:
			perm = mergeSort(idx, buf, less)
		case s.keys.kind == keyFloat:
			s.keys.load(keys, ins[s.keys.operand], pos)
			perm = mergeSortKeys(idx, buf, elems[float64](keyBytes))
		case s.keys.kind == keySigned:
			s.keys.load(keys, ins[s.keys.operand], pos)
			perm = mergeSortKeys(idx, buf, elems[int64](keyBytes))
		default:
			s.keys.load(keys, ins[s.keys.operand], pos)
			perm = mergeSortKeys(idx, buf, keys)
		}
		for k := 0; k < s.n; k++ {
			permuteElems(outs[k], ins[k], s.es[k], pos, perm)
		}
	}
	return nil
}

// permuteElems writes dst[pos[i]] = src[pos[perm[i]]] for elements of es
// bytes.
func permuteElems(dst, src []byte, es int, pos, perm []int) {
	switch es {
	case 1:
		for i, p := range perm {
			dst[pos[i]] = src[pos[p]]
		}
	case 2:
		d, x := elems[uint16](dst), elems[uint16](src)
		for i, p := range perm {
			d[pos[i]] = x[pos[p]]
		}
	case 4:
		d, x := elems[uint32](dst), elems[uint32](src)
		for i, p := range perm {
			d[pos[i]] = x[pos[p]]
		}
	case 8:
		d, x := elems[uint64](dst), elems[uint64](src)
		for i, p := range perm {
			d[pos[i]] = x[pos[p]]
		}
	case 16:
		d, x := elems[[2]uint64](dst), elems[[2]uint64](src)
		for i, p := range perm {
			d[pos[i]] = x[pos[p]]
		}
	}
}

// topKStep writes, per row of the last dimension, the k first elements in
// rank order and their indices.
type topKStep struct {
	in, vals, idxs loc
	t              ir.ElementType
	keys           sortKeys
	rows, n, k     int
	area           loc
}

func buildTopK(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	x := v.Args[0].Shape
	b := inputBuffer(k, v.Args[0])
	outs := c.leaves(k.Out)
	if b == nil || !denseArray(x) || x.Rank() == 0 || len(outs) != 2 {
		return nil, nil
	}
	t := x.Elem
	n, kk := x.Dims[x.Rank()-1], v.Attrs.K
	if kk < 0 || kk > n {
		return nil, nil
	}
	s := &topKStep{in: c.loc(b), vals: outs[0], idxs: outs[1], t: t, rows: prod(x.Dims[:x.Rank()-1]), n: n, k: kk}
	s.keys = sortKeys{t: t, reverse: v.Attrs.Largest}
	switch {
	case t.IsFloat():
		s.keys.kind, s.keys.total = keySigned, true
	case t.IsSigned():
		s.keys.kind = keySigned
	case t.IsUnsigned() || t == ir.PRED:
		s.keys.kind = keyUnsigned
	default:
		return nil, nil
	}
	s.area = privateArena(p, 4*max(n, 1)*8)
	return s, nil
}

func (s *topKStep) name() string { return "topk" }

func (s *topKStep) exec(fr *frame) error {
	if s.k == 0 || s.rows == 0 {
		return nil
	}
	src, vals, ids := fr.bytes(s.in), fr.bytes(s.vals), elems[int32](fr.bytes(s.idxs))
	n := s.n
	area := fr.bytes(s.area)
	pos := elems[int](area[:n*8])[:n]
	idx := elems[int](area[n*8 : 2*n*8])[:n]
	buf := elems[int](area[2*n*8 : 3*n*8])[:n]
	keyBytes := area[3*n*8 : 4*n*8]
	keys := elems[uint64](keyBytes)
	es := s.t.ByteSize()
	for r := 0; r < s.rows; r++ {
		base := r * n
		for i := range pos {
			pos[i] = base + i
		}
		s.keys.load(keys, src, pos)
		var perm []int
		if s.keys.kind == keySigned {
			perm = mergeSortKeys(idx, buf, elems[int64](keyBytes))
		} else {
			perm = mergeSortKeys(idx, buf, keys)
		}
		for j := 0; j < s.k; j++ {
			o := r*s.k + j
			copy(vals[o*es:(o+1)*es], src[(base+perm[j])*es:(base+perm[j]+1)*es])
			ids[o] = int32(perm[j])
		}
	}
	return nil
}
