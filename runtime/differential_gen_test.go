package runtime_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
)

// opGen generates random modules exercising one op.
type opGen struct {
	// name is the op under test: its HLO name, or HLO name and a variant
	// ("reduce-add"); it keys opBounds, knownFailures and the subtests.
	name string
	// hlo is the HLO opcode name when it differs from name (errors for
	// unsupported ops must name it).
	hlo string
	// types reports whether the op takes element type t: every such type
	// gets casesPerType cases; for every other type the builder must refuse
	// the generated module.
	types func(t ir.ElementType) bool
	// build adds the op (and the parameters and operands it needs) to g.b
	// for element type t and returns the root of the module.
	build func(g *gen, t ir.ElementType) ir.Op
	// fusion: every case is compiled without fusion too (the generator
	// surrounds the op with producers and consumers the scheduler fuses).
	fusion bool
	// cases overrides casesPerType.
	cases int
	// huge: case 4 draws shapes of 32 Ki elements and more, which the
	// runtime splits across threads (it is compiled for 4 threads).
	huge bool
	// needsHost: the op talks to a host (infeed, outfeed, send, recv);
	// without one, ir/eval fails, and the compiled path must refuse too.
	needsHost bool
	// variant marks a second generator of an op another one covers (other
	// value ranges, a fused chain): its type list is not checked against
	// the builder's.
	variant bool
}

func (og *opGen) caseCount() int {
	n := casesPerType
	if og.cases > 0 {
		n = og.cases
	}
	if testing.Short() {
		// Under emulation (make arm64-test) the size-0 and size-1 cases
		// of every op and type still run; the random and large ones run
		// natively, once per ISA level.
		return min(n, 2)
	}
	if og.huge {
		n = max(n, 5) // case 4 is the modeHuge one
	}
	return n
}

func (og *opGen) hloName() string {
	if og.hlo != "" {
		return og.hlo
	}
	return og.name
}

// dcase is one generated module with its arguments.
type dcase struct {
	m    *ir.Module
	args []*ir.Literal
	// terms is K of the accumulation bound (terms per output element), or
	// n of the normwise bound (the problem size).
	terms int
	// note describes attributes the module text does not show plainly.
	note string
	// boundKey, if set, replaces the generator's name as the opBounds key
	// ("reduce-add" for a reduce whose reducer is an addition).
	boundKey string
	// bnd, if set, is the bound itself.
	bnd *bound
	// rng: the distribution ("uniform", "normal") and uniform's range.
	rng    string
	lo, hi float64

	// ignore, if set, reports elements of output out whose values the op
	// leaves implementation-defined (cholesky's other triangle).
	ignore func(out int, idx []int) bool

	// rootLayout, if set, is the layout of the root (a copy).
	rootLayout *ir.Layout

	mag []*ir.Literal // memoised magnitude results
}

func (c *dcase) ignored(out, i int, s ir.Shape) bool {
	return c.ignore != nil && c.ignore(out, s.MultiIndex(i))
}

func (c *dcase) bound(og *opGen, t ir.ElementType) bound {
	if c.bnd != nil {
		return *c.bnd
	}
	key := og.name
	if c.boundKey != "" {
		key = c.boundKey
	}
	return boundFor(key, t)
}

// magnitudes evaluates the module on the absolute values of its float
// arguments (complex ones as |re|+|im|) and returns output out's elements
// as |value|: Σ|terms| for the ops under the accumulation bound.
func (c *dcase) magnitudes(out int) ([]float64, error) {
	if c.mag == nil {
		args := make([]*ir.Literal, len(c.args))
		for i, a := range c.args {
			args[i] = absLiteral(a)
		}
		res, err := evalFlat(c.m, args)
		if err != nil {
			return nil, err
		}
		c.mag = res
	}
	l := c.mag[out]
	m := make([]float64, l.ElementCount())
	for i := range m {
		if l.Shape().Elem.IsComplex() {
			v := l.Complex128At(i)
			m[i] = math.Abs(real(v)) + math.Abs(imag(v))
		} else {
			m[i] = math.Abs(l.Float64At(i))
		}
	}
	return m, nil
}

func absLiteral(l *ir.Literal) *ir.Literal {
	t := l.Shape().Elem
	if !t.IsFloatOrComplex() {
		return l
	}
	out := l.Clone()
	for i := range l.ElementCount() {
		if t.IsComplex() {
			v := l.Complex128At(i)
			out.SetComplex128At(i, complex(math.Abs(real(v))+math.Abs(imag(v)), 0))
		} else {
			out.SetFloat64At(i, math.Abs(l.Float64At(i)))
		}
	}
	return out
}

// checkRange checks an rng output: uniform values in [lo, hi), normal
// values not NaN.
func (c *dcase) checkRange(got *ir.Literal) string {
	for i := range got.ElementCount() {
		v := got.Float64At(i)
		switch c.rng {
		case "uniform":
			if !(v >= c.lo && v < c.hi) && !(c.lo == c.hi && v == c.lo) {
				return fmt.Sprintf("element %d is %v, outside [%v, %v)", i, v, c.lo, c.hi)
			}
		case "normal":
			if math.IsNaN(v) {
				return fmt.Sprintf("element %d is NaN", i)
			}
		}
	}
	return ""
}

// shapeMode steers the dimensions of a case.
type shapeMode uint8

const (
	modeRandom shapeMode = iota
	modeZero             // the first shape drawn has a size-0 dimension
	modeOne              // dimensions are often 1
	modeBig              // the op's main shape crosses the loop tile size
	modeHuge             // the op's main shape is big enough to be split across threads
)

func caseMode(i int) shapeMode {
	switch i {
	case 0:
		return modeZero
	case 1:
		return modeOne
	case 3:
		return modeBig
	case 4:
		return modeHuge
	}
	return modeRandom
}

// gen is the random source and the module under construction of one case.
type gen struct {
	src    *detrand.Source
	mode   shapeMode
	zeroed bool // modeZero: a size-0 dimension was drawn
	b      *ir.Builder
	args   []*ir.Literal
	c      *dcase
}

func newGen(seed uint64, mode shapeMode) *gen {
	return &gen{src: detrand.New(seed), mode: mode}
}

// build runs the generator for element type t and returns the verified
// module with its arguments, or the builder's error.
func (g *gen) build(og *opGen, t ir.ElementType) (c *dcase, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("generator panicked: %v", p)
		}
	}()
	name := strings.NewReplacer("-", "_", "/", "_").Replace(og.name)
	g.b = ir.NewBuilder("diff_" + name)
	g.args = nil
	g.zeroed = false
	g.c = &dcase{}
	root := og.build(g, t)
	comp, err := g.b.BuildWithRoot(root)
	if err != nil {
		return nil, err
	}
	if g.c.rootLayout != nil {
		comp.Root.Shape = comp.Root.Shape.WithLayout(g.c.rootLayout)
	}
	m, err := ir.NewModuleFromComputation(comp)
	if err != nil {
		return nil, err
	}
	if err := m.Verify(); err != nil {
		return nil, err
	}
	g.c.m, g.c.args = m, g.args
	return g.c, nil
}

func (g *gen) intn(n int) int {
	if n <= 0 {
		return 0
	}
	return int(g.src.Uint64() % uint64(n))
}

// between returns an int in [lo, hi].
func (g *gen) between(lo, hi int) int { return lo + g.intn(hi-lo+1) }

func (g *gen) coin() bool { return g.src.Uint64()&1 == 1 }

func pickOne[T any](g *gen, xs ...T) T { return xs[g.intn(len(xs))] }

// dimPool are the sizes dimensions are drawn from: tails of every vector
// width appear (1, primes, one below and above powers of two).
var dimPool = []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 17}

// maxElements bounds the element count of the shapes dims draws.
const maxElements = 600

// dim draws one dimension size.
func (g *gen) dim() int {
	switch g.mode {
	case modeOne:
		if g.intn(2) == 0 {
			return 1
		}
	case modeZero:
		if g.intn(6) == 0 {
			return 0
		}
	default:
		if g.intn(30) == 0 {
			return 0
		}
	}
	return dimPool[g.intn(len(dimPool))]
}

// dims draws the dimensions of a rank-r shape with at most maxElements
// elements; in modeZero the first call with r > 0 has a size-0 dimension,
// in modeOne at least one dimension is 1.
func (g *gen) dims(r int) []int {
	d := make([]int, r)
	for i := range d {
		d[i] = g.dim()
	}
	for prodInts(d) > maxElements {
		d[argmax(d)] = dimPool[g.intn(5)]
	}
	if r > 0 && g.mode == modeZero && !g.zeroed {
		d[g.intn(r)] = 0
		g.zeroed = true
	}
	if r > 0 && g.mode == modeOne {
		d[g.intn(r)] = 1
	}
	return d
}

// posDims draws dimensions that are all at least 1.
func (g *gen) posDims(r int) []int {
	d := make([]int, r)
	for i := range d {
		d[i] = dimPool[g.intn(len(dimPool))]
		if g.mode == modeOne && g.coin() {
			d[i] = 1
		}
	}
	for prodInts(d) > maxElements {
		d[argmax(d)] = dimPool[g.intn(5)]
	}
	return d
}

// mainDims draws the shape of an elementwise or data-movement op: rank 0 to
// 4; in modeBig one of 1023, 1024, 1025 or 2049+ elements, so that loops
// run several tiles and a partial one.
func (g *gen) mainDims() []int {
	if g.mode == modeHuge {
		total := pickOne(g, 32771, 40961, 65537)
		switch g.intn(3) {
		case 0:
			return []int{total}
		case 1:
			return []int{3, total / 3}
		default:
			return []int{2, 17, total / 34}
		}
	}
	if g.mode == modeBig {
		total := pickOne(g, 1023, 1025, 2049, 2500, 4099)
		switch g.intn(3) {
		case 0:
			return []int{total}
		case 1:
			a := pickOne(g, 3, 5, 7)
			return []int{a, total / a}
		default:
			return []int{2, pickOne(g, 3, 17), total / 34}
		}
	}
	return g.dims(g.intn(5))
}

func prodInts(d []int) int {
	n := 1
	for _, x := range d {
		n *= x
	}
	return n
}

func argmax(d []int) int {
	j := 0
	for i, x := range d {
		if x > d[j] {
			j = i
		}
	}
	return j
}

// perm draws a permutation of 0..n-1.
func (g *gen) perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := g.intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// subset draws a sorted subset of 0..n-1.
func (g *gen) subset(n int) []int {
	var s []int
	for i := range n {
		if g.coin() {
			s = append(s, i)
		}
	}
	return s
}

// nonEmptySubset draws a sorted non-empty subset of 0..n-1 (n > 0).
func (g *gen) nonEmptySubset(n int) []int {
	s := g.subset(n)
	if len(s) == 0 {
		s = []int{g.intn(n)}
	}
	return s
}

// dist is how the values of a random array are drawn.
type dist uint8

const (
	// anyValues: modest values, small integers and halves (ties for the
	// roundings), random bit patterns (every magnitude, NaNs with payloads,
	// subnormals), and the special values; integers: small values, random
	// bits and the extremes.
	anyValues dist = iota
	// niceValues: modest finite values with a rare special value; used by
	// accumulating ops, where random magnitudes would only overflow.
	niceValues
	// positiveValues: modest positive values with a rare special value.
	positiveValues
	// smallValues: integers in [-8, 8] (non-negative for unsigned types),
	// exact in every type.
	smallValues
	// shiftValues: shift amounts in [-2, bits+2] and random bits.
	shiftValues
	// powerOfTwoValues: ±1 mostly, some ±2 and ±½ (products are exact and
	// stay in range whatever the order); integers as anyValues.
	powerOfTwoValues
	// unitValues: uniform in [-1, 1), no special values (long chains of
	// products stay finite); integers as anyValues.
	unitValues
)

// specialFloats are values every float op must get right.
var specialFloats = []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
	math.Copysign(math.NaN(), -1), 1, -1, 0.5, -2.5, 1e38, -1e38, 3e300, 1e-40, -1e-40, 5e-324,
	1e-5, 65504, 448, 57344}

// literal draws a random literal of array shape s.
func (g *gen) literal(s ir.Shape, d dist) *ir.Literal {
	l := ir.MustNewLiteral(s.WithoutLayout())
	t := s.Elem
	n := l.ElementCount()
	raw := l.Bytes()
	switch {
	case t == ir.PRED:
		for i := range n {
			raw[i] = byte(g.src.Uint64() & 1)
		}
	case t.IsInteger():
		for i := range n {
			l.SetInt64At(i, g.intValue(t, d))
		}
	case t.IsFloatOrComplex():
		ct := t
		parts := 1
		if t.IsComplex() {
			ct, parts = t.ComplexComponent(), 2
		}
		size := ct.ByteSize()
		for j := range n * parts {
			g.putFloat(raw[j*size:(j+1)*size], ct, d)
		}
	}
	return l
}

func (g *gen) intValue(t ir.ElementType, d dist) int64 {
	w := t.BitWidth()
	small := int64(g.between(-8, 8))
	if t.IsUnsigned() && small < 0 {
		small = -small
	}
	switch d {
	case smallValues:
		return small
	case positiveValues:
		return int64(g.intn(16))
	case shiftValues:
		if g.intn(4) == 0 {
			return int64(g.src.Uint64())
		}
		return int64(g.between(-2, w+2))
	}
	r := g.intn(100)
	switch {
	case r < 40:
		return small
	case r < 80:
		return int64(g.src.Uint64())
	}
	var lo, hi int64
	if t.IsSigned() {
		lo, hi = -1<<(w-1), 1<<(w-1)-1
	} else {
		lo, hi = 0, int64(uint64(1)<<(w-1)<<1-1) // all ones
	}
	return pickOne(g, 0, 1, -1, lo, hi, lo+1, hi-1)
}

// putFloat stores a random value of float type t into dst.
func (g *gen) putFloat(dst []byte, t ir.ElementType, d dist) {
	modest := func() float64 {
		return (2*float64(g.src.Uint64()>>11)/(1<<53) - 1) * math.Ldexp(1, g.between(-2, 3))
	}
	var v float64
	r := g.intn(100)
	switch d {
	case anyValues:
		switch {
		case r < 45:
			v = modest()
		case r < 60:
			v = float64(g.between(-8, 8)) / float64(g.between(1, 2))
		case r < 80:
			putBits(dst, g.src.Uint64())
			return
		default:
			v = pickOne(g, specialFloats...)
		}
	case niceValues:
		v = modest()
		if r == 0 {
			v = pickOne(g, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN())
		}
	case positiveValues:
		v = math.Abs(modest())
		if r == 0 {
			v = pickOne(g, 0, math.Inf(1), math.NaN(), 1e-40)
		}
	case powerOfTwoValues:
		v = pickOne(g, 1, -1, 1, -1, 1, -1, 1, -1, 2, -0.5)
	case unitValues:
		v = g.unit()
	default:
		v = float64(g.between(-8, 8))
	}
	var src [8]byte
	binary.NativeEndian.PutUint64(src[:], math.Float64bits(v))
	ir.ConvertElement(dst, t, src[:], ir.F64)
}

func putBits(dst []byte, u uint64) {
	switch len(dst) {
	case 1:
		dst[0] = byte(u)
	case 2:
		binary.NativeEndian.PutUint16(dst, uint16(u))
	case 4:
		binary.NativeEndian.PutUint32(dst, uint32(u))
	case 8:
		binary.NativeEndian.PutUint64(dst, u)
	}
}

// param adds the next entry parameter, of shape s, with a random argument.
func (g *gen) param(s ir.Shape, d dist) ir.Op {
	n := len(g.args)
	g.args = append(g.args, g.literal(s, d))
	return g.b.Parameter(n, s, fmt.Sprintf("p%d", n))
}

// paramOf adds the next entry parameter with argument l.
func (g *gen) paramOf(l *ir.Literal) ir.Op {
	n := len(g.args)
	g.args = append(g.args, l)
	return g.b.Parameter(n, l.Shape(), fmt.Sprintf("p%d", n))
}

// indices draws a literal of integer type t with values in [lo, hi].
func (g *gen) indices(s ir.Shape, lo, hi int) *ir.Literal {
	l := ir.MustNewLiteral(s)
	for i := range l.ElementCount() {
		l.SetInt64At(i, int64(g.between(lo, hi)))
	}
	return l
}

// indexType draws an integer type for indices.
func (g *gen) indexType() ir.ElementType {
	return pickOne(g, ir.S32, ir.S32, ir.S64, ir.U32, ir.S8, ir.U8, ir.S16, ir.U64)
}

// operand returns an op of shape s whose values come from a parameter:
// directly, or (one time in three, to give the scheduler something to
// fuse) through a transpose, broadcast, reverse, slice or reshape of a
// parameter of another shape.
func (g *gen) operand(s ir.Shape, d dist) ir.Op {
	r := s.Rank()
	if r == 0 || g.intn(3) != 0 {
		return g.param(s, d)
	}
	b := g.b
	switch g.intn(5) {
	case 0: // transpose: out[i] = in[perm[i]]
		perm := g.perm(r)
		in := make([]int, r)
		for i, p := range perm {
			in[p] = s.Dims[i]
		}
		return b.Transpose(g.param(ir.MakeShape(s.Elem, in...), d), perm)
	case 1: // broadcast-in-dim from a subset of the dimensions, some degenerate
		kept := g.subset(r)
		in := make([]int, len(kept))
		for i, k := range kept {
			in[i] = s.Dims[k]
			if g.intn(4) == 0 {
				in[i] = 1
			}
		}
		return b.BroadcastInDim(g.param(ir.MakeShape(s.Elem, in...), d), s.Dims, kept)
	case 2:
		return b.Rev(g.param(s, d), g.nonEmptySubset(r))
	case 3: // a strided slice of a bigger array
		in := make([]int, r)
		starts, limits, strides := make([]int, r), make([]int, r), make([]int, r)
		for i, n := range s.Dims {
			strides[i] = g.between(1, 3)
			starts[i] = g.intn(3)
			limits[i] = starts[i]
			if n > 0 {
				limits[i] = starts[i] + (n-1)*strides[i] + 1
			}
			in[i] = limits[i] + g.intn(3)
		}
		return b.Slice(g.param(ir.MakeShape(s.Elem, in...), d), starts, limits, strides)
	default: // a reshape of the same elements
		return b.Reshape(g.param(ir.MakeShape(s.Elem, g.factor(s.Dims)...), d), s.Dims)
	}
}

// factor returns other dimensions with the same element count.
func (g *gen) factor(dims []int) []int {
	n := prodInts(dims)
	if n == 0 {
		return []int{0, g.between(1, 3)}
	}
	var out []int
	for n > 1 {
		f := pickOne(g, 2, 3, 5, 7, n)
		if n%f == 0 {
			out = append(out, f)
			n /= f
		} else if g.intn(4) == 0 {
			out = append(out, n)
			n = 1
		}
	}
	if g.coin() {
		out = append([]int{1}, out...)
	}
	return out
}

// computation builds a computation of nparams scalar parameters of the
// given types with f's root.
func (g *gen) computation(name string, types []ir.ElementType, f func(b *ir.Builder, ps []ir.Op) ir.Op) *ir.Computation {
	sb := g.b.CreateSubBuilder(name)
	ps := make([]ir.Op, len(types))
	for i, t := range types {
		ps[i] = sb.Parameter(i, ir.Scalar(t), fmt.Sprintf("x%d", i))
	}
	root := f(sb, ps)
	c, err := sb.BuildWithRoot(root)
	if err != nil {
		panic(fmt.Sprintf("computation %s: %v", name, err))
	}
	return c
}

// binaryComputation is a scalar computation (x, y) -> f(x, y) of type t.
func (g *gen) binaryComputation(name string, t ir.ElementType, f func(b *ir.Builder, x, y ir.Op) ir.Op) *ir.Computation {
	return g.computation(name, []ir.ElementType{t, t}, func(b *ir.Builder, ps []ir.Op) ir.Op { return f(b, ps[0], ps[1]) })
}

// reducer is a standard reduction: its computation, its identity element
// and the opBounds key of an op using it.
type reducer struct {
	name string // add, multiply, maximum, minimum, and, or
	comp *ir.Computation
	init *ir.Literal
}

// reducerFor draws a reducer that suits type t (and, or for PRED; add,
// multiply, maximum, minimum otherwise) with its identity.
func (g *gen) reducerFor(t ir.ElementType) reducer {
	names := []string{"add", "add", "maximum", "minimum", "multiply"}
	if t == ir.PRED {
		names = []string{"and", "or", "maximum", "minimum"}
	} else if t.IsComplex() {
		names = []string{"add", "add", "multiply"}
	}
	return g.reducerNamed(t, pickOne(g, names...))
}

func (g *gen) reducerNamed(t ir.ElementType, name string) reducer {
	r := reducer{name: name, init: ir.MustNewLiteral(ir.Scalar(t))}
	switch name {
	case "multiply", "and":
		r.init.SetInt64At(0, 1)
	case "maximum":
		setLowest(r.init)
	case "minimum":
		setHighest(r.init)
	}
	r.comp = g.binaryComputation(name, t, func(b *ir.Builder, x, y ir.Op) ir.Op { return applyReducer(b, name, x, y) })
	return r
}

// applyReducer adds the standard reduction op name of x and y.
func applyReducer(b *ir.Builder, name string, x, y ir.Op) ir.Op {
	switch name {
	case "add":
		return b.Add(x, y)
	case "multiply":
		return b.Mul(x, y)
	case "maximum":
		return b.Max(x, y)
	case "minimum":
		return b.Min(x, y)
	case "and":
		return b.And(x, y)
	}
	return b.Or(x, y)
}

// setLowest stores the lowest value of the literal's type (−Inf for floats).
func setLowest(l *ir.Literal) {
	t := l.Shape().Elem
	switch {
	case t == ir.F8E4M3FN: // no infinities
		l.SetFloat64At(0, -448)
	case t.IsFloat():
		l.SetFloat64At(0, math.Inf(-1))
	case t.IsSigned():
		l.SetInt64At(0, math.MinInt64>>(64-t.BitWidth()))
	default:
		l.SetInt64At(0, 0)
	}
}

// setHighest stores the highest value of the literal's type (+Inf for floats).
func setHighest(l *ir.Literal) {
	t := l.Shape().Elem
	switch {
	case t == ir.F8E4M3FN:
		l.SetFloat64At(0, 448)
	case t.IsFloat():
		l.SetFloat64At(0, math.Inf(1))
	case t.IsSigned():
		l.SetInt64At(0, math.MaxInt64>>(64-t.BitWidth()))
	case t == ir.PRED:
		l.SetInt64At(0, 1)
	default:
		l.SetUint64At(0, math.MaxUint64>>(64-t.BitWidth()))
	}
}

// accumulate sets the bound of a reduction with reducer r over k terms:
// the accumulation bound for add, 2k ULPs for multiply, exact otherwise.
func (g *gen) accumulate(r string, k int) {
	g.c.terms = max(g.c.terms, k)
	switch r {
	case "add":
		b := accum
		g.c.bnd = &b
	case "multiply":
		b := ulp(float64(2 * max(k, 1)))
		g.c.bnd = &b
	default:
		b := exact
		g.c.bnd = &b
	}
}

// Type sets, as the builder's shape inference defines them.
func anyType(t ir.ElementType) bool     { return true }
func numeric(t ir.ElementType) bool     { return t.IsInteger() || t.IsFloatOrComplex() }
func intOrFloat(t ir.ElementType) bool  { return t.IsInteger() || t.IsFloat() }
func floatOnly(t ir.ElementType) bool   { return t.IsFloat() }
func floatOrCplx(t ir.ElementType) bool { return t.IsFloatOrComplex() }
func integers(t ir.ElementType) bool    { return t.IsInteger() }
func predOrInt(t ir.ElementType) bool   { return t == ir.PRED || t.IsInteger() }
func signedNum(t ir.ElementType) bool   { return t.IsSigned() || t.IsFloat() }
func signedOrC(t ir.ElementType) bool   { return t.IsSigned() || t.IsFloatOrComplex() }
func notPred(t ir.ElementType) bool     { return t != ir.PRED }
func notComplex(t ir.ElementType) bool  { return !t.IsComplex() }
func f32f64(t ir.ElementType) bool      { return t == ir.F32 || t == ir.F64 }
func bitTypes(t ir.ElementType) bool    { return t.BitWidth() >= 8 && t.BitWidth() <= 64 }
func linalgTypes(t ir.ElementType) bool {
	return t == ir.F32 || t == ir.F64 || t == ir.C64 || t == ir.C128
}
