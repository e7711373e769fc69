package runtime

import (
	"math/rand/v2"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// TestLoopScalarOperands covers loops reading a scalar parameter through a
// broadcast (the load's strides must span the loop's rank).
func TestLoopScalarOperands(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, typ := range []ir.ElementType{ir.F32, ir.PRED, ir.S32} {
		s, sc := shapeText(typ, 3, 2), ir.Scalar(typ).StringWithoutLayout()
		checkGeneric(t, genericCase{hlo: "HloModule m\nENTRY e {\n  p = " + sc + " parameter(0)\n  ROOT r = " + s + " broadcast(p), dimensions={}\n}\n",
			args: randomArgs(r, ir.Scalar(typ))})
	}
}

// TestLoopDegenerateBroadcast covers a broadcast that repeats an operand
// dimension of size 1 along a larger output dimension: the loop must read
// that dimension's one element, not walk past it.
func TestLoopDegenerateBroadcast(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for _, typ := range []ir.ElementType{ir.F32, ir.PRED} {
		checkGeneric(t, genericCase{hlo: "HloModule m\nENTRY e {\n  p = " + shapeText(typ, 1, 3) + " parameter(0)\n  ROOT r = " + shapeText(typ, 4, 3) + " broadcast(p), dimensions={0,1}\n}\n",
			args: randomArgs(r, ir.MakeShape(typ, 1, 3))})
	}
}
