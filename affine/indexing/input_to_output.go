package indexing

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// inputToOutput is XLA's ComputeInputToOutputIndexing for one op, extended
// to every op whose output-to-input maps are known: each map is read the
// other way (see invert), except reshapes and bitcasts, whose maps are built
// directly as XLA builds them.
func (op *Op) inputToOutput(operand int) (*Indexing, error) {
	if operand < 0 || operand >= len(op.Operands) {
		return nil, fmt.Errorf("%s: operand %d does not exist: the op has %d", op.Opcode, operand, len(op.Operands))
	}
	in := op.Operands[operand]
	n := op.NumOutputs()
	switch op.Opcode {
	case ir.OpReshape, ir.OpBitcast:
		if _, err := op.outputToInput(0); err != nil { // validates the op
			return nil, err
		}
		if op.Opcode == ir.OpReshape {
			return fromMaps(reshapeMap(in.Dims, op.Shape.Dims)), nil
		}
		m, err := bitcastMap(in, op.Shape)
		if err != nil {
			return nil, err
		}
		return fromMaps(m), nil
	case ir.OpGather:
		if _, err := op.outputToInput(0); err != nil {
			return nil, err
		}
		if operand == 0 {
			// The runtime variables of the operand's map are the start
			// indices of each output row, not values shared by all rows:
			// read the other way, they would name the wrong rows.
			return unknownIndexing(1), nil
		}
	}
	x := newIndexing(n)
	for j := range n {
		fwd, err := op.outputToInput(j)
		if err != nil {
			return nil, err
		}
		if fwd.Unknown[operand] || !in.IsArray() {
			x.setUnknown(j)
			continue
		}
		for _, m := range fwd.Operands[operand] {
			x.add(j, invert(m, in.Dims))
		}
	}
	return x, nil
}
