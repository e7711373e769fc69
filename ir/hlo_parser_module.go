package ir

import (
	"slices"
	"strings"
)

// This file reads the attributes of the HloModule line, as XLA's parser
// accepts them: each is checked, and all but entry_computation_layout are
// kept verbatim in Module.Attributes.

// moduleAttributes reads `, key=value` pairs after the module name and
// returns the offset of entry_computation_layout (-1 if absent).
func (p *hloParser) moduleAttributes() (int, error) {
	s := &p.s
	eclPos := -1
	seen := map[string]bool{}
	for s.accept(',') {
		s.skipSpace()
		attrPos := s.pos
		key := s.ident()
		if key == "" {
			return -1, s.errorf("expected module attribute name, found %s", s.found())
		}
		if seen[key] {
			return -1, s.errorAt(attrPos, "module attribute %s given twice", key)
		}
		seen[key] = true
		if err := s.expect('=', "after module attribute "+key); err != nil {
			return -1, err
		}
		s.skipSpace()
		valPos := s.pos
		var err error
		switch key {
		case "entry_computation_layout":
			eclPos = attrPos
			ps, err := p.entryLayout()
			if err != nil {
				return -1, err
			}
			p.m.EntryLayout = &ps
			continue
		case "is_scheduled", "alias_passthrough_params":
			_, err = s.boolValue(key)
		case "replica_count", "num_partitions":
			_, err = s.int64Value(key)
		case "input_output_alias":
			p.aliases, err = s.inputOutputAlias()
			p.aliasPos = valPos
		case "buffer_donor":
			p.donors, err = s.bufferDonors()
			p.donorPos = valPos
		case "frontend_attributes":
			err = s.frontendAttributes()
		case "allow_spmd_sharding_propagation_to_parameters", "allow_spmd_sharding_propagation_to_output":
			err = s.boolListOrBool(key)
		case "origin_recovery_table", "debug_attributes":
			_, err = s.rawValue(key)
		default:
			return -1, s.errorAt(attrPos, "unexpected attribute %q of HloModule (expected is_scheduled, replica_count, num_partitions, input_output_alias, buffer_donor, alias_passthrough_params, entry_computation_layout, frontend_attributes, allow_spmd_sharding_propagation_to_parameters, allow_spmd_sharding_propagation_to_output, origin_recovery_table or debug_attributes)", key)
		}
		if err != nil {
			return -1, err
		}
		p.m.Attributes = append(p.m.Attributes, RawAttribute{Name: key, Value: strings.TrimSpace(s.src[valPos:s.pos])})
	}
	// XLA writes is_scheduled first; keeping it first makes printing stable.
	for i, a := range p.m.Attributes {
		if a.Name == "is_scheduled" {
			copy(p.m.Attributes[1:i+1], p.m.Attributes[:i])
			p.m.Attributes[0] = a
		}
	}
	return eclPos, nil
}

// ioAlias is one entry of input_output_alias: output index → (parameter,
// parameter index[, kind]).
type ioAlias struct {
	output     []int
	param      int
	paramIndex []int
	pos        int
}

// bufferDonor is one entry of buffer_donor: (parameter, parameter index).
type bufferDonor struct {
	param      int
	paramIndex []int
	pos        int
}

// shapeIndex reads `{0, 1}`.
func (s *hloScanner) shapeIndex() ([]int, error) {
	if err := s.expect('{', "at the start of a shape index"); err != nil {
		return nil, err
	}
	idx := []int{}
	for s.peek() != '}' {
		v, err := s.intValue("shape index entry (expects integer)")
		if err != nil {
			return nil, err
		}
		idx = append(idx, v)
		if !s.accept(',') {
			break
		}
	}
	return idx, s.expect('}', "at the end of a shape index")
}

// inputOutputAlias reads `{ {0}: (0, {}, may-alias), {1}: (1, {}) }`.
func (s *hloScanner) inputOutputAlias() ([]ioAlias, error) {
	if err := s.expect('{', "at the start of input_output_alias"); err != nil {
		return nil, err
	}
	const format = "(expected <output_shape_index>: (<parameter>, <parameter_shape_index>[, may-alias|must-alias]))"
	var out []ioAlias
	for s.peek() != '}' {
		s.skipSpace()
		a := ioAlias{pos: s.pos}
		var err error
		if a.output, err = s.shapeIndex(); err != nil {
			return nil, err
		}
		if err := s.expect(':', "after the output shape index "+format); err != nil {
			return nil, err
		}
		if err := s.expect('(', "before the aliased parameter "+format); err != nil {
			return nil, err
		}
		if a.param, err = s.intValue("parameter number (expects integer)"); err != nil {
			return nil, err
		}
		if err := s.expect(',', "after the parameter number "+format); err != nil {
			return nil, err
		}
		if a.paramIndex, err = s.shapeIndex(); err != nil {
			return nil, err
		}
		if s.accept(',') {
			s.skipSpace()
			at := s.pos
			switch kind := s.word(); kind {
			case "may-alias", "must-alias":
			default:
				return nil, s.errorAt(at, "unexpected aliasing kind %q (expected may-alias or must-alias)", kind)
			}
		}
		if err := s.expect(')', "after the aliased parameter "+format); err != nil {
			return nil, err
		}
		out = append(out, a)
		if !s.accept(',') {
			break
		}
	}
	return out, s.expect('}', "at the end of input_output_alias")
}

// bufferDonors reads `{ (0, {}), (1, {0}) }`.
func (s *hloScanner) bufferDonors() ([]bufferDonor, error) {
	if err := s.expect('{', "at the start of buffer_donor"); err != nil {
		return nil, err
	}
	const format = "(expected (<parameter>, <parameter_shape_index>))"
	var out []bufferDonor
	for s.peek() != '}' {
		s.skipSpace()
		d := bufferDonor{pos: s.pos}
		if err := s.expect('(', "before a buffer donor "+format); err != nil {
			return nil, err
		}
		var err error
		if d.param, err = s.intValue("parameter number (expects integer)"); err != nil {
			return nil, err
		}
		if err := s.expect(',', "after the parameter number "+format); err != nil {
			return nil, err
		}
		if d.paramIndex, err = s.shapeIndex(); err != nil {
			return nil, err
		}
		if err := s.expect(')', "after a buffer donor "+format); err != nil {
			return nil, err
		}
		out = append(out, d)
		if !s.accept(',') {
			break
		}
	}
	return out, s.expect('}', "at the end of buffer_donor")
}

// subshape returns the shape at index within s, or false when the index
// does not name one.
func subshape(s Shape, index []int) (Shape, bool) {
	for _, i := range index {
		if !s.IsTuple() || i < 0 || i >= len(s.Tuple) {
			return Shape{}, false
		}
		s = s.Tuple[i]
	}
	return s, true
}

// checkModuleAliasing checks input_output_alias and buffer_donor against
// the entry's signature as XLA's alias and donor configs do: each output
// index names a part of the result, at most once; each parameter exists and
// its index names a part of it; no parameter buffer is both aliased to an
// output and donated.
func (p *hloParser) checkModuleAliasing() error {
	s := &p.s
	if p.aliases == nil && p.donors == nil {
		return nil
	}
	entry := p.m.Entry
	result := entry.Root.Shape
	params := make([]Shape, len(entry.Parameters))
	for i, prm := range entry.Parameters {
		params[i] = prm.Shape
	}
	if p.m.EntryLayout != nil {
		result, params = p.m.EntryLayout.Result, p.m.EntryLayout.Parameters
	}
	param := func(pos, n int, index []int) error {
		if n < 0 || n >= len(params) {
			return s.errorAt(pos, "parameter %d does not exist: the entry computation has %d parameters", n, len(params))
		}
		if _, ok := subshape(params[n], index); !ok {
			return s.errorAt(pos, "%s is not a valid index of parameter %d's shape %s", hloIntList(index), n, params[n].StringWithoutLayout())
		}
		return nil
	}
	type buffer struct {
		param int
		index string
	}
	aliased := map[buffer]bool{}
	var outputs [][]int
	for _, a := range p.aliases {
		if _, ok := subshape(result, a.output); !ok {
			return s.errorAt(a.pos, "trying to set up an alias at %s, which is an invalid index for the result shape %s", hloIntList(a.output), result.StringWithoutLayout())
		}
		for _, o := range outputs {
			if slices.Equal(o, a.output) {
				return s.errorAt(a.pos, "output index %s is aliased twice", hloIntList(a.output))
			}
		}
		outputs = append(outputs, a.output)
		if err := param(a.pos, a.param, a.paramIndex); err != nil {
			return err
		}
		aliased[buffer{a.param, hloIntList(a.paramIndex)}] = true
	}
	for _, d := range p.donors {
		if err := param(d.pos, d.param, d.paramIndex); err != nil {
			return err
		}
		if aliased[buffer{d.param, hloIntList(d.paramIndex)}] {
			return s.errorAt(d.pos, "parameter %d at %s is both aliased to an output and a buffer donor", d.param, hloIntList(d.paramIndex))
		}
	}
	return nil
}

// boolListOrBool reads `true`, `false` or `{true, false, …}`.
func (s *hloScanner) boolListOrBool(what string) error {
	if s.peek() != '{' {
		_, err := s.boolValue(what)
		return err
	}
	s.accept('{')
	for s.peek() != '}' {
		if _, err := s.boolValue(what); err != nil {
			return err
		}
		if !s.accept(',') {
			break
		}
	}
	return s.expect('}', "to close "+what)
}
