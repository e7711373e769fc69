package ir_test

import (
	"errors"
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// A module is read from HLO text, as jax.jit(f).lower(*args).as_text(dialect="hlo")
// prints it.
func ExampleParseModule() {
	m, err := ir.ParseModule(`HloModule axpy
ENTRY main {
  a = f32[] parameter(0)
  x = f32[4] parameter(1), metadata={op_name="x"}
  ab = f32[4] broadcast(a), dimensions={}
  ROOT r = f32[4] multiply(ab, x)
}
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range m.Entry.Parameters {
		fmt.Println(p.Name, p.Shape)
	}
	fmt.Println(m.Entry.Root.Shape)
	// Output:
	// a f32[]
	// x f32[4]
	// f32[4]
}

// A parse error names the line and the column.
func ExampleParseModule_error() {
	_, err := ir.ParseModule("HloModule m\nENTRY main {\n  x = f32[4] paramter(0)\n}\n")
	fmt.Println(err != nil)
	var pe *ir.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Line, pe.Column)
	}
	// Output:
	// true
	// 3 14
}

// The builder adds one op at a time, with XLA's shape inference.
func ExampleBuilder() {
	b := ir.NewBuilder("dense")
	x := b.Parameter(0, ir.MakeShape(ir.F32, 1, 3), "x")
	w := b.Parameter(1, ir.MakeShape(ir.F32, 3, 2), "w")
	y := b.Max(b.Dot(x, w), b.Constant(ir.ScalarLiteral[float32](0)))
	fmt.Println(y.Shape())
	m, err := b.BuildModule()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(m.Entry.Parameters), m.Entry.Root.Opcode)
	// Output:
	// f32[1,2]
	// 2 maximum
}

// Literals print and parse in XLA's text format.
func ExampleParseLiteral() {
	l, err := ir.ParseLiteral("f32[2,2] {{1, 2}, {3, 4}}")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.Float32s(), l)
	// Output: [1 2 3 4] f32[2,2] {{1, 2}, {3, 4}}
}
