package runtime

// Arrays with bounded dynamic dimensions (seed 002) in a program that
// keeps its dynamic marks: one whose run-time sizes are not all multiples
// of its parameters' (set-dimension-size, dynamic-reshape,
// get-dimension-size; dynamic_sizes.go follows the others through the fast
// steps). Their buffers are sized for the bounds; a value's elements are
// stored densely in row-major order of its actual sizes, which live in a
// slot of the program's arena (one int64 per dimension) that the step
// producing the value writes, or follow the parameters' sizes where the
// size table has them. A kernel touching such arrays runs value by value:
// at run time each value's actual sizes are computed from its operands'
// (as ir/ops defines them), and its generic step is planned for those
// sizes and run on the buffers' valid regions. These steps plan at run
// time, so they allocate.

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() {
	genericSteps[ssa.Op(ir.OpSetDimensionSize)] = buildSetDimensionSize
	genericSteps[ssa.Op(ir.OpDynamicReshape)] = buildDynamicReshape
}

// dynamicShape reports whether s (or a leaf of it) has a dynamic dimension.
func dynamicShape(s ir.Shape) bool {
	for _, l := range leafShapes(s) {
		if l.IsArray() && l.IsDynamic() {
			return true
		}
	}
	return false
}

// dynamicKernel reports whether a kernel reads or computes an array with a
// dynamic dimension.
func dynamicKernel(k *sched.Kernel) bool {
	for _, v := range k.Values {
		if dynamicShape(v.Shape) {
			return true
		}
	}
	for _, v := range k.Inputs {
		if dynamicShape(v.Shape) {
			return true
		}
	}
	return false
}

// dimsSlot returns the arena slot holding the actual dimensions of leaf i
// of value v (rank int64s), reserving it in p on first use.
func (c *compiler) dimsSlot(p *program, v *ssa.Value, i int) loc {
	if c.dims == nil {
		c.dims = map[dimsKey]loc{}
	}
	key := leafOwner(v, i)
	if l, ok := c.dims[key]; ok {
		return l
	}
	l := privateArena(p, max(leafShapes(v.Shape)[i].Rank(), 1)*8)
	c.dims[key] = l
	return l
}

// dimsKey names one array leaf of a value.
type dimsKey struct {
	v    *ssa.Value
	leaf int
}

// leafOwner follows tuples and get-tuple-element (which only alias their
// operands' buffers) to the value that computes leaf i of v.
func leafOwner(v *ssa.Value, i int) dimsKey {
	for {
		switch v.Op {
		case ssa.OpGetTupleElement:
			t := v.Args[0]
			for _, e := range t.Shape.Tuple[:v.Attrs.TupleIndex] {
				i += len(leafShapes(e))
			}
			v = t
			continue
		case ssa.OpTuple:
			for _, a := range v.Args {
				n := len(leafShapes(a.Shape))
				if i < n {
					v = a
					break
				}
				i -= n
			}
			continue
		}
		return dimsKey{v, i}
	}
}

// dynamicValue is one value of a dynamic step: where its operands and
// results live and how to plan it.
type dynamicValue struct {
	v       *ssa.Value
	args    []dynamicArg
	outs    []loc // result leaves
	outDims []loc // their dims slots (dynamic leaves only; size 0 otherwise)
}

// dynamicArg is an operand: its leaves' buffers and, for dynamic leaves,
// their dims slots, or their sizes when they follow the parameters'.
type dynamicArg struct {
	v      *ssa.Value
	leaves []loc
	dims   []loc
	sizes  []leafSizes
}

// dynamicStep runs the values of a kernel one by one on their actual sizes.
type dynamicStep struct {
	c      *compiler
	values []dynamicValue
}

func (c *compiler) dynamicStep(plan *sched.Plan, k *sched.Kernel, p *program) (step, error) {
	switch k.Kind {
	case sched.While, sched.Conditional:
		return nil, fmt.Errorf("%v with operands or results of dynamic shape is not supported by the compiled path", k.Root.Op)
	}
	where := map[*ssa.Value][]loc{}
	for i, v := range k.Inputs {
		where[v] = c.leaves(k.In[i])
	}
	s := &dynamicStep{c: c}
	for _, v := range k.Values {
		var outs []loc
		if v == k.Root {
			outs = c.leaves(k.Out)
		} else {
			outs = c.leaves(arenaBuffer(p, v.Shape))
		}
		dv := dynamicValue{v: v, outs: outs}
		for i, l := range leafShapes(v.Shape) {
			var slot loc
			if l.IsArray() && l.IsDynamic() && !c.followed(v) {
				slot = c.dimsSlot(p, v, i)
			}
			dv.outDims = append(dv.outDims, slot)
		}
		for _, a := range v.Args {
			leaves, ok := where[a]
			if !ok {
				return nil, fmt.Errorf("%v: operand %v has no buffer", v.Op, a)
			}
			da := dynamicArg{v: a, leaves: leaves}
			if c.followed(a) {
				da.sizes = c.sizes.sizesOf(a)
			}
			for i, l := range leafShapes(a.Shape) {
				var slot loc
				if l.IsArray() && l.IsDynamic() && da.sizes == nil {
					if producedOutside(a) {
						return nil, fmt.Errorf("%v: operand %v of dynamic shape %v comes from another computation; the compiled path follows run-time sizes into loops and branches only where they are multiples of an entry parameter's", v.Op, a, a.Shape)
					}
					slot = c.dimsSlot(p, a, i)
				}
				da.dims = append(da.dims, slot)
			}
			dv.args = append(dv.args, da)
		}
		where[v] = outs
		s.values = append(s.values, dv)
	}
	return s, nil
}

// producedOutside reports whether a value's actual sizes come from outside
// the computation (a parameter).
func producedOutside(v *ssa.Value) bool { return v.Op == ssa.OpParameter }

// followed reports whether v's sizes follow the entry parameters' (the
// size table has them).
func (c *compiler) followed(v *ssa.Value) bool { return c.sizes != nil && c.sizes.isDynamic(v) }

func (s *dynamicStep) name() string { return "dynamic" }

func (s *dynamicStep) exec(fr *frame) error {
	for i := range s.values {
		if err := s.run(fr, &s.values[i]); err != nil {
			return err
		}
	}
	return nil
}

// run plans value dv for its operands' actual sizes and runs it.
func (s *dynamicStep) run(fr *frame, dv *dynamicValue) error {
	v := dv.v
	// The operands as static values of their actual shapes.
	stub := &ssa.Value{ID: v.ID, Op: v.Op, Attrs: v.Attrs, Aux: v.Aux, Funcs: v.Funcs, Name: v.Name, Raw: v.Raw, Func: v.Func}
	k := &sched.Kernel{Kind: sched.Generic, Root: stub, Values: []*ssa.Value{stub}}
	var argData [][]byte
	for _, a := range dv.args {
		shape, leaves, err := actualShape(fr, a.v.Shape, a.leaves, a.dims, a.sizes)
		if err != nil {
			return err
		}
		av := &ssa.Value{ID: a.v.ID, Op: ssa.OpParameter, Shape: shape}
		stub.Args = append(stub.Args, av)
		if indexOf(k.Inputs, av) < 0 {
			b, err := viewBuffer(shape, leaves)
			if err != nil {
				return err
			}
			k.Inputs = append(k.Inputs, av)
			k.In = append(k.In, b)
		}
		argData = append(argData, leaves[0])
	}
	out, err := actualDims(v, stub.Args, argData)
	if err != nil {
		return fmt.Errorf("%v: %w", v.Op, err)
	}
	stub.Shape = out
	if v.Op == ssa.OpSlice {
		// The slice of the valid region (its limits cut at the actual sizes).
		stub.Attrs.Slice = ops.ValidSlice(v.Attrs.Slice, withDynamic(stub.Args[0].Shape, v.Args[0].Shape))
	}
	var outLeaves [][]byte
	for i, l := range leafShapes(out) {
		b := fr.bytes(dv.outs[i])
		if l.IsArray() {
			b = b[:l.ByteSize()]
		}
		outLeaves = append(outLeaves, b)
	}
	if k.Out, err = viewBuffer(out, outLeaves); err != nil {
		return err
	}
	build, ok := genericSteps[v.Op]
	if !ok {
		return fmt.Errorf("op %q on arrays of dynamic shape is not supported by the compiled path", v.Op)
	}
	p := &program{workers: s.c.cfg.threads}
	st, err := build(s.c, k, p)
	if err != nil {
		return fmt.Errorf("%v: %w", v.Op, err)
	}
	tmp := &frame{ctx: fr.ctx, arena: alignedBytes(p.arena), scratch: make([][]byte, max(p.workers, 1))}
	for i := range tmp.scratch {
		tmp.scratch[i] = alignedBytes(p.scratch)
	}
	if err := st.exec(tmp); err != nil {
		return err
	}
	for i, l := range leafShapes(out) {
		if slot := dv.outDims[i]; slot.size > 0 {
			d := ops.Elems[int64](fr.bytes(slot))
			for j, n := range l.Dims {
				d[j] = int64(n)
			}
		}
	}
	return nil
}

// actualShape is the static shape of a value of (bounded) shape s whose
// dynamic leaves have the sizes in their dims slots, and its leaves'
// memory cut to those sizes.
func actualShape(fr *frame, s ir.Shape, leaves, dims []loc, sizes []leafSizes) (ir.Shape, [][]byte, error) {
	shapes := leafShapes(s)
	var mem [][]byte
	actual := make([]ir.Shape, len(shapes))
	for i, l := range shapes {
		actual[i] = l.Clone()
		b := fr.bytes(leaves[i])
		if sizes != nil && l.IsArray() {
			sizes[i].eval(fr.sizes.syms, actual[i].Dims)
		} else if dims[i].size > 0 {
			d := ops.Elems[int64](fr.bytes(dims[i]))
			for j := range actual[i].Dims {
				if d[j] < 0 || d[j] > int64(l.Dims[j]) {
					return ir.Shape{}, nil, fmt.Errorf("dynamic size %d of dimension %d is outside its bound %d", d[j], j, l.Dims[j])
				}
				actual[i].Dims[j] = int(d[j])
			}
		}
		actual[i].Dynamic = nil
		if actual[i].IsArray() {
			b = b[:actual[i].ByteSize()]
		}
		mem = append(mem, b)
	}
	if !s.IsTuple() {
		return actual[0], mem, nil
	}
	return rebuildTuple(s, &actual), mem, nil
}

// rebuildTuple rebuilds tuple shape s from its leaves (consumed in order).
func rebuildTuple(s ir.Shape, leaves *[]ir.Shape) ir.Shape {
	if !s.IsTuple() {
		l := (*leaves)[0]
		*leaves = (*leaves)[1:]
		return l
	}
	var elems []ir.Shape
	for _, e := range s.Tuple {
		elems = append(elems, rebuildTuple(e, leaves))
	}
	return ir.MakeTuple(elems...)
}

// viewBuffer is a buffer of shape s over the given memory of its leaves
// (constant buffers whose literals view the memory).
func viewBuffer(s ir.Shape, leaves [][]byte) (*sched.Buffer, error) {
	if s.IsTuple() {
		b := &sched.Buffer{Kind: sched.Tuple, Shape: s}
		rest := leaves
		for _, e := range s.Tuple {
			n := len(leafShapes(e))
			eb, err := viewBuffer(e, rest[:n])
			if err != nil {
				return nil, err
			}
			b.Elems = append(b.Elems, eb)
			rest = rest[n:]
		}
		return b, nil
	}
	if !s.IsArray() {
		return &sched.Buffer{Kind: sched.Constant, Shape: s, Literal: ir.NewTokenLiteral()}, nil
	}
	l, err := ir.NewLiteralView(s, leaves[0])
	if err != nil {
		return nil, err
	}
	return &sched.Buffer{Kind: sched.Constant, Shape: s, Literal: l}, nil
}

// actualDims is the static shape value v computes from operands of the
// static shapes args (their actual sizes), whose first leaves hold argData:
// v's declared shape with its dynamic dimensions at their actual sizes.
func actualDims(v *ssa.Value, args []*ssa.Value, argData [][]byte) (ir.Shape, error) {
	out := v.Shape.Clone()
	shapes := make([]ir.Shape, len(args))
	for i, a := range args {
		shapes[i] = a.Shape
	}
	set := func(dims []int) (ir.Shape, error) {
		for _, l := range leafShapes(out) {
			if !l.IsArray() {
				continue
			}
			for j, d := range dims {
				if j >= len(l.Dims) || d > l.Dims[j] || (!l.IsDynamicDim(j) && d != l.Dims[j]) {
					return ir.Shape{}, fmt.Errorf("computes dimensions %v, beyond the declared %v", dims, l)
				}
			}
		}
		return withDims(out, dims), nil
	}
	op, _ := v.Op.IR()
	switch {
	case op == ir.OpSetDimensionSize:
		if len(v.Attrs.Dimensions) != 1 || len(args) != 2 || shapes[1].Elem != ir.S32 || !shapes[1].IsScalar() {
			return ir.Shape{}, fmt.Errorf("set-dimension-size needs an s32 size and one dimension")
		}
		d := v.Attrs.Dimensions[0]
		if d < 0 || d >= out.Rank() {
			return ir.Shape{}, fmt.Errorf("dimension %d is out of range for rank %d", d, out.Rank())
		}
		dims, err := ops.SetDimensionSize(shapes[0].Dims, d, int(ops.Elems[int32](argData[1])[0]), out.Dims[d])
		if err != nil {
			return ir.Shape{}, err
		}
		return set(dims)
	case op == ir.OpDynamicReshape:
		var sizes [][]byte
		var types []ir.ElementType
		for i := 1; i < len(args); i++ {
			sizes, types = append(sizes, argData[i]), append(types, shapes[i].Elem)
		}
		dims, err := ops.DynamicReshapeDims(shapes[0].ElementCount(), sizes, types, v.Shape)
		if err != nil {
			return ir.Shape{}, err
		}
		return set(dims)
	case op == ir.OpReshape:
		inferred := -1
		for _, a := range v.Raw {
			if a.Name == "inferred_dimension" {
				n, err := strconv.Atoi(a.Value)
				if err != nil {
					return ir.Shape{}, fmt.Errorf("inferred_dimension=%s is not an integer", a.Value)
				}
				inferred = n
			}
		}
		dims, err := ops.ReshapeDims(v.Args[0].Shape.Dims, shapes[0].Dims, v.Shape, inferred)
		if err != nil {
			return ir.Shape{}, err
		}
		return set(dims)
	case !v.Shape.IsDynamic() && !v.Shape.IsTuple():
		return out, nil
	case v.Op.IsElementwise() || op == ir.OpCopy || op == ir.OpReverse || op == ir.OpSort || op == ir.OpScatter ||
		op == ir.OpMap || op == ir.OpReducePrecision || op == ir.OpOptimizationBarrier:
		for _, s := range shapes {
			if s.IsArray() && s.Rank() > 0 {
				return set(s.Dims)
			}
		}
		return out, nil
	case op == ir.OpTranspose:
		dims := make([]int, len(v.Attrs.Dimensions))
		for i, d := range v.Attrs.Dimensions {
			dims[i] = shapes[0].Dims[d]
		}
		return set(dims)
	case op == ir.OpBroadcast:
		return set(ops.BroadcastDims(v.Shape, v.Attrs.Dimensions, shapes[0].Dims))
	case op == ir.OpSlice:
		_, dims, err := ops.Slice(1, shapes[0].Dims, ops.ValidSlice(v.Attrs.Slice, withDynamic(shapes[0], v.Args[0].Shape)))
		if err != nil {
			return ir.Shape{}, err
		}
		return set(dims)
	case op == ir.OpPad:
		p, err := ops.Pad(1, shapes[0].Dims, v.Attrs.Padding)
		if err != nil {
			return ir.Shape{}, err
		}
		return set(p.OutDims)
	case op == ir.OpConcatenate:
		var dims [][]int
		for _, s := range shapes {
			dims = append(dims, s.Dims)
		}
		if len(v.Attrs.Dimensions) != 1 {
			return ir.Shape{}, fmt.Errorf("concatenate has dimensions=%v", v.Attrs.Dimensions)
		}
		_, out, err := ops.Concatenate(1, dims, v.Attrs.Dimensions[0])
		if err != nil {
			return ir.Shape{}, err
		}
		return set(out)
	case op == ir.OpReduce:
		var kept []int
		for d, n := range shapes[0].Dims {
			if !slices.Contains(v.Attrs.Dimensions, d) {
				kept = append(kept, n)
			}
		}
		return set(kept)
	case op == ir.OpDot:
		p, err := ops.NewDot(shapes[0].Elem, shapes[0].Dims, shapes[1].Elem, shapes[1].Dims, v.Attrs.DotDims, v.Shape.Elem)
		if err != nil {
			return ir.Shape{}, err
		}
		return set(p.OutDims)
	case op == ir.OpReduceWindow:
		if v.Attrs.Window == nil || len(shapes) == 0 {
			return ir.Shape{}, fmt.Errorf("reduce-window without a window")
		}
		s, err := ir.InferWindowOutputShape(shapes[0], *v.Attrs.Window, shapes[0].Elem)
		if err != nil {
			return ir.Shape{}, err
		}
		return set(s.Dims)
	case op == ir.OpConvolution:
		w := ir.Window{}
		if v.Attrs.Window != nil {
			w = *v.Attrs.Window
		}
		cd := v.Attrs.ConvDims
		if cd == nil || len(shapes) != 2 {
			return ir.Shape{}, fmt.Errorf("convolution without dimension numbers")
		}
		s, err := ir.InferConvolutionShape(shapes[0], shapes[1], max(v.Attrs.FeatureGroupCount, 1), max(v.Attrs.BatchGroupCount, 1), w, *cd, v.Shape.Elem)
		if err != nil {
			return ir.Shape{}, err
		}
		return set(s.Dims)
	case op == ir.OpGather:
		p, err := ops.NewGather(shapes[0].Elem.ByteSize(), shapes[0].Dims, shapes[1].Elem, shapes[1].Dims, v.Attrs.GatherDims, v.Attrs.GatherSliceSizes)
		if err != nil {
			return ir.Shape{}, err
		}
		return set(p.OutDims)
	}
	return ir.Shape{}, fmt.Errorf("op %q on arrays of dynamic shape is not supported by the compiled path", v.Op)
}

// withDims is shape s (or every leaf of it) with dimensions dims and no
// dynamic marks.
func withDims(s ir.Shape, dims []int) ir.Shape {
	if s.IsTuple() {
		var elems []ir.Shape
		for _, e := range s.Tuple {
			elems = append(elems, withDims(e, dims))
		}
		return ir.MakeTuple(elems...)
	}
	out := s.Clone()
	if out.IsArray() {
		out.Dims, out.Dynamic = append([]int{}, dims...), nil
	}
	return out
}

// withDynamic is the actual shape a with the dynamic marks of its bounded
// shape b.
func withDynamic(a, b ir.Shape) ir.Shape {
	out := a.Clone()
	out.Dynamic = b.Dynamic
	return out
}

// buildSetDimensionSize copies the leading elements of the operand along
// the dimension (zeros past the operand's own size).
func buildSetDimensionSize(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	if len(v.Attrs.Dimensions) != 1 || !denseArray(v.Shape) {
		return nil, errorf("set-dimension-size with dimensions=%v to %v", v.Attrs.Dimensions, v.Shape)
	}
	x := v.Args[0].Shape
	return &prefixStep{in: locs[0], out: c.loc(k.Out), es: x.Elem.ByteSize(), dims: x.Dims, outDims: v.Shape.Dims, d: v.Attrs.Dimensions[0]}, nil
}

type prefixStep struct {
	in, out       loc
	es            int
	dims, outDims []int
	d             int
}

func (s *prefixStep) name() string { return "set-dimension-size" }

func (s *prefixStep) exec(fr *frame) error {
	ops.CopyPrefix(fr.bytes(s.out), fr.bytes(s.in), s.es, s.dims, s.outDims, s.d)
	return nil
}

// buildDynamicReshape copies the operand's elements: dynamic-reshape keeps
// their row-major order.
func buildDynamicReshape(c *compiler, k *sched.Kernel, p *program) (step, error) {
	v := k.Root
	locs, err := argLocs(c, k)
	if err != nil {
		return nil, err
	}
	if !denseArray(v.Shape) || v.Shape.ByteSize() != v.Args[0].Shape.ByteSize() {
		return nil, errorf("dynamic-reshape of %v to %v", v.Args[0].Shape, v.Shape)
	}
	return &bitcastStep{in: locs[0], out: c.loc(k.Out)}, nil
}

// resultDims returns, for each result leaf of the entry plan, the dims
// slot of its actual sizes (size 0 for a static leaf).
func (c *compiler) resultDims(plan *sched.Plan) []loc {
	root := plan.Func.Root
	out := make([]loc, len(plan.Results))
	for i := range out {
		if i < len(leafShapes(root.Shape)) {
			out[i] = c.dims[leafOwner(root, i)]
		}
	}
	return out
}

// setResultDims gives each dynamic result tensor its actual sizes.
func setResultDims(fr *frame, slots []loc, outs []*Tensor, bounds []ir.Shape) {
	for i, l := range slots {
		if l.size == 0 || i >= len(outs) {
			continue
		}
		d := ops.Elems[int64](fr.bytes(l))
		s := bounds[i].Clone()
		for j := range s.Dims {
			s.Dims[j] = int(d[j])
		}
		outs[i].shape = s
		outs[i].data = outs[i].data[:s.ByteSize()]
	}
}
