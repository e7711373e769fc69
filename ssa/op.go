package ssa

import "github.com/kilnml/kiln/ir"

// Op is the operation of an SSA value. The first 256 values mirror ir's
// opcodes one to one (Op(ir.OpAdd) is the SSA add); the ops above are
// Kiln's own, introduced by passes: canonical forms and recognised composite
// patterns that map onto fused kernels.
type Op uint16

// FromIR returns the SSA op of an HLO opcode.
func FromIR(op ir.Opcode) Op { return Op(op) }

// IR returns the HLO opcode of an op that mirrors one, and false for Kiln's
// own ops.
func (op Op) IR() (ir.Opcode, bool) {
	if op < firstKilnOp {
		return ir.Opcode(op), true
	}
	return ir.OpInvalid, false
}

const firstKilnOp Op = 256

// Kiln's own ops. Their operands and attributes are documented on each.
const (
	// OpSoftmax is softmax along the last dimension of its operand:
	// exp(x - max) / sum(exp(x - max)). One operand, same shape result.
	OpSoftmax Op = firstKilnOp + iota
	// OpLayerNorm normalises its first operand along the last dimension:
	// (x - mean) * rsqrt(var + Epsilon) * scale + bias, where operand 1
	// (scale) and operand 2 (bias) have the size of the last dimension.
	// Attrs.Epsilon holds epsilon.
	OpLayerNorm
	// OpGelu is the Gaussian error linear unit. Aux 0: the erf form
	// x·Φ(x); Aux 1: the tanh approximation.
	OpGelu
	lastKilnOp
)

// GeluErf and GeluTanh are the Aux values of OpGelu.
const (
	GeluErf  = 0
	GeluTanh = 1
)

var kilnOpNames = [...]string{
	OpSoftmax - firstKilnOp:   "kiln.softmax",
	OpLayerNorm - firstKilnOp: "kiln.layer-norm",
	OpGelu - firstKilnOp:      "kiln.gelu",
}

// String returns the op's name: XLA's for mirrored ops, `kiln.*` for Kiln's.
func (op Op) String() string {
	if o, ok := op.IR(); ok {
		return o.String()
	}
	if op < lastKilnOp {
		return kilnOpNames[op-firstKilnOp]
	}
	return "invalid"
}

// IsElementwise reports whether output element i depends only on operand
// elements i.
func (op Op) IsElementwise() bool {
	if o, ok := op.IR(); ok {
		return o.IsElementwise()
	}
	return op == OpGelu
}

// IsCommutative reports whether a binary op's operands may be swapped.
func (op Op) IsCommutative() bool {
	if o, ok := op.IR(); ok {
		return o.IsCommutative()
	}
	return false
}

// HasSideEffect reports whether the op must be kept and ordered even if its
// result is unused.
func (op Op) HasSideEffect() bool {
	if o, ok := op.IR(); ok {
		return o.HasSideEffect()
	}
	return false
}

// Common ops, named for brevity in passes.
const (
	OpParameter        = Op(ir.OpParameter)
	OpConstant         = Op(ir.OpConstant)
	OpTuple            = Op(ir.OpTuple)
	OpGetTupleElement  = Op(ir.OpGetTupleElement)
	OpAdd              = Op(ir.OpAdd)
	OpSubtract         = Op(ir.OpSubtract)
	OpMultiply         = Op(ir.OpMultiply)
	OpDivide           = Op(ir.OpDivide)
	OpMaximum          = Op(ir.OpMaximum)
	OpMinimum          = Op(ir.OpMinimum)
	OpNegate           = Op(ir.OpNegate)
	OpExp              = Op(ir.OpExp)
	OpTanh             = Op(ir.OpTanh)
	OpRsqrt            = Op(ir.OpRsqrt)
	OpErf              = Op(ir.OpErf)
	OpClamp            = Op(ir.OpClamp)
	OpSelect           = Op(ir.OpSelect)
	OpCompare          = Op(ir.OpCompare)
	OpConvert          = Op(ir.OpConvert)
	OpBroadcast        = Op(ir.OpBroadcast)
	OpReshape          = Op(ir.OpReshape)
	OpBitcast          = Op(ir.OpBitcast)
	OpTranspose        = Op(ir.OpTranspose)
	OpCopy             = Op(ir.OpCopy)
	OpSlice            = Op(ir.OpSlice)
	OpConcatenate      = Op(ir.OpConcatenate)
	OpPad              = Op(ir.OpPad)
	OpReduce           = Op(ir.OpReduce)
	OpReduceWindow     = Op(ir.OpReduceWindow)
	OpDot              = Op(ir.OpDot)
	OpConvolution      = Op(ir.OpConvolution)
	OpWhile            = Op(ir.OpWhile)
	OpConditional      = Op(ir.OpConditional)
	OpCall             = Op(ir.OpCall)
	OpMap              = Op(ir.OpMap)
	OpFusion           = Op(ir.OpFusion)
	OpIota             = Op(ir.OpIota)
	OpBatchNormInf     = Op(ir.OpBatchNormInference)
	OpBatchNormTrain   = Op(ir.OpBatchNormTraining)
	OpBatchNormGrad    = Op(ir.OpBatchNormGrad)
	OpOptBarrier       = Op(ir.OpOptimizationBarrier)
	OpSort             = Op(ir.OpSort)
	OpScatter          = Op(ir.OpScatter)
	OpSelectAndScatter = Op(ir.OpSelectAndScatter)
)
