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

// TestGenericFusedLoopsAgreeWithEvaluator runs fused elementwise chains of
// element types the float32 loop does not take: integer index arithmetic
// with iotas and broadcasts, f64 and f16 math with conversions, complex
// arithmetic, PRED logic over integer compares.
func TestGenericFusedLoopsAgreeWithEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	cases := []struct {
		hlo    string
		shapes []ir.Shape
	}{
		{`HloModule m
ENTRY e {
  p = s32[6,40] parameter(0)
  i = s32[6,40] iota(), iota_dimension=1
  m = s32[6,40] multiply(p, i)
  c = s32[] constant(7)
  b = s32[6,40] broadcast(c), dimensions={}
  a = s32[6,40] add(m, b)
  q = s32[40,6] transpose(a), dimensions={1,0}
  ROOT r = s32[40,6] shift-right-arithmetic(q, q)
}`, []ir.Shape{ir.MakeShape(ir.S32, 6, 40)}},
		{`HloModule m
ENTRY e {
  p = f64[300] parameter(0)
  q = f16[300] parameter(1)
  c = f64[300] convert(q)
  m = f64[300] multiply(p, c)
  e = f64[300] exponential(m)
  h = f16[300] convert(e)
  s = f16[300] sqrt(h)
  ROOT r = f16[300] add(s, q)
}`, []ir.Shape{ir.MakeShape(ir.F64, 300), ir.MakeShape(ir.F16, 300)}},
		{`HloModule m
ENTRY e {
  p = c64[5,7] parameter(0)
  q = f32[7] parameter(1)
  b = f32[5,7] broadcast(q), dimensions={1}
  z = f32[5,7] negate(b)
  c = c64[5,7] complex(b, z)
  m = c64[5,7] multiply(p, c)
  ROOT r = f32[5,7] abs(m)
}`, []ir.Shape{ir.MakeShape(ir.C64, 5, 7), ir.MakeShape(ir.F32, 7)}},
		{`HloModule m
ENTRY e {
  p = u8[3,300] parameter(0)
  q = u8[3,300] parameter(1)
  lt = pred[3,300] compare(p, q), direction=LT
  i = u8[3,300] iota(), iota_dimension=1
  eq = pred[3,300] compare(i, p), direction=GE
  a = pred[3,300] xor(lt, eq)
  s = u8[3,300] select(a, p, i)
  ROOT r = s64[3,300] convert(s)
}`, []ir.Shape{ir.MakeShape(ir.U8, 3, 300), ir.MakeShape(ir.U8, 3, 300)}},
		{`HloModule m
ENTRY e {
  p = bf16[2,3,4] parameter(0)
  s = bf16[2,1,4] slice(p), slice={[0:2], [1:2], [0:4]}
  t = bf16[2,4] reshape(s)
  b = bf16[2,4,5] broadcast(t), dimensions={0,1}
  x = bf16[2,4,5] multiply(b, b)
  ROOT r = pred[2,4,5] compare(x, b), direction=GT, type=TOTALORDER
}`, []ir.Shape{ir.MakeShape(ir.BF16, 2, 3, 4)}},
		{`HloModule m
ENTRY e {
  p = f32[700] parameter(0)
  q = f32[700] parameter(1)
  m = f32[700] multiply(p, q)
  r1 = f32[700] reduce-precision(m), exponent_bits=5, mantissa_bits=10
  a = f32[700] add(r1, p)
  ROOT r = f32[700] reduce-precision(a), exponent_bits=8, mantissa_bits=7
}`, []ir.Shape{ir.MakeShape(ir.F32, 700), ir.MakeShape(ir.F32, 700)}},
		{`HloModule m
ENTRY e {
  p = f64[9] parameter(0)
  r1 = f64[9] reduce-precision(p), exponent_bits=8, mantissa_bits=23
  ROOT r = f64[9] sqrt(r1)
}`, []ir.Shape{ir.MakeShape(ir.F64, 9)}},
	}
	for _, c := range cases {
		checkGeneric(t, genericCase{hlo: c.hlo, args: randomArgs(r, c.shapes...)})
	}
}

// TestGenericParallelLoops covers elementwise steps and generic loops big
// enough to be split across workers, and checks that the split runs
// allocate nothing.
func TestGenericParallelLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 48))
	hlo := `HloModule m
ENTRY e {
  p = s32[300,300] parameter(0)
  q = s32[300,300] parameter(1)
  m = s32[300,300] multiply(p, q)
  h = bf16[300,300] parameter(2)
  c = f32[300,300] convert(h)
  i = f32[300,300] iota(), iota_dimension=1
  a = f32[300,300] add(c, i)
  b = bf16[300,300] convert(a)
  s = bf16[300,300] sqrt(b)
  ROOT r = (s32[300,300], bf16[300,300]) tuple(m, s)
}`
	checkNoAllocs(t, hlo, randomArgs(r, ir.MakeShape(ir.S32, 300, 300), ir.MakeShape(ir.S32, 300, 300), ir.MakeShape(ir.BF16, 300, 300)))
}
