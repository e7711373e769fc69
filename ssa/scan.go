package ssa

// scan lowers to a while loop, as XLA lowers it: the loop state is the
// step counter, the inputs, the carries and the stacked outputs; each
// iteration slices every input at the step's index (dynamic-slice, then a
// reshape dropping the scanned dimension), calls the scan's body on the
// slices and the carries, writes the per-step outputs at that index
// (reshape, then dynamic-update-slice) and takes the new carries. With
// is_reverse the index counts down from the end. The slicing and stacking
// are ir/ops' scan (ScanPlan), written as ops the compiler runs.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// scan lowers scan instruction in (operands args, body g) into f.
func (l *lowerer) scan(f *Func, in *ir.Instruction, args []*Value, g *Func) (*Value, error) {
	nc := in.NumCarries
	if nc < 0 || nc >= len(args) {
		return nil, fmt.Errorf("num_carries=%d for %d operands: a scan needs at least one input", nc, len(args))
	}
	if len(in.Dimensions) != 1 {
		return nil, fmt.Errorf("scan has dimensions=%v, expected one", in.Dimensions)
	}
	dim := in.Dimensions[0]
	inputs, carries := args[:len(args)-nc], args[len(args)-nc:]
	results := []ir.Shape{in.Shape}
	if in.Shape.IsTuple() {
		results = in.Shape.Tuple
	}
	nOut := len(results) - nc
	if nOut < 0 {
		return nil, fmt.Errorf("result shape %v has fewer elements than the %d carries", in.Shape, nc)
	}
	x0 := inputs[0].Shape
	if !x0.IsArray() || dim < 0 || dim >= x0.Rank() {
		return nil, fmt.Errorf("scan dimension %d is out of range for input %v", dim, x0)
	}
	steps := x0.Dims[dim]
	if steps == 0 {
		// No step runs: the outputs are empty, the carries their initial
		// values (and the body's slices, of a dimension of size 0, are
		// never taken).
		outs := make([]*Value, 0, len(results))
		for j := 0; j < nOut; j++ {
			outs = append(outs, l.zeros(f, results[j]))
		}
		outs = append(outs, carries...)
		if !in.Shape.IsTuple() {
			return outs[0], nil
		}
		return f.Append(OpTuple, in.Shape.Clone(), outs...), nil
	}
	s32 := ir.Scalar(ir.S32)
	// The loop state: counter, inputs, carries, stacked outputs.
	state := []ir.Shape{s32}
	for _, a := range inputs {
		state = append(state, a.Shape)
	}
	for _, c := range carries {
		state = append(state, c.Shape)
	}
	state = append(state, results[:nOut]...)
	stateShape := ir.MakeTuple(state...)
	constS32 := func(h *Func, v int32) *Value {
		c := h.Append(OpConstant, s32)
		c.Attrs.Literal = ir.ScalarLiteral(v)
		return c
	}
	// The condition: counter < steps.
	cond := &Func{Name: in.Name + ".scan_cond", Program: l.prog}
	cp := cond.Append(OpParameter, stateShape.Clone())
	cond.Params = []*Value{cp}
	ci := cond.Append(OpGetTupleElement, s32, cp)
	lt := cond.Append(OpCompare, ir.Scalar(ir.PRED), ci, constS32(cond, int32(steps)))
	lt.Attrs.Direction, lt.Attrs.CompareType = ir.CmpLT, ir.CmpTypeSigned
	cond.Root = lt
	// The body.
	body := &Func{Name: in.Name + ".scan_body", Program: l.prog}
	bp := body.Append(OpParameter, stateShape.Clone())
	body.Params = []*Value{bp}
	elem := func(i int) *Value {
		v := body.Append(OpGetTupleElement, state[i].Clone(), bp)
		v.Attrs.TupleIndex = i
		return v
	}
	counter := elem(0)
	index := counter
	if in.IsReverse {
		index = body.Append(OpSubtract, s32, constS32(body, int32(steps-1)), counter)
	}
	zero := constS32(body, 0)
	starts := func(rank int) []*Value {
		out := make([]*Value, rank)
		for d := range out {
			out[d] = zero
			if d == dim {
				out[d] = index
			}
		}
		return out
	}
	var callArgs []*Value
	for j, a := range inputs {
		x := elem(1 + j)
		sizes := append([]int{}, a.Shape.Dims...)
		sizes[dim] = 1
		ds := body.Append(Op(ir.OpDynamicSlice), ir.Shape{Elem: a.Shape.Elem, Dims: sizes}, append([]*Value{x}, starts(len(sizes))...)...)
		ds.Attrs.DynamicSliceSizes = sizes
		slice := append(append([]int{}, sizes[:dim]...), sizes[dim+1:]...)
		callArgs = append(callArgs, body.Append(OpReshape, ir.MakeShape(a.Shape.Elem, slice...), ds))
	}
	for j := range carries {
		callArgs = append(callArgs, elem(1+len(inputs)+j))
	}
	call := body.Append(OpCall, g.Root.Shape.Clone(), callArgs...)
	call.Funcs = []*Func{g}
	result := func(j int) *Value {
		if !g.Root.Shape.IsTuple() {
			return call
		}
		v := body.Append(OpGetTupleElement, g.Root.Shape.Tuple[j].Clone(), call)
		v.Attrs.TupleIndex = j
		return v
	}
	next := []*Value{body.Append(OpAdd, s32, counter, constS32(body, 1))}
	for j := range inputs {
		next = append(next, elem(1+j))
	}
	for j := range carries {
		next = append(next, result(nOut+j))
	}
	for j := 0; j < nOut; j++ {
		out := results[j]
		if !out.IsArray() || dim >= out.Rank() {
			return nil, fmt.Errorf("scan output %d has shape %v, expected an array with the scanned dimension %d", j, out, dim)
		}
		step := result(j)
		withDim := append([]int{}, out.Dims...)
		withDim[dim] = 1
		upd := body.Append(OpReshape, ir.Shape{Elem: out.Elem, Dims: withDim}, step)
		acc := elem(1 + len(inputs) + nc + j)
		next = append(next, body.Append(Op(ir.OpDynamicUpdateSlice), out.Clone(), append([]*Value{acc, upd}, starts(out.Rank())...)...))
	}
	body.Root = body.Append(OpTuple, stateShape.Clone(), next...)
	l.prog.Funcs = append(l.prog.Funcs, cond, body)
	// The loop, and the scan's results read from its final state.
	init := []*Value{constS32(f, 0)}
	init = append(append(init, inputs...), carries...)
	for j := 0; j < nOut; j++ {
		init = append(init, l.zeros(f, results[j]))
	}
	loop := f.Append(OpWhile, stateShape.Clone(), f.Append(OpTuple, stateShape.Clone(), init...))
	loop.Funcs = []*Func{cond, body}
	loop.Name = in.Name
	read := func(i int) *Value {
		v := f.Append(OpGetTupleElement, state[i].Clone(), loop)
		v.Attrs.TupleIndex = i
		return v
	}
	var outs []*Value
	for j := 0; j < nOut; j++ {
		outs = append(outs, read(1+len(inputs)+nc+j))
	}
	for j := 0; j < nc; j++ {
		outs = append(outs, read(1+len(inputs)+j))
	}
	if !in.Shape.IsTuple() {
		return outs[0], nil
	}
	return f.Append(OpTuple, in.Shape.Clone(), outs...), nil
}

// zeros is an array of shape s filled with zeros, appended to f.
func (l *lowerer) zeros(f *Func, s ir.Shape) *Value {
	z := f.Append(OpConstant, ir.Scalar(s.Elem))
	z.Attrs.Literal = ir.MustNewLiteral(ir.Scalar(s.Elem))
	b := f.Append(OpBroadcast, s.Clone(), z)
	b.Attrs.Dimensions = []int{}
	return b
}
