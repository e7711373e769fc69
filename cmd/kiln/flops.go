package main

import "github.com/kilnml/kiln/ir"

// moduleFLOPs counts the floating-point operations of one run of m's entry
// computation that are spent in dots and convolutions, two per
// multiply-add: a dot costs 2·|output|·|contracting dimensions|, a
// convolution 2·|output|·|kernel input features|·|kernel window| (nominal,
// padding taps included, as the peer figures count them). Computations
// reached through call and fusion are counted once per call. It reports
// false when a dot or convolution sits in a while body or a conditional
// branch, whose run count the module does not say.
func moduleFLOPs(m *ir.Module) (float64, bool) {
	return computationFLOPs(m.Entry, map[*ir.Computation]bool{})
}

func computationFLOPs(c *ir.Computation, visiting map[*ir.Computation]bool) (float64, bool) {
	if visiting[c] {
		return 0, false
	}
	visiting[c] = true
	defer delete(visiting, c)
	total := 0.0
	for _, in := range c.Instructions {
		switch in.Opcode {
		case ir.OpDot:
			if in.DotDims == nil {
				continue
			}
			lhs := in.Operands[0].Shape
			k := 1.0
			for _, d := range in.DotDims.LhsContracting {
				k *= float64(lhs.Dims[d])
			}
			total += 2 * float64(in.Shape.ElementCount()) * k
		case ir.OpConvolution:
			if in.ConvDims == nil {
				continue
			}
			kernel := in.Operands[1].Shape
			k := float64(kernel.Dims[in.ConvDims.KernelInputFeature])
			for _, d := range in.ConvDims.KernelSpatial {
				k *= float64(kernel.Dims[d])
			}
			total += 2 * float64(in.Shape.ElementCount()) * k
		case ir.OpCall, ir.OpFusion:
			callee := in.Calls
			if callee == nil {
				callee = in.ToApply
			}
			if callee == nil {
				continue
			}
			f, ok := computationFLOPs(callee, visiting)
			if !ok {
				return 0, false
			}
			total += f
		case ir.OpWhile, ir.OpConditional:
			for _, callee := range in.Called() {
				if f, ok := computationFLOPs(callee, visiting); !ok || f > 0 {
					return 0, false
				}
			}
		}
	}
	return total, true
}
