package sched

import (
	"testing"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ssa"
)

// Op classes come from the values' indexing maps: every data-movement op
// whose map is strided is Movement (reverse included, which the fusion and
// the cost model once classed differently), elementwise ops are
// Elementwise, iotas Generators, and ops read through ranges, constraints,
// runtime values or no map are Opaque.
func TestOpClassesFromIndexingMaps(t *testing.T) {
	m, err := ir.ParseModule(`HloModule classes
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,6] parameter(0)
  y = f32[6,4] parameter(1)
  i = s32[] parameter(2)
  z = f32[] constant(0)
  bcast = f32[2,4,6] broadcast(x), dimensions={1,2}
  transpose = f32[6,4] transpose(x), dimensions={1,0}
  reverse = f32[4,6] reverse(x), dimensions={0,1}
  slice = f32[2,3] slice(x), slice={[0:4:2], [1:4]}
  reshape = f32[24] reshape(x)
  expand = f32[2,2,6] reshape(x)
  add = f32[6,4] add(transpose, y)
  convert = s32[6,4] convert(add)
  compare = pred[6,4] compare(add, y), direction=LT
  select = f32[6,4] select(compare, add, y)
  bitcast-convert = s32[6,4] bitcast-convert(add)
  iota = f32[4,6] iota(), iota_dimension=1
  reduce = f32[4] reduce(x, z), dimensions={1}, to_apply=add
  pad = f32[6,6] pad(x, z), padding=1_1x0_0
  concatenate = f32[8,6] concatenate(x, x), dimensions={0}
  dynamic-slice = f32[2,6] dynamic-slice(x, i, i), dynamic_slice_sizes={2,6}
  dot = f32[4,4] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[2,4,6], f32[4,6], f32[2,3], f32[24], f32[2,2,6], s32[6,4], f32[6,4], s32[6,4], f32[4,6], f32[4], f32[6,6], f32[8,6], f32[2,6], f32[4,4]) tuple(bcast, reverse, slice, reshape, expand, convert, select, bitcast-convert, iota, reduce, pad, concatenate, dynamic-slice, dot)
}`)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ssa.Lower(m)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]OpClass{
		"bcast": Movement, "transpose": Movement, "reverse": Movement, "slice": Movement, "expand": Movement,
		"add": Elementwise, "convert": Elementwise, "compare": Elementwise, "select": Elementwise,
		// A collapsing reshape reads through floordiv and mod (it aliases
		// its operand instead); a bitcast-convert changes the type
		// without computing.
		"reshape": Opaque, "bitcast-convert": Opaque,
		"iota": Generator, "z": Generator, "x": Opaque,
		"reduce": Opaque, "pad": Opaque, "concatenate": Opaque, "dynamic-slice": Opaque, "dot": Opaque, "t": Opaque,
	}
	seen := 0
	for _, v := range p.Entry.Values {
		w, ok := want[v.Name]
		if !ok {
			continue
		}
		seen++
		if got := ClassOf(v); got != w {
			t.Errorf("%s (%s): class %v, want %v", v.Name, v.Op, got, w)
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d values", seen, len(want))
	}
}
