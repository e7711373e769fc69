package ops

// Compiling called computations (reducers, comparators, updates, map
// bodies) to Programs. Their parameters and results are scalars, but their
// bodies may hold small arrays and tuples and call other computations: a
// reducer that broadcasts its operands to 2×2 matrices, multiplies them and
// slices one element out; a comparator that calls another; a map body with
// a conditional. Every value is laid out as one register per array element
// (row-major), so data movement (broadcast, reshape, transpose, slice,
// reverse, concatenate, pad, tuples) is a renaming of registers decided at
// compile time, and every computing op becomes elementwise instructions:
// a dot is a chain of multiplies and adds in its accumulation type
// (accumulate.go), a reduce the inlined reducer folded in row-major order,
// a call or fusion its computation inlined, a conditional every branch
// inlined and the results chosen by selects (the branches of a scalar
// computation have no side effects).

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/ir"
)

// maxFuncRegisters bounds the registers of a compiled computation (each
// holds a tile of values when a map runs over tiles).
const maxFuncRegisters = 1024

// sval is a value of a computation being compiled: its array leaves.
type sval []sleaf

// sleaf is an array: its type, dimensions and one register per element.
type sleaf struct {
	t    ir.ElementType
	dims []int
	regs []int
}

// scalarizer accumulates the Program of a Func.
type scalarizer struct {
	f      *Func
	next   int // next free register
	instrs []Instr
}

func (s *scalarizer) reg() (int, error) {
	if s.next >= maxFuncRegisters {
		return 0, fmt.Errorf("computation %s needs more than %d scalar registers", s.f.Name, maxFuncRegisters)
	}
	s.next++
	return s.next - 1, nil
}

// emit appends an instruction computing op on registers args (of types
// argT) into a new register of type t.
func (s *scalarizer) emit(k Kernel, t ir.ElementType, args ...int) (int, error) {
	r, err := s.reg()
	if err != nil {
		return 0, err
	}
	in := Instr{Type: t, NArgs: len(args), Reg: r, Kernel: k}
	copy(in.Args[:], args)
	s.instrs = append(s.instrs, in)
	return r, nil
}

// constant places a scalar constant of type t with the bytes data.
func (s *scalarizer) constant(t ir.ElementType, data []byte) (int, error) {
	r, err := s.reg()
	if err != nil {
		return 0, err
	}
	s.f.consts = append(s.f.consts, constReg{reg: r, t: t, data: data})
	return r, nil
}

// intConstant places the integer v as a constant of type t.
func (s *scalarizer) intConstant(t ir.ElementType, v int64) (int, error) {
	b := make([]byte, max(t.ByteSize(), 8))
	src := [1]int64{v}
	ir.ConvertElement(b, t, Bytes(src[:]), ir.S64)
	return s.constant(t, b)
}

// convert converts register r of type from to type to (a new register, or
// r when the types agree).
func (s *scalarizer) convert(r int, from, to ir.ElementType) (int, error) {
	if from == to {
		return r, nil
	}
	k, err := WideKernel(ir.OpConvert, &ir.Attrs{}, []ir.ElementType{from}, to)
	if err != nil {
		return 0, err
	}
	return s.emit(k, to, r)
}

// leavesOf flattens a shape into its array leaves.
func leavesOf(sh ir.Shape) []ir.Shape {
	if !sh.IsTuple() {
		return []ir.Shape{sh}
	}
	var out []ir.Shape
	for _, e := range sh.Tuple {
		out = append(out, leavesOf(e)...)
	}
	return out
}

// scalarize compiles computation c into f: parameters in registers
// 0..len(params)-1, every other value as the registers inline gives it.
func scalarize(f *Func, c *Computation) error {
	s := &scalarizer{f: f, next: len(c.Params)}
	args := make([]sval, len(c.Params))
	for i, nd := range c.Params {
		if nd < 0 || nd >= len(c.Nodes) {
			return fmt.Errorf("computation %s has no parameter %d", c.Name, i)
		}
		p := c.Nodes[nd].Shape
		if !p.IsScalar() {
			return fmt.Errorf("computation %s: parameter %d has shape %v, expected a scalar", c.Name, i, p)
		}
		args[i] = sval{{t: p.Elem, regs: []int{i}}}
		f.params = append(f.params, i)
		f.ParamT = append(f.ParamT, p.Elem)
	}
	root, err := s.inline(c, args, 0)
	if err != nil {
		return err
	}
	seen := map[int]bool{}
	for _, l := range root {
		if len(l.dims) != 0 || len(l.regs) != 1 {
			return fmt.Errorf("computation %s: its result is not a scalar or a tuple of scalars", c.Name)
		}
		r := l.regs[0]
		// A result must have a register of its own: a fold copies results
		// into the parameters one by one.
		if r < len(c.Params) || seen[r] || s.isConst(r) {
			if r, err = s.emit(copyKernel, l.t, r); err != nil {
				return err
			}
		}
		seen[r] = true
		f.results = append(f.results, r)
		f.ResultT = append(f.ResultT, l.t)
	}
	f.prog = Program{Instrs: s.instrs, Regs: s.next}
	return nil
}

func (s *scalarizer) isConst(r int) bool {
	for _, c := range s.f.consts {
		if c.reg == r {
			return true
		}
	}
	return false
}

// copyKernel copies a register's values.
func copyKernel(d Reg, a [3]Reg, n int) { copy(d.C[:n], a[0].C[:n]) }

// maxInlineDepth bounds nested calls.
const maxInlineDepth = 32

// inline compiles computation c applied to args and returns its root.
func (s *scalarizer) inline(c *Computation, args []sval, depth int) (sval, error) {
	if depth > maxInlineDepth {
		return nil, fmt.Errorf("computation %s: calls nested deeper than %d", c.Name, maxInlineDepth)
	}
	if c.Root < 0 || c.Root >= len(c.Nodes) {
		return nil, fmt.Errorf("computation %s has no root", c.Name)
	}
	vals := make([]sval, len(c.Nodes))
	for i, nd := range c.Nodes {
		ops := make([]sval, len(nd.Args))
		for j, a := range nd.Args {
			if a < 0 || a >= i {
				return nil, fmt.Errorf("computation %s: operand %d of %v is not computed before it", c.Name, j, nd.Op)
			}
			ops[j] = vals[a]
		}
		v, err := s.node(c, nd, ops, args, depth)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals[c.Root], nil
}

// node compiles one node of c.
func (s *scalarizer) node(c *Computation, nd Node, ops []sval, args []sval, depth int) (sval, error) {
	unsupported := func(detail string) (sval, error) {
		return nil, &UnsupportedError{Op: nd.Op, Detail: fmt.Sprintf("computation %s: %s", c.Name, detail)}
	}
	arr := func(i int) (sleaf, bool) {
		if i >= len(ops) || len(ops[i]) != 1 {
			return sleaf{}, false
		}
		return ops[i][0], true
	}
	out := nd.Shape
	switch op := nd.Op; {
	case op == ir.OpParameter:
		if nd.Param < 0 || nd.Param >= len(args) {
			return nil, fmt.Errorf("computation %s has no argument for parameter %d", c.Name, nd.Param)
		}
		return args[nd.Param], nil
	case op == ir.OpConstant:
		if nd.Literal == nil || !nd.Literal.Shape().IsArray() {
			return unsupported("a constant that is not an array")
		}
		t := nd.Literal.Shape().Elem
		es, n := t.ByteSize(), nd.Literal.Shape().ElementCount()
		if t.BitWidth() < 8 {
			return unsupported("a constant of a sub-byte type")
		}
		l := sleaf{t: t, dims: nd.Literal.Shape().Dims}
		for e := 0; e < n; e++ {
			r, err := s.constant(t, nd.Literal.Bytes()[e*es:(e+1)*es])
			if err != nil {
				return nil, err
			}
			l.regs = append(l.regs, r)
		}
		return sval{l}, nil
	case op == ir.OpTuple:
		var v sval
		for _, o := range ops {
			v = append(v, o...)
		}
		return v, nil
	case op == ir.OpGetTupleElement:
		if len(nd.Args) != 1 || nd.Attrs == nil {
			return unsupported("a malformed get-tuple-element")
		}
		src := c.Nodes[nd.Args[0]].Shape
		if !src.IsTuple() || nd.Attrs.TupleIndex < 0 || nd.Attrs.TupleIndex >= len(src.Tuple) {
			return unsupported("get-tuple-element of a value that is not a tuple")
		}
		off := 0
		for _, e := range src.Tuple[:nd.Attrs.TupleIndex] {
			off += len(leavesOf(e))
		}
		n := len(leavesOf(src.Tuple[nd.Attrs.TupleIndex]))
		if off+n > len(ops[0]) {
			return unsupported("get-tuple-element past the tuple")
		}
		return slices.Clone(ops[0][off : off+n]), nil
	case op == ir.OpCopy || op == ir.OpOptimizationBarrier:
		return ops[0], nil
	case op == ir.OpReshape || op == ir.OpBitcast:
		x, ok := arr(0)
		retype := op == ir.OpBitcast && ok && out.IsArray() && out.Elem != x.t &&
			out.Elem.ByteSize() == x.t.ByteSize() && x.t.BitWidth() >= 8 && out.Elem.BitWidth() >= 8
		if !ok || !out.IsArray() || out.Elem != x.t && !retype || out.ElementCount() != len(x.regs) {
			return unsupported("a reshape that changes the elements")
		}
		if !retype {
			return sval{{t: x.t, dims: out.Dims, regs: x.regs}}, nil
		}
		// A bitcast to another type of the same width (XLA's optimized
		// comparators write `s32[] bitcast(f32[] x)`) reinterprets each
		// element's bits.
		return s.reinterpret(x, out)
	case op == ir.OpBroadcast:
		x, ok := arr(0)
		if !ok || nd.Attrs == nil || len(nd.Attrs.Dimensions) != len(x.dims) {
			return unsupported("a malformed broadcast")
		}
		return s.mapped(x, out.Dims, func(idx []int) (int, bool) {
			src := 0
			xs := Strides(x.dims)
			for k, d := range nd.Attrs.Dimensions {
				i := idx[d]
				if x.dims[k] == 1 {
					i = 0
				}
				src += i * xs[k]
			}
			return src, true
		}, nil)
	case op == ir.OpTranspose:
		x, ok := arr(0)
		if !ok || nd.Attrs == nil {
			return unsupported("a malformed transpose")
		}
		xs := Strides(x.dims)
		return s.mapped(x, out.Dims, func(idx []int) (int, bool) {
			src := 0
			for j, d := range nd.Attrs.Dimensions {
				src += idx[j] * xs[d]
			}
			return src, true
		}, nil)
	case op == ir.OpSlice:
		x, ok := arr(0)
		if !ok || nd.Attrs == nil || len(nd.Attrs.Slice) != len(x.dims) {
			return unsupported("a malformed slice")
		}
		xs := Strides(x.dims)
		return s.mapped(x, out.Dims, func(idx []int) (int, bool) {
			src := 0
			for d, sl := range nd.Attrs.Slice {
				src += (sl.Start + idx[d]*max(sl.Stride, 1)) * xs[d]
			}
			return src, true
		}, nil)
	case op == ir.OpReverse:
		x, ok := arr(0)
		if !ok || nd.Attrs == nil {
			return unsupported("a malformed reverse")
		}
		xs := Strides(x.dims)
		return s.mapped(x, out.Dims, func(idx []int) (int, bool) {
			src := 0
			for d, i := range idx {
				if slices.Contains(nd.Attrs.Dimensions, d) {
					i = x.dims[d] - 1 - i
				}
				src += i * xs[d]
			}
			return src, true
		}, nil)
	case op == ir.OpPad:
		x, ok := arr(0)
		pv, ok2 := arr(1)
		if !ok || !ok2 || len(pv.regs) != 1 || nd.Attrs == nil || len(nd.Attrs.Padding) != len(x.dims) {
			return unsupported("a malformed pad")
		}
		xs := Strides(x.dims)
		return s.mapped(x, out.Dims, func(idx []int) (int, bool) {
			src := 0
			for d, p := range nd.Attrs.Padding {
				i := idx[d] - p.Low
				step := p.Interior + 1
				if i < 0 || i%step != 0 || i/step >= x.dims[d] {
					return 0, false
				}
				src += i / step * xs[d]
			}
			return src, true
		}, pv.regs[:1])
	case op == ir.OpConcatenate:
		if nd.Attrs == nil || len(nd.Attrs.Dimensions) != 1 || !out.IsArray() {
			return unsupported("a malformed concatenate")
		}
		cd := nd.Attrs.Dimensions[0]
		l := sleaf{t: out.Elem, dims: out.Dims}
		idx := make([]int, len(out.Dims))
		for e := 0; e < out.ElementCount(); e++ {
			i := idx[cd]
			for k := range ops {
				x, ok := arr(k)
				if !ok || len(x.dims) != len(idx) {
					return unsupported("a malformed concatenate")
				}
				if i < x.dims[cd] {
					src, xs := 0, Strides(x.dims)
					for d, v := range idx {
						if d == cd {
							v = i
						}
						src += v * xs[d]
					}
					l.regs = append(l.regs, x.regs[src])
					break
				}
				i -= x.dims[cd]
			}
			ir.NextIndex(out.Dims, idx)
		}
		if len(l.regs) != out.ElementCount() {
			return unsupported("a malformed concatenate")
		}
		return sval{l}, nil
	case op == ir.OpIota:
		if nd.Attrs == nil || !out.IsArray() || nd.Attrs.IotaDimension < 0 || nd.Attrs.IotaDimension >= out.Rank() {
			return unsupported("a malformed iota")
		}
		l := sleaf{t: out.Elem, dims: out.Dims}
		idx := make([]int, out.Rank())
		for e := 0; e < out.ElementCount(); e++ {
			var r int
			var err error
			if out.Elem.IsFloat() || out.Elem.IsComplex() {
				b := make([]byte, 16)
				src := [1]float64{float64(idx[nd.Attrs.IotaDimension])}
				ir.ConvertElement(b, out.Elem, Bytes(src[:]), ir.F64)
				r, err = s.constant(out.Elem, b)
			} else {
				r, err = s.intConstant(out.Elem, int64(idx[nd.Attrs.IotaDimension]))
			}
			if err != nil {
				return nil, err
			}
			l.regs = append(l.regs, r)
			ir.NextIndex(out.Dims, idx)
		}
		return sval{l}, nil
	case op == ir.OpCall || op == ir.OpFusion:
		if len(nd.Called) != 1 {
			return unsupported("a call without its computation")
		}
		return s.inline(nd.Called[0], ops, depth+1)
	case op == ir.OpConditional:
		return s.conditional(c, nd, ops, depth)
	case op == ir.OpMap:
		if len(nd.Called) != 1 || !out.IsArray() {
			return unsupported("a map without its computation")
		}
		l := sleaf{t: out.Elem, dims: out.Dims}
		for e := 0; e < out.ElementCount(); e++ {
			var args []sval
			for k := range ops {
				x, ok := arr(k)
				if !ok || len(x.regs) != out.ElementCount() {
					return unsupported("a map over operands of other shapes")
				}
				args = append(args, sval{{t: x.t, regs: x.regs[e : e+1]}})
			}
			r, err := s.inline(nd.Called[0], args, depth+1)
			if err != nil {
				return nil, err
			}
			if len(r) != 1 || len(r[0].regs) != 1 {
				return unsupported("a map body that is not scalar")
			}
			l.regs = append(l.regs, r[0].regs[0])
		}
		return sval{l}, nil
	case op == ir.OpReduce:
		return s.reduce(c, nd, ops, depth)
	case op == ir.OpDot:
		return s.dot(c, nd, ops)
	case op == ir.OpBitcastConvert:
		x, ok := arr(0)
		if !ok || !out.IsArray() || x.t.ByteSize() != out.Elem.ByteSize() || x.t.BitWidth() < 8 {
			return unsupported("a bitcast-convert between types of other sizes")
		}
		return s.reinterpret(x, out)
	case op.IsElementwise() || op == ir.OpConvert || op == ir.OpSelect || op == ir.OpClamp || op == ir.OpCompare || op == ir.OpReducePrecision:
		return s.elementwise(c, nd, ops)
	}
	return unsupported("not an op the compiled computations take")
}

// mapped builds a value of dims whose element at each index is x's
// register at src(index), or, where src reports false, the register pad.
func (s *scalarizer) mapped(x sleaf, dims []int, src func(idx []int) (int, bool), pad []int) (sval, error) {
	l := sleaf{t: x.t, dims: dims}
	idx := make([]int, len(dims))
	n := Count(dims)
	for e := 0; e < n; e++ {
		i, ok := src(idx)
		switch {
		case ok && i >= 0 && i < len(x.regs):
			l.regs = append(l.regs, x.regs[i])
		case !ok && len(pad) == 1:
			l.regs = append(l.regs, pad[0])
		default:
			return nil, fmt.Errorf("an index out of its operand's range")
		}
		ir.NextIndex(dims, idx)
	}
	return sval{l}, nil
}

// elementwise compiles an elementwise op over arrays of one shape (scalar
// operands spread over them).
func (s *scalarizer) elementwise(c *Computation, nd Node, ops []sval) (sval, error) {
	out := nd.Shape
	if !out.IsArray() {
		return nil, &UnsupportedError{Op: nd.Op, Detail: fmt.Sprintf("computation %s: an elementwise op on tuples", c.Name)}
	}
	n := out.ElementCount()
	argT := make([]ir.ElementType, len(ops))
	for j, o := range ops {
		if len(o) != 1 || (len(o[0].regs) != n && len(o[0].regs) != 1) {
			return nil, &UnsupportedError{Op: nd.Op, Detail: fmt.Sprintf("computation %s: operands of other shapes", c.Name)}
		}
		argT[j] = o[0].t
	}
	attrs := nd.Attrs
	if attrs == nil {
		attrs = &ir.Attrs{}
	}
	k, err := WideKernel(nd.Op, attrs, argT, out.Elem)
	if err != nil {
		return nil, fmt.Errorf("computation %s: %w", c.Name, err)
	}
	l := sleaf{t: out.Elem, dims: out.Dims}
	args := make([]int, len(ops))
	for e := 0; e < n; e++ {
		for j, o := range ops {
			args[j] = o[0].regs[min(e, len(o[0].regs)-1)]
		}
		r, err := s.emit(k, out.Elem, args...)
		if err != nil {
			return nil, err
		}
		l.regs = append(l.regs, r)
	}
	return sval{l}, nil
}

// reduce folds each output element's reduced elements, in row-major order,
// through the inlined reducer (values converted to its parameters' types).
func (s *scalarizer) reduce(c *Computation, nd Node, ops []sval, depth int) (sval, error) {
	unsupported := func(detail string) (sval, error) {
		return nil, &UnsupportedError{Op: nd.Op, Detail: fmt.Sprintf("computation %s: %s", c.Name, detail)}
	}
	if len(nd.Called) != 1 || len(ops)%2 != 0 || len(ops) == 0 || nd.Attrs == nil {
		return unsupported("a malformed reduce")
	}
	f := nd.Called[0]
	n := len(ops) / 2
	if len(f.Params) != 2*n {
		return unsupported("a reducer of another arity")
	}
	ptype := func(i int) ir.ElementType { return f.Nodes[f.Params[i]].Shape.Elem }
	x := ops[0][0]
	var kept, red []int
	for d := range x.dims {
		if slices.Contains(nd.Attrs.Dimensions, d) {
			red = append(red, x.dims[d])
		} else {
			kept = append(kept, x.dims[d])
		}
	}
	outs := make(sval, n)
	for i := range outs {
		outs[i] = sleaf{t: ptype(i), dims: kept}
	}
	xs := Strides(x.dims)
	kidx, ridx := make([]int, len(kept)), make([]int, len(red))
	for o := 0; o < Count(kept); o++ {
		acc := make([]sval, n)
		for i := 0; i < n; i++ {
			init := ops[n+i][0]
			r, err := s.convert(init.regs[0], init.t, ptype(i))
			if err != nil {
				return nil, err
			}
			acc[i] = sval{{t: ptype(i), regs: []int{r}}}
		}
		clear(ridx)
		for e := 0; e < Count(red); e++ {
			src, ki, ri := 0, 0, 0
			for d := range x.dims {
				if slices.Contains(nd.Attrs.Dimensions, d) {
					src += ridx[ri] * xs[d]
					ri++
				} else {
					src += kidx[ki] * xs[d]
					ki++
				}
			}
			args := append([]sval{}, acc...)
			for i := 0; i < n; i++ {
				xi := ops[i][0]
				r, err := s.convert(xi.regs[src], xi.t, ptype(n+i))
				if err != nil {
					return nil, err
				}
				args = append(args, sval{{t: ptype(n + i), regs: []int{r}}})
			}
			res, err := s.inline(f, args, depth+1)
			if err != nil {
				return nil, err
			}
			if len(res) != n {
				return unsupported("a reducer returning another number of values")
			}
			for i := range acc {
				acc[i] = sval{res[i]}
			}
			ir.NextIndex(red, ridx)
		}
		for i := range outs {
			outs[i].regs = append(outs[i].regs, acc[i][0].regs[0])
		}
		ir.NextIndex(kept, kidx)
	}
	return outs, nil
}

// dot computes each output element as a chain of multiplies and adds in
// the result's accumulation type, starting from zero, over the contracting
// indices in row-major order (accumulate.go, dot.go).
func (s *scalarizer) dot(c *Computation, nd Node, ops []sval) (sval, error) {
	out := nd.Shape
	if nd.Attrs == nil || nd.Attrs.DotDims == nil || len(ops) != 2 || len(ops[0]) != 1 || len(ops[1]) != 1 || !out.IsArray() {
		return nil, &UnsupportedError{Op: nd.Op, Detail: fmt.Sprintf("computation %s: a malformed dot", c.Name)}
	}
	dn := nd.Attrs.DotDims
	l, r := ops[0][0], ops[1][0]
	ls, rs := Strides(l.dims), Strides(r.dims)
	free := func(rank int, batch, contracting []int) []int {
		var f []int
		for d := 0; d < rank; d++ {
			if !slices.Contains(batch, d) && !slices.Contains(contracting, d) {
				f = append(f, d)
			}
		}
		return f
	}
	lf, rf := free(len(l.dims), dn.LhsBatch, dn.LhsContracting), free(len(r.dims), dn.RhsBatch, dn.RhsContracting)
	var kdims []int
	for _, d := range dn.LhsContracting {
		kdims = append(kdims, l.dims[d])
	}
	acc := accumulationType(out.Elem)
	mul, err := WideKernel(ir.OpMultiply, &ir.Attrs{}, []ir.ElementType{acc, acc}, acc)
	if err != nil {
		return nil, err
	}
	add, err := WideKernel(ir.OpAdd, &ir.Attrs{}, []ir.ElementType{acc, acc}, acc)
	if err != nil {
		return nil, err
	}
	zero, err := s.intConstant(acc, 0)
	if err != nil {
		return nil, err
	}
	res := sleaf{t: out.Elem, dims: out.Dims}
	oidx, kidx := make([]int, out.Rank()), make([]int, len(kdims))
	for o := 0; o < out.ElementCount(); o++ {
		// The output index is the batch, lhs free, then rhs free indices.
		lbase, rbase, j := 0, 0, 0
		for i := range dn.LhsBatch {
			lbase += oidx[j] * ls[dn.LhsBatch[i]]
			rbase += oidx[j] * rs[dn.RhsBatch[i]]
			j++
		}
		for _, d := range lf {
			lbase += oidx[j] * ls[d]
			j++
		}
		for _, d := range rf {
			rbase += oidx[j] * rs[d]
			j++
		}
		sum := zero
		clear(kidx)
		for k := 0; k < Count(kdims); k++ {
			li, ri := lbase, rbase
			for i, v := range kidx {
				li += v * ls[dn.LhsContracting[i]]
				ri += v * rs[dn.RhsContracting[i]]
			}
			a, err := s.convert(l.regs[li], l.t, acc)
			if err != nil {
				return nil, err
			}
			b, err := s.convert(r.regs[ri], r.t, acc)
			if err != nil {
				return nil, err
			}
			m, err := s.emit(mul, acc, a, b)
			if err != nil {
				return nil, err
			}
			if sum, err = s.emit(add, acc, sum, m); err != nil {
				return nil, err
			}
			ir.NextIndex(kdims, kidx)
		}
		final, err := s.convert(sum, acc, out.Elem)
		if err != nil {
			return nil, err
		}
		res.regs = append(res.regs, final)
		ir.NextIndex(out.Dims, oidx)
	}
	return sval{res}, nil
}

// accumulationType is the element type a dot of result type t sums in.
func accumulationType(t ir.ElementType) ir.ElementType {
	switch {
	case t == ir.F64 || t == ir.C64 || t == ir.C128:
		return t
	case t.IsFloat():
		return ir.F32
	}
	return ir.S64
}

// conditional inlines every branch and chooses each result element with
// selects on the branch index (PRED: true picks branch 0; an integer out of
// range picks the last branch).
func (s *scalarizer) conditional(c *Computation, nd Node, ops []sval, depth int) (sval, error) {
	if len(nd.Called) == 0 || len(ops) != len(nd.Called)+1 || len(ops[0]) != 1 || len(ops[0][0].regs) != 1 {
		return nil, &UnsupportedError{Op: nd.Op, Detail: fmt.Sprintf("computation %s: a malformed conditional", c.Name)}
	}
	sel := ops[0][0]
	var results []sval
	for i, b := range nd.Called {
		r, err := s.inline(b, []sval{ops[i+1]}, depth+1)
		if err != nil {
			return nil, err
		}
		if i > 0 && !sameLayout(r, results[0]) {
			return nil, &UnsupportedError{Op: nd.Op, Detail: fmt.Sprintf("computation %s: branches of other shapes", c.Name)}
		}
		results = append(results, r)
	}
	// choice[b] is the PRED register that selects branch b (nil: the last).
	var choice []int
	switch {
	case sel.t == ir.PRED:
		if len(results) != 2 {
			return nil, &UnsupportedError{Op: nd.Op, Detail: fmt.Sprintf("computation %s: a PRED selector with %d branches", c.Name, len(results))}
		}
		choice = []int{sel.regs[0]}
	case sel.t == ir.S32:
		eq, err := WideKernel(ir.OpCompare, &ir.Attrs{Direction: ir.CmpEQ}, []ir.ElementType{ir.S32, ir.S32}, ir.PRED)
		if err != nil {
			return nil, err
		}
		for b := 0; b < len(results)-1; b++ {
			k, err := s.intConstant(ir.S32, int64(b))
			if err != nil {
				return nil, err
			}
			r, err := s.emit(eq, ir.PRED, sel.regs[0], k)
			if err != nil {
				return nil, err
			}
			choice = append(choice, r)
		}
	default:
		return nil, &UnsupportedError{Op: nd.Op, Detail: fmt.Sprintf("computation %s: a selector of type %v", c.Name, sel.t)}
	}
	out := make(sval, len(results[0]))
	for li, leaf := range results[len(results)-1] {
		out[li] = sleaf{t: leaf.t, dims: leaf.dims}
		k, err := WideKernel(ir.OpSelect, &ir.Attrs{}, []ir.ElementType{ir.PRED, leaf.t, leaf.t}, leaf.t)
		if err != nil {
			return nil, err
		}
		for e, r := range leaf.regs {
			for b := len(choice) - 1; b >= 0; b-- {
				if r, err = s.emit(k, leaf.t, choice[b], results[b][li].regs[e], r); err != nil {
					return nil, err
				}
			}
			out[li].regs = append(out[li].regs, r)
		}
	}
	return out, nil
}

// sameLayout reports whether two values have the same leaves.
func sameLayout(a, b sval) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].t != b[i].t || !slices.Equal(a[i].dims, b[i].dims) {
			return false
		}
	}
	return true
}

// reinterpret is x's elements' bits as elements of out's type (of the same
// width), in out's dimensions.
func (s *scalarizer) reinterpret(x sleaf, out ir.Shape) (sval, error) {
	k := bitcastKernel(x.t, out.Elem)
	l := sleaf{t: out.Elem, dims: out.Dims}
	for _, r := range x.regs {
		o, err := s.emit(k, out.Elem, r)
		if err != nil {
			return nil, err
		}
		l.regs = append(l.regs, o)
	}
	return sval{l}, nil
}

// bitcastKernel reinterprets the bits of values of type from (in wide
// form) as type to, of the same size.
func bitcastKernel(from, to ir.ElementType) Kernel {
	return func(d Reg, a [3]Reg, n int) {
		var buf [WideBytes]byte
		for j := 0; j < n; j++ {
			StoreWide(buf[:], from, 0, regAt(a[0], j), 1)
			LoadWide(regAt(d, j), 1, buf[:], to, 0)
		}
	}
}

// regAt is value j of register r, as a register of one value.
func regAt(r Reg, j int) Reg {
	return Reg{U: r.U[j : j+1], F: r.F[j : j+1], I: r.I[j : j+1], C: r.C[j : j+1]}
}
