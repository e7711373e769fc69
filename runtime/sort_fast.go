package runtime

// Sorts whose comparator is a standard ordering (sort_comparator.go) run on
// the row radix sorts: the key operand is sorted with the row indices as
// its payload, and every other operand is gathered by them. A sort whose
// results are only ever read through slices of their first k elements
// along the sorted dimension, k small, selects those k (the top-k
// selection in the sort's order) instead of sorting. The top-k op runs on
// the same selection.

import (
	kiln "github.com/kilnml/kiln"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

// radixSortStep sorts rows of a key operand and gathers the others.
type radixSortStep struct {
	ord   sortOrdering
	keyT  ir.ElementType
	ins   []loc
	outs  []loc
	sizes []int // element sizes of the operands
	rows  int
	n     int
	idx   loc // int32 positions: [rows, n], or [rows, topK]
	topK  int // > 0: only the first topK elements of each row are read
	// A sort along a dimension other than the last (non-unit) one: lines
	// of n elements inner apart, in outer blocks; each block is transposed
	// into lines (work) and back.
	outer, inner int
	work         loc
	// lex: the keys of a lexicographic comparator, most significant first
	// (ord is the first); the lines are sorted by each key in turn, least
	// significant first, the positions carried along (stable sorts), and
	// every operand gathered by them. tmp holds one key's lines.
	lex   []sortOrdering
	types []ir.ElementType
	tmp   loc
}

// fastSortStep compiles a sort with a standard comparator, or returns nil.
func (c *compiler) fastSortStep(plan *sched.Plan, k *sched.Kernel, p *program) step {
	v := k.Root
	if len(k.Values) != 1 || v.Op != ssa.OpSort || len(v.Args) == 0 || len(v.Args) > maxVariadic || len(v.Funcs) != 1 {
		return nil
	}
	dims := v.Args[0].Shape.Dims
	for _, a := range v.Args {
		if !denseArray(a.Shape) || !sameDims(a.Shape.Dims, dims) {
			return nil
		}
	}
	if len(dims) == 0 {
		return nil
	}
	d := len(dims) - 1
	if len(v.Attrs.Dimensions) > 0 {
		d = v.Attrs.Dimensions[0]
	}
	ord, ok := c.recogniseComparator(v.Funcs[0], argTypes(v.Args))
	var lex []sortOrdering
	if !ok {
		if lex, ok = c.recogniseLexicographic(v.Funcs[0], argTypes(v.Args)); !ok {
			return nil
		}
		ord = lex[0]
	}
	outs := c.leaves(k.Out)
	if len(outs) != len(v.Args) {
		return nil
	}
	s := &radixSortStep{ord: ord, keyT: v.Args[ord.key].Shape.Elem, outs: outs, n: dims[d], lex: lex, types: argTypes(v.Args)}
	s.rows = prod(dims) / max(s.n, 1)
	s.outer, s.inner = prod(dims[:d]), prod(dims[d+1:])
	if lex != nil {
		lines := s.rows
		if s.inner > 1 {
			lines = s.inner
		}
		s.tmp = privateArena(p, 4*lines*s.n)
	}
	for i, a := range v.Args {
		s.ins = append(s.ins, c.loc(inputBuffer(k, a)))
		s.sizes = append(s.sizes, a.Shape.Elem.ByteSize())
		if sameLoc(s.ins[i], outs[i]) {
			return nil
		}
	}
	if s.inner > 1 {
		// One block's lines of every operand, and the payloads' gathered
		// lines.
		bytes := 0
		for i, es := range s.sizes {
			bytes += s.n * s.inner * es
			if i != ord.key || lex != nil {
				bytes += s.n * s.inner * es
			}
		}
		s.work = privateArena(p, bytes)
		s.idx = privateArena(p, 4*s.inner*s.n)
		return s
	}
	if lex != nil {
		s.idx = privateArena(p, 4*s.rows*s.n)
		return s
	}
	if s.keyT.IsFloat() {
		if kk := sliceOnlyPrefix(plan.Func, v, d); kk > 0 && kiln.TopKSelects(s.n, kk) {
			s.topK = kk
		}
	}
	switch {
	case s.topK > 0:
		s.idx = privateArena(p, 4*s.rows*s.topK)
	case len(v.Args) > 1:
		s.idx = privateArena(p, 4*s.rows*s.n)
	}
	return s
}

// sameLoc reports whether two locations are the same memory.
func sameLoc(a, b loc) bool {
	return a.kind == b.kind && a.index == b.index && a.off == b.off && a.kind != sched.Constant
}

// sliceOnlyPrefix returns k when every use of every result of sort v is a
// slice of at most its first k elements along dimension d (unit stride, the
// largest such k), or 0.
func sliceOnlyPrefix(f *ssa.Func, v *ssa.Value, d int) int {
	users := f.Users()
	k := 0
	var check func(x *ssa.Value) bool
	check = func(x *ssa.Value) bool {
		if x == f.Root {
			return false
		}
		us := users[x]
		if len(us) == 0 {
			return true
		}
		for _, u := range us {
			switch {
			case u.Op == ssa.OpGetTupleElement && x == v && v.Shape.IsTuple():
				if !check(u) {
					return false
				}
			case u.Op == ssa.OpSlice && len(u.Attrs.Slice) > d:
				sd := u.Attrs.Slice[d]
				if sd.Start != 0 || max(sd.Stride, 1) != 1 {
					return false
				}
				k = max(k, sd.Limit)
			default:
				return false
			}
		}
		return true
	}
	if !check(v) || k == 0 {
		return 0
	}
	return k
}

func (s *radixSortStep) kernelKind() string { return "sort" }

func (s *radixSortStep) name() string {
	if s.topK > 0 {
		return "sort-topk"
	}
	return "sort-radix"
}

func (s *radixSortStep) exec(fr *frame) error {
	total := s.rows * s.n
	if total == 0 {
		return nil
	}
	if s.inner > 1 {
		s.execStrided(fr)
		return nil
	}
	if s.lex != nil {
		var ins, outs [maxVariadic][]byte
		idx := ops.Elems[int32](fr.bytes(s.idx))[:total]
		s.lexSort(fr, bytesOf(fr, ins[:], s.ins), bytesOf(fr, outs[:], s.outs), idx, s.rows)
		return nil
	}
	key := s.ord.key
	es := s.sizes[key]
	keyIn, keyOut := fr.bytes(s.ins[key])[:total*es], fr.bytes(s.outs[key])[:total*es]
	if s.topK > 0 {
		s.selectTop(fr, keyIn, keyOut)
		return nil
	}
	var idx []int32
	if len(s.ins) > 1 {
		idx = ops.Elems[int32](fr.bytes(s.idx))[:total]
		for r := 0; r < s.rows; r++ {
			row := idx[r*s.n : (r+1)*s.n]
			for i := range row {
				row[i] = int32(i)
			}
		}
	}
	// Rows in runs of about pollElements elements, polling between runs;
	// each run's keys are copied to the result as it starts, so that they
	// are still in cache when they are sorted.
	step := max(1, pollElements/max(s.n, 1))
	for r0 := 0; r0 < s.rows; r0 += step {
		if fr.stopped() {
			return nil
		}
		r1 := min(r0+step, s.rows)
		copy(keyOut[r0*s.n*es:r1*s.n*es], keyIn[r0*s.n*es:r1*s.n*es])
		var ri []int32
		if idx != nil {
			ri = idx[r0*s.n : r1*s.n]
		}
		sortRowsOf(s.keyT, keyOut[r0*s.n*es:r1*s.n*es], ri, s.n, s.ord.order)
	}
	for j := range s.ins {
		if j != key {
			gatherRows(fr.bytes(s.outs[j]), fr.bytes(s.ins[j]), idx, s.rows, s.n, s.n, s.sizes[j])
		}
	}
	return nil
}

// execStrided sorts lines inner elements apart: block by block, every
// operand's block [n, inner] is transposed into lines [inner, n], the key's
// lines are sorted with their positions, the payloads' gathered by them,
// and all transposed back into the results.
func (s *radixSortStep) execStrided(fr *frame) {
	n, inner, key := s.n, s.inner, s.ord.key
	block := n * inner
	work := fr.bytes(s.work)
	idx := ops.Elems[int32](fr.bytes(s.idx))[:block]
	var lines, gathered [maxVariadic][]byte
	off := 0
	for j, es := range s.sizes {
		lines[j] = work[off : off+block*es]
		off += block * es
		if j != key || s.lex != nil {
			gathered[j] = work[off : off+block*es]
			off += block * es
		}
	}
	for o := 0; o < s.outer && !fr.stopped(); o++ {
		for j, es := range s.sizes {
			transposeBlock(lines[j], fr.bytes(s.ins[j])[o*block*es:(o+1)*block*es], n, inner, es)
		}
		if s.lex != nil {
			s.lexSort(fr, lines[:len(s.sizes)], gathered[:len(s.sizes)], idx, inner)
			for j, es := range s.sizes {
				transposeBlock(fr.bytes(s.outs[j])[o*block*es:(o+1)*block*es], gathered[j], inner, n, es)
			}
			continue
		}
		for r := 0; r < inner; r++ {
			row := idx[r*n : (r+1)*n]
			for i := range row {
				row[i] = int32(i)
			}
		}
		sortRowsOf(s.keyT, lines[key], idx, n, s.ord.order)
		for j, es := range s.sizes {
			src := lines[j]
			if j != key {
				gatherRows(gathered[j], lines[j], idx, inner, n, n, es)
				src = gathered[j]
			}
			transposeBlock(fr.bytes(s.outs[j])[o*block*es:(o+1)*block*es], src, inner, n, es)
		}
	}
}

// lexSort sorts lines of n elements of the operands ins (lines of each,
// contiguous) into outs by the keys of s.lex: positions idx start in order
// and are carried through a stable sort of each key's lines, gathered in
// the current order, from the least significant key to the most; every
// operand is then gathered by them.
func (s *radixSortStep) lexSort(fr *frame, ins, outs [][]byte, idx []int32, lines int) {
	n := s.n
	idx = idx[:lines*n]
	for r := 0; r < lines; r++ {
		row := idx[r*n : (r+1)*n]
		for i := range row {
			row[i] = int32(i)
		}
	}
	tmp := fr.bytes(s.tmp)
	for k := len(s.lex) - 1; k >= 0 && !fr.stopped(); k-- {
		o := s.lex[k]
		es := s.sizes[o.key]
		keys := tmp[:lines*n*es]
		gatherRows(keys, ins[o.key], idx, lines, n, n, es)
		sortRowsOf(s.types[o.key], keys, idx, n, o.order)
	}
	for j, es := range s.sizes {
		gatherRows(outs[j], ins[j], idx, lines, n, n, es)
	}
}

// transposeBlock writes the transpose of src ([rows, cols], elements of es
// bytes) to dst ([cols, rows]).
func transposeBlock(dst, src []byte, rows, cols, es int) {
	switch es {
	case 2:
		transposeOf(ops.Elems[uint16](dst), ops.Elems[uint16](src), rows, cols)
	case 4:
		transposeOf(ops.Elems[uint32](dst), ops.Elems[uint32](src), rows, cols)
	case 8:
		transposeOf(ops.Elems[uint64](dst), ops.Elems[uint64](src), rows, cols)
	case 1:
		transposeOf(dst, src, rows, cols)
	default:
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				copy(dst[(c*rows+r)*es:(c*rows+r+1)*es], src[(r*cols+c)*es:(r*cols+c+1)*es])
			}
		}
	}
}

// transposeOf is transposeBlock over typed elements.
func transposeOf[T any](dst, src []T, rows, cols int) {
	dst, src = dst[:rows*cols], src[:rows*cols]
	for r := 0; r < rows; r++ {
		row := src[r*cols : (r+1)*cols]
		for c, x := range row {
			dst[c*rows+r] = x
		}
	}
}

// selectTop writes the first topK elements of each row, in the sort's
// order, and gathers the other operands' first topK by their positions.
func (s *radixSortStep) selectTop(fr *frame, keyIn, keyOut []byte) {
	k, n := s.topK, s.n
	idx := ops.Elems[int32](fr.bytes(s.idx))[:s.rows*k]
	for r := 0; r < s.rows && !fr.stopped(); r++ {
		ri := idx[r*k : (r+1)*k]
		switch s.keyT {
		case ir.F32:
			x, o := ops.Elems[float32](keyIn), ops.Elems[float32](keyOut)
			kiln.TopKOrderF32(o[r*n:r*n+k], ri, x[r*n:(r+1)*n], n, k, s.ord.order)
		case ir.BF16:
			x, o := ops.Elems[uint16](keyIn), ops.Elems[uint16](keyOut)
			kiln.TopKOrderBF16(o[r*n:r*n+k], ri, x[r*n:(r+1)*n], n, k, s.ord.order)
		default:
			x, o := ops.Elems[uint16](keyIn), ops.Elems[uint16](keyOut)
			kiln.TopKOrderF16(o[r*n:r*n+k], ri, x[r*n:(r+1)*n], n, k, s.ord.order)
		}
	}
	for j := range s.ins {
		if j != s.ord.key {
			gatherRows(fr.bytes(s.outs[j]), fr.bytes(s.ins[j]), idx, s.rows, n, k, s.sizes[j])
		}
	}
}

// sortRowsOf sorts rows of n keys of type t in place, idx (when not nil)
// with them.
func sortRowsOf(t ir.ElementType, keys []byte, idx []int32, n int, order kiln.SortOrder) {
	switch t {
	case ir.F32:
		kiln.SortF32(ops.Elems[float32](keys), idx, n, order)
	case ir.BF16:
		kiln.SortBF16(ops.Elems[uint16](keys), idx, n, order)
	case ir.F16:
		kiln.SortF16(ops.Elems[uint16](keys), idx, n, order)
	case ir.S32:
		kiln.SortS32(ops.Elems[int32](keys), idx, n, order)
	case ir.U32:
		kiln.SortU32(ops.Elems[uint32](keys), idx, n, order)
	case ir.S16:
		kiln.SortS16(ops.Elems[int16](keys), idx, n, order)
	case ir.U16:
		kiln.SortU16(ops.Elems[uint16](keys), idx, n, order)
	}
}

// gatherRows sets the first k elements of each row of dst ([rows, n],
// elements of es bytes) to the elements of src's row at the positions idx
// holds ([rows, k]).
func gatherRows(dst, src []byte, idx []int32, rows, n, k, es int) {
	for r := 0; r < rows; r++ {
		ri := idx[r*k : (r+1)*k]
		base := r * n
		switch es {
		case 1:
			d, x := dst[base:base+k], src[base:base+n]
			for i, p := range ri {
				d[i] = x[p]
			}
		case 2:
			d, x := ops.Elems[uint16](dst)[base:base+k], ops.Elems[uint16](src)[base:base+n]
			for i, p := range ri {
				d[i] = x[p]
			}
		case 4:
			d, x := ops.Elems[uint32](dst)[base:base+k], ops.Elems[uint32](src)[base:base+n]
			for i, p := range ri {
				d[i] = x[p]
			}
		case 8:
			d, x := ops.Elems[uint64](dst)[base:base+k], ops.Elems[uint64](src)[base:base+n]
			for i, p := range ri {
				d[i] = x[p]
			}
		default:
			for i, p := range ri {
				copy(dst[(base+i)*es:(base+i+1)*es], src[(base+int(p))*es:(base+int(p)+1)*es])
			}
		}
	}
}

// fastTopKStep is the top-k op of float32, bfloat16 or binary16 rows on
// the selection kernels, or on the row sort where k is too large for a
// selection.
type fastTopKStep struct {
	t          ir.ElementType
	in         loc
	vals, idxs loc
	rows, n, k int
	largest    bool
	work       loc // sorted keys and positions of one row, for a large k
}

func (c *compiler) fastTopKStep(k *sched.Kernel, p *program) step {
	v := k.Root
	if len(k.Values) != 1 || v.Op != ssa.Op(ir.OpTopK) || len(v.Args) != 1 || !denseArray(v.Args[0].Shape) {
		return nil
	}
	x := v.Args[0].Shape
	if (x.Elem != ir.F32 && x.Elem != ir.BF16 && x.Elem != ir.F16) || x.Rank() == 0 {
		return nil
	}
	outs := c.leaves(k.Out)
	n, kk := x.Dims[x.Rank()-1], v.Attrs.K
	if len(outs) != 2 || kk < 0 || kk > n {
		return nil
	}
	s := &fastTopKStep{t: x.Elem, in: c.loc(inputBuffer(k, v.Args[0])), vals: outs[0], idxs: outs[1],
		n: n, k: kk, largest: v.Attrs.Largest}
	s.rows = x.ElementCount() / max(n, 1)
	if !kiln.TopKSelects(n, kk) {
		s.work = privateArena(p, n*(x.Elem.ByteSize()+4))
	}
	return s
}

func (s *fastTopKStep) name() string       { return "topk-select" }
func (s *fastTopKStep) kernelKind() string { return "top-k" }

func (s *fastTopKStep) exec(fr *frame) error {
	if s.k == 0 || s.rows == 0 {
		return nil
	}
	es := s.t.ByteSize()
	x := fr.bytes(s.in)[:s.rows*s.n*es]
	vals := fr.bytes(s.vals)[:s.rows*s.k*es]
	idx := ops.Elems[int32](fr.bytes(s.idxs))[:s.rows*s.k]
	if kiln.TopKSelects(s.n, s.k) {
		switch s.t {
		case ir.F32:
			kiln.TopKF32(ops.Elems[float32](vals), idx, ops.Elems[float32](x), s.n, s.k, s.largest)
		case ir.BF16:
			kiln.TopKBF16(ops.Elems[uint16](vals), idx, ops.Elems[uint16](x), s.n, s.k, s.largest)
		default:
			kiln.TopKF16(ops.Elems[uint16](vals), idx, ops.Elems[uint16](x), s.n, s.k, s.largest)
		}
		return nil
	}
	// k too large for a selection: sort each row with its positions.
	work := fr.bytes(s.work)
	pos := ops.Elems[int32](work)[:s.n]
	keys := work[4*s.n : 4*s.n+s.n*es]
	order := kiln.SortAscending
	if s.largest {
		order = kiln.SortDescending
	}
	for r := 0; r < s.rows && !fr.stopped(); r++ {
		copy(keys, x[r*s.n*es:(r+1)*s.n*es])
		for i := range pos {
			pos[i] = int32(i)
		}
		sortRowsOf(s.t, keys, pos, s.n, order)
		copy(vals[r*s.k*es:(r+1)*s.k*es], keys[:s.k*es])
		copy(idx[r*s.k:(r+1)*s.k], pos[:s.k])
	}
	return nil
}
