package ir

import (
	"sort"
	"strconv"
	"strings"
)

// This file prints modules, computations and instructions as HLO text in
// the style of XLA's HloModule::ToString with default HloPrintOptions:
// `%`-prefixed names, operand shapes, computation signatures, constants in
// full, attributes in XLA's order and spelling, `/*index=N*/` before every
// fifth tuple element and operand. The parser reads this style and XLA's
// newer one (no `%`, no operand shapes, no signatures) alike.
//
// Printing a parsed module gives the input back modulo whitespace, except
// for these normalisations, each of which XLA's own parse-and-print makes:
//   - names print with `%`, operands with their shapes, and each computation
//     with its signature (recomputed from its parameters and root) — unless
//     PrintOptions.Short asks for XLA's ShortParsable form;
//   - an array shape written without a layout prints with the default one
//     (XLA's parser fills it in), a scalar's empty layout `{}` and a token's
//     layout are dropped;
//   - computations print callees first (the text may define them later), a
//     computation written inline as an attribute value prints as its own
//     computation named `_`, `_.1`, …; nested instructions print as
//     instructions of their own (named `<opcode>.anon`), and `%t#1` as the
//     get-tuple-element `t_1` it names;
//   - a missing ROOT is written on the last instruction, a missing ENTRY on
//     the last computation, a missing HloModule line as `HloModule
//     module_<entry>`, a missing entry_computation_layout as the entry's
//     signature with default layouts; is_scheduled comes first on the
//     HloModule line, then entry_computation_layout, then the rest as written;
//   - attributes print in XLA's order, the ones Kiln keeps verbatim as
//     written;
//   - attributes at their default are dropped (`is_stable=false` except on
//     topk, `feature_group_count=1`, `replica_groups={}` on ops that are not
//     collectives, `type=` equal to the operands' default comparison type),
//     and slice strides, pad interiors and window fields print for every
//     dimension when one dimension needs them;
//   - layout attributes print in XLA's order (D, T, L, #, *, E, S, SC, P, M);
//   - constants print in the literal text format (`{{1, 2}, {3, 4}}`, floats
//     as XLA's RoundTripFpToString writes them, arrays of rank above 3 with
//     XLA's `/*i0=1*/` notes); a single value given for an array prints
//     back as written (XLA's parser reads it as that value at index 0 and
//     zeros elsewhere, and so does Kiln's) while the literal still is that.

// PrintOptions choose the form HLO text is printed in, as XLA's
// HloPrintOptions do. The zero value is XLA's default form.
type PrintOptions struct {
	// Short selects XLA's ShortParsable form: names without '%', operands
	// without their shapes or /*index=N*/ notes, computations without
	// signatures, and no metadata, backend_config or control-predecessors.
	// The text still parses.
	Short bool

	// defaultLayouts writes arrays that have no layout with the default
	// one, as XLA prints a parsed module (its parser fills them in). Module
	// printing sets it; Instruction.String prints shapes as they are.
	defaultLayouts bool
}

// writeShape writes sh as the options ask: with layouts, and with the
// default one where sh has none when o.defaultLayouts.
func (o PrintOptions) writeShape(b *strings.Builder, sh Shape) {
	if o.defaultLayouts {
		sh = withDefaultLayouts(sh)
	}
	writeShape(b, sh, true)
}

// String prints the module as HLO text: the `HloModule` line with its
// entry_computation_layout, then every computation (callees first, the entry
// marked ENTRY), separated by blank lines.
func (m *Module) String() string { return m.Print(PrintOptions{}) }

// Print prints the module as String does, in the form opts selects.
func (m *Module) Print(opts PrintOptions) string {
	opts.defaultLayouts = true
	var b strings.Builder
	b.WriteString("HloModule ")
	b.WriteString(m.Name)
	var rest []RawAttribute
	for _, a := range m.Attributes {
		if a.Name == "is_scheduled" {
			b.WriteString(", is_scheduled=")
			b.WriteString(a.Value)
		} else {
			rest = append(rest, a)
		}
	}
	if ecl, ok := m.entryComputationLayout(); ok {
		b.WriteString(", entry_computation_layout={")
		b.WriteString(programShapeLayoutText(ecl))
		b.WriteByte('}')
	}
	for _, a := range rest {
		b.WriteString(", ")
		b.WriteString(a.Name)
		b.WriteByte('=')
		b.WriteString(a.Value)
	}
	b.WriteString("\n")
	if m.StackFrames != nil {
		b.WriteString("\n")
		b.WriteString(m.StackFrames.String())
		b.WriteString("\n")
	}
	for _, c := range m.Computations {
		b.WriteString("\n")
		if c == m.Entry {
			b.WriteString("ENTRY ")
		}
		writeComputation(&b, c, opts)
		b.WriteString("\n")
	}
	return b.String()
}

// entryComputationLayout is the module's entry_computation_layout, or when
// none was given, the entry's signature with default layouts.
func (m *Module) entryComputationLayout() (ProgramShape, bool) {
	if m.EntryLayout != nil {
		return *m.EntryLayout, true
	}
	if m.Entry == nil {
		return ProgramShape{}, false
	}
	var ps ProgramShape
	for _, p := range m.Entry.Parameters {
		if p == nil {
			return ProgramShape{}, false
		}
		ps.Parameters = append(ps.Parameters, withDefaultLayouts(p.Shape))
	}
	if m.Entry.Root == nil {
		return ProgramShape{}, false
	}
	ps.Result = withDefaultLayouts(m.Entry.Root.Shape)
	return ps, true
}

// withDefaultLayouts gives every array in sh without a layout the default one.
func withDefaultLayouts(sh Shape) Shape {
	if !lacksLayout(sh) {
		return sh
	}
	c := sh.Clone()
	var fill func(s *Shape)
	fill = func(s *Shape) {
		switch {
		case s.IsTuple() || s.IsBuffer():
			for i := range s.Tuple {
				fill(&s.Tuple[i])
			}
		case s.IsArray() && s.Layout == nil && len(s.Dims) > 0:
			s.Layout = MakeLayout(DefaultMinorToMajor(len(s.Dims))...)
		}
	}
	fill(&c)
	return c
}

// lacksLayout reports whether an array of rank 1 or more in sh has no layout.
func lacksLayout(sh Shape) bool {
	if sh.IsTuple() || sh.IsBuffer() {
		for _, e := range sh.Tuple {
			if lacksLayout(e) {
				return true
			}
		}
		return false
	}
	return sh.IsArray() && sh.Layout == nil && len(sh.Dims) > 0
}

// programShapeLayoutText prints `(f32[2]{0}, s32[])->f32[2]{0}` as XLA's
// ComputationLayout does.
func programShapeLayoutText(ps ProgramShape) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, p := range ps.Parameters {
		if i > 0 {
			b.WriteString(", ")
			if i%5 == 0 {
				b.WriteString("/*index=" + strconv.Itoa(i) + "*/")
			}
		}
		writeShape(&b, p, true)
	}
	b.WriteString(")->")
	writeShape(&b, ps.Result, true)
	return b.String()
}

// String prints the computation as HLO text: its signature, then its
// instructions one per line with the root marked ROOT.
func (c *Computation) String() string {
	var b strings.Builder
	writeComputation(&b, c, PrintOptions{})
	b.WriteByte('\n')
	return b.String()
}

func writeComputation(b *strings.Builder, c *Computation, opts PrintOptions) {
	if opts.Short {
		b.WriteString(c.Name)
		b.WriteString(" {\n")
		writeInstructions(b, c, opts)
		return
	}
	b.WriteByte('%')
	b.WriteString(c.Name)
	b.WriteString(" (")
	for i, p := range c.Parameters {
		if i > 0 {
			b.WriteString(", ")
		}
		if p == nil {
			b.WriteString("(unknown): ")
			continue
		}
		b.WriteString(p.Name)
		b.WriteString(": ")
		writeShape(b, p.Shape, false)
	}
	b.WriteString(") -> ")
	if c.Root != nil {
		writeShape(b, c.Root.Shape, false)
	}
	b.WriteString(" {\n")
	writeInstructions(b, c, opts)
}

// writeInstructions writes a computation's instructions, its closing brace
// and execution thread.
func writeInstructions(b *strings.Builder, c *Computation, opts PrintOptions) {
	for _, in := range c.Instructions {
		b.WriteString("  ")
		if in == c.Root {
			b.WriteString("ROOT ")
		}
		writeInstruction(b, in, opts)
		b.WriteByte('\n')
	}
	b.WriteByte('}')
	if c.ExecutionThread != "" {
		b.WriteString(`, execution_thread="`)
		b.WriteString(cEscape(c.ExecutionThread))
		b.WriteByte('"')
	}
}

// String prints the instruction as one line of HLO text:
// `%name = f32[2]{0} add(f32[2]{0} %a, f32[2]{0} %b), attributes…`.
func (in *Instruction) String() string {
	var b strings.Builder
	writeInstruction(&b, in, PrintOptions{})
	return b.String()
}

func writeInstruction(b *strings.Builder, in *Instruction, opts PrintOptions) {
	if !opts.Short {
		b.WriteByte('%')
	}
	b.WriteString(in.Name)
	b.WriteString(" = ")
	opts.writeShape(b, in.Shape)
	b.WriteByte(' ')
	b.WriteString(printedOpcode(in))
	b.WriteByte('(')
	switch in.Opcode {
	case OpParameter:
		b.WriteString(strconv.Itoa(in.ParameterNumber))
	case OpConstant:
		switch {
		case in.Literal == nil || in.LiteralElided:
			b.WriteString("{...}")
		case in.LiteralSingle && singleValueLiteral(in.Literal):
			var e strings.Builder
			in.Literal.writeElement(&e, 0)
			b.WriteString(e.String())
		default:
			b.WriteString(in.Literal.hloValueString())
		}
	default:
		for i, op := range in.Operands {
			if i > 0 {
				b.WriteString(", ")
				if i%5 == 0 && !opts.Short {
					b.WriteString("/*index=" + strconv.Itoa(i) + "*/")
				}
			}
			if op == nil {
				b.WriteString("%<nil>")
				continue
			}
			if !opts.Short {
				opts.writeShape(b, op.Shape)
				b.WriteString(" %")
			}
			b.WriteString(op.Name)
		}
	}
	b.WriteByte(')')
	for _, a := range instructionAttributes(in, opts) {
		b.WriteString(", ")
		b.WriteString(a)
	}
}

// printedOpcode is the opcode as written: XLA's shorthand `custom-call-start`
// for async ops that carry their wrapped op.
func printedOpcode(in *Instruction) string {
	if in.AsyncWrapped != OpInvalid {
		switch in.Opcode {
		case OpAsyncStart:
			return in.AsyncWrapped.String() + "-start"
		case OpAsyncUpdate:
			return in.AsyncWrapped.String() + "-update"
		case OpAsyncDone:
			return in.AsyncWrapped.String() + "-done"
		}
	}
	return in.Opcode.String()
}

// singleValueLiteral reports whether an array literal holds a value at
// index 0 and zero bytes everywhere else: the literal a constant written as
// one value stands for.
func singleValueLiteral(l *Literal) bool {
	if !l.shape.IsArray() || l.shape.Rank() == 0 || l.ElementCount() == 0 {
		return false
	}
	for _, c := range l.data[l.shape.Elem.ByteSize():] {
		if c != 0 {
			return false
		}
	}
	return true
}

// effectiveOpcode is the op whose attributes the instruction carries: the
// wrapped op of a shorthand async op, else its own.
func effectiveOpcode(in *Instruction) Opcode {
	if in.AsyncWrapped != OpInvalid {
		return in.AsyncWrapped
	}
	return in.Opcode
}

// Attribute slots: the position of each attribute in XLA's printed order
// (HloInstruction::PrintExtraAttributes and the subclasses' Impl methods,
// then called computations, sharding and friends, metadata,
// backend_config). Attributes print sorted by slot.
const (
	slotAsyncThread = 5 + iota
	slotIndex
	slotIotaDimension
	slotSlice
	slotDynamicSliceSizes
	slotPadding
	slotExponentBits
	slotMantissaBits
	slotEpsilon
	slotFeatureIndex
	slotFFTType
	slotFFTLength
	slotDistribution
	slotRngAlgorithm
	slotDirection
	slotCompareType
	slotChannelID
	slotReplicaGroups
	slotConstrainLayout
	slotDimensions
	slotNumCarries
	slotIsReverse
	slotIsAssociative
	slotIsStable
	slotUseGlobalDeviceIDs
	slotDimensionsAfterGlobal // reduce-scatter prints dimensions last
	slotSourceTargetPairs
	slotIsHostTransfer
	slotK
	slotLargest
	slotTopKIsStable
	slotWindow
	slotDimLabels
	slotFeatureGroupCount
	slotBatchGroupCount
	slotConvKind
	slotDotDims
	slotRaggedDims
	slotPrecision
	slotDotAlgorithm
	slotPaddingType
	slotCustomCallTarget
	slotCustomCallLiteral
	slotOperandLayouts
	slotHasSideEffect
	slotCustomCallAliasing
	slotSchedule
	slotAPIVersion
	slotGatherDims
	slotScatterDims
	slotGatherSliceSizes
	slotIndicesAreSorted
	slotUniqueIndices
	slotTriangularSolve
	slotLower
	slotFusionKind
	slotFusionAliasing
	slotInfeedConfig
	slotOutfeedShape
	slotOutfeedConfig
	slotOtherImpl // attributes Kiln does not know, by default
	slotCondition
	slotBody
	slotSelect
	slotScatter
	slotBranches
	slotToApply
	slotIsComposite
	slotCalledComputations
	slotCalls
	slotSharding
	slotFrontendAttributes
	slotControlPredecessors
	slotStatistics
	slotMetadata
	slotBackendConfig
	slotOrigin
)

// rawSlot is the slot of an uninterpreted attribute XLA knows, or -1.
func rawSlot(name string, op Opcode) int {
	switch name {
	case "operand_precision":
		return slotPrecision
	case "algorithm", "sparsity":
		return slotDotAlgorithm
	case "padding_type":
		return slotPaddingType
	case "output_to_operand_aliasing":
		if op == OpFusion {
			return slotFusionAliasing
		}
		return slotCustomCallAliasing
	case "schedule":
		return slotSchedule
	case "sharding":
		return slotSharding
	case "frontend_attributes":
		return slotFrontendAttributes
	case "statistics":
		return slotStatistics
	case "metadata":
		return slotMetadata
	case "origin":
		return slotOrigin
	case "conv_kind":
		return slotConvKind
	case "order":
		return slotCompareType
	case "literal":
		return slotCustomCallLiteral
	case "parameter_replication", "result_accuracy", "domain", "cross_program_prefetch_index",
		"inferred_dimension", "delta", "slice_sizes", "mode", "has_dynamic_root":
		return slotOtherImpl
	case "sparsity_config":
		return slotDotAlgorithm
	}
	return -1
}

// opcodesWithDimensions print `dimensions={…}` even when empty.
var opcodesWithDimensions = map[Opcode]bool{
	OpBroadcast: true, OpReduce: true, OpTranspose: true, OpReverse: true, OpConcatenate: true,
	OpSort: true, OpMap: true, OpGetDimensionSize: true, OpSetDimensionSize: true,
	OpAllGather: true, OpAllGatherStart: true, OpReduceScatter: true, OpScan: true,
}

// collectiveOpcodes print `replica_groups={}` even when no groups are given.
var collectiveOpcodes = map[Opcode]bool{
	OpAllReduce: true, OpAllReduceStart: true, OpAllGather: true, OpAllGatherStart: true,
	OpReduceScatter: true, OpAllToAll: true, OpCollectiveBroadcast: true, OpRaggedAllToAll: true,
}

type slottedAttr struct {
	slot int
	text string
}

// instructionAttributes returns the instruction's attributes as `name=value`
// strings in XLA's order.
func instructionAttributes(in *Instruction, opts PrintOptions) []string {
	op := effectiveOpcode(in)
	// Attributes XLA prints even at their default value are printed for the
	// op itself and for a shorthand -start, which carries the wrapped op's
	// attributes; a shorthand -update or -done prints only what it has.
	always := op
	if in.Opcode == OpAsyncUpdate || in.Opcode == OpAsyncDone {
		always = in.Opcode
	}
	var attrs []slottedAttr
	add := func(slot int, text string) { attrs = append(attrs, slottedAttr{slot, text}) }
	a := &in.Attrs

	if a.AsyncExecutionThread != "" {
		add(slotAsyncThread, `async_execution_thread="`+cEscape(a.AsyncExecutionThread)+`"`)
	}
	if always == OpGetTupleElement || a.TupleIndex != 0 {
		add(slotIndex, "index="+strconv.Itoa(a.TupleIndex))
	}
	if always == OpIota || a.IotaDimension != 0 {
		add(slotIotaDimension, "iota_dimension="+strconv.Itoa(a.IotaDimension))
	}
	if always == OpSlice || a.Slice != nil {
		add(slotSlice, "slice="+SliceString(a.Slice))
	}
	if always == OpDynamicSlice || a.DynamicSliceSizes != nil {
		add(slotDynamicSliceSizes, "dynamic_slice_sizes="+hloIntList(a.DynamicSliceSizes))
	}
	if always == OpPad || a.Padding != nil {
		add(slotPadding, "padding="+PaddingString(a.Padding))
	}
	if always == OpReducePrecision || a.ExponentBits != 0 || a.MantissaBits != 0 {
		add(slotExponentBits, "exponent_bits="+strconv.Itoa(a.ExponentBits))
		add(slotMantissaBits, "mantissa_bits="+strconv.Itoa(a.MantissaBits))
	}
	if always == OpBatchNormGrad || always == OpBatchNormInference || always == OpBatchNormTraining ||
		a.Epsilon != 0 || a.FeatureIndex != 0 {
		add(slotEpsilon, "epsilon="+strconv.FormatFloat(float64(a.Epsilon), 'g', -1, 32))
		add(slotFeatureIndex, "feature_index="+strconv.Itoa(a.FeatureIndex))
	}
	if always == OpFft || a.FFTType != FFT {
		add(slotFFTType, "fft_type="+a.FFTType.String())
	}
	if always == OpFft || a.FFTLength != nil {
		add(slotFFTLength, "fft_length="+hloIntList(a.FFTLength))
	}
	if always == OpRng || a.Distribution != RngInvalid {
		add(slotDistribution, "distribution="+a.Distribution.String())
	}
	if always == OpRngBitGenerator || a.RngAlgorithm != RngDefault {
		add(slotRngAlgorithm, "algorithm="+a.RngAlgorithm.String())
	}
	if always == OpCompare || a.Direction != CmpInvalid {
		add(slotDirection, "direction="+a.Direction.String())
	}
	if _, order := in.RawAttr("order"); a.CompareType != CmpTypeDefault && !isDefaultCompareType(in) && !order {
		add(slotCompareType, "type="+a.CompareType.String())
	}
	if a.ChannelID != 0 || a.HasChannelID {
		add(slotChannelID, "channel_id="+strconv.FormatInt(a.ChannelID, 10))
	}
	if a.ReplicaGroups != nil {
		add(slotReplicaGroups, "replica_groups="+a.ReplicaGroups.String())
	} else if collectiveOpcodes[always] {
		add(slotReplicaGroups, "replica_groups={}")
	}
	if a.ConstrainLayout {
		add(slotConstrainLayout, "constrain_layout=true")
	}
	if opcodesWithDimensions[always] || a.Dimensions != nil {
		slot := slotDimensions
		if op == OpReduceScatter {
			slot = slotDimensionsAfterGlobal
		}
		add(slot, "dimensions="+hloIntList(a.Dimensions))
	}
	if always == OpScan || a.NumCarries != 0 {
		add(slotNumCarries, "num_carries="+strconv.Itoa(a.NumCarries))
	}
	if a.IsReverse {
		add(slotIsReverse, "is_reverse=true")
	}
	if a.IsAssociative {
		add(slotIsAssociative, "is_associative=true")
	}
	switch {
	case always == OpTopK:
		add(slotTopKIsStable, "is_stable="+strconv.FormatBool(a.IsStable))
	case a.IsStable:
		add(slotIsStable, "is_stable=true")
	}
	if a.UseGlobalDeviceIDs {
		add(slotUseGlobalDeviceIDs, "use_global_device_ids=true")
	}
	if a.SourceTargetPairs != nil {
		var b strings.Builder
		b.WriteByte('{')
		for i, p := range a.SourceTargetPairs {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(hloIntList(p[:]))
		}
		b.WriteByte('}')
		add(slotSourceTargetPairs, "source_target_pairs="+b.String())
	}
	if a.IsHostTransfer {
		add(slotIsHostTransfer, "is_host_transfer=true")
	}
	if always == OpTopK || a.K != 0 {
		add(slotK, "k="+strconv.Itoa(a.K))
	}
	if always == OpTopK || a.Largest {
		add(slotLargest, "largest="+strconv.FormatBool(a.Largest))
	}
	if a.Window != nil {
		add(slotWindow, "window={"+a.Window.String()+"}")
	}
	if a.ConvDims != nil {
		add(slotDimLabels, "dim_labels="+a.ConvDims.String())
	}
	if a.FeatureGroupCount > 1 {
		add(slotFeatureGroupCount, "feature_group_count="+strconv.Itoa(a.FeatureGroupCount))
	}
	if a.BatchGroupCount > 1 {
		add(slotBatchGroupCount, "batch_group_count="+strconv.Itoa(a.BatchGroupCount))
	}
	if a.DotDims != nil {
		add(slotDotDims, a.DotDims.String())
	} else if always == OpDot || always == OpRaggedDot || always == OpScaledDot {
		add(slotDotDims, DotDimensionNumbers{}.String())
	}
	if a.LhsRaggedDims != nil {
		add(slotRaggedDims, "lhs_ragged_dims="+hloIntList(a.LhsRaggedDims))
	}
	if len(a.RhsGroupDims) > 0 {
		add(slotRaggedDims, "rhs_group_dims="+hloIntList(a.RhsGroupDims))
	}
	if always == OpCustomCall || a.CustomCallTarget != "" {
		add(slotCustomCallTarget, `custom_call_target="`+cEscape(a.CustomCallTarget)+`"`)
	}
	if a.OperandLayouts != nil {
		var b strings.Builder
		b.WriteString("operand_layout_constraints={")
		for i, s := range a.OperandLayouts {
			if i > 0 {
				b.WriteString(", ")
			}
			opts.writeShape(&b, s)
		}
		b.WriteByte('}')
		add(slotOperandLayouts, b.String())
	}
	if a.HasSideEffect {
		add(slotHasSideEffect, "custom_call_has_side_effect=true")
	}
	if a.APIVersion != "" {
		add(slotAPIVersion, "api_version="+a.APIVersion)
	}
	if a.GatherDims != nil {
		add(slotGatherDims, a.GatherDims.String())
	}
	if a.ScatterDims != nil {
		add(slotScatterDims, a.ScatterDims.String())
	}
	if always == OpGather || a.GatherSliceSizes != nil {
		add(slotGatherSliceSizes, "slice_sizes="+hloIntList(a.GatherSliceSizes))
	}
	if a.IndicesAreSorted {
		add(slotIndicesAreSorted, "indices_are_sorted=true")
	}
	if a.UniqueIndices {
		add(slotUniqueIndices, "unique_indices=true")
	}
	if t := a.TriangularSolve; t != nil {
		var parts []string
		if t.LeftSide {
			parts = append(parts, "left_side=true")
		}
		if t.Lower {
			parts = append(parts, "lower=true")
		}
		if t.UnitDiagonal {
			parts = append(parts, "unit_diagonal=true")
		}
		parts = append(parts, "transpose_a="+t.TransposeA.String())
		add(slotTriangularSolve, strings.Join(parts, ", "))
	}
	if a.Lower {
		add(slotLower, "lower=true")
	}
	if always == OpFusion {
		add(slotFusionKind, "kind="+a.FusionKind.String())
	}
	if a.InfeedConfig != "" {
		add(slotInfeedConfig, `infeed_config="`+cEscape(a.InfeedConfig)+`"`)
	}
	if a.OutfeedShape != nil {
		var b strings.Builder
		opts.writeShape(&b, *a.OutfeedShape)
		add(slotOutfeedShape, "outfeed_shape="+b.String())
	}
	if a.OutfeedConfig != "" {
		add(slotOutfeedConfig, `outfeed_config="`+cEscape(a.OutfeedConfig)+`"`)
	}

	pct := "%"
	if opts.Short {
		pct = ""
	}
	cname := func(c *Computation) string {
		if c == nil {
			return pct + "<nil>"
		}
		return pct + c.Name
	}
	clist := func(cs []*Computation) string {
		var b strings.Builder
		b.WriteByte('{')
		for i, c := range cs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(cname(c))
		}
		b.WriteByte('}')
		return b.String()
	}
	if in.Condition != nil {
		add(slotCondition, "condition="+cname(in.Condition))
	}
	if in.Body != nil {
		add(slotBody, "body="+cname(in.Body))
	}
	if in.Select != nil {
		add(slotSelect, "select="+cname(in.Select))
	}
	if in.Scatter != nil {
		add(slotScatter, "scatter="+cname(in.Scatter))
	}
	if in.Branches != nil {
		predicated := len(in.Branches) == 2 && len(in.Operands) > 0 && in.Operands[0] != nil &&
			in.Operands[0].Shape.Elem == PRED
		if predicated {
			add(slotBranches, "true_computation="+cname(in.Branches[0])+
				", false_computation="+cname(in.Branches[1]))
		} else {
			add(slotBranches, "branch_computations="+clist(in.Branches))
		}
	}
	if in.ToApply != nil {
		add(slotToApply, "to_apply="+cname(in.ToApply))
	}
	if a.IsComposite {
		add(slotIsComposite, "is_composite=true")
	}
	if in.CalledComputations != nil {
		add(slotCalledComputations, "called_computations="+clist(in.CalledComputations))
	}
	if in.Calls != nil {
		add(slotCalls, "calls="+cname(in.Calls))
	}
	if in.ControlPredecessors != nil && !opts.Short {
		var b strings.Builder
		b.WriteString("control-predecessors={")
		for i, p := range in.ControlPredecessors {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('%')
			if p != nil {
				b.WriteString(p.Name)
			}
		}
		b.WriteByte('}')
		add(slotControlPredecessors, b.String())
	}
	if a.BackendConfig != "" && !opts.Short {
		add(slotBackendConfig, "backend_config="+a.BackendConfig)
	}

	// An attribute Kiln does not know keeps its place after the raw
	// attribute written before it.
	prev := slotOtherImpl
	for _, r := range in.Raw {
		if opts.Short && r.Name == "metadata" {
			continue
		}
		slot := rawSlot(r.Name, op)
		if slot < 0 {
			slot = prev
		}
		prev = slot
		add(slot, r.Name+"="+r.Value)
	}
	sort.SliceStable(attrs, func(i, j int) bool { return attrs[i].slot < attrs[j].slot })
	out := make([]string, len(attrs))
	for i, a := range attrs {
		out[i] = a.text
	}
	return out
}

// isDefaultCompareType reports whether a compare's type is the one XLA
// assumes for its operands' element type, which XLA does not print.
func isDefaultCompareType(in *Instruction) bool {
	if len(in.Operands) == 0 || in.Operands[0] == nil {
		return false
	}
	return in.CompareType == DefaultComparisonType(in.Operands[0].Shape.Elem)
}
