package ir

import (
	"slices"
	"strconv"
	"strings"
)

// The Builder's operations that call computations or group values: while,
// conditional, call, composite call, custom call, tuple, get-tuple-element
// and the optimization barrier.

// While adds a loop: starting from init, body runs while condition holds;
// the result is the last value.
func (b *Builder) While(condition, body *Computation, init Op) Op {
	const op = "while"
	if !b.use(op, init) {
		return Op{b: b}
	}
	cp, ok := b.useComputation(op, "condition", condition)
	if !ok {
		return Op{b: b}
	}
	bp, ok := b.useComputation(op, "body", body)
	if !ok {
		return Op{b: b}
	}
	s, err := InferWhileShape(cp, bp, init.in.Shape)
	if err != nil {
		return b.fail(err)
	}
	return b.emit(&Instruction{Opcode: OpWhile, Shape: s, Operands: []*Instruction{init.in}, Condition: condition, Body: body})
}

// Conditional adds trueComp(trueOperand) if pred holds, else
// falseComp(falseOperand).
func (b *Builder) Conditional(pred, trueOperand Op, trueComp *Computation, falseOperand Op, falseComp *Computation) Op {
	return b.conditional("conditional", pred, []*Computation{trueComp, falseComp}, []Op{trueOperand, falseOperand})
}

// IndexedConditional adds branches[i](operands[i]) for the s32 scalar i =
// index; an index out of range runs the last branch.
func (b *Builder) IndexedConditional(index Op, branches []*Computation, operands []Op) Op {
	return b.conditional("conditional", index, branches, operands)
}

func (b *Builder) conditional(op string, index Op, branches []*Computation, operands []Op) Op {
	if !b.use(op, append([]Op{index}, operands...)...) {
		return Op{b: b}
	}
	ps := make([]ProgramShape, len(branches))
	for i, c := range branches {
		p, ok := b.useComputation(op, "branch "+itoa(i), c)
		if !ok {
			return Op{b: b}
		}
		ps[i] = p
	}
	s, err := InferConditionalShape(index.in.Shape, ps, shapesOf(operands))
	if err != nil {
		return b.fail(err)
	}
	return b.emit(&Instruction{Opcode: OpConditional, Shape: s, Operands: append([]*Instruction{index.in}, instructions(operands)...), Branches: slices.Clone(branches)})
}

// Call adds comp applied to operands.
func (b *Builder) Call(comp *Computation, operands ...Op) Op {
	const op = "call"
	if !b.use(op, operands...) {
		return Op{b: b}
	}
	p, ok := b.useComputation(op, "to_apply", comp)
	if !ok {
		return Op{b: b}
	}
	s, err := InferCallShape(shapesOf(operands), p)
	if err != nil {
		return b.fail(err)
	}
	return b.emit(&Instruction{Opcode: OpCall, Shape: s, Operands: instructions(operands), ToApply: comp})
}

// Scan adds a scan of body over dimension dim of inputs, threading carries
// through the steps (from the last index down when reverse): body takes one
// element slice of each input and the carries, and returns the step's
// outputs followed by the new carries. The result holds the outputs stacked
// along dim, then the final carries. associative says body's combination
// may be reassociated.
func (b *Builder) Scan(body *Computation, inputs, carries []Op, dim int, reverse, associative bool) Op {
	const op = "scan"
	operands := append(slices.Clone(inputs), carries...)
	if !b.use(op, operands...) {
		return Op{b: b}
	}
	p, ok := b.useComputation(op, "to_apply", body)
	if !ok {
		return Op{b: b}
	}
	s, err := InferScanShape(shapesOf(inputs), shapesOf(carries), dim, p)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpScan, Shape: s, Operands: instructions(operands), ToApply: body}
	in.Dimensions = []int{dim}
	in.NumCarries, in.IsReverse, in.IsAssociative = len(carries), reverse, associative
	return b.emit(in)
}

// CompositeCall adds a call of decomposition marked as the composite op
// name (with its attributes, a dictionary in text, and version), which
// may be replaced by its decomposition without changing the program.
func (b *Builder) CompositeCall(decomposition *Computation, operands []Op, name, attributes string, version int64) Op {
	const op = "call"
	if !b.use(op, operands...) {
		return Op{b: b}
	}
	if name == "" {
		return b.failf(op, "a composite call needs a name")
	}
	p, ok := b.useComputation(op, "to_apply", decomposition)
	if !ok {
		return Op{b: b}
	}
	s, err := InferCallShape(shapesOf(operands), p)
	if err != nil {
		return b.fail(err)
	}
	if attributes == "" {
		attributes = "{}"
	}
	in := &Instruction{Opcode: OpCall, Shape: s, Operands: instructions(operands), ToApply: decomposition}
	in.IsComposite = true
	in.Raw = []RawAttribute{{Name: "frontend_attributes", Value: frontendAttributes(map[string]string{
		"composite.name":       name,
		"composite.attributes": attributes,
		"composite.version":    strconv.FormatInt(version, 10),
	})}}
	return b.emit(in)
}

// frontendAttributes prints a frontend_attributes value as XLA does: keys
// sorted, dictionary values bare, other values quoted.
func frontendAttributes(attrs map[string]string) string {
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var sb strings.Builder
	sb.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			sb.WriteByte(',')
		}
		v := attrs[k]
		sb.WriteString(k)
		sb.WriteByte('=')
		if strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}") {
			sb.WriteString(v)
		} else {
			sb.WriteString(cQuote(v))
		}
	}
	sb.WriteByte('}')
	return sb.String()
}

// cQuote quotes s with C escapes, as XLA's text writes strings.
func cQuote(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case '\n':
			sb.WriteString(`\n`)
		case '\t':
			sb.WriteString(`\t`)
		case '\r':
			sb.WriteString(`\r`)
		default:
			if c < 0x20 || c == 0x7f {
				sb.WriteString(`\` + strconv.FormatInt(int64(c)+0o1000, 8)[1:])
			} else {
				sb.WriteByte(c)
			}
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// CustomCallOptions are the optional settings of CustomCall.
type CustomCallOptions struct {
	// BackendConfig is the opaque string handed to the target (printed
	// backend_config="…").
	BackendConfig string
	// HasSideEffect keeps the call even when its result is unused.
	HasSideEffect bool
	// OperandLayouts, when set, gives the shape with layout each operand
	// must have, one per operand.
	OperandLayouts []Shape
	// Called are computations the target may call.
	Called []*Computation
}

// CustomCall adds a call of the external function target on operands,
// returning a value of shape.
func (b *Builder) CustomCall(target string, operands []Op, shape Shape, opts ...CustomCallOptions) Op {
	const op = "custom-call"
	if !b.use(op, operands...) {
		return Op{b: b}
	}
	o, ok := oneOption(b, op, opts)
	if !ok {
		return Op{b: b}
	}
	for i, c := range o.Called {
		if _, ok := b.useComputation(op, "called "+itoa(i), c); !ok {
			return Op{b: b}
		}
	}
	s, err := InferCustomCallShape(target, shapesOf(operands), o.OperandLayouts, shape)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpCustomCall, Shape: s, Operands: instructions(operands), CalledComputations: slices.Clone(o.Called)}
	in.CustomCallTarget = target
	if o.BackendConfig != "" {
		in.BackendConfig = cQuote(o.BackendConfig)
	}
	in.HasSideEffect = o.HasSideEffect
	for _, l := range o.OperandLayouts {
		in.OperandLayouts = append(in.OperandLayouts, l.Clone())
	}
	return b.emitAsIs(in)
}

// Tuple adds the tuple of elems.
func (b *Builder) Tuple(elems ...Op) Op {
	const op = "tuple"
	if !b.use(op, elems...) {
		return Op{b: b}
	}
	return b.emit(&Instruction{Opcode: OpTuple, Shape: InferTupleShape(shapesOf(elems)), Operands: instructions(elems)})
}

// GetTupleElement adds element index of the tuple t.
func (b *Builder) GetTupleElement(t Op, index int) Op {
	const op = "get-tuple-element"
	if !b.use(op, t) {
		return Op{b: b}
	}
	s, err := InferGetTupleElementShape(t.in.Shape, index)
	if err != nil {
		return b.fail(err)
	}
	in := &Instruction{Opcode: OpGetTupleElement, Shape: s, Operands: []*Instruction{t.in}}
	in.TupleIndex = index
	return b.emit(in)
}

// OptimizationBarrier adds a barrier no optimization moves computation
// across: its result is x, evaluated before anything that uses the result.
func (b *Builder) OptimizationBarrier(x Op) Op {
	const op = "opt-barrier"
	if !b.use(op, x) {
		return Op{b: b}
	}
	s, err := InferOptimizationBarrierShape(x.in.Shape)
	if err != nil {
		return b.fail(err)
	}
	return b.emit(&Instruction{Opcode: OpOptimizationBarrier, Shape: s, Operands: []*Instruction{x.in}})
}
