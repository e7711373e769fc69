package ssa

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// Lower translates an HLO module into SSA form: one Func per computation
// reachable from the entry (a computation called from several places is
// lowered once and shared), values in the computation's order.
func Lower(m *ir.Module) (*Program, error) {
	if m == nil || m.Entry == nil {
		return nil, fmt.Errorf("ssa: module has no entry computation")
	}
	l := &lowerer{prog: &Program{Source: m}, funcs: map[*ir.Computation]*Func{}}
	entry, err := l.computation(m.Entry, 0)
	if err != nil {
		return nil, err
	}
	l.prog.Entry = entry
	return l.prog, nil
}

type lowerer struct {
	prog  *Program
	funcs map[*ir.Computation]*Func
}

// maxRegionDepth bounds the nesting of called computations, so a module
// whose computations call each other in a cycle is refused.
const maxRegionDepth = 64

func (l *lowerer) computation(c *ir.Computation, depth int) (*Func, error) {
	if f, ok := l.funcs[c]; ok {
		if f == nil {
			return nil, fmt.Errorf("ssa: computation %s calls itself", c.Name)
		}
		return f, nil
	}
	if depth > maxRegionDepth {
		return nil, fmt.Errorf("ssa: computations nested deeper than %d at %s", maxRegionDepth, c.Name)
	}
	l.funcs[c] = nil // in progress
	f := &Func{Name: c.Name, Program: l.prog}
	vals := make(map[*ir.Instruction]*Value, len(c.Instructions))
	async := map[*ir.Instruction][]*Value{}
	for _, in := range c.Instructions {
		if in.Opcode.IsAsync() {
			if err := l.async(f, in, vals, async, depth); err != nil {
				return nil, fmt.Errorf("ssa: %s: %w", in.Name, err)
			}
			continue
		}
		if in.Opcode == ir.OpScan {
			if err := l.lowerScan(f, in, vals, depth); err != nil {
				return nil, fmt.Errorf("ssa: %s: %w", in.Name, err)
			}
			continue
		}
		v := f.NewValue(FromIR(in.Opcode), in.Shape.Clone())
		v.Name = in.Name
		v.Attrs = in.Attrs
		v.Raw = in.Raw
		for i, o := range in.Operands {
			a, ok := vals[o]
			if !ok {
				return nil, fmt.Errorf("ssa: %s: operand %d (%s) is used before it is defined", in.Name, i, o.Name)
			}
			v.Args = append(v.Args, a)
		}
		if in.Opcode == ir.OpCustomCall && in.CustomCallTarget == eval.XLATopKTarget {
			// XLA's top-k custom call, whose comparator is the total
			// order's (the only kind XLA writes): the topk op.
			k, largest, err := eval.XLATopK(l.prog.Source, in)
			if err != nil {
				return nil, fmt.Errorf("ssa: %s: %w", in.Name, err)
			}
			v.Op = FromIR(ir.OpTopK)
			v.Attrs.K, v.Attrs.Largest = k, largest
			v.Attrs.CustomCallTarget, v.Attrs.BackendConfig = "", ""
			vals[in] = v
			f.Values = append(f.Values, v)
			continue
		}
		if r := retypingBitcast(f, in, v); r != nil {
			// The reshape and layout change stay a bitcast of one element
			// type; the reinterpretation of each element's bits follows.
			vals[in] = r
			f.Values = append(f.Values, v, r)
			continue
		}
		if ir.IsIdentityAnnotation(in) {
			// A sharding or placement annotation is the identity on one
			// device: its users read the operand.
			vals[in] = v.Args[0]
			continue
		}
		for _, callee := range calledInRoleOrder(in) {
			g, err := l.computation(callee, depth+1)
			if err != nil {
				return nil, err
			}
			v.Funcs = append(v.Funcs, g)
		}
		if in.Opcode == ir.OpParameter {
			for len(f.Params) <= in.ParameterNumber {
				f.Params = append(f.Params, nil)
			}
			f.Params[in.ParameterNumber] = v
		}
		vals[in] = v
		f.Values = append(f.Values, v)
	}
	for i, p := range f.Params {
		if p == nil {
			return nil, fmt.Errorf("ssa: computation %s has no parameter %d", c.Name, i)
		}
	}
	if c.Root == nil {
		return nil, fmt.Errorf("ssa: computation %s has no root", c.Name)
	}
	f.Root = vals[c.Root]
	l.funcs[c] = f
	l.prog.Funcs = append(l.prog.Funcs, f)
	return f, nil
}

// retypingBitcast splits a bitcast that changes the element type to one of
// the same width (XLA's optimized modules write them) into the bitcast v of
// the operand's type to the result's dimensions and layout, and returns a
// bitcast-convert of it to the result's type; nil for any other value.
func retypingBitcast(f *Func, in *ir.Instruction, v *Value) *Value {
	if in.Opcode != ir.OpBitcast || len(v.Args) != 1 || !in.Shape.IsArray() || !v.Args[0].Shape.IsArray() {
		return nil
	}
	from, to := v.Args[0].Shape.Elem, in.Shape.Elem
	if from == to || from.ByteSize() != to.ByteSize() || from.BitWidth() < 8 || to.BitWidth() < 8 {
		return nil
	}
	v.Shape = v.Shape.WithElem(from)
	v.Name = in.Name + ".bits"
	r := f.NewValue(FromIR(ir.OpBitcastConvert), in.Shape.Clone())
	r.Name = in.Name
	r.Args = []*Value{v}
	return r
}

// calledInRoleOrder lists an instruction's called computations in the order
// Value.Funcs documents.
func calledInRoleOrder(in *ir.Instruction) []*ir.Computation {
	switch in.Opcode {
	case ir.OpWhile:
		return []*ir.Computation{in.Condition, in.Body}
	case ir.OpConditional:
		return in.Branches
	case ir.OpSelectAndScatter:
		return []*ir.Computation{in.Select, in.Scatter}
	case ir.OpFusion:
		return []*ir.Computation{in.Calls}
	case ir.OpCustomCall:
		return in.CalledComputations
	}
	if in.ToApply != nil {
		return []*ir.Computation{in.ToApply}
	}
	return nil
}

// async lowers an asynchronous wrapper to the synchronous op it wraps,
// which is what its done op returns: async-start and -update gather the
// wrapped op's operands (late binding included) and async-done becomes the
// op (a call of the calls= computation, or the op the `<op>-start`
// shorthand names, with the start's attributes); copy-start/-done become a
// copy; the collective starts their collective, and the done ops read its
// result. The start and update values exist only as operand lists: any
// other use of them is refused.
func (l *lowerer) async(f *Func, in *ir.Instruction, vals map[*ir.Instruction]*Value, async map[*ir.Instruction][]*Value, depth int) error {
	args := make([]*Value, len(in.Operands))
	for i, o := range in.Operands {
		if in.Opcode == ir.OpAsyncUpdate && i == 0 || in.Opcode == ir.OpAsyncDone {
			continue
		}
		a, ok := vals[o]
		if !ok {
			return fmt.Errorf("operand %d (%s) is not a value the compiler can read", i, o.Name)
		}
		args[i] = a
	}
	emit := func(op Op, shape ir.Shape, attrs ir.Attrs, raw []ir.RawAttribute, args ...*Value) *Value {
		v := f.NewValue(op, shape.Clone(), args...)
		v.Name, v.Attrs, v.Raw = in.Name, attrs, raw
		f.Values = append(f.Values, v)
		return v
	}
	gathered := func() ([]*Value, error) {
		prev, ok := async[in.Operands[0]]
		if !ok {
			return nil, fmt.Errorf("%v of %s, which is not an async-start or -update", in.Opcode, in.Operands[0].Name)
		}
		return prev, nil
	}
	switch in.Opcode {
	case ir.OpAsyncStart:
		async[in] = args
	case ir.OpAsyncUpdate:
		if len(in.Operands) == 0 {
			return fmt.Errorf("async-update has no operand")
		}
		prev, err := gathered()
		if err != nil {
			return err
		}
		async[in] = append(append([]*Value{}, prev...), args[1:]...)
	case ir.OpAsyncDone:
		if len(in.Operands) != 1 {
			return fmt.Errorf("async-done has %d operands, expected 1", len(in.Operands))
		}
		operands, err := gathered()
		if err != nil {
			return err
		}
		start := in.Operands[0]
		for start.Opcode == ir.OpAsyncUpdate {
			start = start.Operands[0]
		}
		wrapped := start.AsyncWrapped
		if start.Calls != nil && (wrapped == ir.OpInvalid || wrapped == ir.OpFusion || wrapped == ir.OpCall) {
			g, err := l.computation(start.Calls, depth+1)
			if err != nil {
				return err
			}
			v := emit(OpCall, in.Shape, ir.Attrs{}, nil, operands...)
			v.Funcs = []*Func{g}
			vals[in] = v
			return nil
		}
		if wrapped == ir.OpInvalid || wrapped.IsAsync() {
			return fmt.Errorf("async-start %s wraps no computation", start.Name)
		}
		op := *start
		op.Opcode, op.AsyncWrapped = wrapped, ir.OpInvalid
		v := emit(FromIR(wrapped), in.Shape, start.Attrs, start.Raw, operands...)
		for _, callee := range calledInRoleOrder(&op) {
			g, err := l.computation(callee, depth+1)
			if err != nil {
				return err
			}
			v.Funcs = append(v.Funcs, g)
		}
		vals[in] = v
	case ir.OpCopyStart:
		if len(args) != 1 || !in.Shape.IsTuple() || len(in.Shape.Tuple) < 2 {
			return fmt.Errorf("copy-start of shape %v, expected (operand, copy, context)", in.Shape)
		}
		elems := []*Value{args[0], emit(OpCopy, args[0].Shape, ir.Attrs{}, nil, args[0])}
		for _, s := range in.Shape.Tuple[2:] {
			elems = append(elems, l.zero(f, in, s))
		}
		vals[in] = emit(OpTuple, in.Shape, ir.Attrs{}, nil, elems...)
	case ir.OpCopyDone, ir.OpAllGatherDone, ir.OpCollectivePermuteDone:
		t, ok := vals[in.Operands[0]]
		if !ok || !t.Shape.IsTuple() || len(t.Shape.Tuple) < 2 {
			return fmt.Errorf("%v of %s, which is not the matching start", in.Opcode, in.Operands[0].Name)
		}
		v := emit(OpGetTupleElement, in.Shape, ir.Attrs{TupleIndex: 1}, nil, t)
		vals[in] = v
	case ir.OpAllReduceStart:
		vals[in] = emit(FromIR(ir.OpAllReduce), in.Shape, in.Attrs, in.Raw, args...)
		if in.ToApply != nil {
			g, err := l.computation(in.ToApply, depth+1)
			if err != nil {
				return err
			}
			vals[in].Funcs = []*Func{g}
		}
	case ir.OpAllReduceDone:
		a, ok := vals[in.Operands[0]]
		if !ok {
			return fmt.Errorf("all-reduce-done of %s, which is not an all-reduce-start", in.Operands[0].Name)
		}
		vals[in] = a
	case ir.OpAllGatherStart, ir.OpCollectivePermuteStart:
		if !in.Shape.IsTuple() || len(in.Shape.Tuple) < 2 || len(args) == 0 {
			return fmt.Errorf("%v of shape %v, expected (operands, results, contexts…)", in.Opcode, in.Shape)
		}
		sync := map[ir.Opcode]ir.Opcode{ir.OpAllGatherStart: ir.OpAllGather, ir.OpCollectivePermuteStart: ir.OpCollectivePermute}[in.Opcode]
		res := emit(FromIR(sync), in.Shape.Tuple[1], in.Attrs, in.Raw, args...)
		first := args[0]
		if len(args) > 1 {
			first = emit(OpTuple, in.Shape.Tuple[0], ir.Attrs{}, nil, args...)
		}
		elems := []*Value{first, res}
		for _, s := range in.Shape.Tuple[2:] {
			elems = append(elems, l.zero(f, in, s))
		}
		vals[in] = emit(OpTuple, in.Shape, ir.Attrs{}, nil, elems...)
	default:
		return fmt.Errorf("op %q (an async pair) is not supported by the compiler", in.Opcode)
	}
	return nil
}

// zero emits a zero constant of array shape s (an async op's context).
func (l *lowerer) zero(f *Func, in *ir.Instruction, s ir.Shape) *Value {
	v := f.NewValue(OpConstant, s.Clone())
	v.Name = in.Name
	v.Attrs.Literal = ir.MustNewLiteral(s)
	f.Values = append(f.Values, v)
	return v
}

// lowerScan lowers a scan instruction to its while loop (scan.go).
func (l *lowerer) lowerScan(f *Func, in *ir.Instruction, vals map[*ir.Instruction]*Value, depth int) error {
	if in.ToApply == nil {
		return fmt.Errorf("scan has no to_apply computation")
	}
	g, err := l.computation(in.ToApply, depth+1)
	if err != nil {
		return err
	}
	args := make([]*Value, len(in.Operands))
	for i, o := range in.Operands {
		a, ok := vals[o]
		if !ok {
			return fmt.Errorf("operand %d (%s) is used before it is defined", i, o.Name)
		}
		args[i] = a
	}
	v, err := l.scan(f, in, args, g)
	if err != nil {
		return err
	}
	vals[in] = v
	return nil
}
