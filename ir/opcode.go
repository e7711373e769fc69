package ir

// Opcode names an HLO operation. Every property of an opcode lives in one row
// of opcodeTable, in the spirit of XLA's HLO_OPCODE_LIST and Go's SSA op
// tables; the rest of Kiln derives what it needs from there.
type Opcode uint8

// The opcodes, covering every name XLA's HLO text format uses.
const (
	OpInvalid Opcode = iota
	OpAbs
	OpAcos
	OpAcosh
	OpAdd
	OpAddDependency
	OpAfterAll
	OpAllGather
	OpAllGatherDone
	OpAllGatherStart
	OpAllReduce
	OpAllReduceDone
	OpAllReduceStart
	OpAllToAll
	OpAnd
	OpAsin
	OpAsinh
	OpAsyncDone
	OpAsyncStart
	OpAsyncUpdate
	OpAtan
	OpAtan2
	OpAtanh
	OpBatchNormGrad
	OpBatchNormInference
	OpBatchNormTraining
	OpBitcast
	OpBitcastConvert
	OpBroadcast
	OpCall
	OpCbrt
	OpCeil
	OpCholesky
	OpClamp
	OpClz
	OpCollectiveBroadcast
	OpCollectivePermute
	OpCollectivePermuteDone
	OpCollectivePermuteStart
	OpCollectiveReduce
	OpCompare
	OpComplex
	OpConcatenate
	OpConditional
	OpConstant
	OpConvert
	OpConvolution
	OpCopy
	OpCopyDone
	OpCopyStart
	OpCos
	OpCosh
	OpCustomCall
	OpDivide
	OpDomain
	OpDot
	OpDynamicReshape
	OpDynamicSlice
	OpDynamicUpdateSlice
	OpErf
	OpExp
	OpExpm1
	OpFft
	OpFloor
	OpFusion
	OpGather
	OpGetDimensionSize
	OpGetTupleElement
	OpImag
	OpInfeed
	OpIota
	OpIsFinite
	OpLog
	OpLog1p
	OpLogistic
	OpMap
	OpMaximum
	OpMinimum
	OpMulhi
	OpMultiply
	OpNegate
	OpNot
	OpOptimizationBarrier
	OpOr
	OpOutfeed
	OpPad
	OpParameter
	OpPartitionID
	OpPopulationCount
	OpPower
	OpRaggedAllToAll
	OpRaggedDot
	OpReal
	OpRecv
	OpRecvDone
	OpReduce
	OpReducePrecision
	OpReduceScatter
	OpReduceWindow
	OpRemainder
	OpReplicaID
	OpReshape
	OpReverse
	OpRng
	OpRngBitGenerator
	OpRngGetAndUpdateState
	OpRoundNearestAfz
	OpRoundNearestEven
	OpRsqrt
	OpScaledDot
	OpScan
	OpScatter
	OpSelect
	OpSelectAndScatter
	OpSend
	OpSendDone
	OpSetDimensionSize
	OpShiftLeft
	OpShiftRightArithmetic
	OpShiftRightLogical
	OpShuffle
	OpSign
	OpSin
	OpSinh
	OpSlice
	OpSort
	OpSqrt
	OpStochasticConvert
	OpSubtract
	OpTan
	OpTanh
	OpTopK
	OpTranspose
	OpTriangularSolve
	OpTuple
	OpWhile
	OpXor
	numOpcodes
)

// Variadic is the arity of an opcode that takes any number of operands.
const Variadic = -1

// opcodeInfo is one row of the opcode table.
type opcodeInfo struct {
	name        string // as printed in HLO text
	arity       int    // number of operands, or Variadic
	elementwise bool   // output element i depends only on operand elements i (same shape)
	commutative bool   // binary op with op(a, b) == op(a, b) swapped
	sideEffect  bool   // must not be removed or reordered freely
	async       bool   // part of an async start/update/done pair or copy-start/done: parsed and printed, not executed
	accuracy    bool   // transcendental unary op that takes result_accuracy={…}
}

var opcodeTable = [numOpcodes]opcodeInfo{
	OpInvalid:                {name: "invalid"},
	OpAbs:                    {name: "abs", arity: 1, elementwise: true},
	OpAcos:                   {name: "acos", arity: 1, elementwise: true, accuracy: true},
	OpAcosh:                  {name: "acosh", arity: 1, elementwise: true, accuracy: true},
	OpAdd:                    {name: "add", arity: 2, elementwise: true, commutative: true},
	OpAddDependency:          {name: "add-dependency", arity: 2},
	OpAfterAll:               {name: "after-all", arity: Variadic},
	OpAllGather:              {name: "all-gather", arity: Variadic, sideEffect: true},
	OpAllGatherDone:          {name: "all-gather-done", arity: 1, sideEffect: true, async: true},
	OpAllGatherStart:         {name: "all-gather-start", arity: Variadic, sideEffect: true, async: true},
	OpAllReduce:              {name: "all-reduce", arity: Variadic, sideEffect: true},
	OpAllReduceDone:          {name: "all-reduce-done", arity: 1, sideEffect: true, async: true},
	OpAllReduceStart:         {name: "all-reduce-start", arity: Variadic, sideEffect: true, async: true},
	OpAllToAll:               {name: "all-to-all", arity: Variadic, sideEffect: true},
	OpAnd:                    {name: "and", arity: 2, elementwise: true, commutative: true},
	OpAsin:                   {name: "asin", arity: 1, elementwise: true, accuracy: true},
	OpAsinh:                  {name: "asinh", arity: 1, elementwise: true, accuracy: true},
	OpAsyncDone:              {name: "async-done", arity: 1, sideEffect: true, async: true},
	OpAsyncStart:             {name: "async-start", arity: Variadic, sideEffect: true, async: true},
	OpAsyncUpdate:            {name: "async-update", arity: Variadic, sideEffect: true, async: true},
	OpAtan:                   {name: "atan", arity: 1, elementwise: true, accuracy: true},
	OpAtan2:                  {name: "atan2", arity: 2, elementwise: true},
	OpAtanh:                  {name: "atanh", arity: 1, elementwise: true, accuracy: true},
	OpBatchNormGrad:          {name: "batch-norm-grad", arity: 5},
	OpBatchNormInference:     {name: "batch-norm-inference", arity: 5},
	OpBatchNormTraining:      {name: "batch-norm-training", arity: 3},
	OpBitcast:                {name: "bitcast", arity: 1},
	OpBitcastConvert:         {name: "bitcast-convert", arity: 1},
	OpBroadcast:              {name: "broadcast", arity: 1},
	OpCall:                   {name: "call", arity: Variadic},
	OpCbrt:                   {name: "cbrt", arity: 1, elementwise: true, accuracy: true},
	OpCeil:                   {name: "ceil", arity: 1, elementwise: true},
	OpCholesky:               {name: "cholesky", arity: 1},
	OpClamp:                  {name: "clamp", arity: 3, elementwise: true},
	OpClz:                    {name: "count-leading-zeros", arity: 1, elementwise: true},
	OpCollectiveBroadcast:    {name: "collective-broadcast", arity: Variadic, sideEffect: true},
	OpCollectivePermute:      {name: "collective-permute", arity: Variadic, sideEffect: true},
	OpCollectivePermuteDone:  {name: "collective-permute-done", arity: 1, sideEffect: true, async: true},
	OpCollectivePermuteStart: {name: "collective-permute-start", arity: Variadic, sideEffect: true, async: true},
	OpCollectiveReduce:       {name: "collective-reduce", arity: Variadic, sideEffect: true},
	OpCompare:                {name: "compare", arity: 2, elementwise: true},
	OpComplex:                {name: "complex", arity: 2, elementwise: true},
	OpConcatenate:            {name: "concatenate", arity: Variadic},
	OpConditional:            {name: "conditional", arity: Variadic},
	OpConstant:               {name: "constant", arity: 0},
	OpConvert:                {name: "convert", arity: 1, elementwise: true},
	OpConvolution:            {name: "convolution", arity: 2},
	OpCopy:                   {name: "copy", arity: 1, elementwise: true},
	OpCopyDone:               {name: "copy-done", arity: 1, async: true},
	OpCopyStart:              {name: "copy-start", arity: 1, async: true},
	OpCos:                    {name: "cosine", arity: 1, elementwise: true, accuracy: true},
	OpCosh:                   {name: "cosh", arity: 1, elementwise: true, accuracy: true},
	OpCustomCall:             {name: "custom-call", arity: Variadic, sideEffect: true},
	OpDivide:                 {name: "divide", arity: 2, elementwise: true},
	OpDomain:                 {name: "domain", arity: 1},
	OpDot:                    {name: "dot", arity: Variadic},
	OpDynamicReshape:         {name: "dynamic-reshape", arity: Variadic},
	OpDynamicSlice:           {name: "dynamic-slice", arity: Variadic},
	OpDynamicUpdateSlice:     {name: "dynamic-update-slice", arity: Variadic},
	OpErf:                    {name: "erf", arity: 1, elementwise: true, accuracy: true},
	OpExp:                    {name: "exponential", arity: 1, elementwise: true, accuracy: true},
	OpExpm1:                  {name: "exponential-minus-one", arity: 1, elementwise: true, accuracy: true},
	OpFft:                    {name: "fft", arity: 1},
	OpFloor:                  {name: "floor", arity: 1, elementwise: true},
	OpFusion:                 {name: "fusion", arity: Variadic},
	OpGather:                 {name: "gather", arity: 2},
	OpGetDimensionSize:       {name: "get-dimension-size", arity: 1},
	OpGetTupleElement:        {name: "get-tuple-element", arity: 1},
	OpImag:                   {name: "imag", arity: 1, elementwise: true},
	OpInfeed:                 {name: "infeed", arity: 1, sideEffect: true},
	OpIota:                   {name: "iota", arity: 0},
	OpIsFinite:               {name: "is-finite", arity: 1, elementwise: true},
	OpLog:                    {name: "log", arity: 1, elementwise: true, accuracy: true},
	OpLog1p:                  {name: "log-plus-one", arity: 1, elementwise: true, accuracy: true},
	OpLogistic:               {name: "logistic", arity: 1, elementwise: true, accuracy: true},
	OpMap:                    {name: "map", arity: Variadic, elementwise: true},
	OpMaximum:                {name: "maximum", arity: 2, elementwise: true, commutative: true},
	OpMinimum:                {name: "minimum", arity: 2, elementwise: true, commutative: true},
	OpMulhi:                  {name: "mulhi", arity: 2, elementwise: true, commutative: true},
	OpMultiply:               {name: "multiply", arity: 2, elementwise: true, commutative: true},
	OpNegate:                 {name: "negate", arity: 1, elementwise: true},
	OpNot:                    {name: "not", arity: 1, elementwise: true},
	OpOptimizationBarrier:    {name: "opt-barrier", arity: 1},
	OpOr:                     {name: "or", arity: 2, elementwise: true, commutative: true},
	OpOutfeed:                {name: "outfeed", arity: 2, sideEffect: true},
	OpPad:                    {name: "pad", arity: 2},
	OpParameter:              {name: "parameter", arity: 0},
	OpPartitionID:            {name: "partition-id", arity: 0},
	OpPopulationCount:        {name: "popcnt", arity: 1, elementwise: true},
	OpPower:                  {name: "power", arity: 2, elementwise: true},
	OpRaggedAllToAll:         {name: "ragged-all-to-all", arity: 6, sideEffect: true},
	OpRaggedDot:              {name: "ragged-dot", arity: 3},
	OpReal:                   {name: "real", arity: 1, elementwise: true},
	OpRecv:                   {name: "recv", arity: 1, sideEffect: true},
	OpRecvDone:               {name: "recv-done", arity: 1, sideEffect: true},
	OpReduce:                 {name: "reduce", arity: Variadic},
	OpReducePrecision:        {name: "reduce-precision", arity: 1, elementwise: true},
	OpReduceScatter:          {name: "reduce-scatter", arity: Variadic, sideEffect: true},
	OpReduceWindow:           {name: "reduce-window", arity: Variadic},
	OpRemainder:              {name: "remainder", arity: 2, elementwise: true},
	OpReplicaID:              {name: "replica-id", arity: 0},
	OpReshape:                {name: "reshape", arity: 1},
	OpReverse:                {name: "reverse", arity: 1},
	OpRng:                    {name: "rng", arity: Variadic, sideEffect: true},
	OpRngBitGenerator:        {name: "rng-bit-generator", arity: 1},
	OpRngGetAndUpdateState:   {name: "rng-get-and-update-state", arity: 0, sideEffect: true},
	OpRoundNearestAfz:        {name: "round-nearest-afz", arity: 1, elementwise: true},
	OpRoundNearestEven:       {name: "round-nearest-even", arity: 1, elementwise: true},
	OpRsqrt:                  {name: "rsqrt", arity: 1, elementwise: true, accuracy: true},
	OpScaledDot:              {name: "scaled-dot", arity: 4},
	OpScan:                   {name: "scan", arity: Variadic},
	OpScatter:                {name: "scatter", arity: Variadic},
	OpSelect:                 {name: "select", arity: 3, elementwise: true},
	OpSelectAndScatter:       {name: "select-and-scatter", arity: 3},
	OpSend:                   {name: "send", arity: 2, sideEffect: true},
	OpSendDone:               {name: "send-done", arity: 1, sideEffect: true},
	OpSetDimensionSize:       {name: "set-dimension-size", arity: 2},
	OpShiftLeft:              {name: "shift-left", arity: 2, elementwise: true},
	OpShiftRightArithmetic:   {name: "shift-right-arithmetic", arity: 2, elementwise: true},
	OpShiftRightLogical:      {name: "shift-right-logical", arity: 2, elementwise: true},
	OpShuffle:                {name: "shuffle", arity: 1},
	OpSign:                   {name: "sign", arity: 1, elementwise: true},
	OpSin:                    {name: "sine", arity: 1, elementwise: true, accuracy: true},
	OpSinh:                   {name: "sinh", arity: 1, elementwise: true, accuracy: true},
	OpSlice:                  {name: "slice", arity: 1},
	OpSort:                   {name: "sort", arity: Variadic},
	OpSqrt:                   {name: "sqrt", arity: 1, elementwise: true, accuracy: true},
	OpStochasticConvert:      {name: "stochastic-convert", arity: 2, elementwise: true},
	OpSubtract:               {name: "subtract", arity: 2, elementwise: true},
	OpTan:                    {name: "tan", arity: 1, elementwise: true, accuracy: true},
	OpTanh:                   {name: "tanh", arity: 1, elementwise: true, accuracy: true},
	OpTopK:                   {name: "topk", arity: 1},
	OpTranspose:              {name: "transpose", arity: 1},
	OpTriangularSolve:        {name: "triangular-solve", arity: 2},
	OpTuple:                  {name: "tuple", arity: Variadic},
	OpWhile:                  {name: "while", arity: 1},
	OpXor:                    {name: "xor", arity: 2, elementwise: true, commutative: true},
}

var opcodeByName = func() map[string]Opcode {
	m := make(map[string]Opcode, numOpcodes)
	for op := OpInvalid + 1; op < numOpcodes; op++ {
		m[opcodeTable[op].name] = op
	}
	return m
}()

// Opcodes lists every valid opcode, in table order.
func Opcodes() []Opcode {
	ops := make([]Opcode, 0, numOpcodes-1)
	for op := OpInvalid + 1; op < numOpcodes; op++ {
		ops = append(ops, op)
	}
	return ops
}

// ParseOpcode returns the opcode printed as name in HLO text ("add", "dot",
// "reduce-window").
func ParseOpcode(name string) (Opcode, bool) {
	op, ok := opcodeByName[name]
	return op, ok
}

// String returns the opcode's name as HLO text prints it.
func (op Opcode) String() string {
	if op < numOpcodes {
		return opcodeTable[op].name
	}
	return "invalid"
}

// Arity is the number of operands the opcode takes, or Variadic.
func (op Opcode) Arity() int { return opcodeTable[op].arity }

// IsElementwise reports whether each output element depends only on the
// operand elements at the same index.
func (op Opcode) IsElementwise() bool { return opcodeTable[op].elementwise }

// IsCommutative reports whether the binary op's operands may be swapped.
func (op Opcode) IsCommutative() bool { return opcodeTable[op].commutative }

// HasSideEffect reports whether the op communicates with the outside (I/O,
// collectives, random state, custom calls) and so must be kept and ordered.
func (op Opcode) HasSideEffect() bool { return opcodeTable[op].sideEffect }

// IsAsync reports whether the op is half of an async pair (`*-start`/`*-done`,
// `copy-start`/`copy-done`): Kiln parses and prints these but does not run them.
func (op Opcode) IsAsync() bool { return opcodeTable[op].async }

// TakesResultAccuracy reports whether the op is one of the transcendental
// unary ops whose result_accuracy attribute XLA accepts.
func (op Opcode) TakesResultAccuracy() bool { return opcodeTable[op].accuracy }

// IsElementwiseUnary reports whether op is an elementwise op of one operand.
func (op Opcode) IsElementwiseUnary() bool { return op.IsElementwise() && op.Arity() == 1 }

// IsElementwiseBinary reports whether op is an elementwise op of two operands.
func (op Opcode) IsElementwiseBinary() bool { return op.IsElementwise() && op.Arity() == 2 }
