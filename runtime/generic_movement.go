package runtime

// Data movement for every element type: transpose, broadcast, slice,
// reverse, pad, concatenate, iota, dynamic-slice, dynamic-update-slice, and
// the layout-changing copy, reshape and bitcast. They never look at element
// values, only at element sizes (1, 2, 4, 8 or 16 bytes), and all reduce to
// one strided block copy whose dimensions and strides are fixed at compile
// time (only dynamic start offsets are computed per run).

import (
	"slices"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	genericSteps[ssa.OpTranspose] = buildTranspose
	genericSteps[ssa.OpBroadcast] = buildBroadcast
	genericSteps[ssa.OpSlice] = buildSlice
	genericSteps[ssa.Op(ir.OpReverse)] = buildReverse
	genericSteps[ssa.OpPad] = buildPad
	genericSteps[ssa.OpConcatenate] = buildConcatenate
	genericSteps[ssa.OpIota] = buildIota
	genericSteps[ssa.Op(ir.OpDynamicSlice)] = buildDynamicSlice
	genericSteps[ssa.Op(ir.OpDynamicUpdateSlice)] = buildDynamicUpdateSlice
	genericSteps[ssa.OpCopy] = buildLayoutCopy
	genericSteps[ssa.OpReshape] = buildLayoutReshape
	genericSteps[ssa.OpBitcast] = buildBitcast
	genericSteps[ssa.Op(ir.OpGetDimensionSize)] = buildGetDimensionSize
}

// strided is a block copy: block index b reads source element
// srcBase + Σ b[d]·src[d] and writes destination element dstBase + Σ b[d]·dst[d].
type strided struct {
	es       int // element bytes
	dims     []int
	dst, src []int
	dstBase  int
	srcBase  int
}

// newStrided builds a block copy, merging dimensions both sides walk
// contiguously and dropping dimensions of size 1, so the innermost run is as
// long as possible.
func newStrided(es int, dims, dst, src []int, dstBase, srcBase int) strided {
	s := strided{es: es, dstBase: dstBase, srcBase: srcBase}
	for d, n := range dims {
		if n == 0 {
			return strided{es: es, dims: []int{0}, dst: []int{0}, src: []int{0}}
		}
		if n == 1 {
			continue
		}
		if k := len(s.dims) - 1; k >= 0 && s.dst[k] == dst[d]*n && s.src[k] == src[d]*n {
			s.dims[k] *= n
			s.dst[k], s.src[k] = dst[d], src[d]
			continue
		}
		s.dims = append(s.dims, n)
		s.dst = append(s.dst, dst[d])
		s.src = append(s.src, src[d])
	}
	return s
}

func (s *strided) count() int { return prod(s.dims) }

// run copies from src to dst, with extra element offsets added to both bases.
func (s *strided) run(dst, src []byte, dstOff, srcOff int) {
	db, sb := s.dstBase+dstOff, s.srcBase+srcOff
	switch s.es {
	case 1:
		stridedCopy(dst, src, s.dims, s.dst, s.src, db, sb)
	case 2:
		stridedCopy(elems[uint16](dst), elems[uint16](src), s.dims, s.dst, s.src, db, sb)
	case 4:
		stridedCopy(elems[uint32](dst), elems[uint32](src), s.dims, s.dst, s.src, db, sb)
	case 8:
		stridedCopy(elems[uint64](dst), elems[uint64](src), s.dims, s.dst, s.src, db, sb)
	case 16:
		stridedCopy(elems[[2]uint64](dst), elems[[2]uint64](src), s.dims, s.dst, s.src, db, sb)
	}
}

// stridedCopy walks the block in row-major order, the innermost dimension
// as one run (a copy when both sides are contiguous, a fill when the source
// repeats one element).
func stridedCopy[T any](dst, src []T, dims, ds, ss []int, db, sb int) {
	rank := len(dims)
	if rank == 0 {
		dst[db] = src[sb]
		return
	}
	for _, n := range dims {
		if n == 0 {
			return
		}
	}
	inner := dims[rank-1]
	di, si := ds[rank-1], ss[rank-1]
	var idx [maxGenericRank]int
	d, s := db, sb
	for {
		switch {
		case di == 1 && si == 1:
			copy(dst[d:d+inner], src[s:s+inner])
		case di == 1 && si == 0:
			v := src[s]
			row := dst[d : d+inner]
			for j := range row {
				row[j] = v
			}
		default:
			for j, dj, sj := 0, d, s; j < inner; j, dj, sj = j+1, dj+di, sj+si {
				dst[dj] = src[sj]
			}
		}
		k := rank - 2
		for ; k >= 0; k-- {
			idx[k]++
			d += ds[k]
			s += ss[k]
			if idx[k] < dims[k] {
				break
			}
			d -= dims[k] * ds[k]
			s -= dims[k] * ss[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// movementStep is a movement op that is one block copy from its operand.
type movementStep struct {
	op      string
	in, out loc
	copy    strided
}

func (s *movementStep) name() string { return s.op }

func (s *movementStep) exec(fr *frame) error {
	s.copy.run(fr.bytes(s.out), fr.bytes(s.in), 0, 0)
	return nil
}

// singleOperand resolves a one-operand movement op whose operand and result
// are dense arrays.
func singleOperand(c *compiler, k *sched.Kernel) (in loc, x ir.Shape, ok bool) {
	v := k.Root
	if len(v.Args) < 1 || !plainLayout(v.Shape) || !plainLayout(v.Args[0].Shape) || v.Args[0].Shape.Elem != v.Shape.Elem {
		return loc{}, ir.Shape{}, false
	}
	b := inputBuffer(k, v.Args[0])
	if b == nil {
		return loc{}, ir.Shape{}, false
	}
	return c.loc(b), v.Args[0].Shape, true
}

func buildTranspose(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	in, x, ok := singleOperand(c, k)
	perm := v.Attrs.Dimensions
	if !ok || len(perm) != x.Rank() {
		return nil, nil
	}
	xs := x.Strides()
	dims := make([]int, len(perm))
	src := make([]int, len(perm))
	for i, d := range perm {
		dims[i], src[i] = x.Dims[d], xs[d]
	}
	if !slices.Equal(dims, v.Shape.Dims) {
		return nil, nil
	}
	return &movementStep{op: "transpose", in: in, out: c.loc(k.Out),
		copy: newStrided(x.Elem.ByteSize(), dims, v.Shape.Strides(), src, 0, 0)}, nil
}

func buildBroadcast(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	in, x, ok := singleOperand(c, k)
	if !ok || len(v.Attrs.Dimensions) != x.Rank() {
		return nil, nil
	}
	dims := v.Shape.Dims
	xs := x.Strides()
	src := make([]int, len(dims))
	for i, d := range v.Attrs.Dimensions {
		switch {
		case d < 0 || d >= len(dims):
			return nil, nil
		case x.Dims[i] == dims[d]:
			src[d] = xs[i]
		case x.Dims[i] != 1:
			return nil, nil
		}
	}
	return &movementStep{op: "broadcast", in: in, out: c.loc(k.Out),
		copy: newStrided(x.Elem.ByteSize(), dims, v.Shape.Strides(), src, 0, 0)}, nil
}

func buildSlice(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	in, x, ok := singleOperand(c, k)
	if !ok || len(v.Attrs.Slice) != x.Rank() {
		return nil, nil
	}
	xs := x.Strides()
	src := make([]int, x.Rank())
	base := 0
	for i, sd := range v.Attrs.Slice {
		if sd.Stride < 1 || sd.Start < 0 || sd.Limit > x.Dims[i] || (sd.Limit-sd.Start+sd.Stride-1)/sd.Stride != max(v.Shape.Dims[i], 0) {
			return nil, nil
		}
		src[i] = xs[i] * sd.Stride
		if v.Shape.Dims[i] > 0 {
			base += sd.Start * xs[i]
		}
	}
	dims := v.Shape.Dims
	return &movementStep{op: "slice", in: in, out: c.loc(k.Out),
		copy: newStrided(x.Elem.ByteSize(), dims, v.Shape.Strides(), src, 0, base)}, nil
}

func buildReverse(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	in, x, ok := singleOperand(c, k)
	if !ok || !slices.Equal(x.Dims, v.Shape.Dims) {
		return nil, nil
	}
	src := x.Strides()
	base := 0
	for _, d := range v.Attrs.Dimensions {
		if d < 0 || d >= x.Rank() || src[d] < 0 {
			return nil, nil
		}
		base += (x.Dims[d] - 1) * src[d]
		src[d] = -src[d]
	}
	if x.ElementCount() == 0 {
		base = 0
	}
	dims := x.Dims
	return &movementStep{op: "reverse", in: in, out: c.loc(k.Out),
		copy: newStrided(x.Elem.ByteSize(), dims, v.Shape.Strides(), src, 0, base)}, nil
}

// padStep fills the output with the padding value, then copies the part of
// the operand that lands inside it (negative padding cuts it).
type padStep struct {
	in, value, out loc
	es             int
	copy           strided
	empty          bool // nothing of the operand survives
}

func buildPad(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	in, x, ok := singleOperand(c, k)
	vb := inputBuffer(k, v.Args[1])
	if !ok || vb == nil || !v.Args[1].Shape.IsScalar() || v.Args[1].Shape.Elem != x.Elem || len(v.Attrs.Padding) != x.Rank() {
		return nil, nil
	}
	dims := v.Shape.Dims
	xd := x.Dims
	os, xs := v.Shape.Strides(), x.Strides()
	block := make([]int, len(xd))
	dst := make([]int, len(xd))
	s := &padStep{in: in, value: c.loc(vb), out: c.loc(k.Out), es: x.Elem.ByteSize()}
	dstBase, srcBase := 0, 0
	for i, pd := range v.Attrs.Padding {
		if pd.Interior < 0 {
			return nil, nil
		}
		n := xd[i]
		if n > 0 {
			n += (n - 1) * pd.Interior
		}
		if pd.Low+n+pd.High != dims[i] {
			return nil, nil
		}
		step := pd.Interior + 1
		lo := 0
		if pd.Low < 0 {
			lo = (-pd.Low + step - 1) / step
		}
		hi := xd[i]
		if last := dims[i] - 1 - pd.Low; last < 0 {
			hi = 0
		} else {
			hi = min(hi, last/step+1)
		}
		if hi <= lo {
			s.empty = true
			continue
		}
		block[i] = hi - lo
		dst[i] = os[i] * step
		dstBase += (pd.Low + lo*step) * os[i]
		srcBase += lo * xs[i]
	}
	if !s.empty {
		s.copy = newStrided(s.es, block, dst, xs, dstBase, srcBase)
	}
	return s, nil
}

func (s *padStep) name() string { return "pad" }

func (s *padStep) exec(fr *frame) error {
	out := fr.bytes(s.out)
	fillElements(out, fr.bytes(s.value)[:s.es])
	if !s.empty {
		s.copy.run(out, fr.bytes(s.in), 0, 0)
	}
	return nil
}

// fillElements repeats the element val over dst.
func fillElements(dst, val []byte) {
	if len(dst) == 0 {
		return
	}
	switch len(val) {
	case 1:
		v := val[0]
		for i := range dst {
			dst[i] = v
		}
	case 2:
		fillT(elems[uint16](dst), elems[uint16](val)[0])
	case 4:
		fillT(elems[uint32](dst), elems[uint32](val)[0])
	case 8:
		fillT(elems[uint64](dst), elems[uint64](val)[0])
	default:
		n := copy(dst, val)
		for n < len(dst) {
			n += copy(dst[n:], dst[:n])
		}
	}
}

func fillT[T any](dst []T, v T) {
	for i := range dst {
		dst[i] = v
	}
}

// concatStep copies each operand into its place along the dimension.
type concatStep struct {
	ins   []loc
	out   loc
	parts []strided
}

func buildConcatenate(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if !plainLayout(v.Shape) || len(v.Attrs.Dimensions) != 1 {
		return nil, nil
	}
	d := v.Attrs.Dimensions[0]
	dims := v.Shape.Dims
	if d < 0 || d >= len(dims) {
		return nil, nil
	}
	os := v.Shape.Strides()
	s := &concatStep{out: c.loc(k.Out)}
	offset := 0
	for _, a := range v.Args {
		b := inputBuffer(k, a)
		if b == nil || !plainLayout(a.Shape) || a.Shape.Elem != v.Shape.Elem || a.Shape.Rank() != len(dims) {
			return nil, nil
		}
		s.ins = append(s.ins, c.loc(b))
		s.parts = append(s.parts, newStrided(a.Shape.Elem.ByteSize(), a.Shape.Dims, os, a.Shape.Strides(), offset*os[d], 0))
		offset += a.Shape.Dims[d]
	}
	if offset != dims[d] {
		return nil, nil
	}
	return s, nil
}

func (s *concatStep) name() string { return "concatenate" }

func (s *concatStep) exec(fr *frame) error {
	out := fr.bytes(s.out)
	for i := range s.parts {
		s.parts[i].run(out, fr.bytes(s.ins[i]), 0, 0)
	}
	return nil
}

// iotaStep broadcasts the values 0, 1, … along the iota dimension, computed
// in the element type at compile time.
type iotaStep struct {
	out  loc
	row  []byte
	copy strided
}

func buildIota(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	s := v.Shape
	d := v.Attrs.IotaDimension
	if !plainLayout(s) || d < 0 || d >= s.Rank() {
		return nil, nil
	}
	t := s.Elem
	es := t.ByteSize()
	row := alignedBytes(max(s.Dims[d], 1) * es)
	x := alignedBytes(8)
	for i := 0; i < s.Dims[d]; i++ {
		elems[int64](x)[0] = int64(i)
		ir.ConvertElement(row[i*es:], t, x, ir.S64)
	}
	src := make([]int, s.Rank())
	src[d] = 1
	return &iotaStep{out: c.loc(k.Out), row: row, copy: newStrided(es, s.Dims, s.Strides(), src, 0, 0)}, nil
}

func (s *iotaStep) name() string { return "iota" }

func (s *iotaStep) exec(fr *frame) error {
	s.copy.run(fr.bytes(s.out), s.row, 0, 0)
	return nil
}

// startOperands reads dynamic start indices: one scalar operand per
// dimension, or a single rank-1 operand holding them all.
type startOperands struct {
	locs   []loc
	types  []ir.ElementType
	vector bool
}

func newStartOperands(c *compiler, k *sched.Kernel, args []*ssa.Value, rank int) (startOperands, bool) {
	var s startOperands
	switch {
	case len(args) == rank:
		for _, a := range args {
			if !a.Shape.IsScalar() || !a.Shape.Elem.IsInteger() {
				return s, false
			}
		}
	case len(args) == 1 && a1(args[0], rank):
		s.vector = true
	default:
		return s, false
	}
	for _, a := range args {
		b := inputBuffer(k, a)
		if b == nil {
			return s, false
		}
		s.locs = append(s.locs, c.loc(b))
		s.types = append(s.types, a.Shape.Elem)
	}
	return s, true
}

func a1(a *ssa.Value, rank int) bool {
	return a.Shape.Rank() == 1 && a.Shape.Dims[0] == rank && a.Shape.Elem.IsInteger() && denseArray(a.Shape)
}

// offset returns Σ clamp(start[d], 0, dims[d]-sizes[d])·strides[d].
func (s *startOperands) offset(fr *frame, dims, sizes, strides []int) int {
	off := 0
	for d := range dims {
		var v int64
		if s.vector {
			v = indexAt(fr.bytes(s.locs[0]), s.types[0], d)
		} else {
			v = indexAt(fr.bytes(s.locs[d]), s.types[d], 0)
		}
		off += int(min(max(v, 0), int64(dims[d]-sizes[d]))) * strides[d]
	}
	return off
}

// dynamicSliceStep copies the block at the clamped start indices.
type dynamicSliceStep struct {
	in, out     loc
	starts      startOperands
	dims, sizes []int
	strides     []int
	copy        strided
}

func buildDynamicSlice(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	in, x, ok := singleOperand(c, k)
	sizes := v.Attrs.DynamicSliceSizes
	if !ok || len(sizes) != x.Rank() || !slices.Equal(sizes, v.Shape.Dims) {
		return nil, nil
	}
	for i, n := range sizes {
		if n < 0 || n > x.Dims[i] {
			return nil, nil
		}
	}
	starts, ok := newStartOperands(c, k, v.Args[1:], x.Rank())
	if !ok {
		return nil, nil
	}
	xs := x.Strides()
	return &dynamicSliceStep{in: in, out: c.loc(k.Out), starts: starts, dims: x.Dims, sizes: sizes, strides: xs,
		copy: newStrided(x.Elem.ByteSize(), sizes, v.Shape.Strides(), xs, 0, 0)}, nil
}

func (s *dynamicSliceStep) name() string { return "dynamic-slice" }

func (s *dynamicSliceStep) exec(fr *frame) error {
	if s.copy.count() == 0 {
		return nil
	}
	off := s.starts.offset(fr, s.dims, s.sizes, s.strides)
	s.copy.run(fr.bytes(s.out), fr.bytes(s.in), 0, off)
	return nil
}

// dynamicUpdateSliceStep copies the operand, then the update over it at the
// clamped start indices.
type dynamicUpdateSliceStep struct {
	in, update, out loc
	starts          startOperands
	dims, sizes     []int
	strides         []int
	copy            strided
}

func buildDynamicUpdateSlice(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	in, x, ok := singleOperand(c, k)
	if !ok || len(v.Args) < 3 || !slices.Equal(x.Dims, v.Shape.Dims) {
		return nil, nil
	}
	u := v.Args[1].Shape
	ub := inputBuffer(k, v.Args[1])
	if ub == nil || !plainLayout(u) || u.Elem != x.Elem || u.Rank() != x.Rank() || !slices.Equal(x.MinorToMajor(), v.Shape.MinorToMajor()) {
		return nil, nil
	}
	for i := range u.Dims {
		if u.Dims[i] > x.Dims[i] {
			return nil, nil
		}
	}
	starts, ok := newStartOperands(c, k, v.Args[2:], x.Rank())
	if !ok {
		return nil, nil
	}
	xs := x.Strides()
	return &dynamicUpdateSliceStep{in: in, update: c.loc(ub), out: c.loc(k.Out), starts: starts, dims: x.Dims, sizes: u.Dims,
		strides: xs, copy: newStrided(x.Elem.ByteSize(), u.Dims, xs, u.Strides(), 0, 0)}, nil
}

func (s *dynamicUpdateSliceStep) name() string { return "dynamic-update-slice" }

func (s *dynamicUpdateSliceStep) exec(fr *frame) error {
	out := fr.bytes(s.out)
	copy(out, fr.bytes(s.in))
	if s.copy.count() == 0 {
		return nil
	}
	off := s.starts.offset(fr, s.dims, s.sizes, s.strides)
	s.copy.run(out, fr.bytes(s.update), off, 0)
	return nil
}

// plainLayout reports whether s is a static array whose layout is at most a
// dimension order (no tiles, padding or sub-byte packing), so its elements
// sit at s.Strides() positions.
func plainLayout(s ir.Shape) bool {
	if !s.IsArray() || !s.IsStatic() || s.Rank() > maxGenericRank {
		return false
	}
	l := s.Layout
	return l == nil || (l.Tiles == nil && l.PaddedDims == nil && (l.ElementSizeBits == 0 || l.ElementSizeBits == 8*s.Elem.ByteSize()) &&
		(len(l.MinorToMajor) == s.Rank() || len(l.MinorToMajor) == 0))
}

// buildLayoutCopy is a copy between layouts: each element moves from its
// physical position under the operand's layout to its position under the
// result's.
func buildLayoutCopy(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	x := v.Args[0].Shape
	b := inputBuffer(k, v.Args[0])
	if b == nil || !plainLayout(x) || !plainLayout(v.Shape) || x.Elem != v.Shape.Elem || !slices.Equal(x.Dims, v.Shape.Dims) {
		return nil, nil
	}
	return &movementStep{op: "copy", in: c.loc(b), out: c.loc(k.Out),
		copy: newStrided(x.Elem.ByteSize(), x.Dims, v.Shape.Strides(), x.Strides(), 0, 0)}, nil
}

// relayoutStep is a reshape under layouts: the elements keep their
// row-major (logical) order, each read from its physical position under the
// operand's layout and written to its position under the result's. Two
// counters walk the two index spaces in step.
type relayoutStep struct {
	in, out        loc
	es, n          int
	xDims, xStride []int
	rDims, rStride []int
}

func buildLayoutReshape(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	x := v.Args[0].Shape
	b := inputBuffer(k, v.Args[0])
	if b == nil || !plainLayout(x) || !plainLayout(v.Shape) || x.Elem != v.Shape.Elem || x.ElementCount() != v.Shape.ElementCount() {
		return nil, nil
	}
	return &relayoutStep{in: c.loc(b), out: c.loc(k.Out), es: x.Elem.ByteSize(), n: x.ElementCount(),
		xDims: x.Dims, xStride: x.Strides(), rDims: v.Shape.Dims, rStride: v.Shape.Strides()}, nil
}

func (s *relayoutStep) name() string { return "reshape" }

func (s *relayoutStep) exec(fr *frame) error {
	src, dst := fr.bytes(s.in), fr.bytes(s.out)
	var xi, ri [maxGenericRank]int
	xp, rp := 0, 0
	es := s.es
	for i := 0; i < s.n; i++ {
		copy(dst[rp*es:rp*es+es], src[xp*es:xp*es+es])
		xp = advance(s.xDims, s.xStride, xi[:len(s.xDims)], xp)
		rp = advance(s.rDims, s.rStride, ri[:len(s.rDims)], rp)
	}
	return nil
}

// advance moves a row-major counter over dims one step, returning the
// position updated through strides.
func advance(dims, strides, idx []int, pos int) int {
	for d := len(dims) - 1; d >= 0; d-- {
		idx[d]++
		pos += strides[d]
		if idx[d] < dims[d] {
			return pos
		}
		pos -= dims[d] * strides[d]
		idx[d] = 0
	}
	return pos
}

// bitcastStep copies the operand's bytes: a bitcast reinterprets the
// physical storage, whatever the two layouts.
type bitcastStep struct{ in, out loc }

func buildBitcast(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	x := v.Args[0].Shape
	b := inputBuffer(k, v.Args[0])
	if b == nil || !plainLayout(x) || !plainLayout(v.Shape) || x.Elem != v.Shape.Elem || x.ByteSize() != v.Shape.ByteSize() {
		return nil, nil
	}
	return &bitcastStep{in: c.loc(b), out: c.loc(k.Out)}, nil
}

func (s *bitcastStep) name() string { return "bitcast" }

func (s *bitcastStep) exec(fr *frame) error {
	copy(fr.bytes(s.out), fr.bytes(s.in))
	return nil
}

// constStep writes bytes fixed at compile time.
type constStep struct {
	out  loc
	data []byte
	op   string
}

func buildGetDimensionSize(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	x := v.Args[0].Shape
	if !x.IsArray() || !x.IsStatic() || len(v.Attrs.Dimensions) != 1 || v.Shape.Elem != ir.S32 || !v.Shape.IsScalar() {
		return nil, nil
	}
	d := v.Attrs.Dimensions[0]
	if d < 0 || d >= x.Rank() {
		return nil, nil
	}
	return &constStep{out: c.loc(k.Out), data: ir.ScalarLiteral(int32(x.Dims[d])).Bytes(), op: "get-dimension-size"}, nil
}

func (s *constStep) name() string { return s.op }

func (s *constStep) exec(fr *frame) error {
	copy(fr.bytes(s.out), s.data)
	return nil
}
