package ir

import (
	"errors"
	"strconv"
	"strings"
)

// This file checks the grammar of the attribute values Kiln keeps verbatim
// (metadata, frontend attributes, statistics, parameter replication, result
// accuracy, precisions, aliasing, domains, custom-call literals, backend
// configs), as XLA's parser reads them. Each reader consumes the value and
// reports what it expected where the text departs from XLA's grammar.

// enumWord reads a word that ok accepts.
func (s *hloScanner) enumWord(what string, ok func(string) bool) error {
	s.skipSpace()
	at := s.pos
	w := s.word()
	if !ok(w) {
		return s.errorAt(at, "expects %s, found %s", what, s.describeWord(w))
	}
	return nil
}

// isDotAlgorithm reports whether w names a PrecisionConfig algorithm as XLA
// prints them (ALG_UNSET, ALG_DOT_BF16_BF16_F32, … in lower case without
// the ALG_ prefix).
func isDotAlgorithm(w string) bool {
	return w == "unset" || strings.HasPrefix(w, "dot_") && len(w) > 4
}

// isCollectiveOpGroupMode reports whether w names a collective op group mode.
func isCollectiveOpGroupMode(w string) bool {
	switch strings.TrimPrefix(strings.ToLower(w), "collective_op_group_mode_") {
	case "cross_replica", "cross_partition", "cross_replica_and_partition", "flattened_id":
		return true
	}
	return false
}

// int32Value reads an integer that fits 32 bits.
func (s *hloScanner) int32Value(what string) error {
	s.skipSpace()
	at := s.pos
	v, err := s.int64Value(what)
	if err == nil && v != int64(int32(v)) {
		return s.errorAt(at, "%s %d is out of range for a 32-bit integer", what, v)
	}
	return err
}

// stringOrJSONDict reads a quoted string or a `{…}` dictionary and returns
// it as written.
func (s *hloScanner) stringOrJSONDict(what string) (string, error) {
	s.skipSpace()
	start := s.pos
	switch s.peek() {
	case '"':
		end, err := s.scanQuoted(s.pos)
		if err != nil {
			return "", err
		}
		if _, err := cUnescape(s.src[start+1 : end-1]); err != nil {
			return "", s.errorAt(start, "%s: %v", what, err)
		}
		s.pos = end
	case '{':
		s.pos++
		if _, err := s.balanced('{', start, what); err != nil {
			return "", err
		}
	default:
		return "", s.errorf("expected a quoted string or a {…} dictionary for %s, found %s", what, s.found())
	}
	return s.src[start:s.pos], nil
}

// frontendAttributes reads `{name="value", other={…}}`.
func (s *hloScanner) frontendAttributes() error {
	if err := s.expect('{', "to start frontend attributes"); err != nil {
		return err
	}
	if s.accept('}') {
		return nil
	}
	for {
		s.skipSpace()
		at := s.pos
		name := s.ident()
		if name == "" {
			return s.errorAt(at, "expected a frontend attribute name, found %s", s.found())
		}
		if err := s.expect('=', "after frontend attribute "+name); err != nil {
			return err
		}
		if _, err := s.stringOrJSONDict("frontend attribute " + name); err != nil {
			return err
		}
		if !s.accept(',') {
			break
		}
	}
	return s.expect('}', "at the end of frontend attributes")
}

// statistics reads `{}` or `{visualizing_index=1, stat-1=33, …}`.
func (s *hloScanner) statistics() error {
	if err := s.expect('{', "to start statistics"); err != nil {
		return err
	}
	if s.accept('}') {
		return nil
	}
	first := true
	for {
		s.skipSpace()
		at := s.pos
		name := s.ident()
		if name == "" {
			return s.errorAt(at, "expected a statistic name, found %s", s.found())
		}
		if err := s.expect('=', "after statistic "+name); err != nil {
			return err
		}
		if first {
			if _, err := s.int64Value("index of the statistic to visualize"); err != nil {
				return err
			}
		} else if _, err := s.floatValue("value of statistic " + name); err != nil {
			return err
		}
		first = false
		if !s.accept(',') {
			break
		}
	}
	return s.expect('}', "at the end of statistics")
}

// leafCount is the number of arrays (and tokens) in s.
func leafCount(s Shape) int {
	if !s.IsTuple() {
		return 1
	}
	n := 0
	for _, e := range s.Tuple {
		n += leafCount(e)
	}
	return n
}

// parameterReplication reads `{true, false, …}`, one entry per leaf buffer
// of shape (checked when the instruction has its shape).
func (s *hloScanner) parameterReplication(shape Shape) error {
	if err := s.expect('{', "to start parameter_replication"); err != nil {
		return err
	}
	n := 0
	for s.peek() != '}' {
		if _, err := s.boolValue("parameter_replication"); err != nil {
			return err
		}
		n++
		if !s.accept(',') {
			break
		}
	}
	if err := s.expect('}', "to end parameter_replication"); err != nil {
		return err
	}
	if shape.Elem != InvalidType {
		if leaves := leafCount(shape); leaves != n {
			return s.errorf("parameter has %d leaf buffers, but parameter_replication has %d elements", leaves, n)
		}
	}
	return nil
}

// metadataFields are the fields of metadata={…} and their kinds: 's'
// string, 'i' 32-bit integer, 'l' integer list.
var metadataFields = map[string]byte{
	"op_type": 's', "op_name": 's', "source_file": 's', "source_line": 'i', "source_end_line": 'i',
	"source_column": 'i', "source_end_column": 'i', "profile_type": 'l', "deduplicated_name": 's',
	"scheduling_name": 's', "stack_frame_id": 'i',
}

// metadata reads `{op_type="…" op_name="…" source_line=3 …}` (commas between
// the fields are optional).
func (s *hloScanner) metadata() error {
	if err := s.expect('{', "to start metadata"); err != nil {
		return err
	}
	seen := map[string]bool{}
	for !s.accept('}') {
		s.accept(',')
		s.skipSpace()
		at := s.pos
		key := s.ident()
		kind, ok := metadataFields[key]
		if !ok {
			return s.errorAt(at, "unexpected metadata field %s", s.describeWord(key))
		}
		if seen[key] {
			return s.errorAt(at, "metadata field %s already exists", key)
		}
		seen[key] = true
		if err := s.expect('=', "after metadata field "+key); err != nil {
			return err
		}
		var err error
		switch kind {
		case 's':
			_, err = s.quoted(key)
		case 'i':
			err = s.int32Value(key)
		case 'l':
			_, err = s.ints(key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// metadataOrList reads one metadata={…} value or a list `{{…}, {…}}`.
func (s *hloScanner) metadataOrList() error {
	save := s.pos
	if s.accept('{') && s.peek() == '{' {
		for {
			if err := s.metadata(); err != nil {
				return err
			}
			if !s.accept(',') {
				break
			}
		}
		return s.expect('}', "to end the metadata list")
	}
	s.pos = save
	return s.metadata()
}

// resultAccuracy reads `{mode=highest}` or `{tolerance={rtol=0.5, atol=1, ulps=2}}`.
func (s *hloScanner) resultAccuracy() error {
	if err := s.expect('{', "to start result_accuracy"); err != nil {
		return err
	}
	s.skipSpace()
	at := s.pos
	switch name := s.ident(); name {
	case "mode":
		if err := s.expect('=', "after mode"); err != nil {
			return err
		}
		if err := s.enumWord("result accuracy mode (default, highest or tolerance)", func(w string) bool {
			switch strings.ToLower(w) {
			case "default", "highest", "tolerance":
				return true
			}
			return false
		}); err != nil {
			return err
		}
	case "tolerance":
		if err := s.expect('=', "after tolerance"); err != nil {
			return err
		}
		if err := s.expect('{', "to start the result accuracy tolerance"); err != nil {
			return err
		}
		for s.peek() != '}' {
			s.skipSpace()
			fat := s.pos
			switch f := s.ident(); f {
			case "rtol", "atol", "ulps":
				if err := s.expect('=', "after "+f); err != nil {
					return err
				}
				if _, err := s.floatValue(f); err != nil {
					return err
				}
			default:
				return s.errorAt(fat, "invalid attribute name: %s (expected rtol, atol or ulps)", s.describeWord(f))
			}
			if !s.accept(',') {
				break
			}
		}
		if err := s.expect('}', "at the end of the result accuracy tolerance"); err != nil {
			return err
		}
	default:
		return s.errorAt(at, "invalid attribute name: %s (expected mode or tolerance)", s.describeWord(name))
	}
	return s.expect('}', "to end result_accuracy")
}

// precisionList reads `{default, high}`.
func (s *hloScanner) precisionList() error {
	if err := s.expect('{', "to start operand_precision"); err != nil {
		return err
	}
	for s.peek() != '}' {
		s.skipSpace()
		at := s.pos
		w := s.word()
		if _, ok := ParsePrecision(w); !ok && !strings.EqualFold(w, "packed_nibble") {
			return s.errorAt(at, "expects precision (default, high, highest or packed_nibble), found %s", s.describeWord(w))
		}
		if !s.accept(',') {
			break
		}
	}
	return s.expect('}', "to end operand_precision")
}

// outputToOperandAliasing reads `{{0}: (1, {}), {1}: (0, {2})}`.
func (s *hloScanner) outputToOperandAliasing() error {
	if err := s.expect('{', "at the start of the instruction aliasing description"); err != nil {
		return err
	}
	const format = "(expected <output_shape_index>: (<operand_index>, <operand_shape_index>))"
	for s.peek() != '}' {
		if _, err := s.shapeIndex(); err != nil {
			return err
		}
		if err := s.expect(':', "after the output shape index "+format); err != nil {
			return err
		}
		if err := s.expect('(', "before the aliased operand "+format); err != nil {
			return err
		}
		if _, err := s.int64Value("operand index (expects integer)"); err != nil {
			return err
		}
		if err := s.expect(',', "after the operand index "+format); err != nil {
			return err
		}
		if _, err := s.shapeIndex(); err != nil {
			return err
		}
		if err := s.expect(')', "after the aliased operand "+format); err != nil {
			return err
		}
		if !s.accept(',') {
			break
		}
	}
	return s.expect('}', "at the end of the instruction aliasing description")
}

// literalValue reads a literal with its shape, `f32[2] {1, 2}`, or a tuple
// of such literals, `( s32[2] {1, 2}, pred[] true )`.
func (s *hloScanner) literalValue() error {
	if s.accept('(') {
		for s.peek() != ')' {
			if err := s.literalValue(); err != nil {
				return err
			}
			if !s.accept(',') {
				break
			}
		}
		return s.expect(')', "to close a tuple literal")
	}
	s.skipSpace()
	at := s.pos
	sh, err := s.shape(0)
	if err != nil {
		return err
	}
	if sh.IsDynamic() {
		return s.errorAt(at, "a literal attribute must have a static shape, found %s", sh.StringWithoutLayout())
	}
	s.skipSpace()
	start := s.pos
	_, n, err := ParseLiteralValuePrefix(sh.WithoutLayout(), s.src[start:])
	if err != nil {
		var le *LiteralSyntaxError
		if errors.As(err, &le) {
			return s.errorAt(start+le.Offset, "literal: %s", le.Msg)
		}
		return s.errorAt(start, "literal: %v", err)
	}
	s.pos = start + n
	return nil
}

// domain reads `{kind="sharding", entry={…}, exit={…}}`.
func (s *hloScanner) domain() error {
	open := s.pos
	if err := s.expect('{', "to start the domain"); err != nil {
		return err
	}
	seen := map[string]bool{}
	for !s.accept('}') {
		s.accept(',')
		s.skipSpace()
		at := s.pos
		key := s.ident()
		if seen[key] {
			return s.errorAt(at, "domain field %s already exists", key)
		}
		seen[key] = true
		if err := s.expect('=', "after domain field "+s.describeWord(key)); err != nil {
			return err
		}
		switch key {
		case "kind":
			s.skipSpace()
			kat := s.pos
			kind, err := s.quoted("domain kind")
			if err != nil {
				return err
			}
			if kind != "sharding" {
				return s.errorAt(kat, "unsupported domain kind: %s", strconv.Quote(kind))
			}
		case "entry", "exit":
			if err := s.sharding(); err != nil {
				return err
			}
		default:
			return s.errorAt(at, "unexpected domain field %s (expected kind, entry or exit)", s.describeWord(key))
		}
	}
	for _, k := range []string{"kind", "entry", "exit"} {
		if !seen[k] {
			return s.errorAt(open, "sub-attribute %s is expected but not seen in the domain", k)
		}
	}
	return nil
}
