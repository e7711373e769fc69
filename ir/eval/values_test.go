package eval

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// ---- test module builder --------------------------------------------------

// modb builds modules instruction by instruction for tests that need no HLO
// text: one entry computation plus any sub-computations.
type modb struct {
	t *testing.T
	m *ir.Module
	c *ir.Computation
	n *int // instruction counter shared by the module's computations
}

func newModb(t *testing.T) *modb {
	t.Helper()
	m := &ir.Module{Name: "test"}
	c := &ir.Computation{Name: "main"}
	m.AddComputation(c, true)
	return &modb{t: t, m: m, c: c, n: new(int)}
}

// sub starts a non-entry computation in the same module.
func (b *modb) sub(name string) *modb {
	c := &ir.Computation{Name: name}
	b.m.Computations = append([]*ir.Computation{c}, b.m.Computations...)
	return &modb{t: b.t, m: b.m, c: c, n: b.n}
}

func (b *modb) name(prefix string) string {
	*b.n++
	return prefix + "." + strconv.Itoa(*b.n)
}

// shp parses an XLA shape like "f32[2,3]", "s32[]" or "(f32[2], s32[])".
func shp(t testing.TB, s string) ir.Shape {
	t.Helper()
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		var elems []ir.Shape
		depth, start := 0, 1
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '(', '[':
				depth++
			case ']':
				depth--
			case ')', ',':
				if s[i] == ')' && depth > 0 {
					depth--
					continue
				}
				if depth == 0 {
					if part := strings.TrimSpace(s[start:i]); part != "" {
						elems = append(elems, shp(t, part))
					}
					start = i + 1
				}
			}
		}
		return ir.MakeTuple(elems...)
	}
	open := strings.IndexByte(s, '[')
	if open < 0 || !strings.HasSuffix(s, "]") {
		t.Fatalf("bad shape %q", s)
	}
	et, ok := ir.ParseElementType(s[:open])
	if !ok {
		t.Fatalf("bad element type in %q", s)
	}
	var dims []int
	if body := s[open+1 : len(s)-1]; body != "" {
		for _, f := range strings.Split(body, ",") {
			d, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("bad shape %q", s)
			}
			dims = append(dims, d)
		}
	}
	return ir.MakeShape(et, dims...)
}

func (b *modb) param(shape string) *ir.Instruction {
	return b.paramShape(shp(b.t, shape))
}

func (b *modb) paramShape(s ir.Shape) *ir.Instruction {
	in := &ir.Instruction{Name: b.name("p"), Opcode: ir.OpParameter, Shape: s}
	in.ParameterNumber = len(b.c.Parameters)
	return b.c.Add(in)
}

// op adds an instruction; the caller sets its attributes on the result.
func (b *modb) op(op ir.Opcode, shape string, operands ...*ir.Instruction) *ir.Instruction {
	return b.opShape(op, shp(b.t, shape), operands...)
}

func (b *modb) opShape(op ir.Opcode, s ir.Shape, operands ...*ir.Instruction) *ir.Instruction {
	in := &ir.Instruction{Name: b.name(op.String()), Opcode: op, Shape: s, Operands: operands}
	return b.c.Add(in)
}

func (b *modb) constant(l *ir.Literal) *ir.Instruction {
	in := &ir.Instruction{Name: b.name("c"), Opcode: ir.OpConstant, Shape: l.Shape()}
	in.Literal = l
	return b.c.Add(in)
}

// root marks in as the computation's root and returns the computation.
func (b *modb) root(in *ir.Instruction) *ir.Computation {
	b.c.Root = in
	return b.c
}

// run evaluates the entry with root as its root and returns the outputs.
func (b *modb) run(root *ir.Instruction, args ...*ir.Literal) []*ir.Literal {
	b.t.Helper()
	b.c.Root = root
	out, err := Run(b.m, args...)
	if err != nil {
		b.t.Fatalf("Run: %v", err)
	}
	return out
}

// run1 is run for a single (non-tuple) output.
func (b *modb) run1(root *ir.Instruction, args ...*ir.Literal) *ir.Literal {
	b.t.Helper()
	out := b.run(root, args...)
	if len(out) != 1 {
		b.t.Fatalf("got %d outputs, want 1", len(out))
	}
	return out[0]
}

// runErr evaluates and returns the error (failing the test if there is none).
func (b *modb) runErr(root *ir.Instruction, args ...*ir.Literal) error {
	b.t.Helper()
	b.c.Root = root
	_, err := Run(b.m, args...)
	if err == nil {
		b.t.Fatalf("Run succeeded, want an error")
	}
	return err
}

// binaryComp adds a computation (x, y) -> op(x, y) on scalars of type t.
func (b *modb) binaryComp(name string, op ir.Opcode, t string) *ir.Computation {
	s := b.sub(name)
	x, y := s.param(t+"[]"), s.param(t+"[]")
	return s.root(s.op(op, t+"[]", x, y))
}

// ---- literal helpers ------------------------------------------------------

// lit returns a literal of the given dims holding vals (row-major).
func lit[T ir.Native](dims []int, vals ...T) *ir.Literal {
	if dims == nil {
		dims = []int{}
	}
	return ir.MustLiteralFromSlice(vals, dims...)
}

// vec returns a rank-1 literal.
func vec[T ir.Native](vals ...T) *ir.Literal { return ir.MustLiteralFromSlice(vals) }

// scalar returns a rank-0 literal.
func scalar[T ir.Native](v T) *ir.Literal { return ir.ScalarLiteral(v) }

// dims is shorthand for a dimension list.
func dims(d ...int) []int { return d }

// wantValues checks a literal's shape dims and elements (exact, NaN equal to NaN).
func wantValues[T ir.Native](t *testing.T, got *ir.Literal, wantDims []int, want ...T) {
	t.Helper()
	if got.Shape().Elem != ir.ElementTypeOf[T]() {
		t.Fatalf("element type %v, want %v", got.Shape().Elem, ir.ElementTypeOf[T]())
	}
	if wantDims == nil {
		wantDims = []int{}
	}
	if !ir.SameDimensions(got.Shape(), ir.Shape{Dims: wantDims}) {
		t.Fatalf("dims %v, want %v", got.Shape().Dims, wantDims)
	}
	g := ir.Values[T](got)
	if len(g) != len(want) {
		t.Fatalf("%d values, want %d", len(g), len(want))
	}
	for i := range g {
		if !sameValue(g[i], want[i]) {
			t.Fatalf("element %d = %v, want %v (all: %v)", i, g[i], want[i], g)
		}
	}
}

// sameValue compares exactly, treating NaN as equal to NaN and telling ±0 apart.
func sameValue[T ir.Native](a, b T) bool {
	switch x := any(a).(type) {
	case float32:
		y := any(b).(float32)
		return x == y && math.Signbit(float64(x)) == math.Signbit(float64(y)) || x != x && y != y
	case float64:
		y := any(b).(float64)
		return x == y && math.Signbit(x) == math.Signbit(y) || x != x && y != y
	case complex64:
		y := any(b).(complex64)
		return sameValue(real(x), real(y)) && sameValue(imag(x), imag(y))
	case complex128:
		y := any(b).(complex128)
		return sameValue(real(x), real(y)) && sameValue(imag(x), imag(y))
	}
	return a == b
}

// ---- values.go ------------------------------------------------------------

func TestIntValuesRoundTripEveryIntegerType(t *testing.T) {
	for _, et := range []ir.ElementType{ir.PRED, ir.S4, ir.S8, ir.S16, ir.S32, ir.S64, ir.U4, ir.U8, ir.U16, ir.U32, ir.U64} {
		lo, hi := intRange(et)
		l := ir.MustNewLiteral(ir.MakeShape(et, 4))
		in := []int64{lo, hi, 0, 1}
		setInts(l, in)
		got := intValues(l)
		for i := range in {
			if got[i] != in[i] {
				t.Errorf("%v: element %d round-trips to %d, want %d", et, i, got[i], in[i])
			}
		}
		// One past the maximum wraps to the minimum.
		setInts(l, []int64{hi + 1, lo - 1, 0, 0})
		got = intValues(l)
		if et != ir.PRED && (got[0] != lo || got[1] != hi) {
			t.Errorf("%v: max+1 and min-1 wrap to %d and %d, want %d and %d", et, got[0], got[1], lo, hi)
		}
	}
}

func TestFloatToIntSaturatesAndTruncates(t *testing.T) {
	cases := []struct {
		t    ir.ElementType
		x    float64
		want int64
	}{
		{ir.S32, 3e9, math.MaxInt32},
		{ir.S32, -3e9, math.MinInt32},
		{ir.S32, math.NaN(), 0},
		{ir.S32, math.Inf(1), math.MaxInt32},
		{ir.S32, -2.9, -2},
		{ir.S32, 2.9, 2},
		{ir.S64, 9.3e18, math.MaxInt64},
		{ir.S64, math.Ldexp(1, 63), math.MaxInt64},
		{ir.S64, -math.Ldexp(1, 63), math.MinInt64},
		{ir.U8, -5, 0},
		{ir.U8, 300, 255},
		{ir.U8, 255.9, 255},
		{ir.U64, math.Ldexp(1, 64), -1},
		{ir.U64, math.Ldexp(1, 63), math.MinInt64}, // 2^63 as uint64 bits
		{ir.S4, 7.9, 7},
		{ir.S4, -100, -8},
		{ir.U4, 16, 15},
		{ir.PRED, 0.5, 1},
		{ir.PRED, math.NaN(), 1},
		{ir.PRED, -0.0, 0},
	}
	for _, c := range cases {
		if got := floatToInt(c.t, c.x); got != c.want {
			t.Errorf("floatToInt(%v, %g) = %d, want %d", c.t, c.x, got, c.want)
		}
	}
}

func TestIntToFloatRoundsNearestEven(t *testing.T) {
	cases := []struct {
		from, to ir.ElementType
		x        int64
		want     float64
	}{
		{ir.S64, ir.F32, 1<<24 + 1, 1 << 24},
		{ir.S64, ir.F32, 1<<24 + 3, 1<<24 + 4},
		{ir.S64, ir.F64, 1<<53 + 1, 1 << 53},
		{ir.U64, ir.F64, -1, math.Ldexp(1, 64)},
		{ir.U64, ir.F32, -1, math.Ldexp(1, 64)},
		// A single rounding to F32: 2^60 + 2^36 + 1 is just above the F32 tie
		// 2^60 + 2^36 and rounds up; rounding through F64 first would give
		// the tie and then round down to even.
		{ir.S64, ir.F32, 1<<60 + 1<<36 + 1, float64(1<<60 + 1<<37)},
	}
	for _, c := range cases {
		if got := intToFloat(c.from, c.to, c.x); got != c.want {
			t.Errorf("intToFloat(%v→%v, %d) = %g, want %g", c.from, c.to, c.x, got, c.want)
		}
	}
}

func TestTotalOrderKeyOrdersEveryClass(t *testing.T) {
	// -NaN < -Inf < -1 < -0 < +0 < 1 < +Inf < +NaN, as float32 bits.
	order := []uint32{0xffc00000, 0xff800000, 0xbf800000, 0x80000000, 0x00000000, 0x3f800000, 0x7f800000, 0x7fc00000}
	for i := 1; i < len(order); i++ {
		a, b := totalOrderKey(uint64(order[i-1]), 32), totalOrderKey(uint64(order[i]), 32)
		if a >= b {
			t.Errorf("key(%#x) = %d is not below key(%#x) = %d", order[i-1], a, order[i], b)
		}
	}
}

func TestSetFloatsRoundsNarrowTypesThroughF32(t *testing.T) {
	l := ir.MustNewLiteral(ir.MakeShape(ir.BF16, 3))
	// 1 + 2^-8 is a BF16 tie: rounds to even (1.0); 1 + 3*2^-8 rounds up to 1 + 2^-6.
	setFloats(l, []float64{1 + math.Ldexp(1, -8), 1 + 3*math.Ldexp(1, -8), -2})
	got := floatValues(l)
	want := []float64{1, 1 + math.Ldexp(1, -6), -2}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("bf16 element %d = %g, want %g", i, got[i], want[i])
		}
	}
}
