package ir

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// This file holds what XLA's parser checks once it has read an instruction
// (operand counts, the forms of shapes some opcodes need, the custom-call
// and async rules, element counts of reshapes), the shape inference of
// instructions written without a shape, and the constants' values.

// parseOperandCounts are the operand counts XLA's parser demands of opcodes
// whose table arity does not say (dot, rng-bit-generator) or that an
// instruction written in full must meet.
func parseOperandCount(in *Instruction) (min, max int) {
	op := in.Opcode
	switch op {
	case OpDot:
		return 2, 2
	case OpRngBitGenerator, OpDynamicReshape, OpAsyncUpdate:
		return 1, math.MaxInt
	case OpDynamicSlice:
		return 1, math.MaxInt
	case OpDynamicUpdateSlice:
		return 2, math.MaxInt
	case OpConditional:
		return 1, math.MaxInt
	case OpIota, OpReplicaID, OpPartitionID, OpRngGetAndUpdateState:
		return 0, 0
	case OpConvolution:
		if _, sparse := in.RawAttr("sparsity_config"); sparse {
			return 2, 4 // the sparse operand's metadata comes after the two
		}
	}
	if n := op.Arity(); n != Variadic {
		return n, n
	}
	return 0, math.MaxInt
}

// checkInstruction applies XLA's parse-time rules to in, read with its
// shape (hasShape) or without, and infers the shape in the latter case.
func (p *hloParser) checkInstruction(in *Instruction, opName string, opPos int, hasShape bool) error {
	s := &p.s
	fail := func(format string, args ...any) error {
		return s.errorAt(opPos, "%s: %s", opName, fmt.Sprintf(format, args...))
	}
	op := in.Opcode
	n := len(in.Operands)
	shorthandStart := in.AsyncWrapped != OpInvalid && op == OpAsyncStart
	if !shorthandStart {
		lo, hi := parseOperandCount(in)
		switch {
		case (op == OpAsyncUpdate || op == OpAsyncDone) && n == 0:
			return fail("no operand found for AsyncUpdate and AsyncDone: they take the async op before them")
		case op == OpDynamicReshape && n == 0:
			return fail("DynamicReshape requires at least one operand")
		case n < lo || n > hi:
			if lo == hi {
				return fail("expects %d operands, but has %d operands", lo, n)
			}
			return fail("expects at least %d operands, but has %d operands", lo, n)
		}
	}
	oneDim := func(what string) error {
		if len(in.Dimensions) != 1 {
			return fail("expects exactly one dimension in dimensions (the %s), found %s", what, hloIntList(in.Dimensions))
		}
		return nil
	}
	switch op {
	case OpReduce, OpReduceWindow:
		if n%2 != 0 {
			return fail("expects an even number of operands, but has %d operands", n)
		}
	case OpScatter:
		if n%2 == 0 {
			return fail("expects an odd number of operands, but has %d operands", n)
		}
	case OpSort:
		if err := oneDim("sort dimension"); err != nil {
			return err
		}
	case OpConcatenate:
		if err := oneDim("concatenated dimension"); err != nil {
			return err
		}
	case OpAllGather, OpAllGatherStart, OpReduceScatter, OpGetDimensionSize, OpSetDimensionSize:
		if len(in.Dimensions) == 0 {
			return fail("expects a dimension in dimensions, found {}")
		}
	case OpAllToAll, OpRaggedAllToAll:
		if in.Dimensions != nil && len(in.Dimensions) != 1 {
			return fail("expects at most one split dimension in dimensions, found %s", hloIntList(in.Dimensions))
		}
	case OpScan:
		if err := oneDim("scan dimension"); err != nil {
			return err
		}
		if in.NumCarries < 0 || n < in.NumCarries {
			return fail("expects at least %d operands to match the number of carries, but has %d operands", in.NumCarries, n)
		}
		if in.ToApply != nil && len(in.ToApply.Parameters) != n {
			return fail("expects %d operands to match the number of parameters of to_apply, but to_apply has %d parameters", n, len(in.ToApply.Parameters))
		}
	case OpDynamicSlice:
		if r := in.Operands[0].Shape.Rank(); !(n == 2 && in.Operands[1].Shape.Rank() == 1) && n != 1+r {
			return fail("wrong number of operands: expects the operand and %d start indices (or one rank-1 index array), found %d operands", r, n)
		}
	case OpDynamicUpdateSlice:
		if r := in.Operands[0].Shape.Rank(); !(n == 3 && in.Operands[2].Shape.Rank() == 1) && n != 2+r {
			return fail("wrong number of operands: expects the operand, the update and %d start indices (or one rank-1 index array), found %d operands", r, n)
		}
	case OpConditional:
		sel := in.Operands[0].Shape
		if !sel.IsScalar() {
			return fail("the first operand must be a scalar, found %s", sel.StringWithoutLayout())
		}
		if sel.Elem != PRED && sel.Elem != S32 {
			return fail("the first operand must be a scalar of PRED or S32, found %s", sel.StringWithoutLayout())
		}
		if len(in.Branches) == 0 || n != len(in.Branches)+1 {
			return fail("expects one operand per branch after the selector: %d branches, %d operands", len(in.Branches), n)
		}
	case OpCustomCall:
		if in.ToApply != nil && in.CalledComputations != nil {
			return fail("a single instruction can't have both to_apply and called_computations")
		}
		if in.OperandLayouts != nil {
			if err := p.checkOperandLayouts(in, fail); err != nil {
				return err
			}
		}
	case OpAsyncStart:
		if err := checkAsyncShape(in.Shape); err != nil {
			return fail("%v", err)
		}
	case OpAsyncUpdate, OpAsyncDone:
		if err := checkAsyncOperand(in); err != nil {
			return fail("%v", err)
		}
		if op == OpAsyncUpdate {
			if err := checkAsyncShape(in.Shape); err != nil {
				return fail("%v", err)
			}
		}
	case OpSendDone, OpRecvDone:
		if o := in.Operands[0]; (o.Opcode == OpSend || o.Opcode == OpRecv) && (o.ChannelID != in.ChannelID || o.HasChannelID != in.HasChannelID) {
			return fail("channel_id %s does not match that of its operand %q, %s", channelText(in), o.Name, channelText(o))
		}
	}

	if !hasShape {
		sh, err := p.inferShape(in)
		if err != nil {
			return fail("failed to infer the shape: %v", err)
		}
		in.Shape = sh
	}

	switch op {
	case OpInfeed:
		if !in.Shape.IsTuple() || len(in.Shape.Tuple) == 0 {
			return fail("infeed must have a non-empty tuple shape, found %s", in.Shape.StringWithoutLayout())
		}
	case OpRecv:
		if !in.Shape.IsTuple() || len(in.Shape.Tuple) == 0 {
			return fail("recv must have a tuple shape (data, context, token), found %s", in.Shape.StringWithoutLayout())
		}
	case OpReshape:
		if err := checkSameElementCount(in.Shape, in.Operands[0].Shape); err != nil {
			return fail("%v", err)
		}
	case OpDynamicReshape:
		if err := checkSameElementCount(in.Shape, in.Operands[0].Shape); err != nil {
			return fail("%v", err)
		}
	}
	return nil
}

func channelText(in *Instruction) string {
	if !in.HasChannelID && in.ChannelID == 0 {
		return "(none)"
	}
	return itoa(int(in.ChannelID))
}

// checkSameElementCount is the reshape rule XLA's parser applies: the
// result and the operand hold the same number of elements (bounds for
// dynamic dimensions).
func checkSameElementCount(result, operand Shape) error {
	if !result.IsArray() || !operand.IsArray() {
		return errors.New("expects array shapes")
	}
	if result.ElementCount() != operand.ElementCount() {
		return fmt.Errorf("expects the same number of elements in result shape %s and operand shape %s",
			result.StringWithoutLayout(), operand.StringWithoutLayout())
	}
	return nil
}

// checkAsyncShape checks the shape of an async-start or async-update:
// ((operand shapes…), output shape, context…).
func checkAsyncShape(sh Shape) error {
	if !sh.IsTuple() || len(sh.Tuple) < 2 || !sh.Tuple[0].IsTuple() {
		return errors.New("AsyncStart and AsyncUpdate expect the shape to be in the form of ((operand0_shape, operand1_shape, ...), output_shape, ...), found " + sh.StringWithoutLayout())
	}
	return nil
}

// asyncChainOf returns the async-start at the head of the chain in's first
// operand continues, or nil when that operand is not an async op.
func asyncChainOf(in *Instruction) *Instruction {
	o := in.Operands[0]
	for o != nil && (o.Opcode == OpAsyncUpdate || o.Opcode == OpAsyncStart) {
		if o.Opcode == OpAsyncStart {
			return o
		}
		o = o.Operands[0]
	}
	return nil
}

// checkAsyncOperand checks an async-update or async-done against the async
// op it continues: not an async-done, the same wrapped op in the shorthand
// forms, the same thread when one is written.
func checkAsyncOperand(in *Instruction) error {
	o := in.Operands[0]
	if o.Opcode == OpAsyncDone {
		return errors.New("AsyncUpdate and AsyncDone cannot have AsyncDone as operand")
	}
	if o.Opcode != OpAsyncStart && o.Opcode != OpAsyncUpdate {
		return nil
	}
	if in.AsyncWrapped != OpInvalid && o.AsyncWrapped != OpInvalid && in.AsyncWrapped != o.AsyncWrapped {
		return fmt.Errorf("expect async wrapped opcode to be %v, but got %v", o.AsyncWrapped, in.AsyncWrapped)
	}
	if start := asyncChainOf(in); start != nil && in.AsyncExecutionThread != "" {
		want := start.AsyncExecutionThread
		if want == "" {
			want = "main"
		}
		if in.AsyncExecutionThread != want {
			return fmt.Errorf("expect async_execution_thread to be %s, but got %s", want, in.AsyncExecutionThread)
		}
	}
	return nil
}

// checkAsyncChains checks, once every computation is known, that an
// async-update or async-done that names its computation names the one its
// async-start calls.
func (p *hloParser) checkAsyncChains() error {
	for _, c := range p.order {
		for _, in := range c.Instructions {
			if (in.Opcode != OpAsyncUpdate && in.Opcode != OpAsyncDone) || in.Calls == nil {
				continue
			}
			if start := asyncChainOf(in); start != nil && start.Calls != nil && start.Calls != in.Calls {
				return p.s.errorAt(p.defined[c.Name], "computation %s, %s: expect async_wrapped_computation to be %s, but got %s",
					c.Name, in.Name, start.Calls.Name, in.Calls.Name)
			}
		}
	}
	return nil
}

// checkOperandLayouts checks a layout-constrained custom call: one
// constraint per operand, compatible with it. (Shapes written without a
// layout have the default one, as XLA's parser fills them in.)
func (p *hloParser) checkOperandLayouts(in *Instruction, fail func(string, ...any) error) error {
	if len(in.OperandLayouts) != len(in.Operands) {
		return fail("expected %d operand layout constraints, %d given", len(in.Operands), len(in.OperandLayouts))
	}
	for i, c := range in.OperandLayouts {
		if !c.Compatible(in.Operands[i].Shape) {
			return fail("operand layout constraint shape %s for operand %d is not compatible with operand shape %s",
				shapeText(c, true), i, shapeText(in.Operands[i].Shape, true))
		}
	}
	return nil
}

// inferShape infers the shape of an instruction written without one, as
// XLA's parser does (from its operands, attributes and called
// computations, which must be defined before it).
func (p *hloParser) inferShape(in *Instruction) (Shape, error) {
	for _, c := range in.Called() {
		if c.Root == nil {
			return Shape{}, errors.New("a computation it calls is not yet complete")
		}
	}
	if in.Branches != nil {
		for _, b := range in.Branches {
			if b == nil {
				return Shape{}, errors.New("a computation it calls is defined after it")
			}
		}
	}
	if missingCallee(in) {
		return Shape{}, errors.New("a computation it calls is defined after it")
	}
	switch in.Opcode {
	case OpBroadcast:
		// XLA infers a broadcast written without a shape as the operand's
		// dimensions after the sizes listed in dimensions (its
		// InferBroadcastShape(operand, broadcast_sizes)).
		o := in.Operands[0].Shape
		if !o.IsArray() {
			return Shape{}, errf("broadcast", "operand must be an array, found %s", human(o))
		}
		if in.Dimensions == nil {
			in.Dimensions = []int{}
		}
		for _, d := range in.Dimensions {
			if d < 0 {
				return Shape{}, errf("broadcast", "size %d must not be negative", d)
			}
		}
		dims := append(append([]int{}, in.Dimensions...), o.Dims...)
		flags := append(make([]bool, len(in.Dimensions)), dynamicFlags(o)...)
		return checkResult("broadcast", makeShape(o.Elem, dims, flags))
	}
	sh, hasRule, err := inferInstruction(in, nil)
	if err != nil {
		return Shape{}, err
	}
	if !hasRule {
		return Shape{}, errf(in.Opcode.String(), "Kiln has no shape inference rule for it")
	}
	return sh, nil
}

// missingCallee reports whether the instruction names a called computation
// that is not yet defined (a reference resolved later).
func missingCallee(in *Instruction) bool {
	switch in.Opcode {
	case OpCall, OpMap, OpReduce, OpReduceWindow, OpScatter, OpSort, OpScan:
		return in.ToApply == nil
	case OpWhile:
		return in.Condition == nil || in.Body == nil
	case OpSelectAndScatter:
		return in.Select == nil || in.Scatter == nil
	}
	return false
}

// constant fills in the literal of a constant instruction from the text
// between its parentheses, which starts at offset pos.
func (p *hloParser) constant(in *Instruction, text string, pos int) error {
	s := &p.s
	trimmed := strings.TrimSpace(text)
	if trimmed == "{...}" {
		if !in.Shape.IsArray() || in.Shape.Rank() == 0 {
			return s.errorAt(pos, "constant: an elided value {...} needs an array shape of rank 1 or more, found %s", in.Shape.StringWithoutLayout())
		}
		in.LiteralElided = true
		return nil
	}
	if in.Shape.IsArray() && in.Shape.Rank() > 0 && trimmed != "" && trimmed[0] != '{' {
		return p.scalarForArray(in, text, pos)
	}
	// Every element of a static shape takes at least one byte of text;
	// checking that first refuses a hostile shape at once.
	if n := hloElementCount(in.Shape); !in.Shape.IsDynamic() && n > len(text) {
		return s.errorAt(pos, "constant %s of shape %v declares %d elements, more than its text %q (%d bytes) can hold",
			in.Name, in.Shape, n, hloAbbreviate(text), len(text))
	}
	l, err := ParseLiteralValue(in.Shape.WithoutLayout(), text)
	if err != nil {
		var le *LiteralSyntaxError
		if errors.As(err, &le) {
			return s.errorAt(pos+le.Offset, "constant: %s", le.Msg)
		}
		return s.errorAt(pos, "constant: %v", err)
	}
	in.Literal = l
	return nil
}

// scalarForArray reads a constant whose array shape is given one value
// (`s32[3,4] constant(1)`). XLA's parser accepts that form and sets the
// first element to the value, leaving the others zero (its dense-literal
// reader counts the value as element 0 of a literal it created zeroed);
// Kiln builds the same literal.
func (p *hloParser) scalarForArray(in *Instruction, text string, pos int) error {
	s := &p.s
	sh := in.Shape.WithoutLayout()
	n := hloElementCount(sh)
	if n == 0 {
		return s.errorAt(pos, "constant: cannot set value %s at linear index 0 of a literal of shape %s, which has no elements", strings.TrimSpace(text), sh.StringWithoutLayout())
	}
	if n < 0 || sh.ByteSize() < 0 || sh.ByteSize() > maxSingleValueConstantBytes {
		return s.errorAt(pos, "constant %s of shape %v given by a single value needs %d bytes, more than Kiln expands (%d bytes at most)", in.Name, in.Shape, sh.ByteSize(), maxSingleValueConstantBytes)
	}
	v, err := ParseLiteralValue(Scalar(sh.Elem), text)
	if err != nil {
		var le *LiteralSyntaxError
		if errors.As(err, &le) {
			return s.errorAt(pos+le.Offset, "constant: %s", le.Msg)
		}
		return s.errorAt(pos, "constant: %v", err)
	}
	l, err := NewLiteral(MakeShape(sh.Elem, sh.Dims...))
	if err != nil {
		return s.errorAt(pos, "constant: %v", err)
	}
	copy(l.data, v.data)
	if sh.IsDynamic() {
		l.shape = sh.Clone()
	}
	in.Literal, in.LiteralSingle = l, true
	return nil
}

// maxSingleValueConstantBytes bounds the array a single constant value may
// stand for, so that a short text cannot make the parser allocate without
// limit.
const maxSingleValueConstantBytes = 1 << 28

func hloElementCount(sh Shape) int {
	if sh.IsTuple() {
		n := 0
		for _, e := range sh.Tuple {
			c := hloElementCount(e)
			if c < 0 || n > math.MaxInt-c {
				return math.MaxInt
			}
			n += c
		}
		return n
	}
	if c := sh.ElementCount(); c >= 0 {
		return c
	}
	return math.MaxInt
}

func hloAbbreviate(text string) string {
	if len(text) > 40 {
		return text[:37] + "..."
	}
	return text
}
