package eval

// Sparse operands of dot and convolution (sparsity_config): materialized
// as ir/ops defines it (sparse.go) before the op runs.

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
	"github.com/kilnml/kiln/ir/ops"
)

// denseOperands returns the two operands of a dot or convolution, a sparse
// one materialized from its stored values and metadata.
func denseOperands(in *ir.Instruction, args []*ir.Literal) ([]*ir.Literal, error) {
	ds, err := in.Sparsity()
	if err != nil {
		return nil, err
	}
	if len(args) != 2+len(ds) {
		return nil, fmt.Errorf("expected 2 operands and %d sparsity metadata operands, found %d operands", len(ds), len(args))
	}
	out := []*ir.Literal{args[0], args[1]}
	for _, d := range ds {
		x, meta := args[d.Operand], args[d.MetaIndex]
		if !x.Shape().IsArray() || !meta.Shape().IsArray() {
			return nil, fmt.Errorf("sparse operand %d and its metadata must be arrays", d.Operand)
		}
		p, err := ops.NewSparse(x.Shape().Elem.ByteSize(), x.Shape().Dims, d, meta.Shape().Elem, meta.Shape().Dims)
		if err != nil {
			return nil, err
		}
		dense, err := newArray(x.Shape().Elem, p.DenseDims)
		if err != nil {
			return nil, err
		}
		if err := p.Run(dense.Bytes(), x.Bytes(), meta.Bytes()); err != nil {
			return nil, err
		}
		out[d.Operand] = dense
	}
	return out, nil
}
