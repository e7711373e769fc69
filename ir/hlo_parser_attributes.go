package ir

// This file reads the attributes after an instruction's operands: the ones
// Kiln interprets into Attrs and the called computations, with the checks
// XLA's parser makes (required attributes, duplicates); any other attribute
// is kept verbatim in Instruction.Raw.

// requiredAttributes lists, per opcode, the attributes XLA's parser insists on.
var requiredAttributes = map[Opcode][]string{
	OpGetTupleElement:    {"index"},
	OpIota:               {"iota_dimension"},
	OpCompare:            {"direction"},
	OpBroadcast:          {"dimensions"},
	OpTranspose:          {"dimensions"},
	OpReverse:            {"dimensions"},
	OpConcatenate:        {"dimensions"},
	OpReduce:             {"dimensions", "to_apply"},
	OpSort:               {"dimensions"},
	OpMap:                {"to_apply"},
	OpCall:               {"to_apply"},
	OpSlice:              {"slice"},
	OpDynamicSlice:       {"dynamic_slice_sizes"},
	OpPad:                {"padding"},
	OpReduceWindow:       {"window", "to_apply"},
	OpSelectAndScatter:   {"select", "scatter"},
	OpConvolution:        {"dim_labels"},
	OpFusion:             {"kind", "calls"},
	OpWhile:              {"condition", "body"},
	OpGather:             {"offset_dims", "collapsed_slice_dims", "start_index_map", "index_vector_dim", "slice_sizes"},
	OpScatter:            {"update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims", "index_vector_dim", "to_apply"},
	OpCustomCall:         {"custom_call_target"},
	OpRng:                {"distribution"},
	OpRngBitGenerator:    {"algorithm"},
	OpReducePrecision:    {"exponent_bits", "mantissa_bits"},
	OpBatchNormGrad:      {"epsilon", "feature_index"},
	OpBatchNormInference: {"epsilon", "feature_index"},
	OpBatchNormTraining:  {"epsilon", "feature_index"},
	OpFft:                {"fft_type", "fft_length"},
	OpAllReduce:          {"to_apply"},
	OpAllReduceStart:     {"to_apply"},
	OpReduceScatter:      {"dimensions", "to_apply"},
	OpAllGather:          {"dimensions"},
	OpAllGatherStart:     {"dimensions"},
	OpTopK:               {"k"},
	OpGetDimensionSize:   {"dimensions"},
	OpSetDimensionSize:   {"dimensions"},
}

func checkRequired(s *hloScanner, in *Instruction, opName string, pos int, seen map[string]bool) error {
	op := in.Opcode
	if in.AsyncWrapped != OpInvalid {
		if op != OpAsyncStart {
			return nil
		}
		op = in.AsyncWrapped
	}
	for _, a := range requiredAttributes[op] {
		if !seen[a] {
			return s.errorAt(pos, "%s: attribute %s is expected but not seen", opName, a)
		}
	}
	switch {
	case op == OpConditional && in.Branches == nil:
		return s.errorAt(pos, "%s: attribute branch_computations (or true_computation and false_computation) is expected but not seen", opName)
	case seen["true_computation"] != seen["false_computation"]:
		return s.errorAt(pos, "%s: true_computation and false_computation must be given together", opName)
	case op == OpAsyncStart && in.Calls == nil && !seen["calls"]:
		return s.errorAt(pos, "%s: attribute calls is expected but not seen", opName)
	}
	return nil
}

// attribute reads one `name=value` after an instruction's operands.
func (p *hloParser) attribute(in *Instruction, c *Computation, sc *instrScope, seen map[string]bool) error {
	s := &p.s
	s.skipSpace()
	pos := s.pos
	key := s.ident()
	if key == "" {
		return s.errorf("expected attribute name, found %s", s.found())
	}
	if seen[key] {
		return s.errorAt(pos, "attribute %s given twice", key)
	}
	seen[key] = true
	if err := s.expect('=', "after attribute "+key); err != nil {
		return err
	}
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
		s.skipSpace()
		vpos := s.pos
		w := s.word()
		if !parse(w) {
			err = s.errorAt(vpos, "unknown %s %q", what, w)
		}
	}
	comp := func(set func(*Computation)) {
		s.skipSpace()
		npos := s.pos
		var name string
		if name, err = s.name("computation name"); err == nil {
			p.refs = append(p.refs, computationRef{name: name, pos: npos, from: c, set: set})
		}
	}
	compList := func(what string, set func([]*Computation)) {
		if err = s.expect('{', "to open "+what); err != nil {
			return
		}
		var list []*Computation
		var refs []computationRef
		for !s.accept('}') {
			s.skipSpace()
			npos := s.pos
			name, e := s.name("computation name")
			if e != nil {
				err = e
				return
			}
			i := len(refs)
			refs = append(refs, computationRef{name: name, pos: npos, from: c})
			refs[i].set = func(cc *Computation) { list[i] = cc }
			if s.peek() != '}' {
				if err = s.expect(',', "in "+what); err != nil {
					return
				}
			}
		}
		list = make([]*Computation, len(refs))
		set(list)
		p.refs = append(p.refs, refs...)
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
	case key == "padding" && op == OpPad:
		a.Padding, err = s.padding()
	case key == "window":
		a.Window, err = s.window()
	case key == "dim_labels":
		s.skipSpace()
		vpos := s.pos
		var e error
		if a.ConvDims, e = parseDimLabels(s.word()); e != nil {
			err = s.errorAt(vpos, "%v", e)
		}
	case key == "feature_group_count" || key == "batch_group_count":
		s.skipSpace()
		vpos := s.pos
		var v int
		if v, err = s.intValue(key); err == nil && v < 1 {
			err = s.errorAt(vpos, "%s must be at least 1, found %d", key, v)
		}
		if key == "feature_group_count" {
			a.FeatureGroupCount = v
		} else {
			a.BatchGroupCount = v
		}
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
	case key == "distribution":
		enum("random distribution", func(w string) (ok bool) { a.Distribution, ok = ParseRandomDistribution(w); return })
	case key == "algorithm" && op == OpRngBitGenerator:
		enum("random algorithm", func(w string) (ok bool) { a.RngAlgorithm, ok = ParseRandomAlgorithm(w); return })
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
		s.skipSpace()
		vpos := s.pos
		if a.ChannelID, err = s.int64Value(key); err == nil && a.ChannelID <= 0 {
			err = s.errorAt(vpos, "channel_id must be positive, found %d", a.ChannelID)
		}
	case key == "use_global_device_ids":
		boolv(&a.UseGlobalDeviceIDs)
	case key == "constrain_layout":
		boolv(&a.ConstrainLayout)
	case key == "source_target_pairs":
		s.skipSpace()
		vpos := s.pos
		var pairs [][]int
		if pairs, err = s.intListList("source-target pair"); err == nil {
			a.SourceTargetPairs = make([][2]int, len(pairs))
			for i, pr := range pairs {
				if len(pr) != 2 {
					err = s.errorAt(vpos, "source_target_pairs: pair %d has %d entries, expected 2", i, len(pr))
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
	case key == "kind" && op == OpFusion:
		enum("fusion kind", func(w string) (ok bool) { a.FusionKind, ok = ParseFusionKind(w); return })
	case key == "custom_call_target":
		quoted(&a.CustomCallTarget)
	case key == "custom_call_has_side_effect":
		boolv(&a.HasSideEffect)
	case key == "api_version":
		s.skipSpace()
		if a.APIVersion = s.word(); a.APIVersion == "" {
			err = s.errorf("expected api_version name, found %s", s.found())
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
		a.BackendConfig, err = s.rawValue(key)
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
		if seen["branch_computations"] {
			return s.errorAt(pos, "%s given with branch_computations", key)
		}
		if in.Branches == nil {
			in.Branches = make([]*Computation, 2)
		}
		i := 0
		if key == "false_computation" {
			i = 1
		}
		comp(func(cc *Computation) { in.Branches[i] = cc })
	case key == "branch_computations":
		if seen["true_computation"] || seen["false_computation"] {
			return s.errorAt(pos, "branch_computations given with true_computation/false_computation")
		}
		compList(key, func(l []*Computation) { in.Branches = l })
	case key == "called_computations":
		compList(key, func(l []*Computation) { in.CalledComputations = l })
	case key == "control-predecessors":
		if err = s.expect('{', "to open control-predecessors"); err != nil {
			break
		}
		in.ControlPredecessors = []*Instruction{}
		for !s.accept('}') {
			s.skipSpace()
			npos := s.pos
			var name string
			if name, err = s.name("instruction name"); err != nil {
				break
			}
			pred := sc.byName[name]
			if pred == nil {
				err = s.errorAt(npos, "control predecessor %q of %s is not defined before it in computation %s", name, in.Name, c.Name)
				break
			}
			in.ControlPredecessors = append(in.ControlPredecessors, pred)
			if s.peek() != '}' {
				if err = s.expect(',', "in control-predecessors"); err != nil {
					break
				}
			}
		}
	default:
		var v string
		if v, err = s.rawValue(key); err == nil {
			in.Raw = append(in.Raw, RawAttribute{Name: key, Value: v})
		}
	}
	return err
}
