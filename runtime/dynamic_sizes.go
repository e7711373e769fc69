package runtime

// Run-time sizes that come from parameters. A bounded dynamic dimension of
// an entry parameter (`f32[<=64,784]`, or one relaxed by WithDynamicDim) is
// a symbol whose value the caller's tensor gives at each run. Through the
// program the sizes it reaches are multiples of it: a dot's rows, a
// reshape merging it with a dimension of 128 (128·b), a loop body's state.
// sizeTable records, for every value with such a dimension, each
// dimension's size as coef·symbol (or a constant); the plan is compiled at
// the bounds and each step, at run time, takes its actual extents from the
// symbols' values.

import (
	"fmt"
	"slices"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// sizeExpr is the size of one dimension: coef·(value of symbol sym), or the
// constant coef when sym < 0.
type sizeExpr struct {
	sym, coef int
}

func static(n int) sizeExpr { return sizeExpr{sym: -1, coef: n} }

// isStatic reports whether the size is a constant.
func (e sizeExpr) isStatic() bool { return e.sym < 0 }

// eval is the size for the symbols' values.
func (e sizeExpr) eval(syms []int) int {
	if e.sym < 0 {
		return e.coef
	}
	return e.coef * syms[e.sym]
}

// leafSizes are the sizes of the dimensions of one array leaf.
type leafSizes []sizeExpr

// dynamic reports whether any dimension is symbolic.
func (l leafSizes) dynamic() bool {
	for _, e := range l {
		if !e.isStatic() {
			return true
		}
	}
	return false
}

// eval writes the actual dimensions into dims (len(l) ints).
func (l leafSizes) eval(syms []int, dims []int) {
	for i, e := range l {
		dims[i] = e.eval(syms)
	}
}

// count is the number of elements as coef·symbol (or a constant); ok is
// false when more than one dimension is symbolic.
func (l leafSizes) count() (sizeExpr, bool) {
	out := static(1)
	for _, e := range l {
		switch {
		case e.isStatic():
			out.coef *= e.coef
		case out.isStatic():
			out = sizeExpr{sym: e.sym, coef: out.coef * e.coef}
		default:
			return sizeExpr{}, false
		}
	}
	return out, true
}

// symbol is one run-time size: an entry parameter leaf's dynamic dimension.
type symbol struct {
	leaf, dim int // entry parameter leaf (as frames number them) and dimension
	bound     int
	same      int // the symbol this one must equal at run time (itself if none)
}

// sizeTable holds the sizes of every value that has a symbolic dimension
// (values absent from it are static at their shapes' dimensions).
type sizeTable struct {
	syms   []symbol
	values map[*ssa.Value][]leafSizes
	// checkFlags: the program still carries its shapes' dynamic marks, and
	// a value's sizes must agree with them (the analysis of the program as
	// lowered, before the marks are dropped).
	checkFlags bool
	// partial: a value whose sizes the rules cannot express is left out
	// (its sizes then travel in arena slots) instead of failing.
	partial bool
	// unknown holds, in partial mode, the values with dynamic marks whose
	// sizes are not expressible.
	unknown map[*ssa.Value]bool
	done    map[*ssa.Func]bool
}

// unsupportedSizes reports why a program's run-time sizes cannot be
// followed symbolically.
type unsupportedSizes struct {
	v   *ssa.Value
	msg string
}

func (e *unsupportedSizes) Error() string {
	return fmt.Sprintf("%v %s: %s", e.v.Op, e.v.Name, e.msg)
}

// find returns the representative of symbol s.
func (t *sizeTable) find(s int) int {
	for t.syms[s].same != s {
		s = t.syms[s].same
	}
	return s
}

// unify records that symbols a and b are equal at run time.
func (t *sizeTable) unify(a, b int) {
	a, b = t.find(a), t.find(b)
	if a != b {
		t.syms[a].same = b
	}
}

// canon rewrites an expression to its symbol's representative.
func (t *sizeTable) canon(e sizeExpr) sizeExpr {
	if e.sym >= 0 {
		e.sym = t.find(e.sym)
	}
	return e
}

// sizesOf returns the sizes of v's leaves (static ones from its shape).
func (t *sizeTable) sizesOf(v *ssa.Value) []leafSizes {
	if s, ok := t.values[v]; ok {
		return s
	}
	return staticSizes(v.Shape)
}

// staticSizes are the sizes of a shape's leaves as constants.
func staticSizes(s ir.Shape) []leafSizes {
	var out []leafSizes
	for _, l := range leafShapes(s) {
		ls := make(leafSizes, l.Rank())
		for d, n := range l.Dims {
			ls[d] = static(n)
		}
		out = append(out, ls)
	}
	return out
}

// leafOf returns the sizes of v's only leaf (an array value).
func (t *sizeTable) leafOf(v *ssa.Value) leafSizes {
	s := t.sizesOf(v)
	if len(s) != 1 {
		return nil
	}
	return s[0]
}

// isDynamic reports whether v has a symbolic dimension.
func (t *sizeTable) isDynamic(v *ssa.Value) bool {
	_, ok := t.values[v]
	return ok
}

// paramDim is a dynamic dimension of an entry parameter leaf.
type paramDim struct{ leaf, dim int }

// dynamicParamDims lists the dynamic dimensions of p's entry parameters.
func dynamicParamDims(p *ssa.Program) []paramDim {
	var out []paramDim
	leaf := 0
	for _, param := range p.Entry.Params {
		for _, l := range leafShapes(param.Shape) {
			for d := range l.Dims {
				if l.IsArray() && l.IsDynamicDim(d) {
					out = append(out, paramDim{leaf, d})
				}
			}
			leaf++
		}
	}
	return out
}

// analyzeSizes follows the entry parameters' dynamic dimensions (dims)
// through program p. With checkFlags the shapes' dynamic marks must agree
// with the derived sizes; with partial, values the rules cannot express are
// left out instead of failing.
func analyzeSizes(p *ssa.Program, dims []paramDim, checkFlags, partial bool) (*sizeTable, error) {
	t := &sizeTable{values: map[*ssa.Value][]leafSizes{}, checkFlags: checkFlags, partial: partial,
		unknown: map[*ssa.Value]bool{}, done: map[*ssa.Func]bool{}}
	leaf := 0
	for _, param := range p.Entry.Params {
		var sizes []leafSizes
		dyn := false
		for _, l := range leafShapes(param.Shape) {
			ls := make(leafSizes, l.Rank())
			for d, n := range l.Dims {
				ls[d] = static(n)
				if l.IsArray() && slices.Contains(dims, paramDim{leaf, d}) {
					t.syms = append(t.syms, symbol{leaf: leaf, dim: d, bound: n, same: len(t.syms)})
					ls[d] = sizeExpr{sym: len(t.syms) - 1, coef: 1}
					dyn = true
				}
			}
			sizes = append(sizes, ls)
			leaf++
		}
		if dyn {
			t.values[param] = sizes
		}
	}
	if err := t.function(p.Entry); err != nil {
		return nil, err
	}
	// Canonical symbols everywhere.
	for _, sizes := range t.values {
		for _, l := range sizes {
			for d := range l {
				l[d] = t.canon(l[d])
			}
		}
	}
	return t, nil
}

// function derives the sizes of f's values (its parameters' are set).
func (t *sizeTable) function(f *ssa.Func) error {
	for _, v := range f.Values {
		if v.Op == ssa.OpParameter {
			continue
		}
		sizes, err := t.value(v)
		if err != nil {
			if t.partial {
				// A value of static shape needs no sizes; a dynamic one
				// keeps its sizes in an arena slot.
				t.unknown[v] = v.Shape.IsDynamic()
				continue
			}
			return err
		}
		if err := t.agree(v, sizes); err != nil {
			if t.partial {
				t.unknown[v] = true
				continue
			}
			return err
		}
		if sizes != nil && anyDynamic(sizes) {
			t.values[v] = sizes
		}
	}
	return nil
}

func anyDynamic(s []leafSizes) bool {
	for _, l := range s {
		if l.dynamic() {
			return true
		}
	}
	return false
}

// agree checks derived sizes against v's shape: the bounds must hold them,
// and under checkFlags a symbolic dimension must be marked dynamic.
func (t *sizeTable) agree(v *ssa.Value, sizes []leafSizes) error {
	shapes := leafShapes(v.Shape)
	if sizes == nil {
		if t.checkFlags && v.Shape.IsDynamic() && !t.staticIsValid(v) {
			return &unsupportedSizes{v, fmt.Sprintf("has dynamic shape %v whose sizes do not follow from the parameters", v.Shape)}
		}
		return nil
	}
	if len(sizes) != len(shapes) {
		return &unsupportedSizes{v, "leaf count differs"}
	}
	for i, l := range shapes {
		if len(sizes[i]) != l.Rank() {
			return &unsupportedSizes{v, "rank differs"}
		}
		for d, e := range sizes[i] {
			if e.isStatic() {
				if e.coef != l.Dims[d] {
					return &unsupportedSizes{v, fmt.Sprintf("dimension %d has size %d, its shape %v", d, e.coef, v.Shape)}
				}
				continue
			}
			if e.coef*t.syms[e.sym].bound != l.Dims[d] {
				return &unsupportedSizes{v, fmt.Sprintf("dimension %d has bound %d, its shape %v", d, e.coef*t.syms[e.sym].bound, v.Shape)}
			}
			if t.checkFlags && !l.IsDynamicDim(d) {
				return &unsupportedSizes{v, fmt.Sprintf("dimension %d carries a run-time size but shape %v marks it static", d, v.Shape)}
			}
		}
	}
	return nil
}

// staticIsValid reports whether a value marked dynamic may have static
// sizes: the ops that build their result at its full bounds (a broadcast
// of a static operand, an iota, a constant).
func (t *sizeTable) staticIsValid(v *ssa.Value) bool {
	for _, a := range v.Args {
		if t.isDynamic(a) || t.unknown[a] {
			return false
		}
	}
	op, _ := v.Op.IR()
	switch op {
	case ir.OpSetDimensionSize, ir.OpDynamicReshape:
		return false
	}
	return true
}

// value derives the sizes of v from its operands'. It returns nil for a
// value whose sizes are all static.
func (t *sizeTable) value(v *ssa.Value) ([]leafSizes, error) {
	dynArgs := false
	for _, a := range v.Args {
		if t.unknown[a] {
			return nil, &unsupportedSizes{v, fmt.Sprintf("operand %v has sizes that do not follow from the parameters", a)}
		}
		if t.isDynamic(a) {
			dynArgs = true
		}
	}
	fail := func(format string, args ...any) ([]leafSizes, error) {
		return nil, &unsupportedSizes{v, fmt.Sprintf(format, args...)}
	}
	op, isIR := v.Op.IR()
	if len(v.Funcs) > 0 && (v.Op == ssa.OpWhile || v.Op == ssa.OpConditional || v.Op == ssa.OpCall) {
		return t.control(v)
	}
	if !dynArgs {
		if isIR && (op == ir.OpSetDimensionSize || op == ir.OpDynamicReshape) {
			return fail("sets a run-time size from data")
		}
		return nil, nil
	}
	out := staticSizes(v.Shape)
	switch {
	case v.Op == ssa.OpTuple:
		out = nil
		for _, a := range v.Args {
			out = append(out, t.sizesOf(a)...)
		}
		return out, nil
	case v.Op == ssa.OpGetTupleElement:
		a := v.Args[0]
		off := leafOffset(a.Shape, v.Attrs.TupleIndex)
		n := len(leafShapes(v.Shape))
		return slices.Clone(t.sizesOf(a)[off : off+n]), nil
	case v.Op == ssa.OpOptBarrier || (isIR && (op == ir.OpAddDependency || op == ir.OpDomain)):
		return slices.Clone(t.sizesOf(v.Args[0])[:len(leafShapes(v.Shape))]), nil
	case v.Op.IsElementwise() || v.Op == ssa.OpSoftmax || v.Op == ssa.OpLayerNorm || v.Op == ssa.OpMap ||
		v.Op == ssa.OpClamp || v.Op == ssa.OpSelect || v.Op == ssa.OpConvert || v.Op == ssa.OpCopy ||
		(isIR && (op == ir.OpReducePrecision || op == ir.OpBitcastConvert || op == ir.OpBatchNormInference || op == ir.OpStochasticConvert)):
		if !v.Shape.IsArray() {
			return fail("is not an array")
		}
		res := out[0]
		for _, a := range v.Args {
			if !a.Shape.IsArray() || a.Shape.Rank() != v.Shape.Rank() || !t.isDynamic(a) {
				continue
			}
			if op == ir.OpBitcastConvert && a.Shape.Elem.ByteSize() != v.Shape.Elem.ByteSize() {
				return fail("reinterprets elements of another size along a run-time size")
			}
			if v.Op == ssa.OpLayerNorm && a != v.Args[0] {
				return fail("normalises with a scale or bias of run-time size")
			}
			al := t.leafOf(a)
			for d, e := range al {
				if e.isStatic() {
					continue
				}
				if res[d].isStatic() {
					res[d] = e
					continue
				}
				if !t.same(res[d], e) {
					return fail("combines dimension %d of sizes %v and %v", d, res[d], e)
				}
			}
		}
		return out, nil
	case v.Op == ssa.OpBroadcast:
		al := t.leafOf(v.Args[0])
		for k, d := range v.Attrs.Dimensions {
			if !al[k].isStatic() {
				if v.Args[0].Shape.Dims[k] != v.Shape.Dims[d] {
					return fail("broadcasts a run-time size")
				}
				out[0][d] = al[k]
			}
		}
		return out, nil
	case v.Op == ssa.OpTranspose:
		al := t.leafOf(v.Args[0])
		for j, d := range v.Attrs.Dimensions {
			out[0][j] = al[d]
		}
		return out, nil
	case v.Op == ssa.OpReshape || v.Op == ssa.OpBitcast:
		if v.Args[0].Shape.Elem.ByteSize() != v.Shape.Elem.ByteSize() || !v.Shape.IsArray() {
			return fail("reinterprets bytes")
		}
		return t.reshape(v)
	case v.Op == ssa.OpDot:
		return t.dot(v)
	case v.Op == ssa.OpReduce:
		n := len(v.Args) / 2
		var lead leafSizes
		for i := 0; i < n; i++ {
			al := t.leafOf(v.Args[i])
			if lead == nil {
				lead = al
				continue
			}
			for d := range al {
				if !t.same(lead[d], al[d]) {
					return fail("reduces operands of different sizes")
				}
			}
		}
		var kept leafSizes
		for d, e := range lead {
			if !slices.Contains(v.Attrs.Dimensions, d) {
				kept = append(kept, e)
			}
		}
		for i := range out {
			out[i] = slices.Clone(kept)
		}
		return out, nil
	case v.Op == ssa.OpSlice:
		al := t.leafOf(v.Args[0])
		for d, e := range al {
			if e.isStatic() {
				continue
			}
			s := v.Attrs.Slice[d]
			if s.Start != 0 || s.Limit != v.Args[0].Shape.Dims[d] || max(s.Stride, 1) != 1 {
				return fail("slices dimension %d, which has a run-time size", d)
			}
			out[0][d] = e
		}
		return out, nil
	case v.Op == ssa.OpConcatenate:
		cd := v.Attrs.Dimensions[0]
		for _, a := range v.Args {
			for d, e := range t.leafOf(a) {
				if e.isStatic() {
					continue
				}
				if d == cd {
					return fail("concatenates along a run-time size")
				}
				if !out[0][d].isStatic() && !t.same(out[0][d], e) {
					return fail("concatenates operands of different sizes")
				}
				out[0][d] = e
			}
		}
		return out, nil
	case v.Op == ssa.OpPad:
		for d, e := range t.leafOf(v.Args[0]) {
			if e.isStatic() {
				continue
			}
			if v.Attrs.Padding[d] != (ir.PaddingDim{}) {
				return fail("pads dimension %d, which has a run-time size", d)
			}
			out[0][d] = e
		}
		return out, nil
	case v.Op == ssa.OpSort:
		var lead leafSizes
		for _, a := range v.Args {
			al := t.leafOf(a)
			if lead == nil {
				lead = al
				continue
			}
			for d := range al {
				if !t.same(lead[d], al[d]) {
					return fail("sorts operands of different sizes")
				}
			}
		}
		for i := range out {
			out[i] = slices.Clone(lead)
		}
		return out, nil
	case isIR && op == ir.OpGather:
		return t.gather(v)
	case v.Op == ssa.OpConvolution:
		cd := v.Attrs.ConvDims
		if cd == nil {
			return fail("has no dimension numbers")
		}
		if !t.staticExcept(v.Args[0], cd.InputBatch) || t.isDynamic(v.Args[1]) {
			return fail("convolves along a run-time size other than the batch")
		}
		out[0][cd.OutputBatch] = t.leafOf(v.Args[0])[cd.InputBatch]
		return out, nil
	case v.Op == ssa.OpReduceWindow:
		n := len(v.Args) / 2
		w := v.Attrs.Window
		for i := 0; i < n; i++ {
			for d, e := range t.leafOf(v.Args[i]) {
				if e.isStatic() {
					continue
				}
				wd := w.Dims[d]
				if wd.Size != 1 || max(wd.Stride, 1) != 1 || wd.PadLow != 0 || wd.PadHigh != 0 || max(wd.BaseDilation, 1) != 1 || max(wd.WindowDilation, 1) != 1 {
					return fail("has a window along a run-time size")
				}
				out[i][d] = e
			}
		}
		return out, nil
	case isIR && (op == ir.OpFft || op == ir.OpCholesky || op == ir.OpTriangularSolve || op == ir.OpTopK):
		inner := 2
		switch op {
		case ir.OpFft:
			inner = len(v.Attrs.FFTLength)
		case ir.OpTopK:
			inner = 1
		}
		for _, a := range v.Args {
			al := t.leafOf(a)
			for d, e := range al {
				if e.isStatic() {
					continue
				}
				if d >= len(al)-inner {
					return fail("has a run-time size in a dimension it transforms")
				}
				for i := range out {
					if !out[i][d].isStatic() && !t.same(out[i][d], e) {
						return fail("has operands of different sizes")
					}
					out[i][d] = e
				}
			}
		}
		return out, nil
	}
	return fail("has an operand with a run-time size, which this op cannot take")
}

// same reports whether two sizes are equal at every run, unifying two
// symbols that must then be equal (a run with different values fails).
func (t *sizeTable) same(a, b sizeExpr) bool {
	if a.isStatic() || b.isStatic() {
		return a == b
	}
	if a.coef != b.coef || t.syms[t.find(a.sym)].bound != t.syms[t.find(b.sym)].bound {
		return false
	}
	t.unify(a.sym, b.sym)
	return true
}

// staticExcept reports whether v's only symbolic dimension, if any, is d.
func (t *sizeTable) staticExcept(v *ssa.Value, d int) bool {
	for i, e := range t.leafOf(v) {
		if i != d && !e.isStatic() {
			return false
		}
	}
	return true
}

// reshape derives a reshape's sizes: in each group of dimensions with the
// same element count on both sides, a run-time size must sit in the
// group's leading dimension (of size above 1) on the operand's side, and
// moves to the leading dimension on the result's side, scaled by the
// ratio of the groups' other dimensions.
func (t *sizeTable) reshape(v *ssa.Value) ([]leafSizes, error) {
	x := v.Args[0].Shape.Dims
	al := t.leafOf(v.Args[0])
	out := staticSizes(v.Shape)
	for _, g := range commonFactors(x, v.Shape.Dims) {
		var sym sizeExpr
		found := false
		for k, d := range g.in {
			if al[d].isStatic() {
				continue
			}
			if found || k != leadOf(x, g.in) {
				return nil, &unsupportedSizes{v, fmt.Sprintf("reshapes %v to %v with a run-time size inside a group of dimensions", x, v.Shape.Dims)}
			}
			sym, found = al[d], true
		}
		if !found {
			continue
		}
		lo := leadOf(v.Shape.Dims, g.out)
		if lo < 0 {
			return nil, &unsupportedSizes{v, "drops a run-time size"}
		}
		inRest, outRest := 1, 1
		for k, d := range g.in {
			if k != leadOf(x, g.in) {
				inRest *= x[d]
			}
		}
		for k, d := range g.out {
			if k != lo {
				outRest *= v.Shape.Dims[d]
			}
		}
		if (sym.coef*inRest)%outRest != 0 {
			return nil, &unsupportedSizes{v, fmt.Sprintf("reshapes %v to %v, which splits a run-time size unevenly", x, v.Shape.Dims)}
		}
		out[0][g.out[lo]] = sizeExpr{sym: sym.sym, coef: sym.coef * inRest / outRest}
	}
	return out, nil
}

// leadOf is the position in group g of its first dimension above 1 (-1 if
// none).
func leadOf(dims, g []int) int {
	for k, d := range g {
		if dims[d] != 1 {
			return k
		}
	}
	return -1
}

// factorGroup is a run of operand dimensions and a run of result
// dimensions of a reshape with the same element count.
type factorGroup struct{ in, out []int }

// commonFactors splits a reshape into its smallest groups of dimensions of
// equal element count (XLA's CommonFactors); size-1 dimensions join the
// group they are next to.
func commonFactors(in, out []int) []factorGroup {
	var gs []factorGroup
	i, j := 0, 0
	for i < len(in) || j < len(out) {
		g := factorGroup{}
		pa, pb := 1, 1
		for i < len(in) && in[i] == 1 {
			g.in = append(g.in, i)
			i++
		}
		for j < len(out) && out[j] == 1 {
			g.out = append(g.out, j)
			j++
		}
		if i < len(in) {
			pa *= in[i]
			g.in = append(g.in, i)
			i++
		}
		if j < len(out) {
			pb *= out[j]
			g.out = append(g.out, j)
			j++
		}
		for pa != pb && (i < len(in) || j < len(out)) {
			if (pa < pb || j >= len(out)) && i < len(in) {
				pa *= in[i]
				g.in = append(g.in, i)
				i++
			} else {
				pb *= out[j]
				g.out = append(g.out, j)
				j++
			}
		}
		gs = append(gs, g)
	}
	return gs
}

// dot derives a dot's sizes: batch, free and contracting dimensions keep
// their operands' sizes (the contracting ones must agree).
func (t *sizeTable) dot(v *ssa.Value) ([]leafSizes, error) {
	dn := v.Attrs.DotDims
	if dn == nil {
		return nil, &unsupportedSizes{v, "has no dimension numbers"}
	}
	l, r := t.leafOf(v.Args[0]), t.leafOf(v.Args[1])
	out := staticSizes(v.Shape)
	o := 0
	for i := range dn.LhsBatch {
		a, b := l[dn.LhsBatch[i]], r[dn.RhsBatch[i]]
		if !a.isStatic() && !b.isStatic() && !t.same(a, b) {
			return nil, &unsupportedSizes{v, "has batch dimensions of different sizes"}
		}
		if a.isStatic() {
			a = b
		}
		out[0][o] = a
		o++
	}
	for i := range dn.LhsContracting {
		a, b := l[dn.LhsContracting[i]], r[dn.RhsContracting[i]]
		if (!a.isStatic() || !b.isStatic()) && !t.same(a, b) {
			return nil, &unsupportedSizes{v, "contracts dimensions of different sizes"}
		}
	}
	for d, e := range l {
		if !slices.Contains(dn.LhsBatch, d) && !slices.Contains(dn.LhsContracting, d) {
			out[0][o] = e
			o++
		}
	}
	for d, e := range r {
		if !slices.Contains(dn.RhsBatch, d) && !slices.Contains(dn.RhsContracting, d) {
			out[0][o] = e
			o++
		}
	}
	return out, nil
}

// gather derives a gather's sizes: the batch dimensions of the result take
// the start indices' sizes; the operand must be static.
func (t *sizeTable) gather(v *ssa.Value) ([]leafSizes, error) {
	g := v.Attrs.GatherDims
	if g == nil || t.isDynamic(v.Args[0]) {
		return nil, &unsupportedSizes{v, "gathers from an operand with a run-time size"}
	}
	idx := t.leafOf(v.Args[1])
	var batch []sizeExpr
	for d, e := range idx {
		if d != g.IndexVectorDim {
			batch = append(batch, e)
		}
	}
	out := staticSizes(v.Shape)
	b := 0
	for d := range out[0] {
		if slices.Contains(g.OffsetDims, d) {
			continue
		}
		if b < len(batch) {
			out[0][d] = batch[b]
		}
		b++
	}
	return out, nil
}

// control derives the sizes through a while, conditional or call: the
// called functions' parameters take the operands' sizes, and their roots'
// sizes must come back the same (a loop's state keeps its sizes).
func (t *sizeTable) control(v *ssa.Value) ([]leafSizes, error) {
	enter := func(f *ssa.Func, args []*ssa.Value) error {
		if len(f.Params) != len(args) {
			return &unsupportedSizes{v, "calls a function with another number of parameters"}
		}
		for i, p := range f.Params {
			want := t.sizesOf(args[i])
			if t.done[f] {
				if !t.sameSizes(t.sizesOf(p), want) {
					return &unsupportedSizes{v, fmt.Sprintf("calls %s with sizes other than another caller's", f.Name)}
				}
				continue
			}
			if anyDynamic(want) {
				t.values[p] = cloneSizes(want)
			}
		}
		if t.done[f] {
			return nil
		}
		t.done[f] = true
		return t.function(f)
	}
	switch v.Op {
	case ssa.OpWhile:
		cond, body := v.Funcs[0], v.Funcs[1]
		if err := enter(cond, v.Args); err != nil {
			return nil, err
		}
		if err := enter(body, v.Args); err != nil {
			return nil, err
		}
		if t.unknown[body.Root] || !t.sameSizes(t.sizesOf(body.Root), t.sizesOf(v.Args[0])) {
			return nil, &unsupportedSizes{v, "has a loop body that changes the state's run-time sizes"}
		}
		return cloneSizes(t.sizesOf(v.Args[0])), nil
	case ssa.OpConditional:
		var out []leafSizes
		for i, b := range v.Funcs {
			if err := enter(b, v.Args[i+1:i+2]); err != nil {
				return nil, err
			}
			if t.unknown[b.Root] {
				return nil, &unsupportedSizes{v, "has a branch whose result sizes do not follow from the parameters"}
			}
			s := t.sizesOf(b.Root)
			if i == 0 {
				out = cloneSizes(s)
			} else if !t.sameSizes(out, s) {
				return nil, &unsupportedSizes{v, "has branches whose results differ in run-time size"}
			}
		}
		return out, nil
	case ssa.OpCall:
		f := v.Funcs[0]
		if err := enter(f, v.Args); err != nil {
			return nil, err
		}
		if t.unknown[f.Root] {
			return nil, &unsupportedSizes{v, "calls a function whose result sizes do not follow from the parameters"}
		}
		return cloneSizes(t.sizesOf(f.Root)), nil
	}
	return nil, &unsupportedSizes{v, "calls functions"}
}

// sameSizes reports whether two leaf lists have equal sizes at every run.
func (t *sizeTable) sameSizes(a, b []leafSizes) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for d := range a[i] {
			if !t.same(a[i][d], b[i][d]) {
				return false
			}
		}
	}
	return true
}

func cloneSizes(s []leafSizes) []leafSizes {
	out := make([]leafSizes, len(s))
	for i, l := range s {
		out[i] = slices.Clone(l)
	}
	return out
}

// leafOffset is the index of the first leaf of element i of tuple shape s.
func leafOffset(s ir.Shape, i int) int {
	n := 0
	for _, e := range s.Tuple[:i] {
		n += len(leafShapes(e))
	}
	return n
}

// stripDynamic drops every dynamic mark from p's shapes: the program is
// then optimised and scheduled as a static one at the bounds, and the
// sizes are derived again on the result (analyzeSizes).
func stripDynamic(p *ssa.Program) {
	for _, f := range p.Funcs {
		for _, v := range f.Values {
			v.Shape = withoutDynamic(v.Shape)
		}
	}
}

// withoutDynamic is s with no dimension marked dynamic.
func withoutDynamic(s ir.Shape) ir.Shape {
	if !s.IsDynamic() {
		return s
	}
	out := s.Clone()
	out.Dynamic = nil
	for i := range out.Tuple {
		out.Tuple[i] = withoutDynamic(out.Tuple[i])
	}
	return out
}

// prefixForm reports whether an array of the given sizes and bounds keeps
// its valid elements at the positions they have in the bounds' row-major
// layout (a prefix of the buffer): at most one symbolic dimension, every
// dimension before it of size 1.
func prefixForm(l leafSizes, s ir.Shape) bool {
	if !l.dynamic() {
		return true
	}
	if !s.HasDefaultLayout() {
		return false
	}
	seen := false
	for d, e := range l {
		if !e.isStatic() {
			if seen {
				return false
			}
			seen = true
			for k := 0; k < d; k++ {
				if s.Dims[k] != 1 {
					return false
				}
			}
		}
	}
	return true
}
