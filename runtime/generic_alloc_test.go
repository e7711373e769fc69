package runtime

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// genericAllocModule exercises the generic implementations: elementwise ops
// of several types, fused generic loops, conversions, data movement,
// gather/scatter with a standard and a general update, map, sorts with
// general comparators (one comparing in the total order), and
// reduce-windows with a general reducer (a cumulative one and one over
// tiles of outputs).
const genericAllocModule = `HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = s32[] add(a, b)
}
general {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  c = f64[] constant(0.5)
  m = f64[] multiply(a, c)
  ROOT r = f64[] maximum(m, b)
}
maxf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] maximum(a, b)
}
addf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
gef {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GE
}
argmax {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  v = f32[] select(gt, a, b)
  i = s32[] select(gt, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
lexi {
  x0 = f64[] parameter(0)
  x1 = f64[] parameter(1)
  y0 = s32[] parameter(2)
  y1 = s32[] parameter(3)
  g = pred[] compare(x0, x1), direction=GT
  e = pred[] compare(x0, x1), direction=EQ
  l = pred[] compare(y0, y1), direction=LT
  a = pred[] and(e, l)
  ROOT r = pred[] or(g, a)
}
lextot {
  x0 = f64[] parameter(0)
  x1 = f64[] parameter(1)
  y0 = s32[] parameter(2)
  y1 = s32[] parameter(3)
  l = pred[] compare(x0, x1), direction=LT, type=TOTALORDER
  e = pred[] compare(x0, x1), direction=EQ, type=TOTALORDER
  m = pred[] compare(y0, y1), direction=GT
  a = pred[] and(e, m)
  ROOT r = pred[] or(l, a)
}
hmax {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  m = f32[] maximum(a, b)
  t = pred[] constant(true)
  ROOT r = f32[] select(t, m, m)
}
lts {
  x0 = s32[] parameter(0)
  x1 = s32[] parameter(1)
  ROOT r = pred[] compare(x0, x1), direction=LT
}
ENTRY e {
  x = s32[8,16] parameter(0)
  y = f64[8,16] parameter(1)
  i = s32[5,1] parameter(2)
  j = s32[] parameter(3)
  k = s16[8,16] convert(x)
  t = s16[16,8] transpose(k), dimensions={1,0}
  io = s32[8,16] iota(), iota_dimension=1
  s = s32[8,16] multiply(x, io)
  c = pred[8,16] compare(s, x), direction=GT
  z = s32[8,16] select(c, s, io)
  f = f64[8,16] convert(z)
  g = f64[8,16] add(f, y)
  rv = f64[8,16] reverse(g), dimensions={0,1}
  zero = f64[] constant(0)
  pd = f64[10,20] pad(rv, zero), padding=1_1x2_2
  ds = f64[4,4] dynamic-slice(pd, j, j), dynamic_slice_sizes={4,4}
  u = f64[10,20] dynamic-update-slice(pd, ds, j, j)
  ga = s32[5,16] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,16}
  sc = s32[8,16] scatter(x, i, ga), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  gy = f64[5,16] gather(y, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,16}
  sy = f64[8,16] scatter(y, i, gy), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=general
  cc = s32[16,16] concatenate(sc, x), dimensions={0}
  mp = f64[8,16] map(sy, y), dimensions={0,1}, to_apply=general
  zf = f32[8,16] convert(z)
  img = f32[1,8,16,1] reshape(zf)
  ninf = f32[] constant(-inf)
  pool = f32[1,4,8,1] reduce-window(img, ninf), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=maxf
  fz = f32[] constant(0)
  bwd = f32[1,8,16,1] select-and-scatter(img, pool, fz), window={size=1x2x2x1 stride=1x2x2x1}, select=gef, scatter=addf
  flat = f32[8,16] reshape(bwd)
  izero = s32[] constant(0)
  am = (f32[8], s32[8]) reduce(flat, io, ninf, izero), dimensions={1}, to_apply=argmax
  ai = s32[8] get-tuple-element(am), index=1
  sum = s32[16] reduce(x, izero), dimensions={0}, to_apply=add
  srt = (f64[8,16], s32[8,16]) sort(mp, io), dimensions={1}, to_apply=lexi
  perm = s32[8,16] get-tuple-element(srt), index=1
  sx = s32[8,16] sort(x), dimensions={0}, to_apply=lts
  tk = (s32[8,3], s32[8,3]) topk(sx), k=3, largest=true
  tkv = s32[8,3] get-tuple-element(tk), index=0
  srt2 = (f64[8,16], s32[8,16]) sort(mp, io), dimensions={1}, to_apply=lextot
  perm2 = s32[8,16] get-tuple-element(srt2), index=1
  cum = f32[1,8,16,1] reduce-window(img, fz), window={size=1x1x16x1 pad=0_0x0_0x15_0x0_0}, to_apply=hmax
  tiled = f32[1,4,8,1] reduce-window(img, ninf), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=hmax
  ROOT r = (s16[16,8], f64[10,20], s32[16,16], f64[8,16], s32[8], s32[16], s32[8,16], s32[8,3], s32[8,16], f32[1,8,16,1], f32[1,4,8,1]) tuple(t, u, cc, mp, ai, sum, perm, tkv, perm2, cum, tiled)
}`

func TestGenericStepsRunWithoutAllocating(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	checkNoAllocs(t, genericAllocModule, []*ir.Literal{randomLiteral(r, ir.MakeShape(ir.S32, 8, 16)), randomLiteral(r, ir.MakeShape(ir.F64, 8, 16)),
		indexLiteral(r, ir.S32, 8, 5, 1), ir.ScalarLiteral(int32(3))})
}

// linalgAllocModule exercises the numeric generic steps: fft (mixed radix
// and Bluestein), cholesky, triangular-solve, an integer dot and a float16
// convolution.
const linalgAllocModule = `HloModule m
ENTRY e {
  x = c64[4,12] parameter(0)
  f = c64[4,12] fft(x), fft_type=FFT, fft_length={12}
  y = f32[3,37] parameter(1)
  g = c64[3,19] fft(y), fft_type=RFFT, fft_length={37}
  a = f64[2,5,5] parameter(2)
  l = f64[2,5,5] cholesky(a), lower=true
  b = f64[2,5,3] parameter(3)
  s = f64[2,5,3] triangular-solve(l, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  i = s8[4,6] parameter(4)
  j = s8[6,3] parameter(5)
  d = s32[4,3] dot(i, j), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  h = f16[1,6,6,2] parameter(6)
  w = f16[3,3,2,4] parameter(7)
  cv = f16[1,6,6,4] convolution(h, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ROOT r = (c64[4,12], c64[3,19], f64[2,5,3], s32[4,3], f16[1,6,6,4]) tuple(f, g, s, d, cv)
}`

func TestNumericGenericStepsRunWithoutAllocating(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	checkNoAllocs(t, linalgAllocModule, []*ir.Literal{randomLiteral(r, ir.MakeShape(ir.C64, 4, 12)), randomLiteral(r, ir.MakeShape(ir.F32, 3, 37)),
		spdLiteral(r, ir.F64, 2, 5), randomLiteral(r, ir.MakeShape(ir.F64, 2, 5, 3)),
		randomLiteral(r, ir.MakeShape(ir.S8, 4, 6)), randomLiteral(r, ir.MakeShape(ir.S8, 6, 3)),
		randomLiteral(r, ir.MakeShape(ir.F16, 1, 6, 6, 2)), randomLiteral(r, ir.MakeShape(ir.F16, 3, 3, 2, 4))})
}

// checkNoAllocs compiles a module, checks that no kernel runs on the
// reference fallback, that RunInto allocates nothing in steady state, and
// that the results agree with the evaluator.
func checkNoAllocs(t *testing.T, hlo string, lits []*ir.Literal) {
	t.Helper()
	m, err := ir.ParseModule(hlo)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range exe.Stats().Kernels {
		if k.Impl == "reference" {
			t.Errorf("kernel %v runs on the reference fallback", k)
		}
	}
	args := make([]*Tensor, len(lits))
	for i, l := range lits {
		args[i] = TensorFromLiteral(l)
	}
	outs := make([]*Tensor, len(exe.ResultShapes()))
	for i, s := range exe.ResultShapes() {
		if outs[i], err = NewTensor(s); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	if err := exe.RunInto(ctx, outs, args...); err != nil {
		t.Fatal(err)
	}
	allocs := steadyAllocs(20, func() {
		if err := exe.RunInto(ctx, outs, args...); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("RunInto allocates %v times per run, want 0\n%v", allocs, exe.Stats())
	}
	checkGeneric(t, genericCase{hlo: hlo, args: lits})
}

// TestLapackCallsRunWithoutAllocating runs JAX's exports of jnp.linalg
// (jaxlib's LAPACK custom calls: Cholesky, triangular solves, LU, QR,
// eigen- and singular value decompositions) and checks that, once a run
// has sized their work, runs allocate nothing.
func TestLapackCallsRunWithoutAllocating(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled work memory at random")
	}
	r := rand.New(rand.NewPCG(65, 66))
	for _, name := range []string{"linalg_cholesky_solve", "linalg_inv_det", "linalg_qr", "linalg_eigh", "linalg_svd", "linalg_solve_pinv"} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("..", "testdata", "jax", name+".hlo"))
			if err != nil {
				t.Fatal(err)
			}
			m, err := ir.ParseModule(string(src))
			if err != nil {
				t.Fatal(err)
			}
			var lits []*ir.Literal
			for _, p := range m.Entry.Parameters {
				lits = append(lits, randomLiteral(r, p.Shape))
			}
			checkNoAllocs(t, string(src), lits)
		})
	}
}
