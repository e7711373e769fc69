package indexing

import (
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// A group built by hand, as the compiler builds one from its values: the
// softmax's pattern of a row reduction broadcast back and combined with the
// input.
func TestGroupBuiltByHand(t *testing.T) {
	x := ir.MakeShape(ir.F32, 8, 16)
	row := ir.MakeShape(ir.F32, 8)
	scalar := ir.MakeShape(ir.F32)
	g := Group{NumInputs: 2, Nodes: []Node{
		{Op: Op{Opcode: ir.OpReduce, Attrs: &ir.Attrs{Dimensions: []int{1}}, Operands: []ir.Shape{x, scalar}, Shape: row}, Args: []int{Input(0), Input(1)}},
		{Op: Op{Opcode: ir.OpBroadcast, Attrs: &ir.Attrs{Dimensions: []int{0}}, Operands: []ir.Shape{row}, Shape: x}, Args: []int{0}},
		{Op: Op{Opcode: ir.OpSubtract, Operands: []ir.Shape{x, x}, Shape: x}, Args: []int{Input(0), 1}},
		{Op: Op{Opcode: ir.OpExp, Operands: []ir.Shape{x}, Shape: x}, Args: []int{2}},
	}}
	got, err := g.OutputToInput(0)
	if err != nil {
		t.Fatal(err)
	}
	checkIndexing(t, "output to input", got, `
operand id = 0
(d0, d1) -> (d0, d1),
domain:
d0 in [0, 7],
d1 in [0, 15]
(d0, d1)[s0] -> (d0, s0),
domain:
d0 in [0, 7],
d1 in [0, 15],
s0 in [0, 15]
operand id = 1
(d0, d1) -> (),
domain:
d0 in [0, 7],
d1 in [0, 15]
`)
	got, err = g.InputToOutput(1)
	if err != nil {
		t.Fatal(err)
	}
	// Composition puts the broadcast's range variable before the reduce's.
	checkIndexing(t, "input to output", got, `
operand id = 0
()[s0, s1] -> (s1, s0),
domain:
s0 in [0, 15],
s1 in [0, 7]
`)
	// Malformed groups are errors, not panics.
	pair := ir.MakeTuple(x, x)
	for _, bad := range []Group{
		{NumInputs: 1, Nodes: []Node{{Op: Op{Opcode: ir.OpExp, Operands: []ir.Shape{x}, Shape: x}, Args: []int{0}}}},
		{NumInputs: 1, Nodes: []Node{{Op: Op{Opcode: ir.OpExp, Operands: []ir.Shape{x}, Shape: x}, Args: []int{Input(3)}}}},
		{NumInputs: 2, Nodes: []Node{
			{Op: Op{Opcode: ir.OpTuple, Operands: []ir.Shape{x, x}, Shape: pair}, Args: []int{Input(0), Input(1)}},
			{Op: Op{Opcode: ir.OpGetTupleElement, Attrs: &ir.Attrs{TupleIndex: 2}, Operands: []ir.Shape{pair}, Shape: x}, Args: []int{0}},
		}},
		{},
	} {
		_, err := bad.OutputToInput(0)
		if err == nil || strings.Contains(err.Error(), "internal error") {
			t.Errorf("group %+v: error %v", bad, err)
		}
		if bad.NumInputs > 0 {
			_, err = bad.InputToOutput(0)
			if err == nil || strings.Contains(err.Error(), "internal error") {
				t.Errorf("group %+v, inverse: error %v", bad, err)
			}
		}
	}
}

// Chain composes from the consumer's output back to the producer's operands.
func TestChain(t *testing.T) {
	a := ir.MakeShape(ir.F32, 4, 6)
	b := ir.MakeShape(ir.F32, 6, 4)
	c := ir.MakeShape(ir.F32, 24)
	ops := []Op{
		{Opcode: ir.OpTranspose, Attrs: &ir.Attrs{Dimensions: []int{1, 0}}, Operands: []ir.Shape{a}, Shape: b},
		{Opcode: ir.OpAdd, Operands: []ir.Shape{b, b}, Shape: b},
		{Opcode: ir.OpReshape, Operands: []ir.Shape{b}, Shape: c},
	}
	got, err := Chain(ops, []int{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	checkIndexing(t, "chain", got, `
operand id = 0
(d0) -> (d0 mod 4, d0 / 4),
domain:
d0 in [0, 23]
`)
	if _, err := Chain(ops, []int{1}); err == nil {
		t.Error("a chain of 3 ops with 1 link: no error")
	}
	if _, err := Chain(ops, []int{5, 0}); err == nil {
		t.Error("a link to a missing operand: no error")
	}
}

// A multi-output fusion: output 1 of the tuple root, reached through a
// get-tuple-element of a variadic reduce.
func TestMultiOutputFusion(t *testing.T) {
	m := mustParse(t, `HloModule m
r {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  x = f32[] add(a, c)
  y = f32[] maximum(b, d)
  ROOT t = (f32[], f32[]) tuple(x, y)
}
f {
  p0 = f32[6,4] parameter(0)
  p1 = f32[4,6] parameter(1)
  t1 = f32[6,4] transpose(p1), dimensions={1,0}
  z = f32[] constant(0)
  red = (f32[4], f32[4]) reduce(p0, t1, z, z), dimensions={0}, to_apply=r
  g1 = f32[4] get-tuple-element(red), index=1
  n = f32[6,4] negate(p0)
  ROOT out = (f32[6,4], f32[4]) tuple(n, g1)
}
ENTRY e {
  p0 = f32[6,4] parameter(0)
  p1 = f32[4,6] parameter(1)
  ROOT fu = (f32[6,4], f32[4]) fusion(p0, p1), kind=kLoop, calls=f
}`)
	root := m.Entry.Root
	got, err := OutputToInput(root, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkIndexing(t, "output 1", got, `
operand id = 0
(d0)[s0] -> (s0, d0),
domain:
d0 in [0, 3],
s0 in [0, 5]
operand id = 1
(d0)[s0] -> (d0, s0),
domain:
d0 in [0, 3],
s0 in [0, 5]
`)
	got, err = OutputToInput(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkIndexing(t, "output 0", got, `
operand id = 0
(d0, d1) -> (d0, d1),
domain:
d0 in [0, 5],
d1 in [0, 3]
operand id = 1
`)
	// XLA has no input-to-output indexing of a fusion instruction; the
	// group of its computation composes one forwards.
	got, err = InputToOutput(root, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkIndexing(t, "input to output of the fusion", got, "operand id = 0 unknown indexing\noperand id = 1 unknown indexing\n")
	g, err := GroupOf(root.Called()[0])
	if err != nil {
		t.Fatal(err)
	}
	got, err = g.InputToOutput(1)
	if err != nil {
		t.Fatal(err)
	}
	checkIndexing(t, "input to output of the fused computation", got, `
operand id = 0
operand id = 1
(d0, d1) -> (d0),
domain:
d0 in [0, 3],
d1 in [0, 5]
`)
}

// Fusions inside fusions and calls are composed through their bodies.
func TestNestedFusionAndCall(t *testing.T) {
	m := mustParse(t, `HloModule m
inner {
  q = f32[3,5] parameter(0)
  ROOT t = f32[5,3] transpose(q), dimensions={1,0}
}
outer {
  p = f32[3,5] parameter(0)
  fi = f32[5,3] fusion(p), kind=kLoop, calls=inner
  ROOT r = f32[15] reshape(fi)
}
ENTRY e {
  p0 = f32[3,5] parameter(0)
  fo = f32[15] fusion(p0), kind=kLoop, calls=outer
  ROOT c = f32[15] call(fo), to_apply=neg
}
neg {
  x = f32[15] parameter(0)
  ROOT n = f32[15] negate(x)
}`)
	fo := m.Entry.Instruction("fo")
	got, err := OutputToInput(fo, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := `
operand id = 0
(d0) -> (d0 mod 3, d0 / 3),
domain:
d0 in [0, 14]
`
	checkIndexing(t, "nested fusion", got, want)
	got, err = OutputToInput(m.Entry.Root, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkIndexing(t, "call", got, `
operand id = 0
(d0) -> (d0),
domain:
d0 in [0, 14]
`)
}
