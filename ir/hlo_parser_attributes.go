package ir

import (
	"strings"
)

// This file reads the attributes after an instruction's operands. Which
// attributes an opcode takes, and which it requires, follow XLA's parser
// (HloParserImpl::CreateInstruction): an attribute the opcode does not take
// is refused, as XLA refuses it. The ones Kiln interprets go into Attrs and
// the called computations; the others are checked and kept verbatim in
// Instruction.Raw.

// sharedAttributes are the attributes every instruction may carry.
var sharedAttributes = []string{
	"sharding", "frontend_attributes", "statistics", "parameter_replication",
	"control-predecessors", "origin", "metadata", "backend_config",
}

// attributeSpec lists, for an opcode, the attributes it takes beyond the
// shared ones; required ones are marked with a leading '!'.
var attributeSpec = map[Opcode]string{
	OpIota:                   "!iota_dimension",
	OpTopK:                   "!k largest is_stable",
	OpAllGather:              "replica_groups channel_id !dimensions constrain_layout use_global_device_ids",
	OpAllGatherStart:         "replica_groups channel_id !dimensions constrain_layout use_global_device_ids",
	OpAllReduce:              "!to_apply replica_groups channel_id constrain_layout use_global_device_ids mode",
	OpAllReduceStart:         "!to_apply replica_groups channel_id constrain_layout use_global_device_ids mode",
	OpReduceScatter:          "!to_apply replica_groups channel_id constrain_layout use_global_device_ids mode !dimensions",
	OpCollectiveReduce:       "!to_apply replica_groups channel_id constrain_layout use_global_device_ids mode",
	OpAllToAll:               "replica_groups channel_id dimensions constrain_layout",
	OpRaggedAllToAll:         "replica_groups channel_id dimensions",
	OpCollectiveBroadcast:    "replica_groups channel_id has_dynamic_root",
	OpCollectivePermute:      "!source_target_pairs channel_id slice_sizes",
	OpCollectivePermuteStart: "!source_target_pairs channel_id slice_sizes",
	OpCopyStart:              "cross_program_prefetch_index",
	OpReshape:                "inferred_dimension",
	OpSort:                   "!dimensions is_stable !to_apply",
	OpWhile:                  "!condition !body",
	OpRecv:                   "channel_id is_host_transfer",
	OpRecvDone:               "channel_id is_host_transfer",
	OpSend:                   "channel_id is_host_transfer",
	OpSendDone:               "channel_id is_host_transfer",
	OpGetTupleElement:        "!index",
	OpCall:                   "!to_apply is_composite",
	OpReduceWindow:           "window !to_apply",
	OpConvolution:            "window !dim_labels feature_group_count batch_group_count conv_kind operand_precision algorithm sparsity_config",
	OpFft:                    "!fft_type !fft_length",
	OpTriangularSolve:        "left_side lower unit_diagonal transpose_a",
	OpCompare:                "!direction type order",
	OpCholesky:               "lower",
	OpBroadcast:              "!dimensions",
	OpConcatenate:            "!dimensions",
	OpMap:                    "!to_apply dimensions",
	OpScan:                   "!to_apply !dimensions !num_carries is_reverse is_associative",
	OpReduce:                 "!to_apply !dimensions",
	OpReverse:                "!dimensions",
	OpSelectAndScatter:       "!select !scatter window",
	OpSlice:                  "!slice",
	OpDynamicSlice:           "!dynamic_slice_sizes",
	OpTranspose:              "!dimensions",
	OpBatchNormTraining:      "!epsilon !feature_index",
	OpBatchNormInference:     "!epsilon !feature_index",
	OpBatchNormGrad:          "!epsilon !feature_index",
	OpPad:                    "!padding",
	OpFusion:                 "!calls !kind output_to_operand_aliasing",
	OpInfeed:                 "infeed_config",
	OpOutfeed:                "outfeed_config outfeed_shape",
	OpRng:                    "!distribution",
	OpRngGetAndUpdateState:   "!delta",
	OpRngBitGenerator:        "!algorithm",
	OpReducePrecision:        "!exponent_bits !mantissa_bits",
	OpCustomCall: "!custom_call_target window dim_labels feature_group_count batch_group_count " +
		"operand_layout_constraints custom_call_has_side_effect to_apply called_computations " +
		"output_to_operand_aliasing padding_type literal operand_precision schedule api_version",
	OpDot:              "lhs_contracting_dims rhs_contracting_dims lhs_batch_dims rhs_batch_dims operand_precision algorithm",
	OpRaggedDot:        "lhs_contracting_dims rhs_contracting_dims lhs_batch_dims rhs_batch_dims lhs_ragged_dims rhs_group_dims operand_precision",
	OpScaledDot:        "lhs_contracting_dims rhs_contracting_dims lhs_batch_dims rhs_batch_dims operand_precision algorithm",
	OpGather:           "!offset_dims !collapsed_slice_dims !start_index_map !index_vector_dim !slice_sizes indices_are_sorted operand_batching_dims start_indices_batching_dims",
	OpScatter:          "!update_window_dims !inserted_window_dims !scatter_dims_to_operand_dims !index_vector_dim !to_apply indices_are_sorted unique_indices input_batching_dims scatter_indices_batching_dims",
	OpDomain:           "!domain",
	OpGetDimensionSize: "!dimensions",
	OpSetDimensionSize: "!dimensions",
	OpConditional:      "",
	OpAsyncStart:       "async_execution_thread output_to_operand_aliasing !calls",
	OpAsyncUpdate:      "async_execution_thread output_to_operand_aliasing calls",
	OpAsyncDone:        "async_execution_thread calls",
}

// allowedAttributes returns, for an instruction, the attributes it takes
// (name → required). A shorthand async start (`fusion-start`) takes its
// wrapped op's attributes and the async ones; a shorthand update or done
// only the async ones. A conditional takes true_computation and
// false_computation when its selector is a PRED, branch_computations
// otherwise. A broadcast of a scalar may leave dimensions out.
func allowedAttributes(in *Instruction) map[string]bool {
	m := map[string]bool{}
	add := func(spec string) {
		for _, f := range strings.Fields(spec) {
			name, req := strings.CutPrefix(f, "!")
			m[name] = req
		}
	}
	for _, a := range sharedAttributes {
		m[a] = false
	}
	op := in.Opcode
	switch {
	case in.AsyncWrapped != OpInvalid && op == OpAsyncStart:
		add(attributeSpec[in.AsyncWrapped])
		if in.AsyncWrapped.TakesResultAccuracy() {
			m["result_accuracy"] = false
		}
		add("async_execution_thread output_to_operand_aliasing")
		if in.AsyncWrapped == OpConditional {
			addConditionalAttributes(in, m)
		}
	case in.AsyncWrapped != OpInvalid:
		add("async_execution_thread")
	default:
		add(attributeSpec[op])
	}
	if op.TakesResultAccuracy() {
		m["result_accuracy"] = false
	}
	if op == OpConditional {
		addConditionalAttributes(in, m)
	}
	if op == OpBroadcast && len(in.Operands) == 1 && in.Operands[0].Shape.IsScalar() {
		m["dimensions"] = false
	}
	return m
}

func addConditionalAttributes(in *Instruction, m map[string]bool) {
	if len(in.Operands) > 0 && in.Operands[0].Shape.Elem == PRED {
		m["true_computation"], m["false_computation"] = true, true
	} else {
		m["branch_computations"] = true
	}
}

// attributes reads the instruction's `, name=value` attributes (none for a
// nested instruction) and checks that every required one was given.
func (p *hloParser) attributes(in *Instruction, c *Computation, sc *instrScope, opName string, opPos int, withAttrs bool) error {
	s := &p.s
	allowed := allowedAttributes(in)
	seen := map[string]bool{}
	if in.Opcode == OpTopK || in.AsyncWrapped == OpTopK {
		in.Largest = true
	}
	for withAttrs && s.accept(',') {
		if err := p.attribute(in, c, sc, allowed, seen); err != nil {
			return err
		}
	}
	var missing []string
	for name, req := range allowed {
		if req && !seen[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		// Report them in a stable order: the order of the spec.
		first := missing[0]
		for _, n := range missing {
			if strings.Compare(n, first) < 0 {
				first = n
			}
		}
		return s.errorAt(opPos, "%s: attribute %s is expected but not seen", opName, first)
	}
	return nil
}

// attribute reads one `name=value` after an instruction's operands.
func (p *hloParser) attribute(in *Instruction, c *Computation, sc *instrScope, allowed, seen map[string]bool) error {
	s := &p.s
	s.skipSpace()
	pos := s.pos
	key := s.attributeName()
	if key == "" {
		return s.errorf("expected attribute name, found %s", s.found())
	}
	if seen[key] {
		return s.errorAt(pos, "attribute %s already exists", key)
	}
	if _, ok := allowed[key]; !ok {
		return s.errorAt(pos, "unexpected attribute %q for %s", key, printedOpcode(in))
	}
	seen[key] = true
	if err := s.expect('=', "after attribute "+key); err != nil {
		return err
	}
	s.skipSpace()
	valPos := s.pos
	op := effectiveOpcode(in)
	a := &in.Attrs
	var err error
	ints := func(dst *[]int) { *dst, err = s.ints(key) }
	intv := func(dst *int) { *dst, err = s.intValue(key) }
	boolv := func(dst *bool) { *dst, err = s.boolValue(key) }
	quoted := func(dst *string) { *dst, err = s.quoted(key) }
	gather := func() *GatherDimensionNumbers {
		if a.GatherDims == nil {
			a.GatherDims = &GatherDimensionNumbers{}
		}
		return a.GatherDims
	}
	scatter := func() *ScatterDimensionNumbers {
		if a.ScatterDims == nil {
			a.ScatterDims = &ScatterDimensionNumbers{}
		}
		return a.ScatterDims
	}
	dot := func() *DotDimensionNumbers {
		if a.DotDims == nil {
			a.DotDims = &DotDimensionNumbers{}
		}
		return a.DotDims
	}
	tri := func() *TriangularSolveOptions {
		if a.TriangularSolve == nil {
			a.TriangularSolve = &TriangularSolveOptions{}
		}
		return a.TriangularSolve
	}
	enum := func(what string, parse func(string) bool) {
		w := s.word()
		if !parse(w) {
			err = s.errorAt(valPos, "unknown %s %s", what, s.describeWord(w))
		}
	}
	comp := func(set func(*Computation)) {
		err = p.computationValue(c, set)
	}
	compList := func(what string, dst *[]*Computation) {
		if err = s.expect('{', "to open "+what); err != nil {
			return
		}
		*dst = []*Computation{}
		for !s.accept('}') {
			i := len(*dst)
			*dst = append(*dst, nil)
			if err = p.computationValue(c, func(cc *Computation) { (*dst)[i] = cc }); err != nil {
				return
			}
			if s.peek() != '}' {
				if err = s.expect(',', "in "+what); err != nil {
					return
				}
			}
		}
	}
	raw := func(check func() error) {
		if err = check(); err == nil {
			in.Raw = append(in.Raw, RawAttribute{Name: key, Value: strings.TrimSpace(s.src[valPos:s.pos])})
		}
	}

	switch {
	case key == "index":
		intv(&a.TupleIndex)
	case key == "iota_dimension":
		intv(&a.IotaDimension)
	case key == "dimensions":
		ints(&a.Dimensions)
	case key == "slice":
		a.Slice, err = s.sliceDims()
	case key == "dynamic_slice_sizes":
		ints(&a.DynamicSliceSizes)
	case key == "padding":
		a.Padding, err = s.padding()
	case key == "window":
		a.Window, err = s.window()
	case key == "dim_labels":
		var e error
		if a.ConvDims, e = parseDimLabels(s.word()); e != nil {
			err = s.errorAt(valPos, "%v", e)
		}
	case key == "feature_group_count":
		intv(&a.FeatureGroupCount)
	case key == "batch_group_count":
		intv(&a.BatchGroupCount)
	case key == "lhs_batch_dims":
		ints(&dot().LhsBatch)
	case key == "rhs_batch_dims":
		ints(&dot().RhsBatch)
	case key == "lhs_contracting_dims":
		ints(&dot().LhsContracting)
	case key == "rhs_contracting_dims":
		ints(&dot().RhsContracting)
	case key == "lhs_ragged_dims":
		ints(&a.LhsRaggedDims)
	case key == "rhs_group_dims":
		ints(&a.RhsGroupDims)
	case key == "num_carries":
		intv(&a.NumCarries)
	case key == "is_reverse":
		boolv(&a.IsReverse)
	case key == "is_associative":
		boolv(&a.IsAssociative)
	case key == "offset_dims":
		ints(&gather().OffsetDims)
	case key == "collapsed_slice_dims":
		ints(&gather().CollapsedSliceDims)
	case key == "start_index_map":
		ints(&gather().StartIndexMap)
	case key == "operand_batching_dims":
		ints(&gather().OperandBatchingDims)
	case key == "start_indices_batching_dims":
		ints(&gather().StartIndicesBatchingDims)
	case key == "slice_sizes" && op == OpGather:
		ints(&a.GatherSliceSizes)
	case key == "slice_sizes":
		raw(func() error { _, e := s.intListList("slice sizes"); return e })
	case key == "index_vector_dim" && op == OpScatter:
		intv(&scatter().IndexVectorDim)
	case key == "index_vector_dim":
		intv(&gather().IndexVectorDim)
	case key == "update_window_dims":
		ints(&scatter().UpdateWindowDims)
	case key == "inserted_window_dims":
		ints(&scatter().InsertedWindowDims)
	case key == "scatter_dims_to_operand_dims":
		ints(&scatter().ScatterDimsToOperandDims)
	case key == "input_batching_dims":
		ints(&scatter().InputBatchingDims)
	case key == "scatter_indices_batching_dims":
		ints(&scatter().ScatterIndicesBatchingDims)
	case key == "indices_are_sorted":
		boolv(&a.IndicesAreSorted)
	case key == "unique_indices":
		boolv(&a.UniqueIndices)
	case key == "direction":
		enum("comparison direction", func(w string) (ok bool) { a.Direction, ok = ParseComparisonDirection(w); return })
	case key == "type" && op == OpCompare:
		enum("comparison type", func(w string) (ok bool) { a.CompareType, ok = ParseComparisonType(w); return })
	case key == "order" && op == OpCompare:
		raw(func() error {
			return s.enumWord("comparison order", func(w string) bool { return w == "TOTAL" || w == "PARTIAL" })
		})
	case key == "distribution":
		enum("random distribution", func(w string) (ok bool) { a.Distribution, ok = ParseRandomDistribution(w); return })
	case key == "algorithm" && op == OpRngBitGenerator:
		enum("random algorithm", func(w string) (ok bool) { a.RngAlgorithm, ok = ParseRandomAlgorithm(w); return })
	case key == "algorithm":
		raw(func() error { return s.enumWord("dot algorithm", isDotAlgorithm) })
	case key == "fft_type":
		enum("fft_type", func(w string) (ok bool) { a.FFTType, ok = ParseFFTType(w); return })
	case key == "fft_length":
		ints(&a.FFTLength)
	case key == "replica_groups":
		a.ReplicaGroups, err = s.replicaGroups()
		if err == nil && a.ReplicaGroups.Iota == nil && len(a.ReplicaGroups.Groups) == 0 {
			a.ReplicaGroups = nil // `{}`: no groups, XLA's default
		}
	case key == "channel_id":
		a.ChannelID, err = s.int64Value(key)
		a.HasChannelID = a.ChannelID == 0
	case key == "use_global_device_ids":
		boolv(&a.UseGlobalDeviceIDs)
	case key == "constrain_layout":
		boolv(&a.ConstrainLayout)
	case key == "source_target_pairs":
		var pairs [][]int
		if pairs, err = s.intListList("source-target pair"); err == nil {
			a.SourceTargetPairs = make([][2]int, len(pairs))
			for i, pr := range pairs {
				if len(pr) != 2 {
					err = s.errorAt(valPos, "expects 'source_target_pairs=' to be a list of pairs: pair %d has %d entries", i, len(pr))
					break
				}
				a.SourceTargetPairs[i] = [2]int{pr[0], pr[1]}
			}
		}
	case key == "is_host_transfer":
		boolv(&a.IsHostTransfer)
	case key == "is_stable":
		boolv(&a.IsStable)
	case key == "k":
		intv(&a.K)
	case key == "largest":
		boolv(&a.Largest)
	case key == "exponent_bits":
		intv(&a.ExponentBits)
	case key == "mantissa_bits":
		intv(&a.MantissaBits)
	case key == "epsilon":
		var f float64
		if f, err = s.floatValue("epsilon"); err == nil {
			if f > 3.4028234663852886e38 || f < -3.4028234663852886e38 {
				err = s.errorAt(valPos, "epsilon %v is out of range for a float", f)
			}
			a.Epsilon = float32(f)
		}
	case key == "feature_index":
		intv(&a.FeatureIndex)
	case key == "left_side":
		boolv(&tri().LeftSide)
	case key == "unit_diagonal":
		boolv(&tri().UnitDiagonal)
	case key == "transpose_a":
		enum("transpose_a", func(w string) (ok bool) { tri().TransposeA, ok = ParseTransposeKind(w); return })
	case key == "lower" && op == OpTriangularSolve:
		boolv(&tri().Lower)
	case key == "lower":
		boolv(&a.Lower)
	case key == "kind":
		enum("fusion kind", func(w string) (ok bool) { a.FusionKind, ok = ParseFusionKind(w); return })
	case key == "custom_call_target":
		quoted(&a.CustomCallTarget)
	case key == "custom_call_has_side_effect":
		boolv(&a.HasSideEffect)
	case key == "api_version":
		a.APIVersion = s.word()
		switch a.APIVersion {
		case "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING", "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI":
		case "API_VERSION_UNSPECIFIED":
			err = s.errorAt(valPos, "invalid API version: API_VERSION_UNSPECIFIED")
		default:
			err = s.errorAt(valPos, "expects custom-call API version (API_VERSION_ORIGINAL, API_VERSION_STATUS_RETURNING, API_VERSION_STATUS_RETURNING_UNIFIED or API_VERSION_TYPED_FFI), found %s", s.describeWord(a.APIVersion))
		}
	case key == "operand_layout_constraints":
		if err = s.expect('{', "to open operand_layout_constraints"); err != nil {
			break
		}
		a.OperandLayouts = []Shape{}
		for !s.accept('}') {
			var sh Shape
			if sh, err = s.shape(0); err != nil {
				break
			}
			a.OperandLayouts = append(a.OperandLayouts, sh)
			if s.peek() != '}' {
				if err = s.expect(',', "in operand_layout_constraints"); err != nil {
					break
				}
			}
		}
	case key == "backend_config":
		a.BackendConfig, err = s.stringOrJSONDict(key)
	case key == "infeed_config":
		quoted(&a.InfeedConfig)
	case key == "outfeed_config":
		quoted(&a.OutfeedConfig)
	case key == "outfeed_shape":
		var sh Shape
		if sh, err = s.shape(0); err == nil {
			a.OutfeedShape = &sh
		}
	case key == "is_composite":
		boolv(&a.IsComposite)
	case key == "async_execution_thread":
		quoted(&a.AsyncExecutionThread)
	case key == "to_apply":
		comp(func(cc *Computation) { in.ToApply = cc })
	case key == "condition":
		comp(func(cc *Computation) { in.Condition = cc })
	case key == "body":
		comp(func(cc *Computation) { in.Body = cc })
	case key == "select":
		comp(func(cc *Computation) { in.Select = cc })
	case key == "scatter":
		comp(func(cc *Computation) { in.Scatter = cc })
	case key == "calls":
		comp(func(cc *Computation) { in.Calls = cc })
	case key == "true_computation" || key == "false_computation":
		if in.Branches == nil {
			in.Branches = make([]*Computation, 2)
		}
		i := 0
		if key == "false_computation" {
			i = 1
		}
		comp(func(cc *Computation) { in.Branches[i] = cc })
	case key == "branch_computations":
		compList(key, &in.Branches)
	case key == "called_computations":
		compList(key, &in.CalledComputations)
	case key == "control-predecessors":
		in.ControlPredecessors, err = p.instructionList(in, c, sc)
	case key == "sharding":
		raw(func() error { return s.sharding() })
	case key == "frontend_attributes":
		raw(func() error { return s.frontendAttributes() })
	case key == "statistics":
		raw(func() error { return s.statistics() })
	case key == "parameter_replication":
		raw(func() error { return s.parameterReplication(in.Shape) })
	case key == "metadata":
		raw(func() error { return s.metadata() })
	case key == "origin":
		raw(func() error { _, e := s.rawValue(key); return e })
	case key == "result_accuracy":
		raw(func() error { return s.resultAccuracy() })
	case key == "operand_precision":
		raw(func() error { return s.precisionList() })
	case key == "output_to_operand_aliasing":
		raw(func() error { return s.outputToOperandAliasing() })
	case key == "schedule":
		raw(func() error {
			return s.enumWord("custom-call schedule", func(w string) bool {
				return w == "SCHEDULE_NONE" || w == "SCHEDULE_LATEST" || w == "SCHEDULE_EARLIEST"
			})
		})
	case key == "padding_type":
		raw(func() error {
			return s.enumWord("padding type", func(w string) bool {
				return w == "PADDING_INVALID" || w == "PADDING_VALID" || w == "PADDING_SAME"
			})
		})
	case key == "conv_kind":
		raw(func() error {
			return s.enumWord("convolution kind", func(w string) bool {
				return w == "fprop" || w == "wgrad" || w == "dgrad" || w == "unset"
			})
		})
	case key == "mode":
		raw(func() error { return s.enumWord("collective op group mode", isCollectiveOpGroupMode) })
	case key == "literal":
		raw(func() error { return s.literalValue() })
	case key == "domain":
		raw(func() error { return s.domain() })
	case key == "cross_program_prefetch_index":
		raw(func() error { return s.int32Value(key) })
	case key == "has_dynamic_root":
		raw(func() error { _, e := s.boolValue(key); return e })
	case key == "sparsity_config":
		raw(func() error {
			open := s.pos
			if e := s.expect('{', "to start sparsity_config"); e != nil {
				return e
			}
			_, e := s.balanced('{', open, key)
			return e
		})
	case key == "inferred_dimension", key == "delta":
		raw(func() error { _, e := s.int64Value(key); return e })
	default:
		// Every attribute allowedAttributes lists is handled above.
		err = s.errorAt(pos, "unexpected attribute %q for %s", key, printedOpcode(in))
	}
	return err
}

// attributeName reads an attribute name: an identifier, which may hold
// '-' (control-predecessors).
func (s *hloScanner) attributeName() string { return s.ident() }

// computationValue reads a called computation: a name, resolved once every
// computation is read, or a computation written inline, `{ … }`.
func (p *hloParser) computationValue(from *Computation, set func(*Computation)) error {
	s := &p.s
	if s.peek() == '{' {
		inner, err := p.inlineComputation()
		if err != nil {
			return err
		}
		set(inner)
		p.callees[from] = append(p.callees[from], inner)
		return nil
	}
	s.skipSpace()
	npos := s.pos
	name, err := s.name("computation name")
	if err != nil {
		return err
	}
	if c, ok := p.comps[name]; ok {
		set(c)
		p.callees[from] = append(p.callees[from], c)
		return nil
	}
	p.refs = append(p.refs, computationRef{name: name, pos: npos, from: from, set: set})
	return nil
}

// instructionList reads `{%a, %b}`: instructions of the computation defined
// before in.
func (p *hloParser) instructionList(in *Instruction, c *Computation, sc *instrScope) ([]*Instruction, error) {
	s := &p.s
	if err := s.expect('{', "at the beginning of the instruction name list"); err != nil {
		return nil, err
	}
	list := []*Instruction{}
	for !s.accept('}') {
		s.skipSpace()
		npos := s.pos
		name, err := s.name("instruction name")
		if err != nil {
			return nil, err
		}
		pred := sc.byName[name]
		if pred == nil {
			return nil, s.errorAt(npos, "instruction '%s' is not defined: control predecessor %q of %s must come before it in computation %s", name, name, in.Name, c.Name)
		}
		list = append(list, pred)
		if s.peek() != '}' {
			if err := s.expect(',', "in the instruction name list"); err != nil {
				return nil, err
			}
		}
	}
	return list, nil
}
