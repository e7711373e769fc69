package ir

// Instruction is one HLO instruction: an opcode applied to operands, producing
// a value of Shape. Attributes that only some opcodes use are typed fields of
// the embedded Attrs; which ones an opcode uses is documented on each field.
type Instruction struct {
	Name     string
	Opcode   Opcode
	Shape    Shape
	Operands []*Instruction
	Parent   *Computation

	// Called computations, by role.
	ToApply            *Computation   // reduce, reduce-window, map, scatter, sort (comparator), call, scan, all-reduce, reduce-scatter
	Condition, Body    *Computation   // while
	Branches           []*Computation // conditional: [true, false] for a PRED selector, else branch_computations
	Select, Scatter    *Computation   // select-and-scatter
	Calls              *Computation   // fusion, async-start (printed calls=)
	CalledComputations []*Computation // custom-call (printed called_computations={…})

	// ControlPredecessors are instructions that must run before this one
	// though it does not read them (printed control-predecessors={…}).
	ControlPredecessors []*Instruction

	Attrs

	// Raw holds the attributes Kiln does not interpret, in the order written.
	Raw []RawAttribute
}

// Attrs are the typed attributes of an instruction. A field is meaningful
// only for the opcodes its comment names; the zero value means "absent".
type Attrs struct {
	Literal       *Literal // constant (nil with LiteralElided for `constant({...})`)
	LiteralElided bool     // constant printed as `{...}`: the value must be supplied elsewhere
	// LiteralSingle is set on a constant written as one value for an array
	// (`f32[4096,4096] constant(0)`): its literal holds that value at index
	// 0 and zeros elsewhere, and it prints back in that form while it does.
	LiteralSingle bool

	ParameterNumber int // parameter
	TupleIndex      int // get-tuple-element: index=

	// Dimensions is `dimensions={…}`: broadcast (operand → output dims),
	// reduce, transpose (permutation), reverse, concatenate (one dim), sort
	// (one dim), map, all-gather/reduce-scatter/all-to-all (one dim),
	// get-dimension-size/set-dimension-size (one dim), scan (one dim), topk
	// (unused).
	Dimensions []int

	IotaDimension int // iota

	Slice             []SliceDim   // slice
	DynamicSliceSizes []int        // dynamic-slice
	Padding           []PaddingDim // pad

	Window            *Window               // reduce-window, select-and-scatter, convolution
	ConvDims          *ConvDimensionNumbers // convolution
	FeatureGroupCount int                   // convolution (0 or 1: none)
	BatchGroupCount   int                   // convolution (0 or 1: none)

	DotDims *DotDimensionNumbers // dot, ragged-dot, scaled-dot

	LhsRaggedDims []int // ragged-dot: lhs_ragged_dims= (one dimension)
	RhsGroupDims  []int // ragged-dot: rhs_group_dims= (none or one dimension)

	NumCarries    int  // scan: num_carries= (the last NumCarries operands are the carries)
	IsReverse     bool // scan: is_reverse=
	IsAssociative bool // scan: is_associative=

	GatherDims       *GatherDimensionNumbers  // gather
	GatherSliceSizes []int                    // gather: slice_sizes=
	ScatterDims      *ScatterDimensionNumbers // scatter
	IndicesAreSorted bool                     // gather, scatter
	UniqueIndices    bool                     // scatter

	Direction   ComparisonDirection // compare
	CompareType ComparisonType      // compare (CmpTypeDefault when not written)

	Distribution RandomDistribution // rng
	RngAlgorithm RandomAlgorithm    // rng-bit-generator

	FFTType   FFTType // fft
	FFTLength []int   // fft

	ReplicaGroups      *ReplicaGroups // collectives
	ChannelID          int64          // collectives, send/recv (0: none, unless HasChannelID)
	HasChannelID       bool           // channel_id=0 was written (XLA keeps a channel id of 0)
	UseGlobalDeviceIDs bool           // collectives
	ConstrainLayout    bool           // collectives
	SourceTargetPairs  [][2]int       // collective-permute
	IsHostTransfer     bool           // send/recv

	IsStable bool // sort, topk
	K        int  // topk
	Largest  bool // topk (XLA's default is true; the parser sets it)

	ExponentBits int // reduce-precision
	MantissaBits int // reduce-precision

	Epsilon      float32 // batch-norm-*
	FeatureIndex int     // batch-norm-*

	TriangularSolve *TriangularSolveOptions // triangular-solve
	Lower           bool                    // cholesky

	FusionKind FusionKind // fusion

	CustomCallTarget     string  // custom-call
	BackendConfig        string  // custom-call and others: backend_config= (kept verbatim, quotes included)
	HasSideEffect        bool    // custom-call: custom_call_has_side_effect=
	APIVersion           string  // custom-call: api_version=
	OperandLayouts       []Shape // custom-call: operand_layout_constraints=
	InfeedConfig         string  // infeed
	OutfeedConfig        string  // outfeed
	OutfeedShape         *Shape  // outfeed: outfeed_shape=
	IsComposite          bool    // call: is_composite=true (a CompositeCall)
	AsyncExecutionThread string  // async-start: async_execution_thread=

	// AsyncWrapped is set on async-start/-update/-done written in XLA's
	// shorthand form (`custom-call-start`, `fusion-done`): the wrapped op,
	// whose attributes and called computations the instruction carries itself.
	AsyncWrapped Opcode
}

// Operand returns operand i.
func (in *Instruction) Operand(i int) *Instruction { return in.Operands[i] }

// NumOperands is the number of operands.
func (in *Instruction) NumOperands() int { return len(in.Operands) }

// Called returns every computation the instruction calls, in a fixed order
// (to_apply, condition, body, branches, select, scatter, calls, called_computations).
func (in *Instruction) Called() []*Computation {
	var cs []*Computation
	add := func(c *Computation) {
		if c != nil {
			cs = append(cs, c)
		}
	}
	add(in.ToApply)
	add(in.Condition)
	add(in.Body)
	for _, c := range in.Branches {
		add(c)
	}
	add(in.Select)
	add(in.Scatter)
	add(in.Calls)
	for _, c := range in.CalledComputations {
		add(c)
	}
	return cs
}

// RawAttr returns the value of the uninterpreted attribute name.
func (in *Instruction) RawAttr(name string) (string, bool) {
	for _, a := range in.Raw {
		if a.Name == name {
			return a.Value, true
		}
	}
	return "", false
}

// IsRoot reports whether in is the root of its computation.
func (in *Instruction) IsRoot() bool { return in.Parent != nil && in.Parent.Root == in }
