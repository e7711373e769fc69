package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// reducers are reduce computations of two scalars of type T, by name: the
// standard ones (accumulator first or second) and a general one.
var reducers = map[string]string{
	"add":     "ROOT r = T[] add(a, b)",
	"mul":     "ROOT r = T[] multiply(b, a)",
	"max":     "ROOT r = T[] maximum(a, b)",
	"min":     "ROOT r = T[] minimum(b, a)",
	"and":     "ROOT r = T[] and(a, b)",
	"or":      "ROOT r = T[] or(a, b)",
	"general": "s = T[] subtract(a, b)\n  ROOT r = T[] maximum(s, b)",
}

func typeName(t ir.ElementType) string {
	return strings.TrimSuffix(ir.Scalar(t).StringWithoutLayout(), "[]")
}

// withReducer prepends computation `red` of the given body to a module's
// entry and instantiates the placeholder type T.
func withReducer(hlo, body string, t ir.ElementType) string {
	hlo = fmt.Sprintf("HloModule m\nred {\n  a = T[] parameter(0)\n  b = T[] parameter(1)\n  %s\n}\n%s", body, hlo)
	return strings.ReplaceAll(hlo, "T[]", typeName(t)+"[]")
}

var reduceTypes = []ir.ElementType{ir.F32, ir.F64, ir.F16, ir.BF16, ir.S32, ir.U8, ir.S64, ir.PRED, ir.C64}

func TestGenericReduceAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	for _, typ := range reduceTypes {
		for _, body := range reducers {
			for _, c := range []struct {
				in, dims []int
			}{{[]int{4, 5, 6}, []int{1}}, {[]int{4, 5, 6}, []int{0, 2}}, {[]int{7, 300}, []int{1}}, {[]int{3, 0}, []int{1}},
				{[]int{0, 3}, []int{1}}, {[]int{5}, []int{}}, {[]int{2, 3}, []int{0, 1}}} {
				var out []int
				for d, n := range c.in {
					if !slices.Contains(c.dims, d) {
						out = append(out, n)
					}
				}
				x := ir.MakeShape(typ, c.in...)
				hlo := withReducer(fmt.Sprintf("ENTRY e {\n  p = %s parameter(0)\n  i = T[] parameter(1)\n  ROOT r = %s reduce(p, i), dimensions=%s, to_apply=red\n}\n",
					x.StringWithoutLayout(), shapeText(typ, out...), dimsText(c.dims)), body, typ)
				if !validModule(hlo) {
					continue
				}
				checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, x, ir.Scalar(typ))})
			}
		}
	}
}

func TestGenericVariadicReduceAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	// argmax over the last dimension: the larger value, the lower index on ties.
	hlo := `HloModule m
argmax {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  eq = pred[] compare(a, b), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  keep = pred[] or(gt, tie)
  v = f32[] select(keep, a, b)
  i = s32[] select(keep, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  p = f32[6,33] parameter(0)
  io = s32[6,33] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT r = (f32[6], s32[6]) reduce(p, io, lo, z), dimensions={1}, to_apply=argmax
}`
	for trial := 0; trial < 3; trial++ {
		x := randomLiteral(r, ir.MakeShape(ir.F32, 6, 33))
		copy(x.Bytes()[4*40:4*44], x.Bytes()[4*33:4*37]) // repeated values: ties
		checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{x}})
	}
}

// windowForms are reduce-window operand shapes and windows: pooling as the
// CNN example does it, padding, base and window dilation, negative padding,
// windows wholly in padding, empty and rank-0 operands.
var windowForms = []struct {
	in     []int
	window string
}{
	{[]int{1, 8, 8, 3}, "size=1x2x2x1 stride=1x2x2x1"},
	{[]int{1, 6, 6, 16}, "size=1x2x2x1 stride=1x2x2x1"},                     // runs of one AVX-512 vector
	{[]int{2, 5, 4, 19}, "size=1x3x2x1 stride=1x1x2x1 pad=0_0x1_1x0_0x0_0"}, // and a tail
	{[]int{3, 40}, "size=2x1"},
	{[]int{2, 7, 9, 2}, "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0"},
	{[]int{10}, "size=3 stride=2 pad=2_1 lhs_dilate=2 rhs_dilate=2"},
	{[]int{4, 5}, "size=2x3 stride=3x1 pad=-1_2x0_0 rhs_dilate=1x2"},
	{[]int{3, 3}, "size=5x5 pad=4_4x4_4"},
	{[]int{0, 4}, "size=1x2"},
	{[]int{}, ""},
}

func TestGenericReduceWindowAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(75, 76))
	for _, typ := range reduceTypes {
		for _, body := range reducers {
			for _, w := range windowForms {
				x := ir.MakeShape(typ, w.in...)
				ws, err := ir.ParseWindow(w.window)
				if err != nil {
					t.Fatal(err)
				}
				os, err := ir.InferWindowOutputShape(x, *ws, typ)
				if err != nil {
					t.Fatal(err)
				}
				hlo := withReducer(fmt.Sprintf("ENTRY e {\n  p = %s parameter(0)\n  i = T[] parameter(1)\n  ROOT r = %s reduce-window(p, i), window={%s}, to_apply=red\n}\n",
					x.StringWithoutLayout(), os.StringWithoutLayout(), w.window), body, typ)
				if !validModule(hlo) {
					continue
				}
				checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, x, ir.Scalar(typ))})
			}
		}
	}
}

// TestGenericPoolingSplitsImages runs float32 poolings of batches big enough
// to be split into ranges of images across three threads, and checks that
// they were split.
func TestGenericPoolingSplitsImages(t *testing.T) {
	r := rand.New(rand.NewPCG(79, 80))
	for _, body := range []string{"max", "add"} {
		for _, f := range []struct {
			in     []int
			window string
		}{
			{[]int{5, 64, 32, 16}, "size=1x2x2x1 stride=1x2x2x1"},
			{[]int{7, 40, 36, 16}, "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0"},
		} {
			x := ir.MakeShape(ir.F32, f.in...)
			ws, err := ir.ParseWindow(f.window)
			if err != nil {
				t.Fatal(err)
			}
			os, err := ir.InferWindowOutputShape(x, *ws, ir.F32)
			if err != nil {
				t.Fatal(err)
			}
			hlo := withReducer(fmt.Sprintf("ENTRY e {\n  p = %s parameter(0)\n  i = T[] parameter(1)\n  ROOT r = %s reduce-window(p, i), window={%s}, to_apply=red\n}\n",
				x.StringWithoutLayout(), os.StringWithoutLayout(), f.window), reducers[body], ir.F32)
			checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, x, ir.Scalar(ir.F32)), opts: []Option{WithThreads(3)},
				check: func(t *testing.T, e *Executable) {
					found := false
					for _, st := range e.entry.steps {
						if rw, ok := st.(*reduceWindowF32Step); ok {
							found = true
							if len(rw.parts) < 2 {
								t.Errorf("%v pooled as %d part, want it split", x, len(rw.parts))
							}
						}
					}
					if !found {
						t.Errorf("%v: no float32 reduce-window step", x)
					}
				}})
		}
	}
}

func TestGenericSelectAndScatterAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(77, 78))
	for _, typ := range []ir.ElementType{ir.F32, ir.F64, ir.BF16, ir.S32, ir.U8} {
		for _, sel := range []string{"ROOT r = pred[] compare(a, b), direction=GE", "ROOT r = pred[] compare(b, a), direction=GT",
			"ROOT r = pred[] compare(a, b), direction=LE, type=TOTALORDER", "n = pred[] compare(a, b), direction=LT\n  ROOT r = pred[] not(n)"} {
			for _, sc := range []string{"add", "max", "general"} {
				for _, w := range []struct {
					in     []int
					window string
				}{{[]int{1, 6, 6, 2}, "size=1x2x2x1 stride=1x2x2x1"}, {[]int{7, 5}, "size=3x2 stride=2x2 pad=1_1x0_1"}, {[]int{4}, "size=3 pad=5_5"}} {
					x := ir.MakeShape(typ, w.in...)
					ws, err := ir.ParseWindow(w.window)
					if err != nil {
						t.Fatal(err)
					}
					src, err := ir.InferWindowOutputShape(x, *ws, typ)
					if err != nil {
						t.Fatal(err)
					}
					hlo := fmt.Sprintf("HloModule m\nsel {\n  a = T[] parameter(0)\n  b = T[] parameter(1)\n  %s\n}\nscat {\n  a = T[] parameter(0)\n  b = T[] parameter(1)\n  %s\n}\nENTRY e {\n  p = %s parameter(0)\n  s = %s parameter(1)\n  i = T[] parameter(2)\n  ROOT r = %s select-and-scatter(p, s, i), window={%s}, select=sel, scatter=scat\n}\n",
						sel, reducers[sc], x.StringWithoutLayout(), src.StringWithoutLayout(), x.StringWithoutLayout(), w.window)
					hlo = strings.ReplaceAll(hlo, "T[]", typeName(typ)+"[]")
					if !validModule(hlo) {
						continue // total order on integers
					}
					checkGeneric(t, genericCase{hlo: hlo, args: []*ir.Literal{randomLiteral(r, x), randomLiteral(r, src), randomLiteral(r, ir.Scalar(typ))}})
				}
			}
		}
	}
}

// BenchmarkMaxPool is the CNN example's pooling at batch 32: a 2×2
// stride-2 max pool over NHWC float32, reported as input bytes per second.
func BenchmarkMaxPool(b *testing.B) {
	m, err := ir.ParseModule(`HloModule m
maxf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[32,32,32,16] parameter(0)
  ninf = f32[] constant(-inf)
  ROOT pool = f32[32,16,16,16] reduce-window(x, ninf), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=maxf
}`)
	if err != nil {
		b.Fatal(err)
	}
	e, err := Compile(m)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	x := TensorFromLiteral(randomLiteral(r, ir.MakeShape(ir.F32, 32, 32, 32, 16)))
	out, err := NewTensor(ir.MakeShape(ir.F32, 32, 16, 16, 16))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.SetBytes(int64(len(x.Bytes())))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := e.RunInto(ctx, []*Tensor{out}, x); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGenericFusedReduceAgreesWithEvaluator covers a float32 reduction
// whose fused producer the float32 loop cannot compute (a bfloat16 input
// converted, reduce-precision): the generic loop computes the operand, the
// generic reduce folds it.
func TestGenericFusedReduceAgreesWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(79, 80))
	for _, body := range []string{"c = f32[6,50] convert(p)\n  m = f32[6,50] multiply(c, c)",
		"c = f32[6,50] convert(p)\n  m = f32[6,50] reduce-precision(c), exponent_bits=5, mantissa_bits=3"} {
		hlo := withReducer("ENTRY e {\n  p = bf16[6,50] parameter(0)\n  "+body+"\n  z = f32[] constant(0)\n  ROOT r = f32[6] reduce(m, z), dimensions={1}, to_apply=red\n}\n",
			"ROOT r = f32[] add(a, b)", ir.F32)
		checkGeneric(t, genericCase{hlo: hlo, args: randomArgs(r, ir.MakeShape(ir.BF16, 6, 50))})
	}
}
