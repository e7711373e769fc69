package ir

import "slices"

// Shape inference of the reductions (reduce, reduce-window,
// select-and-scatter), sort and top-k, with the signature checks of the
// computations they apply.

// checkReducer is XLA's VerifyReducerShape: a reducer of n inputs takes 2n
// scalar parameters (the n accumulators, then the n input elements) and
// returns a scalar (n = 1) or a tuple of n scalars; accumulator i and
// parameter i have one type, and init value i, parameter n+i and input i's
// element type are that type up to floating-point precision (a bf16 init
// value or input for an f32 reducer), as XLA has it.
func checkReducer(op string, reducer ProgramShape, inits []Shape, inputTypes []ElementType) error {
	n := len(inputTypes)
	if len(reducer.Parameters) != 2*n {
		return errf(op, "reduction computation %s must take %d parameters, found %d", humanProgram(reducer), 2*n, len(reducer.Parameters))
	}
	var accs []Shape
	switch r := reducer.Result; {
	case r.IsArray():
		if n != 1 {
			return errf(op, "reduction computation must return a tuple of %d scalars, found %s", n, human(r))
		}
		accs = []Shape{r}
	case r.IsTuple():
		if len(r.Tuple) != n {
			return errf(op, "reduction computation must return a tuple of %d scalars, found %s", n, human(r))
		}
		accs = r.Tuple
	default:
		return errf(op, "reduction computation must return a scalar or a tuple of scalars, found %s", human(r))
	}
	for _, a := range accs {
		if !a.IsScalar() {
			return errf(op, "reduction computation must return scalars, found %s", human(reducer.Result))
		}
	}
	for i := 0; i < n; i++ {
		if !compatible(accs[i], reducer.Parameters[i]) {
			return errf(op, "reduction computation parameter %d has shape %s, its result %d has shape %s (expected the same)", i, human(reducer.Parameters[i]), i, human(accs[i]))
		}
		if !compatibleIgnoringFpPrecision(accs[i], inits[i]) {
			return errf(op, "init value %d has shape %s, the reduction computation's accumulator %d has shape %s", i, human(inits[i]), i, human(accs[i]))
		}
		in := scalarOf(inputTypes[i])
		if !compatibleIgnoringFpPrecision(in, reducer.Parameters[n+i]) {
			return errf(op, "reduction computation parameter %d has shape %s, input %d has element type %s", n+i, human(reducer.Parameters[n+i]), i, inputTypes[i])
		}
		if !compatibleIgnoringFpPrecision(accs[i], reducer.Parameters[n+i]) {
			return errf(op, "reduction computation parameter %d has shape %s, its result %d has shape %s (expected the same)", n+i, human(reducer.Parameters[n+i]), i, human(accs[i]))
		}
	}
	return nil
}

// InferReduceShape is the shape of reduce(operands…, inits…) over
// dimensions with reducer: each operand without the reduced dimensions, with
// the element type the reducer returns for it; a tuple when more than one
// operand. Operands share their dimensions; dimensions are distinct and in
// range.
func InferReduceShape(operands, inits []Shape, dimensions []int, reducer ProgramShape) (Shape, error) {
	const op = "reduce"
	if len(operands) == 0 {
		return Shape{}, errf(op, "needs at least one operand")
	}
	if len(inits) != len(operands) {
		return Shape{}, errf(op, "%d init values for %d operands", len(inits), len(operands))
	}
	for i, s := range operands {
		if err := expectArray(op, "operand "+itoa(i), s); err != nil {
			return Shape{}, err
		}
		if !slices.Equal(s.Dims, operands[0].Dims) {
			return Shape{}, errf(op, "operand %d %s must have the dimensions of operand 0 %s", i, human(s), human(operands[0]))
		}
	}
	arg := operands[0]
	for _, d := range dimensions {
		if d < 0 || d >= arg.Rank() {
			return Shape{}, errf(op, "reduced dimension %d is out of range for %s", d, human(arg))
		}
	}
	types := make([]ElementType, len(operands))
	for i, s := range operands {
		types[i] = s.Elem
	}
	if err := checkReducer(op, reducer, inits, types); err != nil {
		return Shape{}, err
	}
	if d, dup := firstDuplicate(dimensions); dup {
		return Shape{}, errf(op, "dimension %d is reduced twice in %s", d, intList(dimensions))
	}
	var dims []int
	var dyn []bool
	for i := range arg.Dims {
		if !slices.Contains(dimensions, i) {
			dims = append(dims, arg.Dims[i])
			dyn = append(dyn, arg.IsDynamicDim(i))
		}
	}
	if reducer.Result.IsArray() {
		return makeShape(reducer.Result.Elem, dims, dyn), nil
	}
	elems := make([]Shape, len(reducer.Result.Tuple))
	for i, e := range reducer.Result.Tuple {
		elems[i] = makeShape(e.Elem, dims, dyn)
	}
	return MakeTuple(elems...), nil
}

// InferReduceWindowShape is the shape of reduce-window(operands…, inits…)
// with window and reducer: per operand, the window output shape with its
// init value's element type; a tuple when more than one operand.
func InferReduceWindowShape(operands, inits []Shape, window Window, reducer ProgramShape) (Shape, error) {
	const op = "reduce-window"
	if len(operands) == 0 {
		return Shape{}, errf(op, "needs at least one operand")
	}
	if len(inits) != len(operands) {
		return Shape{}, errf(op, "%d init values for %d operands", len(inits), len(operands))
	}
	types := make([]ElementType, len(operands))
	for i, s := range operands {
		if err := expectArray(op, "operand "+itoa(i), s); err != nil {
			return Shape{}, err
		}
		if !slices.Equal(s.Dims, operands[0].Dims) {
			return Shape{}, errf(op, "operand %d %s must have the dimensions of operand 0 %s", i, human(s), human(operands[0]))
		}
		types[i] = s.Elem
	}
	if err := checkReducer(op, reducer, inits, types); err != nil {
		return Shape{}, err
	}
	outs := make([]Shape, len(operands))
	for i, s := range operands {
		o, err := inferWindowOutputShape(op, s, window, inits[i].Elem)
		if err != nil {
			return Shape{}, err
		}
		outs[i] = o
	}
	if len(outs) == 1 && reducer.Result.IsArray() {
		return outs[0], nil
	}
	return MakeTuple(outs...), nil
}

// InferSelectAndScatterShape is the shape of select-and-scatter(operand,
// source, init): the operand's. selectFn is (T, T) -> pred for the operand's
// element type T; scatterFn a reducer of source elements with init; source
// has the shape of the window reduction of operand.
func InferSelectAndScatterShape(operand Shape, selectFn ProgramShape, window Window, source, init Shape, scatterFn ProgramShape) (Shape, error) {
	const op = "select-and-scatter"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	if err := expectArray(op, "source", source); err != nil {
		return Shape{}, err
	}
	if len(selectFn.Parameters) != 2 {
		return Shape{}, errf(op, "select computation %s must take 2 parameters, found %d", humanProgram(selectFn), len(selectFn.Parameters))
	}
	if !compatible(selectFn.Result, scalarOf(PRED)) {
		return Shape{}, errf(op, "select computation must return pred[], found %s", human(selectFn.Result))
	}
	elem := scalarOf(operand.Elem)
	for i, p := range selectFn.Parameters {
		if !compatible(p, elem) {
			return Shape{}, errf(op, "select computation parameter %d has shape %s, the operand's element shape is %s", i, human(p), human(elem))
		}
	}
	if err := checkReducer(op, scatterFn, []Shape{init}, []ElementType{source.Elem}); err != nil {
		return Shape{}, err
	}
	reduced, err := inferWindowOutputShape(op, operand, window, operand.Elem)
	if err != nil {
		return Shape{}, err
	}
	if !compatible(source, reduced) {
		return Shape{}, errf(op, "source %s must have the shape of the window-reduced operand %s (window {%v})", human(source), human(reduced), window)
	}
	return operand.Clone(), nil
}

// InferSortShape is the shape of sort(operands…) along dimension with
// comparator: the operand's shape, or a tuple of the operands' shapes. The
// operands share their dimensions; the comparator takes two scalars of each
// operand's element type (operand k's at parameters 2k and 2k+1) and returns
// pred[].
func InferSortShape(operands []Shape, dimension int, comparator ProgramShape) (Shape, error) {
	const op = "sort"
	if len(operands) == 0 {
		return Shape{}, errf(op, "needs at least one operand")
	}
	for i, s := range operands {
		if err := expectArray(op, "operand "+itoa(i), s); err != nil {
			return Shape{}, err
		}
		if !slices.Equal(s.Dims, operands[0].Dims) {
			return Shape{}, errf(op, "operand %d %s must have the dimensions of operand 0 %s", i, human(s), human(operands[0]))
		}
	}
	if dimension < 0 || dimension >= operands[0].Rank() {
		return Shape{}, errf(op, "dimension %d is out of range for %s", dimension, human(operands[0]))
	}
	if !compatible(comparator.Result, scalarOf(PRED)) {
		return Shape{}, errf(op, "comparator must return pred[], found %s", human(comparator.Result))
	}
	if len(comparator.Parameters) != 2*len(operands) {
		return Shape{}, errf(op, "comparator %s must take %d parameters for %d operands, found %d", humanProgram(comparator), 2*len(operands), len(operands), len(comparator.Parameters))
	}
	for i, p := range comparator.Parameters {
		want := scalarOf(operands[i/2].Elem)
		if !compatible(p, want) {
			return Shape{}, errf(op, "comparator parameter %d has shape %s, expected %s (operand %d's element type)", i, human(p), human(want), i/2)
		}
	}
	if len(operands) == 1 {
		return operands[0].Clone(), nil
	}
	return MakeTuple(operands...), nil
}

// InferTopKShape is the shape of topk(operand, k): a tuple of the values
// (the operand's shape with the last dimension k) and their s32 indices.
func InferTopKShape(operand Shape, k int) (Shape, error) {
	const op = "topk"
	if err := expectArray(op, "operand", operand); err != nil {
		return Shape{}, err
	}
	if operand.Rank() == 0 {
		return Shape{}, errf(op, "operand must have rank at least 1, found %s", human(operand))
	}
	last := operand.Rank() - 1
	if k < 0 {
		return Shape{}, errf(op, "k must not be negative, found %d", k)
	}
	if operand.Dims[last] < k {
		return Shape{}, errf(op, "k %d is larger than the last dimension %d of %s", k, operand.Dims[last], human(operand))
	}
	dims := slices.Clone(operand.Dims)
	dims[last] = k
	dyn := dynamicFlags(operand)
	dyn[last] = false
	values := makeShape(operand.Elem, dims, dyn)
	return MakeTuple(values, values.WithElem(S32)), nil
}
