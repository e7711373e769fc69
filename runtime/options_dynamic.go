package runtime

import "github.com/kilnml/kiln/ir"

// WithDynamicDim makes dimension dim of entry parameter param accept every
// size from 0 to bound at run time, as if the module declared it bounded
// (`f32[<=64,784]`): one executable then serves every batch size up to the
// bound. The shapes that follow from the dimension are re-derived
// (ir.RelaxDimensions: a reshape merging it with others scales, a bias
// broadcast along it is built at the bound); Compile fails, naming the
// instruction, when the program fixes the size somewhere (a constant or
// another parameter of that size, a slice along it).
//
// Run then takes a tensor of the actual size for the parameter, and returns
// results of the sizes that follow from it; every step computes only the
// actual rows (a GEMM runs at the actual M). A module that declares a
// bounded dimension itself needs no option.
func WithDynamicDim(param, dim, bound int) Option {
	return func(c *config) {
		c.dynamicDims = append(c.dynamicDims, ir.DynamicDimension{Param: param, Dim: dim, Bound: bound})
	}
}
