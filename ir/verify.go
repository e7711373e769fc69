package ir

import (
	"fmt"
	"slices"
	"strconv"
)

// Verify checks that the module is well formed: it has an entry among its
// computations; computation names are unique (instruction names need only be
// unique within their computation, as in XLA's parser); every called
// computation belongs to the module and comes before its callers; the entry
// layout, if written, matches the entry's signature; and every computation
// passes (*Computation).Verify, with the collective ops also checked against
// the module's replica and partition counts. It returns the first problem
// found.
func (m *Module) Verify() error {
	if m.Entry == nil {
		return fmt.Errorf("module %s: no entry computation", m.Name)
	}
	pos := make(map[*Computation]int, len(m.Computations))
	names := make(map[string]bool, len(m.Computations))
	for i, c := range m.Computations {
		if c == nil {
			return fmt.Errorf("module %s: computation %d is nil", m.Name, i)
		}
		if _, dup := pos[c]; dup {
			return fmt.Errorf("module %s: computation %q is listed twice", m.Name, c.Name)
		}
		if c.Name == "" {
			return fmt.Errorf("module %s: computation %d has no name", m.Name, i)
		}
		if names[c.Name] {
			return fmt.Errorf("module %s: two computations are named %q", m.Name, c.Name)
		}
		names[c.Name] = true
		pos[c] = i
	}
	if _, ok := pos[m.Entry]; !ok {
		return fmt.Errorf("module %s: entry computation %q is not among the module's computations", m.Name, m.Entry.Name)
	}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in == nil {
				continue
			}
			for _, callee := range in.Called() {
				at, ok := pos[callee]
				if !ok {
					return fmt.Errorf("module %s: computation %q, instruction %q: called computation %q is not in the module", m.Name, c.Name, in.Name, callee.Name)
				}
				if at >= pos[c] {
					return fmt.Errorf("module %s: computation %q, instruction %q: called computation %q must come before its caller", m.Name, c.Name, in.Name, callee.Name)
				}
			}
		}
	}
	info := &moduleInfo{replicas: m.ReplicaCount(), partitions: moduleIntAttr(m, "num_partitions")}
	for _, c := range m.Computations {
		if err := verifyComputation(c, info); err != nil {
			return fmt.Errorf("module %s: %w", m.Name, err)
		}
	}
	if l := m.EntryLayout; l != nil {
		ps := m.Entry.ProgramShape()
		if len(l.Parameters) != len(ps.Parameters) {
			return fmt.Errorf("module %s: entry_computation_layout has %d parameters, entry computation %q has %d", m.Name, len(l.Parameters), m.Entry.Name, len(ps.Parameters))
		}
		for i := range l.Parameters {
			if !compatible(l.Parameters[i], ps.Parameters[i]) {
				return fmt.Errorf("module %s: entry_computation_layout parameter %d is %s, entry parameter %d is %s", m.Name, i, human(l.Parameters[i]), i, human(ps.Parameters[i]))
			}
		}
		if !compatible(l.Result, ps.Result) {
			return fmt.Errorf("module %s: entry_computation_layout result is %s, the entry returns %s", m.Name, human(l.Result), human(ps.Result))
		}
	}
	return nil
}

// moduleIntAttr reads an integer attribute of the HloModule line (0 if absent).
func moduleIntAttr(m *Module, name string) int {
	for _, a := range m.Attributes {
		if a.Name == name {
			if n, err := strconv.Atoi(a.Value); err == nil {
				return n
			}
		}
	}
	return 0
}

// Verify checks that the computation is well formed: a root among its
// instructions; parameters numbered densely from 0; every instruction in
// the computation, with its operands defined earlier in the same
// computation, the number of operands its opcode takes, called computations
// only in the roles its opcode has, a valid shape, and that shape equal
// (ignoring layout, respecting dynamic dimensions) to what shape inference
// gives for its operands and attributes. Elementwise ops may not broadcast
// implicitly. Opcodes without an inference rule are checked structurally
// only. Called computations are not verified themselves; Module.Verify does
// that.
func (c *Computation) Verify() error { return verifyComputation(c, nil) }

func verifyComputation(c *Computation, mod *moduleInfo) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("computation %q: %s", c.Name, fmt.Sprintf(format, args...))
	}
	if c.Root == nil {
		return fail("no root instruction")
	}
	index := make(map[*Instruction]int, len(c.Instructions))
	names := make(map[string]bool, len(c.Instructions))
	for i, in := range c.Instructions {
		if in == nil {
			return fail("instruction %d is nil", i)
		}
		if _, dup := index[in]; dup {
			return fail("instruction %q is listed twice", in.Name)
		}
		if in.Name == "" {
			return fail("instruction %d (%v) has no name", i, in.Opcode)
		}
		if names[in.Name] {
			return fail("two instructions are named %q", in.Name)
		}
		names[in.Name] = true
		index[in] = i
	}
	if _, ok := index[c.Root]; !ok {
		return fail("root %q is not one of the computation's instructions", c.Root.Name)
	}
	for i, p := range c.Parameters {
		if p == nil {
			return fail("parameter %d is missing (parameter numbers must be dense from 0)", i)
		}
		if p.Opcode != OpParameter || p.ParameterNumber != i {
			return fail("Parameters[%d] is %q, not parameter %d", i, p.Name, i)
		}
		if _, ok := index[p]; !ok {
			return fail("parameter %d %q is not one of the computation's instructions", i, p.Name)
		}
	}
	for i, in := range c.Instructions {
		if err := verifyInstruction(c, in, i, index, mod); err != nil {
			return fmt.Errorf("computation %q, instruction %q: %w", c.Name, in.Name, err)
		}
	}
	return nil
}

func verifyInstruction(c *Computation, in *Instruction, at int, index map[*Instruction]int, mod *moduleInfo) error {
	if in.Parent != c {
		return fmt.Errorf("its Parent is not computation %q", c.Name)
	}
	if in.Opcode <= OpInvalid || in.Opcode >= numOpcodes {
		return fmt.Errorf("invalid opcode %d", in.Opcode)
	}
	if in.Opcode == OpParameter {
		if in.ParameterNumber < 0 || in.ParameterNumber >= len(c.Parameters) || c.Parameters[in.ParameterNumber] != in {
			return fmt.Errorf("parameter number %d is not recorded in the computation's parameters (numbers must be dense and unique)", in.ParameterNumber)
		}
	}
	if n := in.Opcode.Arity(); n != Variadic && len(in.Operands) != n && !sparseOperands(in) {
		return fmt.Errorf("%v takes %d operands, found %d", in.Opcode, n, len(in.Operands))
	}
	for i, o := range in.Operands {
		if o == nil {
			return fmt.Errorf("operand %d is nil", i)
		}
		j, ok := index[o]
		if !ok || o.Parent != c {
			return fmt.Errorf("operand %d %q is not an instruction of this computation", i, o.Name)
		}
		if j >= at {
			return fmt.Errorf("operand %d %q is used before it is defined", i, o.Name)
		}
	}
	for _, p := range in.ControlPredecessors {
		if p == nil {
			return fmt.Errorf("a control predecessor is nil")
		}
		if _, ok := index[p]; !ok || p.Parent != c {
			return fmt.Errorf("control predecessor %q is not an instruction of this computation", p.Name)
		}
	}
	if err := checkCalledRoles(in); err != nil {
		return err
	}
	if err := in.Shape.CheckValid(); err != nil {
		return fmt.Errorf("invalid shape: %w", err)
	}
	switch in.Opcode {
	case OpConstant:
		if in.Literal != nil && !in.Literal.Shape().Compatible(in.Shape) && !in.Shape.Compatible(in.Literal.Shape()) {
			return fmt.Errorf("constant declares shape %s but its literal has shape %s", human(in.Shape), human(in.Literal.Shape()))
		}
		if in.Literal == nil && !in.LiteralElided {
			return fmt.Errorf("constant has no literal")
		}
	case OpBitcast:
		if in.Operands[0].Shape.ByteSize() != in.Shape.ByteSize() {
			return fmt.Errorf("bitcast from %s (%d bytes) to %s (%d bytes) changes the size", human(in.Operands[0].Shape), in.Operands[0].Shape.ByteSize(), human(in.Shape), in.Shape.ByteSize())
		}
	}
	want, hasRule, err := inferInstruction(in, mod)
	if err != nil {
		return err
	}
	if !hasRule {
		return nil
	}
	if !want.EqualIgnoringLayout(in.Shape) && !equalIgnoringFpPrecision(want, in.Shape) {
		return &ShapeError{Op: in.Opcode.String(), Msg: fmt.Sprintf("declared shape %s differs from the inferred shape %s", human(in.Shape), human(want))}
	}
	return checkNoImplicitBroadcast(in)
}

// checkNoImplicitBroadcast refuses elementwise instructions whose array
// operands do not have the result's dimensions: HLO broadcasts explicitly.
// A select between tuples takes a scalar predicate.
func checkNoImplicitBroadcast(in *Instruction) error {
	if !in.Opcode.IsElementwise() || !in.Shape.IsArray() {
		return nil
	}
	for i, o := range in.Operands {
		if o.Shape.IsArray() && !slices.Equal(o.Shape.Dims, in.Shape.Dims) {
			return &ShapeError{Op: in.Opcode.String(), Msg: fmt.Sprintf("operand %d has shape %s but the result has shape %s: HLO does not broadcast implicitly", i, human(o.Shape), human(in.Shape))}
		}
	}
	return nil
}

// checkCalledRoles refuses called computations in roles the opcode does not
// have (XLA: "called computations specified for non-caller instruction").
func checkCalledRoles(in *Instruction) error {
	op := in.Opcode
	allowed := func(ok bool, role string) error {
		if !ok {
			return fmt.Errorf("%v does not take a %s computation", op, role)
		}
		return nil
	}
	toApply := false
	switch op {
	case OpReduce, OpReduceWindow, OpMap, OpScatter, OpSort, OpCall, OpAllReduce, OpAllReduceStart, OpReduceScatter, OpCustomCall,
		OpScan, OpCollectiveReduce:
		toApply = true
	}
	async := op.IsAsync()
	checks := []struct {
		present bool
		ok      bool
		role    string
	}{
		{in.ToApply != nil, toApply || async, "to_apply"},
		{in.Condition != nil, op == OpWhile, "condition"},
		{in.Body != nil, op == OpWhile, "body"},
		{len(in.Branches) > 0, op == OpConditional, "branch"},
		{in.Select != nil, op == OpSelectAndScatter, "select"},
		{in.Scatter != nil, op == OpSelectAndScatter, "scatter"},
		{in.Calls != nil, op == OpFusion || async, "calls"},
		{len(in.CalledComputations) > 0, op == OpCustomCall || async, "called"},
	}
	for _, ch := range checks {
		if ch.present {
			if err := allowed(ch.ok, ch.role); err != nil {
				return err
			}
		}
	}
	for i, b := range in.Branches {
		if b == nil {
			return fmt.Errorf("branch computation %d is nil", i)
		}
	}
	for i, b := range in.CalledComputations {
		if b == nil {
			return fmt.Errorf("called computation %d is nil", i)
		}
	}
	return nil
}

// equalIgnoringFpPrecision reports whether two shapes are equal but for the
// precision of real floating-point element types: XLA's verifier accepts
// such a declared shape when it allows mixed precision (as its own tests
// run it), and the op then computes in the declared type.
func equalIgnoringFpPrecision(a, b Shape) bool {
	if a.IsTuple() || b.IsTuple() {
		if !a.IsTuple() || !b.IsTuple() || len(a.Tuple) != len(b.Tuple) {
			return false
		}
		for i := range a.Tuple {
			if !equalIgnoringFpPrecision(a.Tuple[i], b.Tuple[i]) {
				return false
			}
		}
		return true
	}
	return sameIgnoringFpPrecision(a.Elem, b.Elem) && a.WithElem(b.Elem).EqualIgnoringLayout(b)
}

// sparseOperands reports a dot or convolution with sparsity metadata
// operands (their count is checked by shape inference).
func sparseOperands(in *Instruction) bool {
	_, ok := in.RawAttr("sparsity_config")
	return ok && (in.Opcode == OpDot || in.Opcode == OpConvolution)
}
