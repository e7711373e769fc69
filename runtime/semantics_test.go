package runtime_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kilnml/kiln/ir"
)

// Modules the random generators do not build: the async wrappers with
// parameters bound late, and two model-sized loops (a while over
// dynamic-slice/dynamic-update-slice of a large bf16 buffer, a scan of
// 2,000 steps), compiled and compared with ir/eval bit for bit.

// An async wrapper runs its computation: async-start with its operands,
// or bound late by async-update; copy-start/-done and the collective
// starts run as the ops they wrap.
func TestAsyncWrappersRunTheirComputation(t *testing.T) {
	for name, hlo := range map[string]string{
		"start-done": `HloModule m
wrapped {
  p0 = f32[5] parameter(0)
  p1 = f32[5] parameter(1)
  ROOT s = f32[5] subtract(p0, p1)
}
ENTRY e {
  x = f32[5] parameter(0)
  y = f32[5] parameter(1)
  st = ((f32[5], f32[5]), f32[5], s32[]) async-start(x, y), calls=wrapped
  up = ((f32[5], f32[5]), f32[5], s32[]) async-update(st)
  ROOT d = f32[5] async-done(up)
}`,
		"late-binding": `HloModule m
wrapped {
  p0 = f32[5] parameter(0)
  p1 = f32[5] parameter(1)
  add = f32[5] add(p0, p1)
  neg = f32[5] negate(p0)
  ROOT t = (f32[5], f32[5]) tuple(add, neg)
}
ENTRY e {
  x = f32[5] parameter(0)
  y = f32[5] parameter(1)
  st = ((), (), s32[]) async-start(), calls=wrapped
  u0 = ((f32[5]), (), s32[]) async-update(st, x)
  u1 = ((f32[5], f32[5]), (f32[5], f32[5]), s32[]) async-update(u0, y)
  ROOT d = (f32[5], f32[5]) async-done(u1)
}`,
		"copy-and-collectives": `HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[5] parameter(0)
  y = f32[5] parameter(1)
  cs = (f32[5], f32[5], u32[]) copy-start(x)
  c = f32[5] copy-done(cs)
  ars = f32[5] all-reduce-start(y), to_apply=sum, replica_groups={}
  ar = f32[5] all-reduce-done(ars)
  ROOT t = (f32[5], f32[5]) tuple(c, ar)
}`,
	} {
		t.Run(name, func(t *testing.T) {
			x := ir.MustNewLiteral(ir.MakeShape(ir.F32, 5))
			y := ir.MustNewLiteral(ir.MakeShape(ir.F32, 5))
			for i := range 5 {
				setElem(x, i, complex(float64(i)+0.5, 0))
				setElem(y, i, complex(float64(10*i)-3, 0))
			}
			got, want := runBoth(t, hlo, x, y)
			if len(got) != len(want) {
				t.Fatalf("compiled %d outputs, ir/eval %d", len(got), len(want))
			}
			for i := range got {
				if !got[i].Equal(want[i]) {
					t.Errorf("output %d: compiled %v, ir/eval %v", i, got[i], want[i])
				}
			}
		})
	}
}

// A decoder-style cache update: a while loop over a 2048×768 bf16 buffer
// that, for every eighth row r (256 iterations, ir/eval copying the 3 MB
// buffer in each), reads rows r and r+1 with dynamic-slice and writes
// their combination over row r+1 with dynamic-update-slice. Each update is
// one bf16 rounding of an exact product, so the compiled loop must equal
// ir/eval bit for bit.
func TestModelWhileDynamicUpdateSliceBF16(t *testing.T) {
	const hlo = `HloModule cache_update
cond {
  s = (s32[], bf16[2048,768]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(256)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], bf16[2048,768]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  b = bf16[2048,768] get-tuple-element(s), index=1
  z = s32[] constant(0)
  one = s32[] constant(1)
  eight = s32[] constant(8)
  next = s32[] add(i, one)
  r = s32[] multiply(i, eight)
  j = s32[] add(r, one)
  row = bf16[1,768] dynamic-slice(b, r, z), dynamic_slice_sizes={1,768}
  other = bf16[1,768] dynamic-slice(b, j, z), dynamic_slice_sizes={1,768}
  half = bf16[] constant(0.5)
  h = bf16[1,768] broadcast(half), dimensions={}
  scaled = bf16[1,768] multiply(row, h)
  u = bf16[1,768] add(scaled, other)
  nb = bf16[2048,768] dynamic-update-slice(b, u, j, z)
  ROOT t = (s32[], bf16[2048,768]) tuple(next, nb)
}
ENTRY e {
  p = bf16[2048,768] parameter(0)
  z = s32[] constant(0)
  t = (s32[], bf16[2048,768]) tuple(z, p)
  w = (s32[], bf16[2048,768]) while(t), condition=cond, body=body
  ROOT r = bf16[2048,768] get-tuple-element(w), index=1
}`
	buf := ir.MustNewLiteral(ir.MakeShape(ir.BF16, 2048, 768))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2048 * 768 {
		setElem(buf, i, complex(math.Round(r.NormFloat64()*64)/16, 0))
	}
	start := time.Now()
	got, want := runBoth(t, hlo, buf)
	t.Logf("compiled and evaluated in %v", time.Since(start))
	if !got[0].Equal(want[0]) {
		t.Errorf("the compiled loop's buffer differs from ir/eval's")
	}
}

// A scan of 2,000 steps carrying a 64-wide state: c' = c·0.5 + x_t,
// y_t = max(c', x_t), forward and in reverse. Every step rounds once
// (c·0.5 is exact), so the compiled scan must equal ir/eval bit for bit.
func TestModelScan2000Steps(t *testing.T) {
	for _, reverse := range []string{"false", "true"} {
		t.Run("is_reverse="+reverse, func(t *testing.T) {
			hlo := `HloModule scan_model
step {
  x = f32[64] parameter(0)
  c = f32[64] parameter(1)
  half = f32[] constant(0.5)
  h = f32[64] broadcast(half), dimensions={}
  m = f32[64] multiply(c, h)
  next = f32[64] add(m, x)
  y = f32[64] maximum(next, x)
  ROOT t = (f32[64], f32[64]) tuple(y, next)
}
ENTRY e {
  xs = f32[2000,64] parameter(0)
  c0 = f32[64] parameter(1)
  ROOT s = (f32[2000,64], f32[64]) scan(xs, c0), dimensions={0}, num_carries=1, is_reverse=` + reverse + `, to_apply=step
}`
			xs := ir.MustNewLiteral(ir.MakeShape(ir.F32, 2000, 64))
			c0 := ir.MustNewLiteral(ir.MakeShape(ir.F32, 64))
			r := rand.New(rand.NewPCG(3, 4))
			for i := range 2000 * 64 {
				setElem(xs, i, complex(r.NormFloat64(), 0))
			}
			for i := range 64 {
				setElem(c0, i, complex(r.NormFloat64(), 0))
			}
			got, want := runBoth(t, hlo, xs, c0)
			if len(got) != 2 || len(want) != 2 {
				t.Fatalf("compiled %d outputs, ir/eval %d; want 2", len(got), len(want))
			}
			for i := range got {
				if !got[i].Equal(want[i]) {
					t.Errorf("output %d of the compiled scan differs from ir/eval's", i)
				}
			}
		})
	}
}
