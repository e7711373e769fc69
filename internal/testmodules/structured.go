// Package testmodules holds HLO modules that the tests of more than one
// package run, so that ir/eval and the compiled runtime are held to the same
// cases.
package testmodules

// StructuredPrograms are modules whose called computations hold data
// movement, tuples, calls, conditionals, reductions and dots, which ir/ops
// compiles to scalar programs: ir/eval checks them against calling the
// computation, the runtime against ir/eval. In the module named
// indexed_conditional_movement, parameter 1 holds branch indices; the tests
// fill it with indices, some out of range.
var StructuredPrograms = []string{`HloModule dot_reducer
reducer {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  lhs = f32[2,2] broadcast(p0), dimensions={}
  rhs = f32[2,2] broadcast(p1), dimensions={}
  dot = f32[2,2] dot(lhs, rhs), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  slice = f32[1,1] slice(dot), slice={[0:1:1], [0:1:1]}
  ROOT reshape = f32[] reshape(slice)
}
ENTRY main {
  p0 = f32[10] parameter(0)
  zero = f32[] constant(0.5)
  ROOT reduce = f32[] reduce(p0, zero), dimensions={0}, to_apply=reducer
}`, `HloModule called_comparator
impl { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT lt = pred[] compare(a, b), direction=LT }
cmp { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT c = pred[] call(a, b), to_apply=impl }
ENTRY main {
  x = f32[33] parameter(0)
  ROOT s = f32[33] sort(x), dimensions={0}, to_apply=cmp
}`, `HloModule map_conditional
if { p = () parameter(0)  ROOT c = f32[] constant(0) }
else { p = () parameter(0)  ROOT c = f32[] constant(1) }
mapped {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  lt = pred[] compare(a, b), direction=LT
  t = () tuple()
  ROOT c = f32[] conditional(lt, t, t), true_computation=if, false_computation=else
}
ENTRY comp {
  p1 = f32[100] parameter(0)
  p2 = f32[100] parameter(1)
  ROOT m = f32[100] map(p1, p2), dimensions={0}, to_apply=mapped
}`, `HloModule map_fusion
fused {
  p = f32[] parameter(0)
  m = f32[] multiply(p, p)
  lt = pred[] compare(p, m), direction=LT
  ROOT t = (pred[], f32[]) tuple(lt, m)
}
mapc {
  p0 = f32[] parameter(0)
  f = (pred[], f32[]) fusion(p0), kind=kLoop, calls=fused
  g0 = pred[] get-tuple-element(f), index=0
  g1 = f32[] get-tuple-element(f), index=1
  z = f32[] constant(0)
  ROOT s = f32[] select(g0, g1, z)
}
ENTRY e {
  x = f32[50] parameter(0)
  ROOT m = f32[50] map(x), to_apply=mapc
}`, `HloModule tuple_inside
argmax {
  a = f32[] parameter(0)  ai = s32[] parameter(1)  b = f32[] parameter(2)  bi = s32[] parameter(3)
  cur = (f32[], s32[]) tuple(a, ai)
  pot = (f32[], s32[]) tuple(b, bi)
  c = pred[] compare(b, a), direction=GT
  pv = f32[] get-tuple-element(pot), index=0
  cv = f32[] get-tuple-element(cur), index=0
  ROOT t = (f32[], s32[]) tuple(f32[] select(c, pv, cv), s32[] select(c, bi, ai))
}
ENTRY e {
  x = f32[4,16] parameter(0)
  i = s32[4,16] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[4], s32[4]) reduce(x, i, ninf, zero), dimensions={1}, to_apply=argmax
}`, `HloModule bitcast_comparator
cmp {
  a = f32[] parameter(0)  b = f32[] parameter(1)
  ai = s32[] bitcast-convert(a)
  bi = s32[] bitcast-convert(b)
  ROOT lt = pred[] compare(ai, bi), direction=LT
}
ENTRY e {
  x = f32[40] parameter(0)
  ROOT s = f32[40] sort(x), dimensions={0}, to_apply=cmp
}`, `HloModule indexed_conditional_movement
b0 { p = f32[3] parameter(0)  z = f32[] constant(0)  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add }
b1 { p = f32[3] parameter(0)  r = f32[3] reverse(p), dimensions={0}  l = f32[1] slice(r), slice={[0:1]}  ROOT s = f32[] reshape(l) }
b2 {
  p = f32[3] parameter(0)
  c = f32[6] concatenate(p, p), dimensions={0}
  seven = f32[] constant(7)
  q = f32[8] pad(c, seven), padding=1_1
  l = f32[1] slice(q), slice={[7:8]}
  ROOT s = f32[] reshape(l)
}
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
body {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  v = f32[3] broadcast(x), dimensions={}
  w = f32[3] iota(), iota_dimension=0
  u = f32[3] add(v, w)
  k = s32[] convert(y)
  ROOT c = f32[] conditional(k, u, u, u), branch_computations={b0, b1, b2}
}
ENTRY e {
  x = f32[30] parameter(0)
  y = f32[30] parameter(1)
  ROOT m = f32[30] map(x, y), dimensions={0}, to_apply=body
}`}
