package sched

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// planCases are text-in, plan-out tests: an HLO module goes in, the printed
// plan (Plan.String) comes out, with every decision the scheduler made —
// which values each kernel computes, GEMM shapes and packing, epilogues,
// convolution algorithms, reducers, maps a loop reads its inputs through,
// buffers, in-place reuse, aliases and parallel splits.
var planCases = []struct {
	name string
	hlo  string
	opts Options
	want string
}{{
	// A bias broadcast, an add and two unary ops fuse into one loop, which
	// reads the bias through the broadcast's map and writes the caller's
	// result.
	name: "elementwise-chain",
	hlo: `HloModule chain
ENTRY main {
  x = f32[8,16] parameter(0)
  b = f32[16] parameter(1)
  bb = f32[8,16] broadcast(b), dimensions={1}
  s = f32[8,16] add(x, bb)
  e = f32[8,16] exponential(s)
  ROOT n = f32[8,16] negate(e)
}`,
	want: `
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: loop [broadcast add exponential negate] (param1@(d1), param0) -> result0
  results: result0`,
}, {
	// dot → + bias → max(·, 0): one GEMM with a bias and ReLU epilogue; the
	// weights are a parameter, so B is not packed at compile time.
	name: "dense-bias-relu",
	hlo: `HloModule dense
ENTRY main {
  x = f32[4,64] parameter(0)
  w = f32[64,32] parameter(1)
  b = f32[32] parameter(2)
  d = f32[4,32] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[4,32] broadcast(b), dimensions={1}
  a = f32[4,32] add(d, bb)
  z = f32[] constant(0)
  zb = f32[4,32] broadcast(z), dimensions={}
  ROOT r = f32[4,32] maximum(a, zb)
}`,
	want: `
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: dot [broadcast reshape reshape dot reshape add broadcast maximum] gemm(b=1 m=4 n=32 k=64) epilogue(bias, relu) (param2, param0, param1, const#5) -> result0
  results: result0`,
}, {
	// Constant weights are packed once; a residual add is the epilogue.
	name: "packed-weights-residual",
	hlo: `HloModule packed
ENTRY main {
  x = f32[8,4] parameter(0)
  w = f32[4,3] constant({{1,2,3},{4,5,6},{7,8,9},{1,0,1}})
  d = f32[8,3] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  r = f32[8,3] parameter(1)
  ROOT a = f32[8,3] add(d, r)
}`,
	want: `
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: dot [reshape dot reshape add] gemm(b=1 m=8 n=3 k=4 packed-b) epilogue(residual) (param0, const#3, param1) -> result0
  results: result0`,
}, {
	// The tanh between two products reads the first product only at the
	// position it writes and is its last reader: it writes over it (the
	// output aliases the input). The second product writes the caller's
	// result directly, through the reshape back from the canonical rank 3.
	name: "in-place-reuse",
	hlo: `HloModule inplace
ENTRY main {
  x = f32[16,32] parameter(0)
  w = f32[32,32] parameter(1)
  a = f32[16,32] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[16,32] tanh(a)
  ROOT c = f32[16,32] dot(t, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`,
	want: `
plan main: 3 kernels, arena 2048 B, intermediates 2048 B, lower bound 2048 B
  k0: dot [reshape reshape dot] gemm(b=1 m=16 n=32 k=32) (param0, param1) -> arena@0[2048]
  k1: loop [reshape tanh] (arena@0[2048]@(0, d0, d1)) -> alias(arena@0[2048]+0)
  k2: dot [reshape reshape dot] gemm(b=1 m=16 n=32 k=32) (param1, alias(arena@0[2048]+0)) -> alias(result0+0)
  results: result0`,
}, {
	// The same plan with the in-place stage off: the tanh gets a buffer of
	// its own.
	name: "in-place-disabled",
	hlo: `HloModule inplace
ENTRY main {
  x = f32[16,32] parameter(0)
  w = f32[32,32] parameter(1)
  a = f32[16,32] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[16,32] tanh(a)
  ROOT c = f32[16,32] dot(t, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`,
	opts: Options{Disable: []string{"in-place"}},
	want: `
plan main: 3 kernels, arena 4096 B, intermediates 4096 B, lower bound 4096 B
  k0: dot [reshape reshape dot] gemm(b=1 m=16 n=32 k=32) (param0, param1) -> arena@0[2048]
  k1: loop [reshape tanh] (arena@0[2048]@(0, d0, d1)) -> arena@2048[2048]
  k2: dot [reshape reshape dot] gemm(b=1 m=16 n=32 k=32) (param1, arena@2048[2048]) -> alias(result0+0)
  results: result0`,
}, {
	// input_output_alias: the add reads the parameter only at the position
	// it writes, so the result may take the parameter's memory.
	name: "input-output-alias",
	hlo: `HloModule add_one_aliased, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY main {
  x = f32[1024] parameter(0)
  one = f32[] constant(1)
  ob = f32[1024] broadcast(one), dimensions={}
  a = f32[1024] add(x, ob)
  ROOT t = (f32[1024]) tuple(a)
}`,
	want: `
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: loop [broadcast add] (const#1, param0) -> result0
  results: result0
  alias: result0 over param0: in place`,
}, {
	// A reversal reads elements the result would already have overwritten:
	// the alias is declared but not written in place.
	name: "input-output-alias-copied",
	hlo: `HloModule rev, input_output_alias={ {}: (0, {}) }
ENTRY main {
  x = f32[50] parameter(0)
  ROOT r = f32[50] reverse(x), dimensions={0}
}`,
	want: `
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: loop [reverse] (param0@(-d0+49)) -> result0
  results: result0
  alias: result0 over param0: copied`,
}, {
	// A while body writes its state over the old one, element for element.
	name: "while-state-in-place",
	hlo: `HloModule loop
cond {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[64] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  e = f32[64] exponential(v)
  ROOT t = (s32[], f32[64]) tuple(j, e)
}
ENTRY main {
  x = f32[64] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[64]) tuple(z, x)
  w = (s32[], f32[64]) while(t), condition=cond, body=body
  ROOT r = f32[64] get-tuple-element(w), index=1
}`,
	want: `
plan main: 1 kernels, arena 64 B, intermediates 4 B, lower bound 64 B
  k0: while [while] ((const#1, param0)) -> (arena@0[4], result0)
  results: result0
  plan body: 2 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
    k0: loop [add] (param0, const#3) -> result0
    k1: loop [exponential] (param1) -> result1
    results: result0, result1
    alias: result0 over param0: in place
    alias: result1 over param1: in place
  plan cond: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
    k0: loop [compare] (param0, const#3) -> result0
    results: result0`,
}, {
	// Input fusion: the reduction squares its operand on the fly; its rows
	// are split across two workers' parts.
	name: "reduce-input-fusion",
	hlo: `HloModule sumsq
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[256,512] parameter(0)
  sq = f32[256,512] multiply(x, x)
  z = f32[] constant(0)
  ROOT r = f32[256] reduce(sq, z), dimensions={1}, to_apply=add
}`,
	opts: Options{Threads: 2},
	want: `
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: reduce [multiply reduce] reducer=add parallel=8 (param0, const#1) -> result0
  results: result0`,
}, {
	// The same with the parallel stage off.
	name: "parallel-disabled",
	hlo: `HloModule sumsq
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[256,512] parameter(0)
  sq = f32[256,512] multiply(x, x)
  z = f32[] constant(0)
  ROOT r = f32[256] reduce(sq, z), dimensions={1}, to_apply=add
}`,
	opts: Options{Threads: 2, Disable: []string{"parallel"}},
	want: `
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: reduce [multiply reduce] reducer=add (param0, const#1) -> result0
  results: result0`,
}, {
	// Convolution algorithms with weights known only at run time: 1×1, 3×3,
	// grouped and narrow depthwise on the convolution kernels with the
	// weights packed on every run; with five spatial dimensions (more than
	// those kernels take), 1×1 as a GEMM of the input in place and others
	// through im2col.
	name: "conv-algorithms",
	hlo: `HloModule convs
ENTRY main {
  x = f32[1,8,8,16] parameter(0)
  w1 = f32[1,1,16,32] parameter(1)
  w3 = f32[3,3,32,32] parameter(2)
  wg = f32[3,3,8,32] parameter(3)
  xh = bf16[1,8,8,32] parameter(4)
  wd = bf16[3,3,1,32] parameter(5)
  xf = f32[1,2,2,2,2,2,4] parameter(6)
  wf = f32[2,1,1,1,1,4,8] parameter(7)
  wp = f32[1,1,1,1,1,4,6] parameter(8)
  a = f32[1,8,8,32] convolution(x, w1), window={size=1x1}, dim_labels=b01f_01io->b01f
  b = f32[1,8,8,32] convolution(a, w3), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  c = f32[1,8,8,32] convolution(b, wg), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=4
  d = bf16[1,8,8,32] convolution(xh, wd), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=32
  e = f32[1,1,2,2,2,2,8] convolution(xf, wf), window={size=2x1x1x1x1}, dim_labels=b01234f_01234io->b01234f
  f = f32[1,2,2,2,2,2,6] convolution(xf, wp), window={size=1x1x1x1x1}, dim_labels=b01234f_01234io->b01234f
  ROOT t = (f32[1,8,8,32], bf16[1,8,8,32], f32[1,1,2,2,2,2,8], f32[1,2,2,2,2,2,6]) tuple(c, d, e, f)
}`,
	want: `
plan main: 6 kernels, arena 16384 B, intermediates 16384 B, lower bound 16384 B
  k0: conv [convolution] conv(narrow-depthwise-per-run 3x3 s1x1 32->32 g32) (param4, param5) -> result1
  k1: conv [convolution] conv(im2col 2x1x1x1x1 s1x1x1x1x1 4->8 g1) (param6, param7) -> result2
  k2: conv [convolution] conv(gemm-1x1 1x1x1x1x1 s1x1x1x1x1 4->6 g1) (param6, param8) -> result3
  k3: conv [convolution] conv(packed-per-run 1x1 s1x1 16->32 g1) (param0, param1) -> arena@0[8192]
  k4: conv [convolution] conv(packed-per-run 3x3 s1x1 32->32 g1) (arena@0[8192], param2) -> arena@8192[8192]
  k5: conv [convolution] conv(packed-per-run 3x3 s1x1 32->32 g4) (arena@8192[8192], param3) -> result0
  results: result0, result1, result2, result3`,
}, {
	// int8 convolutions into int32 run as im2col blocks on the int8 GEMM:
	// constant weights packed once, weights given at run time per run.
	name: "conv-int8",
	hlo: `HloModule q
ENTRY main {
  x = s8[1,8,8,16] parameter(0)
  w = s8[3,3,16,32] parameter(1)
  u = u8[1,8,8,16] parameter(2)
  k = s8[1,1,16,8] constant({{{{-127, -90, -53, -16, 21, 58, 95, -123}, {-86, -49, -12, 25, 62, 99, -119, -82}, {-45, -8, 29, 66, 103, -115, -78, -41}, {-4, 33, 70, 107, -111, -74, -37, 0}, {37, 74, 111, -107, -70, -33, 4, 41}, {78, 115, -103, -66, -29, 8, 45, 82}, {119, -99, -62, -25, 12, 49, 86, 123}, {-95, -58, -21, 16, 53, 90, 127, -91}, {-54, -17, 20, 57, 94, -124, -87, -50}, {-13, 24, 61, 98, -120, -83, -46, -9}, {28, 65, 102, -116, -79, -42, -5, 32}, {69, 106, -112, -75, -38, -1, 36, 73}, {110, -108, -71, -34, 3, 40, 77, 114}, {-104, -67, -30, 7, 44, 81, 118, -100}, {-63, -26, 11, 48, 85, 122, -96, -59}, {-22, 15, 52, 89, 126, -92, -55, -18}}}})
  a = s32[1,8,8,32] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  b = s32[1,8,8,8] convolution(u, k), window={size=1x1}, dim_labels=b01f_01io->b01f
  ROOT t = (s32[1,8,8,32], s32[1,8,8,8]) tuple(a, b)
}`,
	want: `
plan main: 2 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: conv [convolution] conv(int8-im2col-per-run 3x3 s1x1 16->32 g1) (param0, param1) -> result0
  k1: conv [convolution] conv(int8-im2col 1x1 s1x1 16->8 g1) (param2, const#3) -> result1
  results: result0, result1`,
}, {
	// A batch-norm after a convolution, every parameter an argument: ssa
	// moves the per-channel factor onto the weights, and the convolution's
	// kernel scales them as it packs them (the weights' multiply and its
	// broadcast inside the kernel), with the merged shift as its bias and
	// the ReLU in its epilogue; the factors are two small vector loops.
	name: "conv-batch-norm-run-time",
	hlo: `HloModule cbn
ENTRY main {
  x = f32[1,8,8,16] parameter(0)
  w = f32[3,3,16,32] parameter(1)
  mean = f32[32] parameter(2)
  var = f32[32] parameter(3)
  scale = f32[32] parameter(4)
  bias = f32[32] parameter(5)
  c = f32[1,8,8,32] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  mb = f32[1,8,8,32] broadcast(mean), dimensions={3}
  d = f32[1,8,8,32] subtract(c, mb)
  eps = f32[] constant(1e-05)
  e = f32[32] broadcast(eps), dimensions={}
  ve = f32[32] add(var, e)
  r = f32[32] rsqrt(ve)
  k = f32[32] multiply(r, scale)
  kb = f32[1,8,8,32] broadcast(k), dimensions={3}
  y = f32[1,8,8,32] multiply(d, kb)
  bb = f32[1,8,8,32] broadcast(bias), dimensions={3}
  z = f32[1,8,8,32] add(y, bb)
  zero = f32[] constant(0)
  zb = f32[1,8,8,32] broadcast(zero), dimensions={}
  ROOT relu = f32[1,8,8,32] maximum(z, zb)
}`,
	want: `
plan main: 3 kernels, arena 256 B, intermediates 256 B, lower bound 256 B
  k0: loop [add rsqrt multiply] (param3, const#6, param4) -> arena@0[128]
  k1: loop [multiply subtract] (param2, arena@0[128], param5) -> arena@128[128]
  k2: conv [broadcast multiply convolution broadcast broadcast add maximum] conv(packed-per-run-scaled 3x3 s1x1 16->32 g1) epilogue(bias, relu) (arena@0[128], param1, param0, const#8, arena@128[128]) -> result0
  results: result0`,
}, {
	// A depthwise convolution in NCHW (dim_labels bf01_oi01->bf01,
	// feature_group_count = channels) runs on its channel planes as they
	// lie: no transposes.
	name: "depthwise-nchw",
	hlo: `HloModule depthwise
ENTRY main {
  x = f32[1,256,56,56] parameter(0)
  k = f32[256,1,3,3] parameter(1)
  ROOT y = f32[1,256,56,56] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=256
}`,
	opts: Options{Threads: 2},
	want: `
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: conv [convolution] conv(planar-depthwise 3x3 s1x1 256->256 g256) parallel=8 (param0, param1) -> result0
  results: result0`,
}, {
	// Movement: a reshape that keeps the bytes aliases its operand (and is
	// copied into the caller's result); a transpose and a reversal are read
	// through by the loop that needs them.
	name: "movement-aliasing",
	hlo: `HloModule movement
ENTRY main {
  x = f32[4,6] parameter(0)
  r = f32[24] reshape(x)
  t = f32[6,4] transpose(x), dimensions={1,0}
  rv = f32[6,4] reverse(t), dimensions={0}
  e = f32[6,4] exponential(rv)
  ROOT o = (f32[24], f32[6,4]) tuple(r, e)
}`,
	want: `
plan main: 2 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: loop [transpose reverse exponential] (param0@(d1, -d0+5)) -> result1
  k1: copy (alias(param0+0)) -> result0
  results: result0, result1`,
}, {
	// softmax as JAX writes it becomes the row kernel.
	name: "softmax",
	hlo: `HloModule softmax
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[128,512] parameter(0)
  ninf = f32[] constant(-inf)
  mx = f32[128] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[128,512] broadcast(mx), dimensions={0}
  s = f32[128,512] subtract(x, mb)
  e = f32[128,512] exponential(s)
  z = f32[] constant(0)
  sm = f32[128] reduce(e, z), dimensions={1}, to_apply=add
  sb = f32[128,512] broadcast(sm), dimensions={0}
  ROOT y = f32[128,512] divide(e, sb)
}`,
	opts: Options{Threads: 2},
	want: `
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: softmax [kiln.softmax] parallel=8 (param0) -> result0
  results: result0`,
}, {
	// A batch of small products (attention scores per head) runs one
	// product per worker.
	name: "batched-gemm-split",
	hlo: `HloModule heads
ENTRY main {
  q = f32[12,64,64] parameter(0)
  k = f32[12,64,64] parameter(1)
  ROOT s = f32[12,64,64] dot(q, k), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
}`,
	opts: Options{Threads: 2},
	want: `
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: dot [dot] gemm(b=12 m=64 n=64 k=64) parallel=2 (param0, param1) -> result0
  results: result0`,
}, {
	// Arithmetic read through a broadcast is not repeated per element of
	// the loop: batch-norm's per-channel rsqrt runs once per channel in a
	// kernel of its own, and the per-pixel loop reads its result.
	name: "no-repeated-arithmetic",
	hlo: `HloModule bn
ENTRY main {
  x = f32[1,8,8,16] parameter(0)
  v = f32[16] parameter(1)
  e = f32[] constant(0.001)
  eb = f32[16] broadcast(e), dimensions={}
  ve = f32[16] add(v, eb)
  r = f32[16] rsqrt(ve)
  rb = f32[1,8,8,16] broadcast(r), dimensions={3}
  ROOT y = f32[1,8,8,16] multiply(x, rb)
}`,
	want: `
plan main: 2 kernels, arena 64 B, intermediates 64 B, lower bound 64 B
  k0: loop [add rsqrt] (param1, const#2) -> arena@0[64]
  k1: loop [broadcast multiply] (arena@0[64]@(d3), param0) -> result0
  results: result0`,
}, {
	// Attention scores as JAX writes them: per (batch, head), q·kᵀ over
	// [batch, seq, heads, dim] operands, q scaled first. The GEMM reads
	// both in place — the batch split into (batch, head) with their own
	// strides, k transposed — and the scale becomes its alpha: no
	// transpose and no scaled copy is written.
	name: "gemm-reads-through-transposes",
	hlo: `HloModule scores
ENTRY main {
  q = f32[2,8,3,4] parameter(0)
  k = f32[2,8,3,4] parameter(1)
  c = f32[] constant(0.5)
  cb = f32[2,8,3,4] broadcast(c), dimensions={}
  qs = f32[2,8,3,4] multiply(q, cb)
  ROOT s = f32[2,3,8,8] dot(qs, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}
}`,
	want: `
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: dot [broadcast multiply transpose reshape transpose reshape dot] gemm(b=6 m=8 n=8 k=4 tb batch=[2 3] alpha=0.5 a@ld=12,off=0,batch=[96 4] b@ld=12,off=0,batch=[96 4]) (const#2, param0, param1) -> alias(result0+0)
  results: result0`,
}, {
	// Attention (scaled scores, an additive mask broadcast over the heads,
	// softmax, context) is one kernel: tiles of query rows, the scores in
	// a worker's scratch; q, k, v and the mask are read as they lie (the
	// mask with a zero stride over the heads).
	name: "attention",
	hlo: `HloModule attention
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  q = f32[1,64,2,8] parameter(0)
  k = f32[1,64,2,8] parameter(1)
  v = f32[1,64,2,8] parameter(2)
  m = f32[1,64,64] parameter(3)
  c = f32[] constant(0.125)
  cb = f32[1,64,2,8] broadcast(c), dimensions={}
  qs = f32[1,64,2,8] multiply(q, cb)
  sc = f32[1,2,64,64] dot(qs, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}
  mb = f32[1,2,64,64] broadcast(m), dimensions={0,2,3}
  sm = f32[1,2,64,64] add(sc, mb)
  ninf = f32[] constant(-inf)
  mx = f32[1,2,64] reduce(sm, ninf), dimensions={3}, to_apply=max
  mxb = f32[1,2,64,64] broadcast(mx), dimensions={0,1,2}
  d = f32[1,2,64,64] subtract(sm, mxb)
  e = f32[1,2,64,64] exponential(d)
  z = f32[] constant(0)
  se = f32[1,2,64] reduce(e, z), dimensions={3}, to_apply=add
  seb = f32[1,2,64,64] broadcast(se), dimensions={0,1,2}
  p = f32[1,2,64,64] divide(e, seb)
  ROOT o = f32[1,2,64,8] dot(p, v), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={1}
}`,
	opts: Options{Threads: 2},
	want: `
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: attention [broadcast multiply broadcast transpose reshape transpose reshape dot reshape add kiln.softmax reshape transpose reshape dot] attention(scores gemm(b=2 m=64 n=64 k=8 tb alpha=0.125 a@ld=16,off=0,batch=[8] b@ld=16,off=0,batch=[8]), context gemm(b=2 m=64 n=8 k=64 b@ld=16,off=0,batch=[8]), rows 64, mask@row=64,col=1,batch=[0 0]) parallel=2 (const#4, param0, param3, param1, param2) -> alias(result0+0)
  results: result0`,
}, {
	// SiLU (x·logistic(x), as jax.nn.silu writes it) is an epilogue.
	name: "dense-bias-silu",
	hlo: `HloModule silu
ENTRY main {
  x = f32[4,64] parameter(0)
  w = f32[64,32] parameter(1)
  b = f32[32] parameter(2)
  d = f32[4,32] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[4,32] broadcast(b), dimensions={1}
  a = f32[4,32] add(d, bb)
  l = f32[4,32] logistic(a)
  ROOT r = f32[4,32] multiply(a, l)
}`,
	want: `
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: dot [broadcast reshape reshape dot reshape add logistic multiply] gemm(b=1 m=4 n=32 k=64) epilogue(bias, silu) (param2, param0, param1) -> result0
  results: result0`,
}, {
	// bfloat16 dots run on the narrow GEMMs: a B computed at run time is
	// widened with A for the float32 GEMM when A has few rows and packed
	// per call otherwise; a constant B is packed at compile time.
	name: "bf16-dots",
	hlo: `HloModule bf16
ENTRY main {
  x = bf16[4,2] parameter(0)
  y = bf16[64,2] parameter(1)
  w = bf16[2,3] parameter(2)
  c = bf16[2,3] constant({{1,2,3},{4,5,6}})
  d0 = bf16[4,3] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d1 = f32[64,3] dot(y, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d2 = bf16[64,3] dot(y, c), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (bf16[4,3], f32[64,3], bf16[64,3]) tuple(d0, d1, d2)
}`,
	want: `
plan main: 3 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: dot [dot] gemm(b=1 m=4 n=3 k=2 narrow widened) (alias(param0+0), alias(param2+0)) -> alias(result0+0)
  k1: dot [dot] gemm(b=1 m=64 n=3 k=2 narrow) (alias(param1+0), alias(param2+0)) -> alias(result1+0)
  k2: dot [dot] gemm(b=1 m=64 n=3 k=2 packed-b narrow) (alias(param1+0), const#10) -> alias(result2+0)
  results: result0, result1, result2`,
}, {
	// A bfloat16 convolution with constant weights runs band by band on
	// the float32 kernels.
	name: "bf16-conv",
	hlo: `HloModule conv
ENTRY main {
  x = bf16[1,64,64,2] parameter(0)
  w = bf16[1,2,1,2] constant({{{{1,2}},{{3,4}}}})
  ROOT y = bf16[1,64,63,2] convolution(x, w), window={size=1x2}, dim_labels=b01f_01io->b01f, feature_group_count=2
}`,
	want: `
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: conv [convolution] conv(narrow-depthwise 1x2 s1x1 2->2 g2) (param0, const#1) -> result0
  results: result0`,
}}

func TestPlans(t *testing.T) {
	for _, c := range planCases {
		t.Run(c.name, func(t *testing.T) {
			got := planOf(t, c.hlo, c.opts).String()
			if want := strings.TrimSpace(c.want); got != want {
				t.Errorf("plan:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// KILN_DUMP=after:fusion (DumpAfter) prints the plan after the fusion
// stage: the kernels and their values, before any buffer is bound.
func TestDumpAfterStage(t *testing.T) {
	var out bytes.Buffer
	planOf(t, `HloModule chain
ENTRY main {
  x = f32[100] parameter(0)
  a = f32[100] exponential(x)
  ROOT b = f32[100] tanh(a)
}`, Options{DumpAfter: []string{"fusion", "buffers"}, DumpTo: &out})
	want := `// after fusion
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: loop [exponential tanh]
// after buffers
plan main: 1 kernels, arena 0 B, intermediates 0 B, lower bound 0 B
  k0: loop [exponential tanh] (param0) -> result0
  results: result0
`
	if out.String() != want {
		t.Errorf("dump:\n%s\nwant:\n%s", out.String(), want)
	}
}

// The environment names stages as it names ssa's passes; ssa accepts the
// stage names (and leaves them to the scheduler), a required stage cannot
// be disabled and an unknown name is an error.
func TestStageOptions(t *testing.T) {
	t.Setenv("KILN_DUMP", "after:fusion,after:cse")
	t.Setenv("KILN_DISABLE_PASS", "in-place")
	o := OptionsFromEnv()
	if len(o.DumpAfter) != 2 || o.DumpAfter[0] != "fusion" || len(o.Disable) != 1 || o.Disable[0] != "in-place" {
		t.Fatalf("OptionsFromEnv: %+v", o)
	}
	m, err := ir.ParseModule(`HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  ROOT e = f32[4] exponential(x)
}`)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ssa.Lower(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := ssa.Optimize(p, ssa.Options{DumpAfter: []string{"fusion"}, Disable: []string{"parallel"}}); err != nil {
		t.Fatalf("ssa refuses the scheduler's stage names: %v", err)
	}
	if _, err := Schedule(p, Options{Disable: []string{"buffers"}}); err == nil || !strings.Contains(err.Error(), "cannot be disabled") {
		t.Errorf("disabling the buffers stage: %v", err)
	}
	if err := ssa.Optimize(p, ssa.Options{Disable: []string{"no-such-stage"}}); err == nil {
		t.Error("an unknown stage name was accepted")
	}
	if got, want := strings.Join(StageNames(), ","), "fusion,rows,select,ordering,in-place,buffers,parallel"; got != want {
		t.Errorf("stages %s, want %s", got, want)
	}
}
