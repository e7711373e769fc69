package eval

// Control flow and called computations: while, conditional, call, fusion and
// map, and the per-element application of a computation that scatter (and
// any op with a scalar to_apply) uses.
//
// Rules following XLA: a conditional with an out-of-range branch index runs
// the last branch; a while loop that has run Options.MaxWhileIterations
// iterations and still wants another fails instead of looping on.

import (
	"fmt"
	"math"
	"slices"

	"github.com/kilnml/kiln/ir"
)

func init() {
	register(evalWhile, ir.OpWhile)
	register(evalConditional, ir.OpConditional)
	register(evalCall, ir.OpCall)
	register(evalFusion, ir.OpFusion)
	register(evalMap, ir.OpMap)
}

func evalWhile(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 1 {
		return nil, fmt.Errorf("expected 1 operand, found %d", len(ops))
	}
	if in.Condition == nil || in.Body == nil {
		return nil, fmt.Errorf("while needs a condition and a body computation")
	}
	state := ops[0]
	for iter := 0; ; iter++ {
		if err := e.checkContext(); err != nil {
			return nil, err
		}
		c, err := e.call(in.Condition, []*ir.Literal{state})
		if err != nil {
			return nil, fmt.Errorf("condition %s: %w", in.Condition.Name, err)
		}
		if !c.Shape().IsScalar() || c.Shape().Elem != ir.PRED {
			return nil, fmt.Errorf("condition %s returned %v, expected pred[]", in.Condition.Name, c.Shape())
		}
		if !ir.Values[bool](c)[0] {
			return state, nil
		}
		if iter >= e.opts.MaxWhileIterations {
			return nil, fmt.Errorf("while loop did not finish within %d iterations (Options.MaxWhileIterations)", e.opts.MaxWhileIterations)
		}
		state, err = e.call(in.Body, []*ir.Literal{state})
		if err != nil {
			return nil, fmt.Errorf("body %s, iteration %d: %w", in.Body.Name, iter, err)
		}
	}
}

func evalConditional(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) < 2 {
		return nil, fmt.Errorf("expected a selector and branch operands, found %d operands", len(ops))
	}
	sel := ops[0]
	nb := len(in.Branches)
	if nb == 0 || len(ops)-1 != nb {
		return nil, fmt.Errorf("%d branch computations for %d branch operands", nb, len(ops)-1)
	}
	if !sel.Shape().IsScalar() {
		return nil, fmt.Errorf("selector has shape %v, expected a pred or s32 scalar", sel.Shape())
	}
	var b int
	switch t := sel.Shape().Elem; {
	case t == ir.PRED:
		if nb != 2 {
			return nil, fmt.Errorf("a pred selector needs 2 branches, found %d", nb)
		}
		if !ir.Values[bool](sel)[0] {
			b = 1 // Branches are [true_computation, false_computation].
		}
	case t.IsInteger():
		v, err := scalarIndex(sel, 0)
		if err != nil {
			return nil, err
		}
		b = int(v)
		if v < 0 || v >= int64(nb) {
			b = nb - 1
		}
	default:
		return nil, fmt.Errorf("selector has element type %v, expected pred or s32", t)
	}
	c := in.Branches[b]
	out, err := e.call(c, []*ir.Literal{ops[1+b]})
	if err != nil {
		return nil, fmt.Errorf("branch %d (%s): %w", b, c.Name, err)
	}
	return out, nil
}

func evalCall(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if in.ToApply == nil {
		return nil, fmt.Errorf("call has no to_apply computation")
	}
	out, err := e.call(in.ToApply, ops)
	if err != nil {
		return nil, fmt.Errorf("computation %s: %w", in.ToApply.Name, err)
	}
	return out, nil
}

func evalFusion(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if in.Calls == nil {
		return nil, fmt.Errorf("fusion has no calls= computation")
	}
	out, err := e.call(in.Calls, ops)
	if err != nil {
		return nil, fmt.Errorf("fused computation %s: %w", in.Calls.Name, err)
	}
	return out, nil
}

// ---- map ------------------------------------------------------------------

func evalMap(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	c := in.ToApply
	if c == nil {
		return nil, fmt.Errorf("map has no to_apply computation")
	}
	if len(ops) == 0 || len(ops) != len(c.Parameters) {
		return nil, fmt.Errorf("map of %d operands with a computation of %d parameters", len(ops), len(c.Parameters))
	}
	dims := in.Shape.Dims
	for i, o := range ops {
		if !o.Shape().IsArray() || !slices.Equal(o.Shape().Dims, dims) {
			return nil, fmt.Errorf("operand %d has shape %v, expected dimensions %v", i, o.Shape(), dims)
		}
		if p := c.Parameters[i].Shape; !p.IsScalar() || p.Elem != o.Shape().Elem {
			return nil, fmt.Errorf("parameter %d of %s has shape %v, expected a %v scalar", i, c.Name, p, o.Shape().Elem)
		}
	}
	if len(in.Dimensions) != 0 {
		for i, d := range in.Dimensions {
			if d != i || len(in.Dimensions) != len(dims) {
				return nil, &UnsupportedError{Op: in.Opcode, Instruction: in.Name,
					Detail: fmt.Sprintf("dimensions=%v: only maps over every dimension in order are defined", in.Dimensions)}
			}
		}
	}
	if out, ok, err := mapVectorized(e, in, c, ops); ok || err != nil {
		return out, err
	}
	out, err := newArray(in.Shape.Elem, dims)
	if err != nil {
		return nil, err
	}
	n := out.ElementCount()
	if p := compileScalar(c); p != nil && len(p.results) == 1 && p.resTy[0] == in.Shape.Elem && c.Root.Opcode != ir.OpTuple {
		for i := 0; i < n; i++ {
			for k, o := range ops {
				p.load(p.params[k], o, i)
			}
			p.run()
			p.store(p.results[0], out, i)
		}
		return out, nil
	}
	app, err := newScalarApplier(e, c, ops)
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(ops))
	for i := 0; i < n; i++ {
		if i&0xfff == 0 {
			if err := e.checkContext(); err != nil {
				return nil, err
			}
		}
		for k := range idx {
			idx[k] = i
		}
		r, err := app.apply(ops, idx)
		if err != nil {
			return nil, err
		}
		if !r.Shape().IsScalar() || r.Shape().Elem != in.Shape.Elem {
			return nil, fmt.Errorf("%s returned %v, expected a %v scalar", c.Name, r.Shape(), in.Shape.Elem)
		}
		es := elementBytes(out)
		copy(out.Bytes()[i*es:(i+1)*es], r.Bytes())
	}
	return out, nil
}

// mapVectorized evaluates a map whose computation is made only of
// parameters, scalar constants and elementwise ops by running the
// computation once on whole arrays: each elementwise instruction is
// evaluated with the map's dimensions (values that depend on no parameter
// stay scalars). It reports ok=false when the computation has any other op.
func mapVectorized(e *evaluator, in *ir.Instruction, c *ir.Computation, ops []*ir.Literal) (*ir.Literal, bool, error) {
	for _, ci := range c.Instructions {
		switch {
		case ci.Opcode == ir.OpParameter, ci.Opcode == ir.OpConstant:
		case ci.Opcode.IsElementwise() && ci.Opcode != ir.OpMap && ci.Shape.IsScalar():
		default:
			return nil, false, nil
		}
	}
	values := make(map[*ir.Instruction]*ir.Literal, len(c.Instructions))
	for _, ci := range c.Instructions {
		switch ci.Opcode {
		case ir.OpParameter:
			values[ci] = ops[ci.ParameterNumber]
			continue
		case ir.OpConstant:
			v, err := e.instruction(ci, nil)
			if err != nil {
				return nil, true, err
			}
			values[ci] = v
			continue
		}
		args := make([]*ir.Literal, len(ci.Operands))
		uniform := true
		for i, o := range ci.Operands {
			args[i] = values[o]
			uniform = uniform && args[i].Shape().Rank() == 0
		}
		vi := ci
		if !uniform {
			clone := *ci
			clone.Shape = ir.MakeShape(ci.Shape.Elem, in.Shape.Dims...)
			vi = &clone
			// Spread the uniform operands over the map's dimensions, so that
			// ops that want equal shapes (select) see them.
			for i, a := range args {
				if a.Shape().Rank() == 0 && len(in.Shape.Dims) > 0 {
					b := &ir.Instruction{Name: in.Name, Opcode: ir.OpBroadcast, Shape: ir.MakeShape(a.Shape().Elem, in.Shape.Dims...)}
					v, err := evalBroadcast(e, b, []*ir.Literal{a})
					if err != nil {
						return nil, true, err
					}
					args[i] = v
				}
			}
		}
		v, err := e.instruction(vi, args)
		if err != nil {
			return nil, true, fmt.Errorf("%s: %w", c.Name, err)
		}
		values[ci] = v
	}
	root := values[c.Root]
	if root.Shape().Rank() == 0 && len(in.Shape.Dims) > 0 {
		// The computation ignores its parameters: broadcast the constant.
		b := &ir.Instruction{Name: in.Name, Opcode: ir.OpBroadcast, Shape: ir.MakeShape(root.Shape().Elem, in.Shape.Dims...)}
		v, err := evalBroadcast(e, b, []*ir.Literal{root})
		return v, true, err
	}
	return root, true, nil
}

// ---- applying a computation to scalar elements ----------------------------

// scalarApplier evaluates a computation whose parameters are scalars on
// elements picked from arrays, reusing its argument literals between calls.
type scalarApplier struct {
	e    *evaluator
	c    *ir.Computation
	args []*ir.Literal
}

// newScalarApplier prepares to call c with one scalar per parameter, taken
// from arrays of the parameters' element types (srcs gives one per parameter,
// used only to check the types).
func newScalarApplier(e *evaluator, c *ir.Computation, srcs []*ir.Literal) (*scalarApplier, error) {
	if len(srcs) != len(c.Parameters) {
		return nil, fmt.Errorf("computation %s takes %d parameters, given %d values", c.Name, len(c.Parameters), len(srcs))
	}
	a := &scalarApplier{e: e, c: c, args: make([]*ir.Literal, len(srcs))}
	for i, p := range c.Parameters {
		if p == nil || !p.Shape.IsScalar() || p.Shape.Elem != srcs[i].Shape().Elem {
			return nil, fmt.Errorf("parameter %d of %s has shape %v, expected a %v scalar", i, c.Name, paramShape(p), srcs[i].Shape().Elem)
		}
		l, err := ir.NewLiteral(ir.Scalar(p.Shape.Elem))
		if err != nil {
			return nil, err
		}
		a.args[i] = l
	}
	return a, nil
}

func paramShape(p *ir.Instruction) any {
	if p == nil {
		return "missing"
	}
	return p.Shape
}

// apply calls the computation on srcs[k] element idx[k] for each parameter k.
// The result is valid until the next call.
func (a *scalarApplier) apply(srcs []*ir.Literal, idx []int) (*ir.Literal, error) {
	for k, s := range srcs {
		es := elementBytes(s)
		copy(a.args[k].Bytes(), s.Bytes()[idx[k]*es:(idx[k]+1)*es])
	}
	out, err := a.e.call(a.c, a.args)
	if err != nil {
		return nil, fmt.Errorf("computation %s: %w", a.c.Name, err)
	}
	return out, nil
}

// combiner applies an update computation of 2N scalar parameters
// (N current values, then N update values) returning N values (a tuple when
// N > 1), as scatter does: results[j][ri] = f(results…[ri], updates…[ui])[j].
type combiner struct {
	n   int
	app *scalarApplier
	// fast, when set, replaces the computation call: for N = 1 and a
	// computation that is one binary elementwise op of its parameters (or
	// returns one of them).
	fast func(r *ir.Literal, ri int, u *ir.Literal, ui int)
	// prog, when set, runs the computation as a scalar program.
	prog *scalarProgram
	srcs []*ir.Literal
	idx  []int
}

func newCombiner(e *evaluator, c *ir.Computation, operands []*ir.Literal) (*combiner, error) {
	n := len(operands)
	if len(c.Parameters) != 2*n {
		return nil, fmt.Errorf("computation %s takes %d parameters, expected %d (current and update values of %d operands)",
			c.Name, len(c.Parameters), 2*n, n)
	}
	srcs := make([]*ir.Literal, 2*n)
	copy(srcs, operands)
	copy(srcs[n:], operands)
	app, err := newScalarApplier(e, c, srcs)
	if err != nil {
		return nil, err
	}
	want := c.Root.Shape
	if n == 1 && (!want.IsScalar() || want.Elem != operands[0].Shape().Elem) ||
		n > 1 && (!want.IsTuple() || len(want.Tuple) != n) {
		return nil, fmt.Errorf("computation %s returns %v, expected %d %v scalar(s)", c.Name, want, n, operands[0].Shape().Elem)
	}
	cb := &combiner{n: n, app: app, srcs: make([]*ir.Literal, 2*n), idx: make([]int, 2*n)}
	if n == 1 {
		cb.fast = fastCombine(c, operands[0].Shape().Elem)
	}
	if cb.fast == nil {
		if p := compileScalar(c); p != nil && len(p.results) == n {
			cb.prog = p
			for j := 0; j < n; j++ {
				if p.resTy[j] != operands[j].Shape().Elem {
					cb.prog = nil
				}
			}
		}
	}
	return cb, nil
}

func (c *combiner) combine(results []*ir.Literal, ri int, updates []*ir.Literal, ui int) error {
	if c.fast != nil {
		c.fast(results[0], ri, updates[0], ui)
		return nil
	}
	if p := c.prog; p != nil {
		for j := 0; j < c.n; j++ {
			p.load(p.params[j], results[j], ri)
			p.load(p.params[c.n+j], updates[j], ui)
		}
		p.run()
		for j := 0; j < c.n; j++ {
			p.store(p.results[j], results[j], ri)
		}
		return nil
	}
	for j := 0; j < c.n; j++ {
		c.srcs[j], c.idx[j] = results[j], ri
		c.srcs[c.n+j], c.idx[c.n+j] = updates[j], ui
	}
	out, err := c.app.apply(c.srcs, c.idx)
	if err != nil {
		return err
	}
	for j := 0; j < c.n; j++ {
		v := out
		if c.n > 1 {
			v = out.Element(j)
		}
		r := results[j]
		if !v.Shape().IsScalar() || v.Shape().Elem != r.Shape().Elem {
			return fmt.Errorf("computation %s returned %v for value %d, expected a %v scalar", c.app.c.Name, v.Shape(), j, r.Shape().Elem)
		}
		es := elementBytes(r)
		copy(r.Bytes()[ri*es:(ri+1)*es], v.Bytes())
	}
	return nil
}

// fastCombine recognizes a two-parameter computation whose root is one of
// its parameters or one binary elementwise op of the two, and returns a
// function applying it in place with the same rules as the op itself
// (rounding to the element type after each application). It returns nil
// for anything else.
func fastCombine(c *ir.Computation, t ir.ElementType) func(r *ir.Literal, ri int, u *ir.Literal, ui int) {
	root := c.Root
	if len(c.Parameters) != 2 || root == nil || !root.Shape.IsScalar() || root.Shape.Elem != t {
		return nil
	}
	es := t.ByteSize()
	if root.Opcode == ir.OpParameter {
		if root.ParameterNumber == 0 {
			return func(*ir.Literal, int, *ir.Literal, int) {}
		}
		return func(r *ir.Literal, ri int, u *ir.Literal, ui int) {
			copy(r.Bytes()[ri*es:(ri+1)*es], u.Bytes()[ui*es:(ui+1)*es])
		}
	}
	if !root.Opcode.IsElementwiseBinary() || len(root.Operands) != 2 {
		return nil
	}
	a, b := root.Operands[0], root.Operands[1]
	if a.Opcode != ir.OpParameter || b.Opcode != ir.OpParameter {
		return nil
	}
	swap := a.ParameterNumber == 1
	if a.ParameterNumber == b.ParameterNumber {
		return nil
	}
	op := root.Opcode
	switch {
	case t.IsFloat():
		f := floatBinary[op]
		if f == nil {
			return nil
		}
		return func(r *ir.Literal, ri int, u *ir.Literal, ui int) {
			x, y := floatAt(r, ri), floatAt(u, ui)
			if swap {
				x, y = y, x
			}
			setFloatAt(r, ri, f(x, y))
		}
	case t.IsInteger() || t == ir.PRED:
		if t == ir.PRED && !predBinary[op] {
			return nil
		}
		f := intBinary(op, t)
		if f == nil {
			return nil
		}
		return func(r *ir.Literal, ri int, u *ir.Literal, ui int) {
			x, y := intAt(r, ri), intAt(u, ui)
			if swap {
				x, y = y, x
			}
			setIntAt(r, ri, f(x, y))
		}
	}
	return nil
}

// ---- scalar programs --------------------------------------------------------

// A scalar program runs a computation of scalar parameters made only of
// elementwise ops (the usual to_apply of map and scatter) without building
// literals: each instruction becomes a closure over a register file, using
// the very functions the array handlers use (floatBinary, intBinary, …) and
// rounding or wrapping each result to its element type as the array path
// does. Computations with any other op take the general path, a full call
// of the evaluator per element.

// scalarValue is one register: the value of a scalar of any element type in
// its wide form (f for real floats, i for integers and PRED in intValues
// form, c for complex).
type scalarValue struct {
	f float64
	i int64
	c complex128
}

// scalarProgram is a compiled scalar computation.
type scalarProgram struct {
	regs   []scalarValue
	params []int // register of each parameter
	types  []ir.ElementType
	steps  []func(r []scalarValue)
	// results lists the registers returned (one, or one per tuple element).
	results []int
	resTy   []ir.ElementType
}

// useScalarPrograms turns scalar programs on; tests turn it off to compare
// them with the general path.
var useScalarPrograms = true

// compileScalar compiles c, or returns nil if c has an op or shape the
// scalar program does not cover.
func compileScalar(c *ir.Computation) *scalarProgram {
	if !useScalarPrograms || c == nil || c.Root == nil {
		return nil
	}
	p := &scalarProgram{regs: make([]scalarValue, len(c.Instructions))}
	reg := make(map[*ir.Instruction]int, len(c.Instructions))
	for k, in := range c.Instructions {
		reg[in] = k
	}
	p.params = make([]int, len(c.Parameters))
	p.types = make([]ir.ElementType, len(c.Parameters))
	for i, prm := range c.Parameters {
		if prm == nil || !prm.Shape.IsScalar() {
			return nil
		}
		p.params[i] = reg[prm]
		p.types[i] = prm.Shape.Elem
	}
	for k, in := range c.Instructions {
		if in.Opcode == ir.OpParameter {
			continue
		}
		if in.Opcode == ir.OpTuple && in == c.Root {
			for _, o := range in.Operands {
				if !o.Shape.IsScalar() {
					return nil
				}
				p.results = append(p.results, reg[o])
				p.resTy = append(p.resTy, o.Shape.Elem)
			}
			continue
		}
		if !in.Shape.IsScalar() {
			return nil
		}
		args := make([]int, len(in.Operands))
		types := make([]ir.ElementType, len(in.Operands))
		for j, o := range in.Operands {
			if !o.Shape.IsScalar() {
				return nil
			}
			args[j], types[j] = reg[o], o.Shape.Elem
		}
		step := scalarStep(in, k, args, types)
		if step == nil {
			return nil
		}
		p.steps = append(p.steps, step)
	}
	if c.Root.Opcode != ir.OpTuple {
		if !c.Root.Shape.IsScalar() {
			return nil
		}
		p.results = []int{reg[c.Root]}
		p.resTy = []ir.ElementType{c.Root.Shape.Elem}
	}
	return p
}

// load puts element i of l into register r.
func (p *scalarProgram) load(r int, l *ir.Literal, i int) {
	v := &p.regs[r]
	t := l.Shape().Elem
	switch {
	case t.IsFloat():
		v.f = floatAt(l, i)
	case t.IsComplex():
		v.c = l.Complex128At(i)
	default:
		v.i = intAt(l, i)
	}
}

// store writes register r into element i of l.
func (p *scalarProgram) store(r int, l *ir.Literal, i int) {
	v := p.regs[r]
	t := l.Shape().Elem
	switch {
	case t.IsFloat():
		setFloatAt(l, i, v.f)
	case t.IsComplex():
		l.SetComplex128At(i, v.c)
	default:
		setIntAt(l, i, v.i)
	}
}

func (p *scalarProgram) run() {
	for _, s := range p.steps {
		s(p.regs)
	}
}

// roundFloat returns the function rounding a float64 to real float type t
// as setFloats stores it.
func roundFloat(t ir.ElementType) func(float64) float64 {
	switch t {
	case ir.F64:
		return func(x float64) float64 { return x }
	case ir.F32:
		return func(x float64) float64 { return float64(float32(x)) }
	}
	return func(x float64) float64 { return ir.RoundToFloatType(x, t) }
}

// roundComplex rounds each part of a complex value to t's component type.
func roundComplex(t ir.ElementType) func(complex128) complex128 {
	if t == ir.C128 {
		return func(x complex128) complex128 { return x }
	}
	return func(x complex128) complex128 { return complex128(complex64(x)) }
}

// scalarStep returns the closure computing instruction in (register out)
// from registers args of types types, or nil if it is not covered.
func scalarStep(in *ir.Instruction, out int, args []int, types []ir.ElementType) func(r []scalarValue) {
	rt := in.Shape.Elem
	op := in.Opcode
	isInt := func(t ir.ElementType) bool { return t == ir.PRED || t.IsInteger() }
	switch {
	case op == ir.OpConstant:
		if in.Literal == nil || !in.Literal.Shape().IsScalar() || in.Literal.Shape().Elem != rt {
			return nil
		}
		var v scalarValue
		switch {
		case rt.IsFloat():
			v.f = floatAt(in.Literal, 0)
		case rt.IsComplex():
			v.c = in.Literal.Complex128At(0)
		default:
			v.i = intAt(in.Literal, 0)
		}
		return func(r []scalarValue) { r[out] = v }
	case op == ir.OpCopy && len(args) == 1 && types[0] == rt:
		a := args[0]
		return func(r []scalarValue) { r[out] = r[a] }
	case op == ir.OpConvert && len(args) == 1:
		return convertStep(types[0], rt, out, args[0])
	case op == ir.OpSelect && len(args) == 3 && types[0] == ir.PRED && types[1] == rt && types[2] == rt:
		p, x, y := args[0], args[1], args[2]
		return func(r []scalarValue) {
			if r[p].i != 0 {
				r[out] = r[x]
			} else {
				r[out] = r[y]
			}
		}
	case op == ir.OpClamp && len(args) == 3 && types[0] == rt && types[1] == rt && types[2] == rt:
		lo, x, hi := args[0], args[1], args[2]
		switch {
		case rt.IsFloat():
			return func(r []scalarValue) { r[out].f = floatMin(floatMax(r[x].f, r[lo].f), r[hi].f) }
		case isInt(rt):
			mx, mn := intBinary(ir.OpMaximum, rt), intBinary(ir.OpMinimum, rt)
			return func(r []scalarValue) { r[out].i = mn(mx(r[x].i, r[lo].i), r[hi].i) }
		}
	case op == ir.OpCompare && len(args) == 2 && rt == ir.PRED && types[0] == types[1]:
		return compareStep(in, types[0], out, args[0], args[1])
	case op == ir.OpComplex && len(args) == 2 && types[0].IsFloat() && ir.ComplexOf(types[0]) == rt:
		a, b := args[0], args[1]
		return func(r []scalarValue) { r[out].c = complex(r[a].f, r[b].f) }
	case op == ir.OpIsFinite && len(args) == 1 && types[0].IsFloat() && rt == ir.PRED:
		a := args[0]
		return func(r []scalarValue) {
			v := r[a].f
			r[out].i = 0
			if !math.IsInf(v, 0) && v == v {
				r[out].i = 1
			}
		}
	case op.IsElementwiseUnary() && len(args) == 1:
		a, t := args[0], types[0]
		switch {
		case t.IsFloat() && rt == t && floatUnary[op] != nil:
			f, round := floatUnary[op], roundFloat(rt)
			return func(r []scalarValue) { r[out].f = round(f(r[a].f)) }
		case t.IsComplex() && complexToReal[op] != nil && rt == t.ComplexComponent():
			f, round := complexToReal[op], roundFloat(rt)
			return func(r []scalarValue) { r[out].f = round(f(r[a].c)) }
		case t.IsComplex() && rt == t && complexUnary[op] != nil:
			f, round := complexUnary[op], roundComplex(rt)
			return func(r []scalarValue) { r[out].c = round(f(r[a].c)) }
		case t == ir.PRED && op == ir.OpNot && rt == t:
			return func(r []scalarValue) { r[out].i = 1 - r[a].i }
		case t.IsInteger() && rt == t && intUnary(op, t) != nil:
			f := intUnary(op, t)
			return func(r []scalarValue) { r[out].i = wrapInt(rt, f(r[a].i)) }
		}
	case op.IsElementwiseBinary() && len(args) == 2 && types[0] == types[1] && types[0] == rt:
		a, b := args[0], args[1]
		switch {
		case rt.IsFloat() && floatBinary[op] != nil:
			f, round := floatBinary[op], roundFloat(rt)
			return func(r []scalarValue) { r[out].f = round(f(r[a].f, r[b].f)) }
		case rt.IsComplex() && complexBinary[op] != nil:
			f, round := complexBinary[op], roundComplex(rt)
			return func(r []scalarValue) { r[out].c = round(f(r[a].c, r[b].c)) }
		case isInt(rt) && (rt != ir.PRED || predBinary[op]) && intBinary(op, rt) != nil:
			f := intBinary(op, rt)
			return func(r []scalarValue) { r[out].i = wrapInt(rt, f(r[a].i, r[b].i)) }
		}
	}
	return nil
}

func convertStep(from, to ir.ElementType, out, a int) func(r []scalarValue) {
	isInt := func(t ir.ElementType) bool { return t == ir.PRED || t.IsInteger() }
	switch {
	case from.IsComplex() && to.IsComplex():
		round := roundComplex(to)
		return func(r []scalarValue) { r[out].c = round(r[a].c) }
	case from.IsComplex():
		return nil
	case from.IsFloat() && to.IsFloat():
		round := roundFloat(to)
		return func(r []scalarValue) { r[out].f = round(r[a].f) }
	case from.IsFloat() && to.IsComplex():
		round := roundFloat(to.ComplexComponent())
		return func(r []scalarValue) { r[out].c = complex(round(r[a].f), 0) }
	case from.IsFloat() && isInt(to):
		return func(r []scalarValue) { r[out].i = floatToInt(to, r[a].f) }
	case isInt(from) && isInt(to):
		return func(r []scalarValue) { r[out].i = wrapInt(to, r[a].i) }
	case isInt(from) && to.IsFloat():
		return func(r []scalarValue) { r[out].f = intToFloat(from, to, r[a].i) }
	case isInt(from) && to.IsComplex():
		return func(r []scalarValue) { r[out].c = complex(intToFloat(from, to, r[a].i), 0) }
	}
	return nil
}

func compareStep(in *ir.Instruction, t ir.ElementType, out, a, b int) func(r []scalarValue) {
	d := in.Direction
	if d == ir.CmpInvalid {
		return nil
	}
	ct := in.CompareType
	if ct == ir.CmpTypeDefault {
		ct = ir.DefaultComparisonType(t)
	}
	set := func(r []scalarValue, v bool) {
		r[out].i = 0
		if v {
			r[out].i = 1
		}
	}
	switch {
	case t.IsFloat() && ct == ir.CmpTypeTotalOrder:
		bitsOf, w := floatBitsFunc(t)
		return func(r []scalarValue) {
			set(r, compareResult(d, cmp3(totalOrderKey(bitsOf(r[a].f), w), totalOrderKey(bitsOf(r[b].f), w))))
		}
	case t.IsFloat():
		return func(r []scalarValue) { set(r, compareResult(d, cmp3(r[a].f, r[b].f))) }
	case t.IsComplex():
		if d != ir.CmpEQ && d != ir.CmpNE {
			return nil
		}
		return func(r []scalarValue) { set(r, (r[a].c == r[b].c) == (d == ir.CmpEQ)) }
	case t == ir.PRED || t.IsInteger():
		w := t.BitWidth()
		switch ct {
		case ir.CmpTypeSigned:
			return func(r []scalarValue) { set(r, compareResult(d, cmp3(signExtend(r[a].i, w), signExtend(r[b].i, w)))) }
		case ir.CmpTypeUnsigned:
			var mask uint64 = math.MaxUint64
			if w < 64 {
				mask = 1<<w - 1
			}
			return func(r []scalarValue) {
				set(r, compareResult(d, cmp3(uint64(r[a].i)&mask, uint64(r[b].i)&mask)))
			}
		}
	}
	return nil
}

// floatBitsFunc returns the function giving the bits of a value of real
// float type t (exact, as stored) and the type's width.
func floatBitsFunc(t ir.ElementType) (func(float64) uint64, int) {
	switch t {
	case ir.F64:
		return math.Float64bits, 64
	case ir.F32:
		return func(x float64) uint64 { return uint64(math.Float32bits(float32(x))) }, 32
	case ir.F16:
		return func(x float64) uint64 { return uint64(ir.Float16FromFloat64(x)) }, 16
	case ir.BF16:
		return func(x float64) uint64 { return uint64(ir.BFloat16FromFloat64(x)) }, 16
	case ir.F8E5M2:
		return func(x float64) uint64 { return uint64(ir.Float8E5M2FromFloat64(x)) }, 8
	}
	return func(x float64) uint64 { return uint64(ir.Float8E4M3FNFromFloat64(x)) }, 8
}
