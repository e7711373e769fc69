package indexing

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kilnml/kiln/ir"
)

// randomOp describes an op with random shapes and attributes, mostly
// inconsistent with each other.
func randomOp(r *rand.Rand, code ir.Opcode) Op {
	shape := func() ir.Shape {
		if r.IntN(10) == 0 {
			return ir.MakeTuple(ir.MakeShape(ir.F32, 2), ir.MakeShape(ir.F32))
		}
		return ir.MakeShape(ir.F32, randDims(r, r.IntN(4), 3)...)
	}
	small := func() []int {
		xs := make([]int, r.IntN(4))
		for i := range xs {
			xs[i] = r.IntN(5) - 1
		}
		return xs
	}
	n := r.IntN(5)
	if a := code.Arity(); a >= 0 {
		n = a
	}
	op := Op{Opcode: code, Operands: make([]ir.Shape, n), Shape: shape()}
	for k := range op.Operands {
		op.Operands[k] = shape()
	}
	a := &ir.Attrs{Dimensions: small(), TupleIndex: r.IntN(3) - 1, FeatureIndex: r.IntN(4) - 1,
		FeatureGroupCount: r.IntN(3), BatchGroupCount: r.IntN(3), GatherSliceSizes: small(), DynamicSliceSizes: small()}
	for range r.IntN(4) {
		a.Slice = append(a.Slice, ir.SliceDim{Start: r.IntN(4) - 1, Limit: r.IntN(5) - 1, Stride: r.IntN(3) - 1})
		a.Padding = append(a.Padding, ir.PaddingDim{Low: r.IntN(5) - 2, High: r.IntN(5) - 2, Interior: r.IntN(3) - 1})
	}
	if r.IntN(2) == 0 {
		a.Window = &ir.Window{}
		for range r.IntN(4) {
			a.Window.Dims = append(a.Window.Dims, ir.WindowDim{Size: r.IntN(4) - 1, Stride: r.IntN(3) - 1, PadLow: r.IntN(3) - 1,
				PadHigh: r.IntN(3) - 1, BaseDilation: r.IntN(3) - 1, WindowDilation: r.IntN(3) - 1})
		}
	}
	if r.IntN(2) == 0 {
		a.DotDims = &ir.DotDimensionNumbers{LhsBatch: small(), RhsBatch: small(), LhsContracting: small(), RhsContracting: small()}
	}
	if r.IntN(2) == 0 {
		a.ConvDims = &ir.ConvDimensionNumbers{InputBatch: r.IntN(4) - 1, InputFeature: r.IntN(4) - 1, InputSpatial: small(),
			KernelInputFeature: r.IntN(4) - 1, KernelOutputFeature: r.IntN(4) - 1, KernelSpatial: small(),
			OutputBatch: r.IntN(4) - 1, OutputFeature: r.IntN(4) - 1, OutputSpatial: small()}
	}
	if r.IntN(2) == 0 {
		a.GatherDims = &ir.GatherDimensionNumbers{OffsetDims: small(), CollapsedSliceDims: small(), StartIndexMap: small(), IndexVectorDim: r.IntN(3)}
	}
	if r.IntN(2) == 0 {
		a.CustomCallTarget = []string{"kiln.softmax", "kiln.layer-norm", "kiln.gelu"}[r.IntN(3)]
	}
	op.Attrs = a
	return op
}

// Malformed ops give errors or maps, never a panic: the analysis checks
// every attribute it indexes with.
func TestMalformedOpsNeverPanic(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, code := range ir.Opcodes() {
		for range 300 {
			op := randomOp(r, code)
			for _, f := range []func() error{
				func() error { _, err := op.OutputToInput(r.IntN(2)); return err },
				func() error { _, err := op.InputToOutput(r.IntN(2)); return err },
			} {
				if err := f(); err != nil && strings.Contains(err.Error(), "internal error") {
					t.Fatalf("%s with operands %v, result %v, attributes %+v: %v", code, op.Operands, op.Shape, *op.Attrs, err)
				}
			}
		}
	}
}
