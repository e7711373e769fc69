package eval

import (
	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// floatBits returns the raw bits of every element of a real float literal,
// and the width of the type in bits.
func floatBits(l *ir.Literal) ([]uint64, int) {
	out := make([]uint64, l.ElementCount())
	ops.LoadBits(out, l.Bytes(), l.Shape().Elem, 0)
	return out, l.Shape().Elem.BitWidth()
}

// totalOrderKey is ops.TotalOrderKey, for the tests' comparisons.
func totalOrderKey(b uint64, width int) int64 { return ops.TotalOrderKey(b, width) }

// wrapInt is ops.WrapInt.
func wrapInt(t ir.ElementType, x int64) int64 { return ops.WrapInt(t, x) }

// intRange is ops.IntRange.
func intRange(t ir.ElementType) (int64, int64) { return ops.IntRange(t) }

// floatToInt is XLA's float-to-integer conversion (ir.SaturateFloatToInt).
func floatToInt(t ir.ElementType, x float64) int64 { return ir.SaturateFloatToInt(x, t) }

// intToFloat is XLA's integer-to-float conversion of a wide value of type
// from to type to (ir.IntToFloat).
func intToFloat(from, to ir.ElementType, x int64) float64 {
	return ir.IntToFloat(x, from.IsUnsigned() || from == ir.PRED, to.ComplexComponent())
}
