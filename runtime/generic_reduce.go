package runtime

// reduce for every element type and any number of operands: each output
// element starts from the init values and folds the reduced elements in, in
// row-major order of the reduced dimensions, with the accumulator as the
// reducer's first argument — the evaluator's order, so the two agree bit for
// bit. Standard reducers (add, multiply, maximum, minimum, and, or of the
// two parameters) fold wide values directly; any other reducer runs as a
// compiled scalar function per element.

import (
	"slices"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/sched"
	"github.com/kilnml/kiln/ssa"
)

func init() { genericSteps[ssa.OpReduce] = buildReduce }

// foldTile is the number of elements a fold loads at a time.
const foldTile = 256

// folder folds elements of n operands (at given positions) into
// accumulators, as a reducer computation does.
type folder struct {
	n     int
	ts    []ir.ElementType // operand element types
	std   bool             // one operand, a standard binary reducer
	swap  bool             // the root reads (element, accumulator)
	f32op ir.Opcode        // float32 add/multiply/maximum/minimum: typed loop
	fl    func(a, b float64) float64
	in    func(a, b int64) int64
	cx    func(a, b complex128) complex128
	fn    *scalarFunc
	// scratch offsets
	regs, pos, raw, wide int
}

// newFolder compiles reducer f for operands of types ts (results of the
// same types), or returns nil when it is not covered.
func newFolder(f *ssa.Func, ts []ir.ElementType, sp *scratchPlan) *folder {
	n := len(ts)
	if f == nil || len(f.Params) != 2*n || n == 0 || n > maxVariadic {
		return nil
	}
	for i, prm := range f.Params {
		if !prm.Shape.IsScalar() || prm.Shape.Elem != ts[i%n] {
			return nil
		}
	}
	fo := &folder{n: n, ts: ts}
	fo.pos = sp.take(foldTile * 8)
	if n == 1 && fo.standard(f) {
		fo.raw = sp.take(foldTile * wideBytes)
		fo.wide = sp.take(foldTile * wideBytes)
		return fo
	}
	fn := compileScalarFunc(f)
	if fn == nil || len(fn.results) != n {
		return nil
	}
	for j, t := range fn.resultT {
		if t != ts[j] {
			return nil
		}
	}
	fo.fn = fn
	fo.regs = sp.take(fn.size())
	return fo
}

// standard recognises the evaluator's standard reducers.
func (fo *folder) standard(f *ssa.Func) bool {
	t, r := fo.ts[0], f.Root
	p0, p1 := f.Params[0], f.Params[1]
	if !r.Shape.IsScalar() || r.Shape.Elem != t || len(r.Args) != 2 {
		return false
	}
	switch {
	case r.Args[0] == p0 && r.Args[1] == p1:
	case r.Args[0] == p1 && r.Args[1] == p0:
		fo.swap = true
	default:
		return false
	}
	op, _ := r.Op.IR()
	switch {
	case t.IsFloat():
		if op != ir.OpAdd && op != ir.OpMultiply && op != ir.OpMaximum && op != ir.OpMinimum {
			return false
		}
		fo.fl = floatBinaryFns[op]
		if t == ir.F32 {
			fo.f32op = op
		}
	case t.IsComplex():
		if op != ir.OpAdd && op != ir.OpMultiply {
			return false
		}
		fo.cx = complexBinaryFns[op]
	case t.IsInteger() || t == ir.PRED:
		switch op {
		case ir.OpAnd, ir.OpOr:
		case ir.OpAdd, ir.OpMultiply, ir.OpMaximum, ir.OpMinimum:
			if t == ir.PRED {
				return false
			}
		default:
			return false
		}
		fo.in = intBinaryFn(op, t)
	default:
		return false
	}
	fo.std = true
	return true
}

// foldState is the accumulator of one output element.
type foldState struct {
	f  float64
	i  int64
	c  complex128
	f3 float32
}

// start loads the init values into the accumulator(s).
func (fo *folder) start(fr *frame, st *foldState, inits *[maxVariadic][]byte) {
	if !fo.std {
		regs := fr.scratch[0][fo.regs:]
		fo.fn.loadConsts(regs)
		for i := 0; i < fo.n; i++ {
			fo.fn.load(regs, i, inits[i], 0)
		}
		return
	}
	t := fo.ts[0]
	switch wideKindOf(t) {
	case wideFloat:
		var x [1]float64
		loadFloats(x[:], inits[0], t, 0)
		st.f = x[0]
		st.f3 = float32(x[0])
	case wideComplex:
		var x [1]complex128
		loadComplex(x[:], inits[0], t, 0)
		st.c = x[0]
	default:
		var x [1]int64
		loadInts(x[:], inits[0], t, 0)
		st.i = x[0]
	}
}

// fold folds the elements at positions pos of the operands in order.
func (fo *folder) fold(fr *frame, st *foldState, srcs *[maxVariadic][]byte, pos []int64) {
	scratch := fr.scratch[0]
	if !fo.std {
		regs := scratch[fo.regs:]
		for _, p := range pos {
			for i := 0; i < fo.n; i++ {
				fo.fn.load(regs, fo.n+i, srcs[i], int(p))
			}
			fo.fn.run(regs)
			for i := 0; i < fo.n; i++ {
				fo.fn.set(regs, i, i)
			}
		}
		return
	}
	t := fo.ts[0]
	if fo.f32op != 0 {
		xs := elems[float32](srcs[0])
		acc := st.f3
		switch fo.f32op {
		case ir.OpAdd:
			for _, p := range pos {
				acc += xs[p]
			}
		case ir.OpMultiply:
			for _, p := range pos {
				acc *= xs[p]
			}
		case ir.OpMaximum:
			for _, p := range pos {
				if fo.swap {
					acc = maxF32(xs[p], acc)
				} else {
					acc = maxF32(acc, xs[p])
				}
			}
		default:
			for _, p := range pos {
				if fo.swap {
					acc = minF32(xs[p], acc)
				} else {
					acc = minF32(acc, xs[p])
				}
			}
		}
		st.f3 = acc
		return
	}
	raw := scratch[fo.raw : fo.raw+foldTile*wideBytes]
	w := regAt(scratch[fo.wide:], 0, foldTile, len(pos))
	gatherPositions(raw, srcs[0], t.ByteSize(), pos)
	loadWide(w, len(pos), raw, t, 0)
	switch {
	case fo.fl != nil:
		acc := st.f
		for _, x := range w.f {
			if fo.swap {
				acc = roundFloat(t, fo.fl(x, acc))
			} else {
				acc = roundFloat(t, fo.fl(acc, x))
			}
		}
		st.f = acc
	case fo.cx != nil:
		acc := st.c
		for _, x := range w.c {
			if fo.swap {
				acc = roundComplex(t, fo.cx(x, acc))
			} else {
				acc = roundComplex(t, fo.cx(acc, x))
			}
		}
		st.c = acc
	default:
		acc := st.i
		for _, x := range w.i {
			if fo.swap {
				acc = wrapInt(t, fo.in(x, acc))
			} else {
				acc = wrapInt(t, fo.in(acc, x))
			}
		}
		st.i = acc
	}
}

// finish stores the accumulator(s) as element o of the outputs.
func (fo *folder) finish(fr *frame, st *foldState, outs *[maxVariadic][]byte, o int) {
	if !fo.std {
		regs := fr.scratch[0][fo.regs:]
		for i := 0; i < fo.n; i++ {
			// The accumulators are the first n parameters.
			storeWide(outs[i], fo.ts[i], o, regAt(regs, fo.fn.params[i], 1, 1), 1)
		}
		return
	}
	t := fo.ts[0]
	switch {
	case fo.f32op != 0:
		elems[float32](outs[0])[o] = st.f3
	case fo.fl != nil:
		storeFloats(outs[0], t, o, []float64{st.f})
	case fo.cx != nil:
		storeComplex(outs[0], t, o, []complex128{st.c})
	default:
		storeInts(outs[0], t, o, []int64{st.i})
	}
}

// gatherPositions copies the elements (es bytes each) at positions pos of
// src into raw, in order.
func gatherPositions(raw, src []byte, es int, pos []int64) {
	switch es {
	case 1:
		for i, p := range pos {
			raw[i] = src[p]
		}
	case 2:
		d, s := elems[uint16](raw), elems[uint16](src)
		for i, p := range pos {
			d[i] = s[p]
		}
	case 4:
		d, s := elems[uint32](raw), elems[uint32](src)
		for i, p := range pos {
			d[i] = s[p]
		}
	case 8:
		d, s := elems[uint64](raw), elems[uint64](src)
		for i, p := range pos {
			d[i] = s[p]
		}
	case 16:
		d, s := elems[[2]uint64](raw), elems[[2]uint64](src)
		for i, p := range pos {
			d[i] = s[p]
		}
	}
}

// reduceGenericStep is reduce over any types and operand count.
type reduceGenericStep struct {
	n           int
	ins, inits  []loc
	outs        []loc
	fold        *folder
	keptDims    []int
	keptStrides []int
	redDims     []int
	redStrides  []int
	count       int // output elements
	redCount    int
}

func buildReduce(c *compiler, k *sched.Kernel, p *program) (step, error) {
	return buildReduceOver(c, k, p, nil)
}

// buildReduceOver compiles reduce k.Root reading its operands from
// operands (nil: from the kernel's inputs).
func buildReduceOver(c *compiler, k *sched.Kernel, p *program, operands []loc) (step, error) {
	v := k.Root
	if len(v.Args) == 0 || len(v.Args)%2 != 0 || len(v.Funcs) != 1 {
		return nil, nil
	}
	n := len(v.Args) / 2
	if n > maxVariadic {
		return nil, nil
	}
	x := v.Args[0].Shape
	s := &reduceGenericStep{n: n, outs: c.leaves(k.Out)}
	ts := make([]ir.ElementType, n)
	for i := 0; i < n; i++ {
		a, init := v.Args[i], v.Args[n+i]
		ib := inputBuffer(k, init)
		if ib == nil || !denseArray(a.Shape) || !slices.Equal(a.Shape.Dims, x.Dims) || !init.Shape.IsScalar() || init.Shape.Elem != a.Shape.Elem {
			return nil, nil
		}
		if operands != nil {
			s.ins = append(s.ins, operands[i])
		} else if ab := inputBuffer(k, a); ab != nil {
			s.ins = append(s.ins, c.loc(ab))
		} else {
			return nil, nil
		}
		s.inits = append(s.inits, c.loc(ib))
		ts[i] = a.Shape.Elem
	}
	if len(s.outs) != n {
		return nil, nil
	}
	outShapes := leafShapes(v.Shape)
	strides := denseStrides(x.Dims)
	for d := range x.Dims {
		if slices.Contains(v.Attrs.Dimensions, d) {
			s.redDims = append(s.redDims, x.Dims[d])
			s.redStrides = append(s.redStrides, strides[d])
		} else {
			s.keptDims = append(s.keptDims, x.Dims[d])
			s.keptStrides = append(s.keptStrides, strides[d])
		}
	}
	for i, os := range outShapes {
		if !denseArray(os) || os.Elem != ts[i] || !slices.Equal(os.Dims, s.keptDims) {
			return nil, nil
		}
	}
	s.count, s.redCount = prod(s.keptDims), prod(s.redDims)
	if len(s.redDims) == 0 {
		s.redDims, s.redStrides = []int{1}, []int{0}
	}
	var sp scratchPlan
	if s.fold = newFolder(v.Funcs[0], ts, &sp); s.fold == nil {
		if s.count == 0 || s.redCount == 0 {
			// The reducer never runs (it may not even be defined for the
			// types): every output element is its init value.
			return &initFillStep{inits: s.inits, outs: s.outs, es: ts}, nil
		}
		return nil, nil
	}
	sp.reserve(p)
	return s, nil
}

// initFillStep writes each output's init value into all its elements: a
// reduction with nothing to fold.
type initFillStep struct {
	inits, outs []loc
	es          []ir.ElementType
}

func (s *initFillStep) name() string { return "reduce-empty" }

func (s *initFillStep) exec(fr *frame) error {
	for i, l := range s.outs {
		fillElements(fr.bytes(l), fr.bytes(s.inits[i])[:s.es[i].ByteSize()])
	}
	return nil
}

func (s *reduceGenericStep) name() string { return "reduce-generic" }

func (s *reduceGenericStep) exec(fr *frame) error {
	var ins, inits, outs [maxVariadic][]byte
	for i := 0; i < s.n; i++ {
		ins[i], inits[i], outs[i] = fr.bytes(s.ins[i]), fr.bytes(s.inits[i]), fr.bytes(s.outs[i])
	}
	pos := elems[int64](fr.scratch[0][s.fold.pos : s.fold.pos+foldTile*8])
	var kept [maxGenericRank]int
	base := 0
	for o := 0; o < s.count; o++ {
		var st foldState
		s.fold.start(fr, &st, &inits)
		for start := 0; start < s.redCount; start += foldTile {
			m := min(foldTile, s.redCount-start)
			iotaWide(pos[:m], s.redDims, s.redStrides, base, start)
			s.fold.fold(fr, &st, &ins, pos[:m])
		}
		s.fold.finish(fr, &st, &outs, o)
		base = advance(s.keptDims, s.keptStrides, kept[:len(s.keptDims)], base)
	}
	return nil
}
