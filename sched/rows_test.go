package sched

import (
	"strings"
	"testing"
)

// rowsLayerNorm is a bfloat16 layer-norm over rows of 64 as JAX exports
// it; rowsSoftmax a bfloat16 softmax over rows of 64. T is the type.
const rowsLayerNorm = `HloModule ln
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = T[8,64] parameter(0)
  xf = f32[8,64] convert(x)
  z = f32[] constant(0)
  s1 = f32[8] reduce(xf, z), dimensions={1}, to_apply=add
  k = f32[] constant(64)
  kb = f32[8] broadcast(k), dimensions={}
  m = f32[8] divide(s1, kb)
  mc = T[8] convert(m)
  mb = T[8,64] broadcast(mc), dimensions={0}
  d = T[8,64] subtract(x, mb)
  sq = T[8,64] multiply(d, d)
  sqf = f32[8,64] convert(sq)
  s2 = f32[8] reduce(sqf, z), dimensions={1}, to_apply=add
  v = f32[8] divide(s2, kb)
  vc = T[8] convert(v)
  sd = T[8] sqrt(vc)
  sb = T[8,64] broadcast(sd), dimensions={0}
  ROOT y = T[8,64] divide(d, sb)
}`

const rowsSoftmax = `HloModule sm
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
mx {
  a = T[] parameter(0)
  b = T[] parameter(1)
  ROOT c = T[] maximum(a, b)
}
ENTRY e {
  x = T[8,64] parameter(0)
  ninf = T[] constant(-inf)
  m = T[8] reduce(x, ninf), dimensions={1}, to_apply=mx
  mb = T[8,64] broadcast(m), dimensions={0}
  d = T[8,64] subtract(x, mb)
  ex = T[8,64] exponential(d)
  exf = f32[8,64] convert(ex)
  z = f32[] constant(0)
  s = f32[8] reduce(exf, z), dimensions={1}, to_apply=add
  sc = T[8] convert(s)
  sb = T[8,64] broadcast(sc), dimensions={0}
  ROOT y = T[8,64] divide(ex, sb)
}`

func rowPrograms(pl *Plan) int {
	n := 0
	for _, k := range pl.Kernels {
		if k.Loop != nil && k.Loop.Rows {
			n++
		}
	}
	return n
}

// TestRowsStage checks that the rows stage fuses a bfloat16 layer-norm
// into one row program and leaves a softmax, a binary16 layer-norm, and
// everything when disabled, to separate kernels.
func TestRowsStage(t *testing.T) {
	for _, c := range []struct {
		name, hlo, typ string
		opts           Options
		want           int
	}{
		{"bf16 layer-norm", rowsLayerNorm, "bf16", Options{}, 1},
		{"bf16 layer-norm, rows disabled", rowsLayerNorm, "bf16", Options{Disable: []string{"rows"}}, 0},
		{"f16 layer-norm", rowsLayerNorm, "f16", Options{}, 0},
		{"bf16 softmax", rowsSoftmax, "bf16", Options{}, 0},
	} {
		pl := planOf(t, strings.ReplaceAll(c.hlo, "T[", c.typ+"["), c.opts)
		if got := rowPrograms(pl); got != c.want {
			t.Errorf("%s: %d row programs, want %d\n%s", c.name, got, c.want, pl)
		}
		if c.want == 1 && len(pl.Kernels) != 1 {
			t.Errorf("%s: %d kernels, want the one row program\n%s", c.name, len(pl.Kernels), pl)
		}
	}
}
