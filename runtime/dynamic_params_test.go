package runtime

// Differential cases for parameters with bounded dynamic dimensions: each
// module runs at several actual sizes (0, 1, one in between, the bound)
// through the compiled path and through ir/eval on the same arguments, and
// the results must agree. Each case also says how the compiled path must
// follow the sizes: with the program compiled at its bounds and every step
// resized or planned per size ("sized"), or op by op on the shapes' marks
// ("marked"); and it runs without allocating at every size.

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kilnml/kiln/internal/detrand"
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/eval"
)

// dynamicCase is one module with dynamic parameters.
type dynamicCase struct {
	name  string
	hlo   string
	sizes [][]int // per run: the actual size of each dynamic parameter's dynamic dimension (in parameter order)
	// path is "sized" or "marked".
	path string
	// tol is the relative tolerance of float results (0: exact).
	tol float64
}

var dynamicCases = []dynamicCase{
	{name: "elementwise-bias", path: "sized", tol: 1e-6, hlo: `
HloModule m
ENTRY e {
  x = f32[<=16,8] parameter(0)
  b = f32[8] parameter(1)
  bb = f32[16,8] broadcast(b), dimensions={1}
  a = f32[<=16,8] add(x, bb)
  t = f32[<=16,8] tanh(a)
  ROOT m = f32[<=16,8] multiply(t, x)
}`},
	{name: "reduce-rows-and-batch", path: "sized", tol: 1e-5, hlo: `
HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
max { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] maximum(a, b) }
ENTRY e {
  x = f32[<=16,300] parameter(0)
  z = f32[] constant(0)
  ni = f32[] constant(-inf)
  rows = f32[<=16] reduce(x, z), dimensions={1}, to_apply=add
  cols = f32[300] reduce(x, ni), dimensions={0}, to_apply=max
  all = f32[] reduce(x, z), dimensions={0,1}, to_apply=add
  ROOT t = (f32[<=16], f32[300], f32[]) tuple(rows, cols, all)
}`},
	{name: "dot-rows", path: "sized", tol: 1e-5, hlo: `
HloModule m
ENTRY e {
  x = f32[<=16,24] parameter(0)
  w = f32[24,12] constant({...})
  d = f32[<=16,12] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  zb = f32[16,12] broadcast(z), dimensions={}
  ROOT r = f32[<=16,12] maximum(d, zb)
}`},
	{name: "dot-contract-batch", path: "sized", tol: 1e-5, hlo: `
HloModule m
ENTRY e {
  x = f32[<=16,6] parameter(0)
  y = f32[<=16,5] parameter(1)
  ROOT d = f32[6,5] dot(x, y), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}`},
	{name: "batched-dot", path: "sized", tol: 1e-5, hlo: `
HloModule m
ENTRY e {
  q = f32[<=8,3,4,5] parameter(0)
  k = f32[<=8,3,6,5] parameter(1)
  ROOT s = f32[<=8,3,4,6] dot(q, k), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}
}`},
	{name: "reshape-merge-split", path: "sized", hlo: `
HloModule m
ENTRY e {
  x = f32[<=8,4,6] parameter(0)
  r = f32[<=32,6] reshape(x)
  e = f32[<=32,6] exponential(r)
  ROOT s = f32[<=8,4,6] reshape(e)
}`, tol: 1e-6},
	{name: "transpose-inward", path: "sized", tol: 1e-5, hlo: `
HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[<=8,5] parameter(0)
  t = f32[5,<=8] transpose(x), dimensions={1,0}
  n = f32[5,<=8] negate(t)
  ROOT r = f32[5] reduce(n, f32[] constant(0)), dimensions={1}, to_apply=add
}`},
	{name: "concat-pad-slice", path: "sized", hlo: `
HloModule m
ENTRY e {
  x = f32[<=8,3] parameter(0)
  y = f32[<=8,2] parameter(1)
  c = f32[<=8,5] concatenate(x, y), dimensions={1}
  p = f32[<=8,9] pad(c, f32[] constant(1.5)), padding=0_0x2_2
  ROOT s = f32[<=8,4] slice(p), slice={[0:8], [1:9:2]}
}`},
	{name: "integers", path: "sized", hlo: `
HloModule m
ENTRY e {
  x = s32[<=16,3] parameter(0)
  y = s32[16,3] broadcast(s32[] constant(7)), dimensions={}
  a = s32[<=16,3] multiply(x, y)
  c = pred[<=16,3] compare(a, x), direction=GT
  ROOT s = s32[<=16,3] select(c, a, x)
}`},
	{name: "sort-static-dim", path: "sized", hlo: `
HloModule m
less { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT c = pred[] compare(a, b), direction=LT }
ENTRY e {
  x = f32[<=8,5] parameter(0)
  ROOT s = f32[<=8,5] sort(x), dimensions={1}, to_apply=less
}`},
	{name: "gather-embedding", path: "sized", hlo: `
HloModule m
ENTRY e {
  ids = s32[<=8,3] parameter(0)
  table = f32[10,4] constant({...})
  i = s32[<=8,3,1] reshape(ids)
  ROOT g = f32[<=8,3,4] gather(table, i), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,4}
}`},
	{name: "while-state", path: "sized", tol: 1e-6, hlo: `
HloModule m
cond {
  s = (s32[], f32[<=16,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ROOT c = pred[] compare(i, s32[] constant(3)), direction=LT
}
body {
  s = (s32[], f32[<=16,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[<=16,4] get-tuple-element(s), index=1
  h = f32[16,4] broadcast(f32[] constant(0.5)), dimensions={}
  y = f32[<=16,4] add(x, h)
  z = f32[<=16,4] multiply(y, y)
  ROOT t = (s32[], f32[<=16,4]) tuple(s32[] add(i, s32[] constant(1)), z)
}
ENTRY e {
  x = f32[<=16,4] parameter(0)
  t = (s32[], f32[<=16,4]) tuple(s32[] constant(0), x)
  w = (s32[], f32[<=16,4]) while(t), condition=cond, body=body
  ROOT r = f32[<=16,4] get-tuple-element(w), index=1
}`},
	{name: "conditional", path: "sized", hlo: `
HloModule m
neg { x = f32[<=16,4] parameter(0)  ROOT n = f32[<=16,4] negate(x) }
sq { x = f32[<=16,4] parameter(0)  ROOT n = f32[<=16,4] multiply(x, x) }
ENTRY e {
  x = f32[<=16,4] parameter(0)
  p = pred[] parameter(1)
  ROOT c = f32[<=16,4] conditional(p, x, x), true_computation=neg, false_computation=sq
}`},
	{name: "two-params-one-size", path: "sized", hlo: `
HloModule m
ENTRY e {
  x = f32[<=16,4] parameter(0)
  y = f32[<=16,4] parameter(1)
  ROOT a = f32[<=16,4] subtract(x, y)
}`},
	{name: "softmax-layernorm", path: "sized", tol: 1e-5, hlo: `
HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
max { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] maximum(a, b) }
ENTRY e {
  x = f32[<=16,64] parameter(0)
  ni = f32[] constant(-inf)
  m = f32[<=16] reduce(x, ni), dimensions={1}, to_apply=max
  mb = f32[<=16,64] broadcast(m), dimensions={0}
  s = f32[<=16,64] subtract(x, mb)
  e = f32[<=16,64] exponential(s)
  zero = f32[] constant(0)
  z = f32[<=16] reduce(e, zero), dimensions={1}, to_apply=add
  zb = f32[<=16,64] broadcast(z), dimensions={0}
  ROOT p = f32[<=16,64] divide(e, zb)
}`},
	{name: "f64-dot", path: "sized", tol: 1e-12, hlo: `
HloModule m
ENTRY e {
  x = f64[<=8,6] parameter(0)
  w = f64[6,3] constant({...})
  ROOT d = f64[<=8,3] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`},
	{name: "convolution-batch", path: "sized", tol: 1e-5, hlo: `
HloModule m
ENTRY e {
  x = f32[<=4,6,6,3] parameter(0)
  w = f32[3,3,3,5] constant({...})
  ROOT c = f32[<=4,6,6,5] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}`},
	{name: "iota-mask", path: "sized", hlo: `
HloModule m
ENTRY e {
  x = f32[<=16,4] parameter(0)
  i = s32[16,4] iota(), iota_dimension=0
  xi = s32[<=16,4] convert(x)
  c = pred[<=16,4] compare(xi, i), direction=LT
  m1 = f32[] constant(-1)
  mb = f32[16,4] broadcast(m1), dimensions={}
  ROOT s = f32[<=16,4] select(c, x, mb)
}`},
	{name: "parameter-as-result", path: "sized", hlo: `
HloModule m
ENTRY e {
  x = f32[<=16,4] parameter(0)
  y = f32[<=16,4] negate(x)
  ROOT t = (f32[<=16,4], f32[<=16,4]) tuple(x, y)
}`},
	{name: "reduce-window-batch", path: "sized", tol: 1e-6, hlo: `
HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[<=8,6,5] parameter(0)
  ROOT r = f32[<=8,3,5] reduce-window(x, f32[] constant(0)), window={size=1x2x1 stride=1x2x1}, to_apply=add
}`},
	{name: "get-dimension-size-in-loop", path: "marked", tol: 1e-6, hlo: `
HloModule m
cond { s = (s32[], f32[<=16,4]) parameter(0)  i = s32[] get-tuple-element(s), index=0  ROOT c = pred[] compare(i, s32[] constant(2)), direction=LT }
body {
  s = (s32[], f32[<=16,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[<=16,4] get-tuple-element(s), index=1
  n = s32[] get-dimension-size(x), dimensions={0}
  f = f32[] convert(n)
  fb = f32[16,4] broadcast(f), dimensions={}
  y = f32[<=16,4] add(x, fb)
  ROOT t = (s32[], f32[<=16,4]) tuple(s32[] add(i, s32[] constant(1)), y)
}
ENTRY e {
  x = f32[<=16,4] parameter(0)
  t = (s32[], f32[<=16,4]) tuple(s32[] constant(0), x)
  w = (s32[], f32[<=16,4]) while(t), condition=cond, body=body
  ROOT r = f32[<=16,4] get-tuple-element(w), index=1
}`},
	// A GELU (recognised as Kiln's own op) over an array whose run-time
	// size a transpose moves inward: no fast step takes that loop and
	// Kiln's op has no generic form, so the program is compiled again on
	// its dynamic marks.
	{name: "gelu-after-transpose", path: "marked", tol: 1e-5, hlo: `
HloModule m
ENTRY e {
  x = f32[<=8,16] parameter(0)
  t = f32[16,<=8] transpose(x), dimensions={1,0}
  c3 = f32[16,8] broadcast(f32[] constant(0.044715)), dimensions={}
  ck = f32[16,8] broadcast(f32[] constant(0.797884583)), dimensions={}
  c1 = f32[16,8] broadcast(f32[] constant(1)), dimensions={}
  ch = f32[16,8] broadcast(f32[] constant(0.5)), dimensions={}
  x2 = f32[16,<=8] multiply(t, t)
  x3 = f32[16,<=8] multiply(t, x2)
  a = f32[16,<=8] add(t, f32[16,<=8] multiply(x3, c3))
  th = f32[16,<=8] tanh(f32[16,<=8] multiply(a, ck))
  one = f32[16,<=8] add(th, c1)
  ROOT g = f32[16,<=8] multiply(f32[16,<=8] multiply(t, ch), one)
}`},
	{name: "get-dimension-size", path: "marked", hlo: `
HloModule m
ENTRY e {
  x = f32[<=16,4] parameter(0)
  n = s32[] get-dimension-size(x), dimensions={0}
  f = f32[] convert(n)
  fb = f32[16,4] broadcast(f), dimensions={}
  ROOT y = f32[<=16,4] multiply(x, fb)
}`},
	{name: "set-dimension-size-after-parameter", path: "marked", hlo: `
HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[<=16,4] parameter(0)
  s = f32[<=16,4] set-dimension-size(x, s32[] constant(2)), dimensions={0}
  ROOT r = f32[4] reduce(s, f32[] constant(0)), dimensions={0}, to_apply=add
}`},
}

// dynamicArgs makes deterministic arguments for m at the given sizes of its
// dynamic dimensions (in parameter order); a PRED scalar parameter
// alternates with the case's run.
func dynamicArgs(m *ir.Module, sizes []int, seed uint64) []*ir.Literal {
	var args []*ir.Literal
	k := 0
	for i, p := range m.Entry.Parameters {
		s := p.Shape.Clone()
		for d := range s.Dims {
			if s.IsDynamicDim(d) {
				s.Dims[d] = sizes[min(k, len(sizes)-1)]
				k++
			}
		}
		s.Dynamic = nil
		l := detrand.Literal(s, detrand.Seed(fmt.Sprint("dyn", seed), i))
		if s.Elem == ir.S32 {
			// Valid indices for the gather case (and small integers elsewhere).
			v := l.Int32s()
			for j := range v {
				v[j] = int32(uint32(v[j]) % 10)
			}
		}
		if s.Elem == ir.PRED && s.Rank() == 0 {
			l.Bools()[0] = seed%2 == 0
		}
		args = append(args, l)
	}
	return args
}

// fillConstants gives the module's elided constants deterministic values.
func fillConstants(t *testing.T, m *ir.Module) {
	t.Helper()
	if err := m.FillElidedConstants(ir.NewElidedConstantFiller()); err != nil {
		t.Fatal(err)
	}
}

func TestDynamicParameters(t *testing.T) {
	for _, c := range dynamicCases {
		t.Run(c.name, func(t *testing.T) {
			m, err := ir.ParseModule(c.hlo)
			if err != nil {
				t.Fatal(err)
			}
			fillConstants(t, m)
			e, err := Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			if path := dynamicPath(e); path != c.path {
				t.Errorf("follows its sizes %s, want %s\n%s", path, c.path, e.Stats())
			}
			bound := 0
			for _, p := range m.Entry.Parameters {
				for d := range p.Shape.Dims {
					if p.Shape.IsDynamicDim(d) {
						bound = p.Shape.Dims[d]
					}
				}
			}
			for run, size := range []int{0, 1, bound/2 + 1, bound, 3} {
				args := dynamicArgs(m, []int{size}, uint64(run))
				want, err := eval.Run(m, args...)
				if err != nil {
					t.Fatalf("size %d: eval: %v", size, err)
				}
				got := runLiterals(t, e, args)
				for i := range want {
					if msg := sameValues(got[i], want[i], c.tol); msg != "" {
						t.Errorf("size %d, result %d: %s", size, i, msg)
					}
				}
			}
		})
	}
}

// dynamicPath names how an executable follows its run-time sizes.
func dynamicPath(e *Executable) string {
	switch {
	case e.sized == nil:
		return "static"
	case e.sized.marked:
		return "marked"
	}
	return "sized"
}

// runLiterals runs e on args and returns its results as literals.
func runLiterals(t *testing.T, e *Executable, args []*ir.Literal) []*ir.Literal {
	t.Helper()
	ts := make([]*Tensor, len(args))
	for i, a := range args {
		ts[i] = TensorFromLiteral(a)
	}
	outs, err := e.Run(context.Background(), ts...)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, e.Stats())
	}
	var out []*ir.Literal
	for _, o := range outs {
		out = append(out, o.Literal())
	}
	return out
}

// sameValues compares a result with the evaluator's: the same dimensions
// (dynamic marks aside), and equal elements (floats within tol relative to
// the largest magnitude, NaN meeting NaN).
func sameValues(got, want *ir.Literal, tol float64) string {
	gs, ws := got.Shape(), want.Shape()
	if gs.Elem != ws.Elem || !ir.SameDimensions(gs, ws) {
		return fmt.Sprintf("shape %v, want %v", gs, ws)
	}
	if !ws.Elem.IsFloat() {
		if string(got.Bytes()) != string(want.Bytes()) {
			return fmt.Sprintf("got %v, want %v", got, want)
		}
		return ""
	}
	g, w := make([]float64, ws.ElementCount()), make([]float64, ws.ElementCount())
	for i := range g {
		g[i], w[i] = elementFloat(got, i), elementFloat(want, i)
	}
	scale := 1.0
	for _, x := range w {
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			scale = math.Max(scale, math.Abs(x))
		}
	}
	for i := range g {
		if math.IsNaN(w[i]) && math.IsNaN(g[i]) || g[i] == w[i] {
			continue
		}
		if math.Abs(g[i]-w[i]) > tol*scale {
			return fmt.Sprintf("element %d is %v, want %v (tolerance %v·%v)", i, g[i], w[i], tol, scale)
		}
	}
	return ""
}

func elementFloat(l *ir.Literal, i int) float64 {
	switch l.Shape().Elem {
	case ir.F32:
		return float64(l.Float32s()[i])
	case ir.F64:
		return l.Float64s()[i]
	}
	panic("elementFloat: " + l.Shape().Elem.String())
}

// TestDynamicParametersWithoutAllocating runs every sized case through
// RunInto at alternating sizes: no run allocates.
func TestDynamicParametersWithoutAllocating(t *testing.T) {
	for _, c := range dynamicCases {
		if c.path != "sized" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			m, err := ir.ParseModule(c.hlo)
			if err != nil {
				t.Fatal(err)
			}
			fillConstants(t, m)
			e, err := Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			var outs []*Tensor
			for _, s := range e.ResultShapes() {
				o, err := NewTensor(s)
				if err != nil {
					t.Fatal(err)
				}
				outs = append(outs, o)
			}
			var runs [][]*Tensor
			for i, size := range []int{1, 7, 0, 16, 3} {
				var ts []*Tensor
				for _, a := range dynamicArgs(m, []int{min(size, e.ParameterShapes()[0].Dims[0])}, uint64(i)) {
					ts = append(ts, TensorFromLiteral(a))
				}
				runs = append(runs, ts)
			}
			ctx := context.Background()
			i := 0
			allocs := steadyAllocs(10, func() {
				if err := e.RunInto(ctx, outs, runs[i%len(runs)]...); err != nil {
					t.Fatal(err)
				}
				i++
			})
			if allocs != 0 && !raceEnabled {
				t.Errorf("RunInto allocates %v times per run", allocs)
			}
		})
	}
}

// TestDynamicParametersKeepingMarks compiles every case op by op on its
// shapes' marks too: the same results.
func TestDynamicParametersKeepingMarks(t *testing.T) {
	for _, c := range dynamicCases {
		t.Run(c.name, func(t *testing.T) {
			m, err := ir.ParseModule(c.hlo)
			if err != nil {
				t.Fatal(err)
			}
			fillConstants(t, m)
			e, err := Compile(m, keepDynamic())
			if err != nil {
				if strings.Contains(err.Error(), "not supported by the compiled path") || strings.Contains(err.Error(), "comes from another computation") {
					t.Skipf("op by op: %v", err)
				}
				t.Fatal(err)
			}
			bound := e.ParameterShapes()[0].Dims[0]
			for run, size := range []int{0, 1, 5} {
				args := dynamicArgs(m, []int{min(size, bound)}, uint64(run))
				want, err := eval.Run(m, args...)
				if err != nil {
					t.Fatal(err)
				}
				got := runLiterals(t, e, args)
				for i := range want {
					if msg := sameValues(got[i], want[i], c.tol); msg != "" {
						t.Errorf("size %d, result %d: %s", size, i, msg)
					}
				}
			}
		})
	}
}
