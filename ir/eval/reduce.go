package eval

// reduce, reduce-window and select-and-scatter.
//
// XLA leaves the order in which a reduction applies its computation
// unspecified. This evaluator's order, for every reducing op, is sequential:
// for each output element the accumulator starts at the init value and is
// combined with each input element in row-major order of the reduced (or
// window) indices, as f(accumulator, element) — the accumulator is always
// the first argument, as in XLA's HloEvaluator. Window positions that fall on
// padding or between base-dilated elements are skipped: they contribute
// nothing, not an init value.
//
// A reduction whose computation is one of the standard scalar reducers
// (add, multiply, maximum, minimum, and, or of its two parameters) runs on
// typed slices with the elementwise ops' own arithmetic (elementwise.go)
// instead of calling the computation per element; it performs the same
// operations in the same order, so both paths give identical bits.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

func init() {
	register(evalReduce, ir.OpReduce)
	register(evalReduceWindow, ir.OpReduceWindow)
	register(evalSelectAndScatter, ir.OpSelectAndScatter)
}

// ---- standard reducers ----------------------------------------------------

// scalarFold is a standard binary reducer applied to wide values of one
// element type: combine(acc, x) returns the new accumulator.
type scalarFold struct {
	// sumType is F32 or F64 when the fold is a plain add of that type, which
	// foldReduce runs without a call per element.
	sumType  ir.ElementType
	floats   func(acc, x float64) float64
	complexs func(acc, x complex128) complex128
	ints     func(acc, x int64) int64
}

// standardReducer recognises a computation of two scalar parameters of type
// t whose root is add, multiply, maximum, minimum, and or or of the two
// parameters, and returns the fold it performs.
func standardReducer(c *ir.Computation, t ir.ElementType) (scalarFold, bool) {
	if c == nil || len(c.Parameters) != 2 || c.Root == nil {
		return scalarFold{}, false
	}
	p0, p1 := c.Parameters[0], c.Parameters[1]
	for _, p := range []*ir.Instruction{p0, p1, c.Root} {
		if p == nil || !p.Shape.IsScalar() || p.Shape.Elem != t {
			return scalarFold{}, false
		}
	}
	r := c.Root
	if len(r.Operands) != 2 {
		return scalarFold{}, false
	}
	var swapped bool
	switch {
	case r.Operands[0] == p0 && r.Operands[1] == p1:
	case r.Operands[0] == p1 && r.Operands[1] == p0:
		swapped = true
	default:
		return scalarFold{}, false
	}
	op := r.Opcode
	switch {
	case t.IsFloat():
		if op != ir.OpAdd && op != ir.OpMultiply && op != ir.OpMaximum && op != ir.OpMinimum {
			return scalarFold{}, false
		}
		f, round := floatBinary[op], floatRounder(t)
		if f == nil {
			return scalarFold{}, false
		}
		if swapped {
			return scalarFold{floats: func(acc, x float64) float64 { return round(f(x, acc)) }}, true
		}
		sf := scalarFold{floats: func(acc, x float64) float64 { return round(f(acc, x)) }}
		if op == ir.OpAdd && (t == ir.F32 || t == ir.F64) {
			sf.sumType = t
		}
		return sf, true
	case t.IsComplex():
		if op != ir.OpAdd && op != ir.OpMultiply {
			return scalarFold{}, false
		}
		f := complexBinary[op]
		if f == nil {
			return scalarFold{}, false
		}
		round := func(z complex128) complex128 { return z }
		if t == ir.C64 {
			round = func(z complex128) complex128 { return complex128(complex64(z)) }
		}
		if swapped {
			return scalarFold{complexs: func(acc, x complex128) complex128 { return round(f(x, acc)) }}, true
		}
		return scalarFold{complexs: func(acc, x complex128) complex128 { return round(f(acc, x)) }}, true
	case t.IsInteger() || t == ir.PRED:
		switch op {
		case ir.OpAnd, ir.OpOr:
		case ir.OpAdd, ir.OpMultiply, ir.OpMaximum, ir.OpMinimum:
			if t == ir.PRED {
				return scalarFold{}, false
			}
		default:
			return scalarFold{}, false
		}
		f := intBinary(op, t)
		if f == nil {
			return scalarFold{}, false
		}
		if swapped {
			return scalarFold{ints: func(acc, x int64) int64 { return wrapInt(t, f(x, acc)) }}, true
		}
		return scalarFold{ints: func(acc, x int64) int64 { return wrapInt(t, f(acc, x)) }}, true
	}
	return scalarFold{}, false
}

// floatRounder returns the function that rounds a float64 to the nearest
// value of real float type t the way the elementwise ops store it.
func floatRounder(t ir.ElementType) func(float64) float64 {
	return func(x float64) float64 { return ir.RoundToFloatType(x, t) }
}

// foldRows reduces each row of length r of vals with fold, starting from
// init, and returns one value per row.
func foldRows[T any](vals []T, rows, r int, init T, fold func(acc, x T) T) []T {
	out := make([]T, rows)
	for i := range out {
		acc := init
		for _, x := range vals[i*r : (i+1)*r] {
			acc = fold(acc, x)
		}
		out[i] = acc
	}
	return out
}

// permutedView is transposeSlice that returns src itself for the identity
// permutation.
func permutedView[T any](src []T, dims, perm []int) []T {
	for i, p := range perm {
		if p != i {
			return transposeSlice(src, dims, perm)
		}
	}
	return src
}

// ---- reduce ---------------------------------------------------------------

// splitOperands checks a variadic reducing op's operands: n arrays followed
// by n scalar init values of the same element types.
func splitOperands(ops []*ir.Literal) (arrays, inits []*ir.Literal, err error) {
	if len(ops) == 0 || len(ops)%2 != 0 {
		return nil, nil, fmt.Errorf("expected an even, non-zero number of operands (arrays then init values), found %d", len(ops))
	}
	n := len(ops) / 2
	arrays, inits = ops[:n], ops[n:]
	for i := range arrays {
		if !arrays[i].Shape().IsArray() {
			return nil, nil, fmt.Errorf("operand %d has shape %v, expected an array", i, arrays[i].Shape())
		}
		if !sameInts(arrays[i].Shape().Dims, arrays[0].Shape().Dims) {
			return nil, nil, fmt.Errorf("operand %d has dimensions %v, operand 0 has %v, expected equal", i, arrays[i].Shape().Dims, arrays[0].Shape().Dims)
		}
		if !inits[i].Shape().IsScalar() {
			return nil, nil, fmt.Errorf("init value %d has shape %v, expected a scalar", i, inits[i].Shape())
		}
	}
	return arrays, inits, nil
}

// resultArrayShapes returns the array shapes of a variadic op's result: the
// tuple elements for n > 1, the shape itself for n = 1.
func resultArrayShapes(s ir.Shape, n int) ([]ir.Shape, error) {
	if n == 1 && !s.IsTuple() {
		return []ir.Shape{s}, nil
	}
	if !s.IsTuple() || len(s.Tuple) != n {
		return nil, fmt.Errorf("result shape %v, expected a tuple of %d arrays", s, n)
	}
	return s.Tuple, nil
}

func packResults(outs []*ir.Literal, s ir.Shape) *ir.Literal {
	if len(outs) == 1 && !s.IsTuple() {
		return outs[0]
	}
	return ir.NewTupleLiteral(outs...)
}

func evalReduce(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	arrays, inits, err := splitOperands(ops)
	if err != nil {
		return nil, err
	}
	n := len(arrays)
	dims := arrays[0].Shape().Dims
	used := make([]bool, len(dims))
	if err := checkDimList("reduced", in.Dimensions, len(dims), used); err != nil {
		return nil, err
	}
	kept := freeDims(used)
	reduced := freeDims(invert(used))
	outDims := pick(dims, kept)
	shapes, err := resultArrayShapes(in.Shape, n)
	if err != nil {
		return nil, err
	}
	for i, s := range shapes {
		if !fitsDims(s, outDims) {
			return nil, fmt.Errorf("result %d has dimensions %v, reducing %v over %v gives %v", i, s.Dims, dims, in.Dimensions, outDims)
		}
		if s.Elem != inits[i].Shape().Elem {
			return nil, fmt.Errorf("result %d has element type %v, init value %d has %v", i, s.Elem, i, inits[i].Shape().Elem)
		}
	}
	perm := append(append([]int{}, kept...), reduced...)
	rows, r := numElements(outDims), numElements(pick(dims, reduced))
	if n == 1 && shapes[0].Elem == arrays[0].Shape().Elem {
		if fold, ok := standardReducer(in.ToApply, shapes[0].Elem); ok {
			return foldReduce(arrays[0], inits[0], outDims, dims, perm, rows, r, fold)
		}
	}
	if in.ToApply == nil {
		return nil, fmt.Errorf("reduce has no to_apply computation")
	}
	// General path: call the computation for every element.
	index := transposeSlice(iotaInts(numElements(dims)), dims, perm)
	outs := make([]*ir.Literal, n)
	for i := range outs {
		if outs[i], err = newArray(shapes[i].Elem, outDims); err != nil {
			return nil, err
		}
	}
	args := make([]*ir.Literal, 2*n)
	for o := 0; o < rows; o++ {
		accs := append([]*ir.Literal{}, inits...)
		for _, src := range index[o*r : (o+1)*r] {
			copy(args, accs)
			for i, a := range arrays {
				args[n+i] = scalarLiteralAt(a, src)
			}
			if accs, err = e.apply(in.ToApply, args, n); err != nil {
				return nil, err
			}
			if err := checkScalars(accs, shapes); err != nil {
				return nil, err
			}
		}
		for i := range outs {
			storeScalarAt(outs[i], o, accs[i])
		}
	}
	return packResults(outs, in.Shape), nil
}

// foldReduce is reduce with a standard reducer on typed slices.
func foldReduce(a, init *ir.Literal, outDims, dims, perm []int, rows, r int, fold scalarFold) (*ir.Literal, error) {
	t := a.Shape().Elem
	out, err := newArray(t, outDims)
	if err != nil {
		return nil, err
	}
	switch {
	case fold.sumType == ir.F32:
		vals := permutedView(ir.Values[float32](a), dims, perm)
		init := ir.Values[float32](init)[0]
		dst := ir.Values[float32](out)
		for i := range dst {
			acc := init
			for _, x := range vals[i*r : (i+1)*r] {
				acc += x
			}
			dst[i] = acc
		}
	case fold.sumType == ir.F64:
		vals := permutedView(ir.Values[float64](a), dims, perm)
		init := ir.Values[float64](init)[0]
		dst := ir.Values[float64](out)
		for i := range dst {
			acc := init
			for _, x := range vals[i*r : (i+1)*r] {
				acc += x
			}
			dst[i] = acc
		}
	case fold.floats != nil:
		vals := permutedView(floatValues(a), dims, perm)
		setFloats(out, foldRows(vals, rows, r, floatValues(init)[0], fold.floats))
	case fold.complexs != nil:
		vals := permutedView(complexValues(a), dims, perm)
		setComplex(out, foldRows(vals, rows, r, complexValues(init)[0], fold.complexs))
	default:
		vals := permutedView(intValues(a), dims, perm)
		setInts(out, foldRows(vals, rows, r, intValues(init)[0], fold.ints))
	}
	return out, nil
}

// apply calls a reducer-like computation on args and returns its n results
// (the elements of a tuple result, or the single array result).
func (e *evaluator) apply(c *ir.Computation, args []*ir.Literal, n int) ([]*ir.Literal, error) {
	res, err := e.call(c, args)
	if err != nil {
		return nil, err
	}
	if res.Shape().IsTuple() {
		if len(res.Elements()) != n {
			return nil, fmt.Errorf("computation %s returned %d values, expected %d", c.Name, len(res.Elements()), n)
		}
		return res.Elements(), nil
	}
	if n != 1 {
		return nil, fmt.Errorf("computation %s returned one value, expected a tuple of %d", c.Name, n)
	}
	return []*ir.Literal{res}, nil
}

// checkScalars verifies that a reducer returned one scalar of each result's
// element type.
func checkScalars(vals []*ir.Literal, shapes []ir.Shape) error {
	for i, v := range vals {
		if !v.Shape().IsScalar() || v.Shape().Elem != shapes[i].Elem {
			return fmt.Errorf("computation returned %v as value %d, expected %v[]", v.Shape(), i, shapes[i].Elem)
		}
	}
	return nil
}

func invert(b []bool) []bool {
	out := make([]bool, len(b))
	for i, x := range b {
		out[i] = !x
	}
	return out
}

// iotaInts returns 0, 1, …, n-1.
func iotaInts(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// ---- windows --------------------------------------------------------------

// windowPlan maps each output position of a windowed op (reduce-window,
// select-and-scatter) to the base elements its window covers.
type windowPlan struct {
	base    []int
	out     []int
	taps    [][][]int // taps[d][o]: base indices along d read by output index o, window order
	strides []int     // row-major strides of base
}

func planWindow(w *ir.Window, base []int) (*windowPlan, error) {
	if w == nil || len(w.Dims) != len(base) {
		n := 0
		if w != nil {
			n = len(w.Dims)
		}
		return nil, fmt.Errorf("window has %d dimensions, the operand has rank %d", n, len(base))
	}
	p := &windowPlan{base: base, out: make([]int, len(base)), taps: make([][][]int, len(base)), strides: denseStrides(base)}
	for d, wd := range w.Dims {
		wd = normalizeWindowDim(wd)
		if err := checkWindowDim(d, wd); err != nil {
			return nil, err
		}
		if wd.Reversal {
			return nil, fmt.Errorf("window dimension %d is reversed; only convolution windows may be", d)
		}
		padded := dilatedSize(base[d], wd.BaseDilation) + wd.PadLow + wd.PadHigh
		if padded < 0 {
			return nil, fmt.Errorf("window dimension %d: padding %d_%d leaves a negative size", d, wd.PadLow, wd.PadHigh)
		}
		p.out[d] = windowCount(padded, dilatedSize(wd.Size, wd.WindowDilation), wd.Stride)
		p.taps[d] = make([][]int, p.out[d])
		for o := range p.taps[d] {
			for k := 0; k < wd.Size; k++ {
				u := o*wd.Stride - wd.PadLow + k*wd.WindowDilation
				if u < 0 || u%wd.BaseDilation != 0 || u/wd.BaseDilation >= base[d] {
					continue
				}
				p.taps[d][o] = append(p.taps[d][o], u/wd.BaseDilation)
			}
		}
	}
	return p, nil
}

// forEachOutput calls f with the row-major position of every output element
// and the linear base indices its window covers, in window order. The slice
// is reused between calls.
func (p *windowPlan) forEachOutput(f func(o int, window []int) error) error {
	rank := len(p.base)
	total := numElements(p.out)
	opos := make([]int, rank)
	tap := make([]int, rank)
	var window []int
	for o := 0; o < total; o++ {
		window = window[:0]
		empty := false
		for d := range tap {
			tap[d] = 0
			if len(p.taps[d][opos[d]]) == 0 {
				empty = true
			}
		}
		for !empty {
			lin := 0
			for d := 0; d < rank; d++ {
				lin += p.taps[d][opos[d]][tap[d]] * p.strides[d]
			}
			window = append(window, lin)
			d := rank - 1
			for ; d >= 0; d-- {
				tap[d]++
				if tap[d] < len(p.taps[d][opos[d]]) {
					break
				}
				tap[d] = 0
			}
			if d < 0 {
				break
			}
		}
		if err := f(o, window); err != nil {
			return err
		}
		for d := rank - 1; d >= 0; d-- {
			opos[d]++
			if opos[d] < p.out[d] {
				break
			}
			opos[d] = 0
		}
	}
	return nil
}

// ---- reduce-window --------------------------------------------------------

func evalReduceWindow(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	arrays, inits, err := splitOperands(ops)
	if err != nil {
		return nil, err
	}
	n := len(arrays)
	p, err := planWindow(in.Window, arrays[0].Shape().Dims)
	if err != nil {
		return nil, err
	}
	shapes, err := resultArrayShapes(in.Shape, n)
	if err != nil {
		return nil, err
	}
	for i, s := range shapes {
		if !fitsDims(s, p.out) {
			return nil, fmt.Errorf("result %d has dimensions %v, the window gives %v", i, s.Dims, p.out)
		}
		if s.Elem != inits[i].Shape().Elem {
			return nil, fmt.Errorf("result %d has element type %v, init value %d has %v", i, s.Elem, i, inits[i].Shape().Elem)
		}
	}
	outs := make([]*ir.Literal, n)
	for i := range outs {
		if outs[i], err = newArray(shapes[i].Elem, p.out); err != nil {
			return nil, err
		}
	}
	if n == 1 && shapes[0].Elem == arrays[0].Shape().Elem {
		if fold, ok := standardReducer(in.ToApply, shapes[0].Elem); ok {
			switch {
			case fold.floats != nil:
				setFloats(outs[0], foldWindows(p, floatValues(arrays[0]), floatValues(inits[0])[0], fold.floats))
			case fold.complexs != nil:
				setComplex(outs[0], foldWindows(p, complexValues(arrays[0]), complexValues(inits[0])[0], fold.complexs))
			default:
				setInts(outs[0], foldWindows(p, intValues(arrays[0]), intValues(inits[0])[0], fold.ints))
			}
			return outs[0], nil
		}
	}
	if in.ToApply == nil {
		return nil, fmt.Errorf("reduce-window has no to_apply computation")
	}
	args := make([]*ir.Literal, 2*n)
	err = p.forEachOutput(func(o int, window []int) error {
		accs := append([]*ir.Literal{}, inits...)
		for _, src := range window {
			copy(args, accs)
			for i, a := range arrays {
				args[n+i] = scalarLiteralAt(a, src)
			}
			var err error
			if accs, err = e.apply(in.ToApply, args, n); err != nil {
				return err
			}
			if err := checkScalars(accs, shapes); err != nil {
				return err
			}
		}
		for i := range outs {
			storeScalarAt(outs[i], o, accs[i])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return packResults(outs, in.Shape), nil
}

func foldWindows[T any](p *windowPlan, vals []T, init T, fold func(acc, x T) T) []T {
	out := make([]T, numElements(p.out))
	p.forEachOutput(func(o int, window []int) error {
		acc := init
		for _, src := range window {
			acc = fold(acc, vals[src])
		}
		out[o] = acc
		return nil
	})
	return out
}

// ---- select-and-scatter ---------------------------------------------------

// XLA's HloEvaluator rule: within each window the first element (in window
// order) is the initial selection; each later element x replaces the
// selection s unless select(s, x) is true. So with select = GE the first of
// equal maxima wins. The source value of the window is then combined into
// the selected position with scatter(current, source), windows taken in
// row-major order. A window that lies entirely in padding scatters nothing.

func evalSelectAndScatter(e *evaluator, in *ir.Instruction, ops []*ir.Literal) (*ir.Literal, error) {
	if len(ops) != 3 {
		return nil, fmt.Errorf("expected 3 operands (operand, source, init_value), found %d", len(ops))
	}
	operand, source, init := ops[0], ops[1], ops[2]
	if !operand.Shape().IsArray() || !source.Shape().IsArray() {
		return nil, fmt.Errorf("operand and source must be arrays")
	}
	if !init.Shape().IsScalar() || init.Shape().Elem != source.Shape().Elem {
		return nil, fmt.Errorf("init value has shape %v, expected a %v scalar", init.Shape(), source.Shape().Elem)
	}
	p, err := planWindow(in.Window, operand.Shape().Dims)
	if err != nil {
		return nil, err
	}
	if !sameInts(source.Shape().Dims, p.out) {
		return nil, fmt.Errorf("source has dimensions %v, the window over the operand gives %v", source.Shape().Dims, p.out)
	}
	if in.Shape.Elem != source.Shape().Elem || !fitsDims(in.Shape, operand.Shape().Dims) {
		return nil, fmt.Errorf("result shape %v, expected %v with the operand's dimensions %v", in.Shape, source.Shape().Elem, operand.Shape().Dims)
	}
	if in.Select == nil || in.Scatter == nil {
		return nil, fmt.Errorf("select-and-scatter needs select and scatter computations")
	}
	// Selection: the fast form compares wide values, the general form calls
	// the select computation.
	var selects func(cur, cand int) (bool, error)
	if keep, ok := standardSelect(in.Select, operand); ok {
		selects = func(cur, cand int) (bool, error) { return keep(cur, cand), nil }
	} else {
		selects = func(cur, cand int) (bool, error) {
			res, err := e.call(in.Select, []*ir.Literal{scalarLiteralAt(operand, cur), scalarLiteralAt(operand, cand)})
			if err != nil {
				return false, err
			}
			if !res.Shape().IsScalar() || res.Shape().Elem != ir.PRED {
				return false, fmt.Errorf("select computation returned %v, expected pred[]", res.Shape())
			}
			return ir.Values[bool](res)[0], nil
		}
	}
	selected := make([]int, numElements(p.out))
	err = p.forEachOutput(func(o int, window []int) error {
		sel := -1
		for _, x := range window {
			if sel < 0 {
				sel = x
				continue
			}
			keep, err := selects(sel, x)
			if err != nil {
				return err
			}
			if !keep {
				sel = x
			}
		}
		selected[o] = sel
		return nil
	})
	if err != nil {
		return nil, err
	}
	st := source.Shape().Elem
	if fold, ok := standardReducer(in.Scatter, st); ok {
		dims := operand.Shape().Dims
		switch {
		case fold.floats != nil:
			return scatterSelected(st, dims, selected, floatValues(source), floatValues(init)[0], fold.floats, setFloats)
		case fold.complexs != nil:
			return scatterSelected(st, dims, selected, complexValues(source), complexValues(init)[0], fold.complexs, setComplex)
		default:
			return scatterSelected(st, dims, selected, intValues(source), intValues(init)[0], fold.ints, setInts)
		}
	}
	out, err := newArray(st, operand.Shape().Dims)
	if err != nil {
		return nil, err
	}
	for i := 0; i < out.ElementCount(); i++ {
		storeScalarAt(out, i, init)
	}
	for o, sel := range selected {
		if sel < 0 {
			continue
		}
		res, err := e.call(in.Scatter, []*ir.Literal{scalarLiteralAt(out, sel), scalarLiteralAt(source, o)})
		if err != nil {
			return nil, err
		}
		if !res.Shape().IsScalar() || res.Shape().Elem != st {
			return nil, fmt.Errorf("scatter computation returned %v, expected %v[]", res.Shape(), st)
		}
		storeScalarAt(out, sel, res)
	}
	return out, nil
}

func scatterSelected[T any](t ir.ElementType, dims, selected []int, src []T, init T, fold func(acc, x T) T,
	set func(*ir.Literal, []T)) (*ir.Literal, error) {
	vals := make([]T, numElements(dims))
	for i := range vals {
		vals[i] = init
	}
	for o, sel := range selected {
		if sel >= 0 {
			vals[sel] = fold(vals[sel], src[o])
		}
	}
	out, err := newArray(t, dims)
	if err != nil {
		return nil, err
	}
	set(out, vals)
	return out, nil
}

// standardSelect recognises a select computation that is a single compare
// of its two parameters and returns it as a predicate on element positions
// of operand, computed with the compare op's own rules.
func standardSelect(c *ir.Computation, operand *ir.Literal) (func(cur, cand int) bool, bool) {
	t := operand.Shape().Elem
	if c == nil || len(c.Parameters) != 2 || c.Root == nil || c.Root.Opcode != ir.OpCompare {
		return nil, false
	}
	p0, p1, r := c.Parameters[0], c.Parameters[1], c.Root
	if p0 == nil || p1 == nil || len(r.Operands) != 2 || !p0.Shape.IsScalar() || p0.Shape.Elem != t || !p1.Shape.IsScalar() || p1.Shape.Elem != t {
		return nil, false
	}
	var swapped bool
	switch {
	case r.Operands[0] == p0 && r.Operands[1] == p1:
	case r.Operands[0] == p1 && r.Operands[1] == p0:
		swapped = true
	default:
		return nil, false
	}
	less, ok := compareFunc(operand, r.Direction, r.CompareType)
	if !ok {
		return nil, false
	}
	if swapped {
		return func(cur, cand int) bool { return less(cand, cur) }, true
	}
	return less, true
}
