package runtime

// Data movement for every element type: transpose, broadcast, slice,
// reverse, pad, concatenate, iota, dynamic-slice, dynamic-update-slice as
// ir/ops plans them (one strided block copy whose dimensions and strides
// are fixed at compile time; only dynamic start offsets are computed per
// run), and the copies that see layouts: copy, reshape and bitcast between
// buffers of different physical orders.

import (
	"slices"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
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

// movementStep is a movement op that is one block copy from its operand.
type movementStep struct {
	op      string
	in, out loc
	copy    ops.Strided
}

func (s *movementStep) name() string { return s.op }

func (s *movementStep) exec(fr *frame) error {
	if s.copy.Count() > 0 {
		s.copy.RunUntil(fr.cancel, fr.bytes(s.out), fr.bytes(s.in), 0, 0)
	}
	return nil
}

// singleOperand resolves the array operand of a one-operand movement op.
func singleOperand(c *compiler, k *sched.Kernel) (loc, ir.Shape, error) {
	v := k.Root
	if len(v.Args) < 1 {
		return loc{}, ir.Shape{}, errorf("%v has no operand", v.Op)
	}
	x := v.Args[0].Shape
	b := inputBuffer(k, v.Args[0])
	if b == nil || !denseArray(x) || !denseArray(v.Shape) {
		return loc{}, ir.Shape{}, errorf("%v of %v to %v: expected dense arrays with buffers", v.Op, x, v.Shape)
	}
	if x.Elem != v.Shape.Elem {
		return loc{}, ir.Shape{}, errorf("%v of %v to %v: the element types differ", v.Op, x, v.Shape)
	}
	return c.loc(b), x, nil
}

// checkOutDims reports a plan whose output dimensions differ from v's.
func checkOutDims(v *ssa.Value, dims []int) error {
	if !slices.Equal(dims, v.Shape.Dims) {
		return errorf("%v computes dimensions %v, the value has %v", v.Op, dims, v.Shape.Dims)
	}
	return nil
}

func buildTranspose(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	in, x, err := singleOperand(c, k)
	if err != nil {
		return nil, err
	}
	cp, dims, err := ops.Transpose(x.Elem.ByteSize(), x.Dims, v.Attrs.Dimensions)
	if err == nil {
		err = checkOutDims(v, dims)
	}
	if err != nil {
		return nil, err
	}
	return &movementStep{op: "transpose", in: in, out: c.loc(k.Out), copy: cp}, nil
}

func buildBroadcast(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	in, x, err := singleOperand(c, k)
	if err != nil {
		return nil, err
	}
	cp, err := ops.Broadcast(x.Elem.ByteSize(), x.Dims, v.Shape.Dims, v.Attrs.Dimensions)
	if err != nil {
		return nil, err
	}
	return &movementStep{op: "broadcast", in: in, out: c.loc(k.Out), copy: cp}, nil
}

func buildSlice(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	in, x, err := singleOperand(c, k)
	if err != nil {
		return nil, err
	}
	cp, dims, err := ops.Slice(x.Elem.ByteSize(), x.Dims, v.Attrs.Slice)
	if err == nil {
		err = checkOutDims(v, dims)
	}
	if err != nil {
		return nil, err
	}
	return &movementStep{op: "slice", in: in, out: c.loc(k.Out), copy: cp}, nil
}

func buildReverse(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	in, x, err := singleOperand(c, k)
	if err != nil {
		return nil, err
	}
	cp, err := ops.Reverse(x.Elem.ByteSize(), x.Dims, v.Attrs.Dimensions)
	if err == nil {
		err = checkOutDims(v, x.Dims)
	}
	if err != nil {
		return nil, err
	}
	return &movementStep{op: "reverse", in: in, out: c.loc(k.Out), copy: cp}, nil
}

// padStep pads the operand with the padding value.
type padStep struct {
	in, value, out loc
	plan           *ops.PadPlan
	t, xt, vt      ir.ElementType // result, operand and padding value types
	work           loc            // converted padding value (16 bytes), then operand
}

func buildPad(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(v.Args) != 2 {
		return nil, errorf("pad has %d operands, expected 2", len(v.Args))
	}
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	x, pv, t := v.Args[0].Shape, v.Args[1].Shape, v.Shape.Elem
	if !pv.IsScalar() {
		return nil, errorf("padding value has shape %v, expected a scalar", pv)
	}
	// The operand and the padding value may have other types than the
	// result: both are converted to the result's.
	for _, from := range []ir.ElementType{x.Elem, pv.Elem} {
		if err := ops.CheckConvert(from, t); err != nil {
			return nil, err
		}
	}
	plan, err := ops.Pad(t.ByteSize(), x.Dims, v.Attrs.Padding)
	if err == nil {
		err = checkOutDims(v, plan.OutDims)
	}
	if err != nil {
		return nil, err
	}
	s := &padStep{in: locs[0], value: locs[1], out: c.loc(k.Out), plan: plan, t: t, xt: x.Elem, vt: pv.Elem}
	if x.Elem != t || pv.Elem != t {
		s.work = privateArena(p, 16+x.WithElem(t).ByteSize())
	}
	return s, nil
}

func (s *padStep) name() string { return "pad" }

func (s *padStep) exec(fr *frame) error {
	x, value := fr.bytes(s.in), fr.bytes(s.value)
	if s.work.size > 0 {
		work := fr.bytes(s.work)
		ops.Convert(work[:16], s.t, value, s.vt, 1)
		value = work[:16]
		if s.xt != s.t {
			ops.Convert(work[16:], s.t, x, s.xt, len(x)/s.xt.ByteSize())
			x = work[16:]
		}
	}
	s.plan.Run(fr.bytes(s.out), x, value)
	return nil
}

// concatStep copies each operand into its place along the dimension.
type concatStep struct {
	ins   []loc
	out   loc
	parts []ops.Strided
}

func buildConcatenate(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if len(v.Attrs.Dimensions) != 1 {
		return nil, errorf("concatenate has dimensions=%v, expected one", v.Attrs.Dimensions)
	}
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	dims := make([][]int, len(v.Args))
	for i, a := range v.Args {
		if a.Shape.Elem != v.Shape.Elem {
			return nil, errorf("concatenate operand %d has type %v, the result %v", i, a.Shape.Elem, v.Shape.Elem)
		}
		dims[i] = a.Shape.Dims
	}
	parts, out, err := ops.Concatenate(v.Shape.Elem.ByteSize(), dims, v.Attrs.Dimensions[0])
	if err == nil {
		err = checkOutDims(v, out)
	}
	if err != nil {
		return nil, err
	}
	return &concatStep{ins: locs, out: c.loc(k.Out), parts: parts}, nil
}

func (s *concatStep) name() string { return "concatenate" }

func (s *concatStep) exec(fr *frame) error {
	out := fr.bytes(s.out)
	for i := range s.parts {
		if s.parts[i].Count() > 0 {
			s.parts[i].Run(out, fr.bytes(s.ins[i]), 0, 0)
		}
	}
	return nil
}

// iotaStep broadcasts the values 0, 1, … along the iota dimension, computed
// in the element type at compile time.
type iotaStep struct {
	out  loc
	row  []byte
	copy ops.Strided
}

func buildIota(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	if !denseArray(v.Shape) {
		return nil, errorf("iota of shape %v", v.Shape)
	}
	cp, row, err := ops.Iota(v.Shape.Elem, v.Shape.Dims, v.Attrs.IotaDimension)
	if err != nil {
		return nil, err
	}
	return &iotaStep{out: c.loc(k.Out), row: row, copy: cp}, nil
}

func (s *iotaStep) name() string { return "iota" }

func (s *iotaStep) exec(fr *frame) error {
	if s.copy.Count() > 0 {
		s.copy.Run(fr.bytes(s.out), s.row, 0, 0)
	}
	return nil
}

// dynamicSliceStep copies the block at the clamped start indices.
type dynamicSliceStep struct {
	in, out loc
	starts  []loc
	plan    *ops.DynamicSlicePlan
}

func buildDynamicSlice(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	in, x, err := singleOperand(c, k)
	if err != nil {
		return nil, err
	}
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	plan, err := ops.DynamicSlice(x.Elem.ByteSize(), x.Dims, v.Attrs.DynamicSliceSizes, argShapes(v)[1:])
	if err == nil {
		err = checkOutDims(v, v.Attrs.DynamicSliceSizes)
	}
	if err != nil {
		return nil, err
	}
	if len(locs)-1 > ops.MaxRank {
		return nil, errorf("dynamic-slice with %d start indices", len(locs)-1)
	}
	return &dynamicSliceStep{in: in, out: c.loc(k.Out), starts: locs[1:], plan: plan}, nil
}

func (s *dynamicSliceStep) name() string { return "dynamic-slice" }

func (s *dynamicSliceStep) exec(fr *frame) error {
	var buf [ops.MaxRank][]byte
	s.plan.Run(fr.bytes(s.out), fr.bytes(s.in), bytesOf(fr, buf[:], s.starts))
	return nil
}

// dynamicUpdateSliceStep copies the operand, then the update over it at the
// clamped start indices.
type dynamicUpdateSliceStep struct {
	in, update, out loc
	starts          []loc
	plan            *ops.DynamicUpdateSlicePlan
}

func buildDynamicUpdateSlice(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	in, x, err := singleOperand(c, k)
	if err != nil {
		return nil, err
	}
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	if len(v.Args) < 2 || v.Args[1].Shape.Elem != x.Elem {
		return nil, errorf("dynamic-update-slice needs an update of the operand's type %v", x.Elem)
	}
	plan, err := ops.DynamicUpdateSlice(x.Elem.ByteSize(), x.Dims, v.Args[1].Shape.Dims, argShapes(v)[2:])
	if err == nil {
		err = checkOutDims(v, x.Dims)
	}
	if err != nil {
		return nil, err
	}
	if len(locs)-2 > ops.MaxRank {
		return nil, errorf("dynamic-update-slice with %d start indices", len(locs)-2)
	}
	return &dynamicUpdateSliceStep{in: in, update: locs[1], out: c.loc(k.Out), starts: locs[2:], plan: plan}, nil
}

func (s *dynamicUpdateSliceStep) name() string { return "dynamic-update-slice" }

func (s *dynamicUpdateSliceStep) exec(fr *frame) error {
	var buf [ops.MaxRank][]byte
	s.plan.Run(fr.bytes(s.out), fr.bytes(s.in), fr.bytes(s.update), bytesOf(fr, buf[:], s.starts))
	return nil
}

// plainLayout reports whether s is a static array whose layout is at most a
// dimension order (no tiles, padding or sub-byte packing), so its elements
// sit at s.Strides() positions.
func plainLayout(s ir.Shape) bool {
	if !s.IsArray() || !s.IsStatic() || s.Rank() > ops.MaxRank {
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
		return nil, errorf("copy of %v to %v: expected equal dimensions and types under plain layouts", x, v.Shape)
	}
	return &movementStep{op: "copy", in: c.loc(b), out: c.loc(k.Out),
		copy: ops.NewStrided(x.Elem.ByteSize(), x.Dims, v.Shape.Strides(), x.Strides(), 0, 0)}, nil
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
		return nil, errorf("reshape of %v to %v: expected equal element counts and types under plain layouts", x, v.Shape)
	}
	return &relayoutStep{in: c.loc(b), out: c.loc(k.Out), es: x.Elem.ByteSize(), n: x.ElementCount(),
		xDims: x.Dims, xStride: x.Strides(), rDims: v.Shape.Dims, rStride: v.Shape.Strides()}, nil
}

func (s *relayoutStep) name() string { return "reshape" }

func (s *relayoutStep) exec(fr *frame) error {
	src, dst := fr.bytes(s.in), fr.bytes(s.out)
	var xi, ri [ops.MaxRank]int
	xp, rp := 0, 0
	es := s.es
	for i := 0; i < s.n; i++ {
		copy(dst[rp*es:rp*es+es], src[xp*es:xp*es+es])
		xp = ops.Advance(s.xDims, s.xStride, xi[:len(s.xDims)], xp)
		rp = ops.Advance(s.rDims, s.rStride, ri[:len(s.rDims)], rp)
	}
	return nil
}

// bitcastStep copies the operand's bytes: a bitcast reinterprets the
// physical storage, whatever the two layouts.
type bitcastStep struct{ in, out loc }

func buildBitcast(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	x := v.Args[0].Shape
	b := inputBuffer(k, v.Args[0])
	if b == nil || !plainLayout(x) || !plainLayout(v.Shape) || x.Elem != v.Shape.Elem || x.ByteSize() != v.Shape.ByteSize() {
		return nil, errorf("bitcast of %v to %v: expected equal sizes and types under plain layouts", x, v.Shape)
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
	if !x.IsArray() || len(v.Attrs.Dimensions) != 1 || v.Shape.Elem != ir.S32 || !v.Shape.IsScalar() {
		return nil, errorf("get-dimension-size of %v with dimensions=%v to %v", x, v.Attrs.Dimensions, v.Shape)
	}
	d := v.Attrs.Dimensions[0]
	if d < 0 || d >= x.Rank() {
		return nil, errorf("get-dimension-size: dimension %d is out of range for rank %d", d, x.Rank())
	}
	return &constStep{out: c.loc(k.Out), data: ir.ScalarLiteral(int32(x.Dims[d])).Bytes(), op: "get-dimension-size"}, nil
}

func (s *constStep) name() string { return s.op }

func (s *constStep) exec(fr *frame) error {
	copy(fr.bytes(s.out), s.data)
	return nil
}
