package ir

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// This file parses HLO modules in XLA's text format, as
// `jax.jit(f).lower(…).as_text(dialect="hlo")` and XLA's dumps write them:
// both the form with `%`-prefixed names, operand shapes and computation
// signatures, and the newer form without them. Attributes Kiln interprets
// go into the typed fields of Attrs; the others are kept verbatim in Raw.

// ParseModule parses an HLO module. Errors are *ParseError values with the
// line and column of the problem.
func ParseModule(text string) (m *Module, err error) {
	p := &hloParser{s: hloScanner{src: text}}
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, p.s.errorAt(p.s.pos, "internal error in HLO parser: %v", r)
		}
	}()
	return p.module()
}

type hloParser struct {
	s       hloScanner
	m       *Module
	comps   map[string]*Computation
	defined map[string]int // computation name → offset of its definition
	order   []*Computation // in text order
	refs    []computationRef
	callees map[*Computation][]*Computation
}

// computationRef is a use of a computation by name, resolved once every
// computation has been read (callees may be defined after their callers).
type computationRef struct {
	name string
	pos  int
	from *Computation
	set  func(*Computation)
}

func (p *hloParser) module() (*Module, error) {
	s := &p.s
	if !s.acceptKeyword("HloModule") {
		return nil, s.errorf("expected 'HloModule' at start of module, found %s", s.found())
	}
	name, err := s.name("module name")
	if err != nil {
		return nil, err
	}
	p.m = &Module{Name: name}
	p.comps = map[string]*Computation{}
	p.defined = map[string]int{}
	p.callees = map[*Computation][]*Computation{}
	eclPos := -1
	seen := map[string]bool{}
	for s.accept(',') {
		s.skipSpace()
		attrPos := s.pos
		key := s.ident()
		if key == "" {
			return nil, s.errorf("expected module attribute name, found %s", s.found())
		}
		if seen[key] {
			return nil, s.errorAt(attrPos, "module attribute %s given twice", key)
		}
		seen[key] = true
		if err := s.expect('=', "after module attribute "+key); err != nil {
			return nil, err
		}
		if key == "entry_computation_layout" {
			eclPos = attrPos
			ps, err := p.entryLayout()
			if err != nil {
				return nil, err
			}
			p.m.EntryLayout = &ps
			continue
		}
		v, err := s.rawValue("module attribute " + key)
		if err != nil {
			return nil, err
		}
		p.m.Attributes = append(p.m.Attributes, RawAttribute{Name: key, Value: v})
	}
	// XLA writes is_scheduled first; keeping it first makes printing stable.
	for i, a := range p.m.Attributes {
		if a.Name == "is_scheduled" {
			copy(p.m.Attributes[1:i+1], p.m.Attributes[:i])
			p.m.Attributes[0] = a
		}
	}
	var entry *Computation
	entryPos := 0
	for !s.atEOF() {
		compPos := s.pos
		c, isEntry, err := p.computation()
		if err != nil {
			return nil, err
		}
		if isEntry {
			if entry != nil {
				return nil, s.errorAt(compPos, "second ENTRY computation %q (the first is %q at %s)", c.Name, entry.Name, p.where(entryPos))
			}
			entry, entryPos = c, compPos
		}
	}
	if len(p.order) == 0 {
		return nil, s.errorf("expected a computation, found %s", s.found())
	}
	if entry == nil {
		entry = p.order[len(p.order)-1] // XLA takes the last computation as the entry
	}
	for _, r := range p.refs {
		c, ok := p.comps[r.name]
		if !ok {
			return nil, s.errorAt(r.pos, "computation %q is not defined", r.name)
		}
		if c == entry {
			return nil, s.errorAt(r.pos, "the entry computation %q cannot be called", r.name)
		}
		r.set(c)
		p.callees[r.from] = append(p.callees[r.from], c)
	}
	if err := p.orderComputations(entry); err != nil {
		return nil, err
	}
	if p.m.EntryLayout != nil {
		if err := checkEntryLayout(*p.m.EntryLayout, entry); err != nil {
			return nil, s.errorAt(eclPos, "entry_computation_layout: %v", err)
		}
	}
	return p.m, nil
}

// where formats an offset as line:column.
func (p *hloParser) where(pos int) string {
	e := p.s.errorAt(pos, "")
	return fmt.Sprintf("%d:%d", e.Line, e.Column)
}

// entryLayout reads `{(f32[2]{0}, s32[])->f32[2]{0}}`.
func (p *hloParser) entryLayout() (ProgramShape, error) {
	s := &p.s
	var ps ProgramShape
	if err := s.expect('{', "to open entry_computation_layout"); err != nil {
		return ps, err
	}
	if err := s.expect('(', "to open entry_computation_layout parameters"); err != nil {
		return ps, err
	}
	for !s.accept(')') {
		sh, err := s.shape(0)
		if err != nil {
			return ps, err
		}
		ps.Parameters = append(ps.Parameters, sh)
		if s.peek() != ')' {
			if err := s.expect(',', "between entry_computation_layout parameters"); err != nil {
				return ps, err
			}
		}
	}
	if !s.acceptString("->") {
		return ps, s.errorf("expected '->' in entry_computation_layout, found %s", s.found())
	}
	res, err := s.shape(0)
	if err != nil {
		return ps, err
	}
	ps.Result = res
	return ps, s.expect('}', "to close entry_computation_layout")
}

func checkEntryLayout(ps ProgramShape, entry *Computation) error {
	if len(ps.Parameters) != len(entry.Parameters) {
		return fmt.Errorf("%d parameters, but entry computation %q has %d", len(ps.Parameters), entry.Name, len(entry.Parameters))
	}
	for i, sh := range ps.Parameters {
		if !sh.Compatible(entry.Parameters[i].Shape) {
			return fmt.Errorf("parameter %d has shape %v, but entry computation %q's parameter %d has shape %v",
				i, sh.StringWithoutLayout(), entry.Name, i, entry.Parameters[i].Shape.StringWithoutLayout())
		}
	}
	if !ps.Result.Compatible(entry.Root.Shape) {
		return fmt.Errorf("result has shape %v, but entry computation %q returns %v",
			ps.Result.StringWithoutLayout(), entry.Name, entry.Root.Shape.StringWithoutLayout())
	}
	return nil
}

// orderComputations lists the computations so that each comes after every
// computation it calls (keeping the text order where it already does), and
// sets the entry.
func (p *hloParser) orderComputations(entry *Computation) error {
	state := map[*Computation]int{} // 1: visiting, 2: done
	var visit func(c *Computation) error
	visit = func(c *Computation) error {
		switch state[c] {
		case 1:
			return p.s.errorAt(p.defined[c.Name], "computation %q calls itself (directly or through others)", c.Name)
		case 2:
			return nil
		}
		state[c] = 1
		for _, callee := range p.callees[c] {
			if err := visit(callee); err != nil {
				return err
			}
		}
		state[c] = 2
		p.m.AddComputation(c, c == entry)
		return nil
	}
	for _, c := range p.order {
		if err := visit(c); err != nil {
			return err
		}
	}
	return nil
}

// computation reads `[ENTRY] name [(signature) -> shape] { instructions } [, execution_thread="…"]`.
func (p *hloParser) computation() (*Computation, bool, error) {
	s := &p.s
	s.skipSpace()
	start := s.pos
	isEntry := s.acceptKeyword("ENTRY")
	s.skipSpace()
	namePos := s.pos
	name, err := s.name("computation name")
	if err != nil {
		return nil, false, err
	}
	if prev, dup := p.defined[name]; dup {
		return nil, false, s.errorAt(namePos, "computation %q is defined twice (first at %s)", name, p.where(prev))
	}
	if s.peek() == '(' {
		if err := p.signature(); err != nil {
			return nil, false, err
		}
	}
	if err := s.expect('{', "to open the body of computation "+name); err != nil {
		return nil, false, err
	}
	c := &Computation{Name: name}
	p.comps[name] = c
	p.defined[name] = start
	p.order = append(p.order, c)
	sc := &instrScope{byName: map[string]*Instruction{}, pos: map[string]int{}}
	rootPos := -1
	for !s.accept('}') {
		if s.atEOF() {
			return nil, false, s.errorf("expected '}' to close computation %s, found %s", name, s.found())
		}
		s.skipSpace()
		instrPos := s.pos
		in, isRoot, err := p.instruction(c, sc)
		if err != nil {
			return nil, false, err
		}
		if isRoot {
			if c.Root != nil {
				return nil, false, s.errorAt(instrPos, "computation %s has a second ROOT %q (the first is %q at %s)", name, in.Name, c.Root.Name, p.where(rootPos))
			}
			c.Root, rootPos = in, instrPos
		}
	}
	if len(c.Instructions) == 0 {
		return nil, false, s.errorAt(namePos, "computation %s has no instructions", name)
	}
	if c.Root == nil {
		c.Root = c.Instructions[len(c.Instructions)-1] // as XLA does
	}
	for i, prm := range c.Parameters {
		if prm == nil {
			return nil, false, s.errorAt(namePos, "computation %s has no parameter(%d) but has parameter(%d)", name, i, len(c.Parameters)-1)
		}
	}
	if s.peek() == ',' {
		save := s.pos
		s.accept(',')
		if s.peekIdent() == "execution_thread" {
			s.ident()
			if err := s.expect('=', "after execution_thread"); err != nil {
				return nil, false, err
			}
			if c.ExecutionThread, err = s.quoted("execution_thread"); err != nil {
				return nil, false, err
			}
		} else {
			s.pos = save
			return nil, false, s.errorf("expected execution_thread=… after computation %s, found %s", name, s.found())
		}
	}
	return c, isEntry, nil
}

// signature reads and checks the form of `(p0: f32[2], p1: s32[]) -> f32[2]`;
// the shapes are those of the parameters and root, which the body gives.
func (p *hloParser) signature() error {
	s := &p.s
	s.accept('(')
	for !s.accept(')') {
		if _, err := s.name("parameter name in computation signature"); err != nil {
			return err
		}
		if err := s.expect(':', "after parameter name in computation signature"); err != nil {
			return err
		}
		if _, err := s.shape(0); err != nil {
			return err
		}
		if s.peek() != ')' {
			if err := s.expect(',', "between parameters in computation signature"); err != nil {
				return err
			}
		}
	}
	if !s.acceptString("->") {
		return s.errorf("expected '->' after computation parameters, found %s", s.found())
	}
	_, err := s.shape(0)
	return err
}

// instrScope holds the instructions of the computation being read, by name.
type instrScope struct {
	byName map[string]*Instruction
	pos    map[string]int // offset of each definition
}

// asyncSuffixes are XLA's shorthand async forms: `<op>-start` and so on.
var asyncSuffixes = []struct {
	suffix string
	op     Opcode
}{{"-start", OpAsyncStart}, {"-update", OpAsyncUpdate}, {"-done", OpAsyncDone}}

// instruction reads `[ROOT] name = shape opcode(operands), attributes`.
func (p *hloParser) instruction(c *Computation, sc *instrScope) (*Instruction, bool, error) {
	s := &p.s
	s.skipSpace()
	start := s.pos
	isRoot := s.acceptKeyword("ROOT")
	s.skipSpace()
	namePos := s.pos
	name, err := s.name("instruction name")
	if err != nil {
		return nil, false, err
	}
	if prev, dup := sc.pos[name]; dup {
		return nil, false, s.errorAt(namePos, "instruction %q is defined twice in computation %s (first at %s)", name, c.Name, p.where(prev))
	}
	if err := s.expect('=', "after instruction name "+name); err != nil {
		return nil, false, err
	}
	sh, err := s.shape(0)
	if err != nil {
		return nil, false, err
	}
	s.skipSpace()
	opPos := s.pos
	opName := s.ident()
	if opName == "" {
		return nil, false, s.errorf("expected opcode of instruction %s, found %s", name, s.found())
	}
	in := &Instruction{Name: name, Shape: sh}
	op, ok := ParseOpcode(opName)
	if !ok {
		for _, a := range asyncSuffixes {
			if base, found := strings.CutSuffix(opName, a.suffix); found {
				if wrapped, ok2 := ParseOpcode(base); ok2 {
					op, ok = a.op, true
					in.AsyncWrapped = wrapped
				}
			}
		}
	}
	if !ok {
		return nil, false, s.errorAt(opPos, "unknown opcode %q", opName)
	}
	in.Opcode = op
	if err := s.expect('(', "after opcode "+opName); err != nil {
		return nil, false, err
	}
	switch op {
	case OpParameter:
		numPos := s.pos
		n, err := s.nonNegInt("parameter number")
		if err != nil {
			return nil, false, err
		}
		if n < len(c.Parameters) && c.Parameters[n] != nil {
			return nil, false, s.errorAt(numPos, "parameter(%d) is defined twice in computation %s (%q and %q)", n, c.Name, c.Parameters[n].Name, name)
		}
		if n > 1<<20 {
			return nil, false, s.errorAt(numPos, "parameter number %d is too large", n)
		}
		in.ParameterNumber = n
		if err := s.expect(')', "after parameter number"); err != nil {
			return nil, false, err
		}
	case OpConstant:
		open := s.pos - 1
		text, err := s.balanced('(', open, "constant")
		if err != nil {
			return nil, false, err
		}
		if err := p.constant(in, text, open+1); err != nil {
			return nil, false, err
		}
	default:
		if err := p.operands(in, c, sc); err != nil {
			return nil, false, err
		}
		if err := checkArity(s, in, opName, opPos); err != nil {
			return nil, false, err
		}
	}
	if op == OpTopK {
		in.Largest = true
	}
	seen := map[string]bool{}
	for s.accept(',') {
		if err := p.attribute(in, c, sc, seen); err != nil {
			return nil, false, err
		}
	}
	if err := checkRequired(s, in, opName, opPos, seen); err != nil {
		return nil, false, err
	}
	sc.pos[name] = start
	sc.byName[name] = in
	c.Add(in)
	return in, isRoot, nil
}

// constant fills in the literal of a constant instruction from the text
// between its parentheses, which starts at offset pos.
func (p *hloParser) constant(in *Instruction, text string, pos int) error {
	s := &p.s
	if strings.TrimSpace(text) == "{...}" {
		in.LiteralElided = true
		return nil
	}
	// Every element of a static shape takes at least one byte of text;
	// checking that first refuses a hostile shape at once.
	if !in.Shape.IsDynamic() && hloElementCount(in.Shape) > len(text) {
		return s.errorAt(pos, "constant of shape %v has more elements than its text %q can hold", in.Shape, hloAbbreviate(text))
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

// operands reads `(f32[2]{0} %a, %b, c)` after its '('.
func (p *hloParser) operands(in *Instruction, c *Computation, sc *instrScope) error {
	s := &p.s
	if s.accept(')') {
		return nil
	}
	for {
		s.skipSpace()
		opStart := s.pos
		var declared *Shape
		if s.peek() == '(' || p.shapeFollows() {
			sh, err := s.shape(0)
			if err != nil {
				return err
			}
			declared = &sh
		}
		s.skipSpace()
		namePos := s.pos
		name, err := s.name("operand name")
		if err != nil {
			return err
		}
		operand := sc.byName[name]
		if operand == nil {
			return s.errorAt(namePos, "operand %q of %s is not defined before it in computation %s", name, in.Name, c.Name)
		}
		if declared != nil && !declared.Compatible(operand.Shape) {
			return s.errorAt(opStart, "operand %q is written with shape %v but has shape %v",
				name, declared.StringWithoutLayout(), operand.Shape.StringWithoutLayout())
		}
		in.Operands = append(in.Operands, operand)
		if s.accept(')') {
			return nil
		}
		if err := s.expect(',', "between operands"); err != nil {
			return err
		}
	}
}

// shapeFollows reports whether the next token starts an array shape
// (`f32[`), as opposed to an operand name.
func (p *hloParser) shapeFollows() bool {
	save := p.s.pos
	id := p.s.ident()
	follows := id != "" && p.s.peek() == '['
	p.s.pos = save
	return follows
}

// checkArity reports a wrong number of operands for fixed-arity opcodes.
func checkArity(s *hloScanner, in *Instruction, opName string, pos int) error {
	want := in.Opcode.Arity()
	switch {
	case in.AsyncWrapped != OpInvalid && in.Opcode == OpAsyncStart:
		want = in.AsyncWrapped.Arity()
	case in.Opcode == OpIota || in.Opcode == OpReplicaID || in.Opcode == OpPartitionID:
		want = 0
	case (in.Opcode == OpConvolution || in.Opcode == OpDot) && len(in.Operands) > 2:
		// A sparse operand's metadata follows the operands (sparsity_config=).
		want = Variadic
	}
	if want != Variadic && len(in.Operands) != want {
		return s.errorAt(pos, "%s expects %d operands, found %d", opName, want, len(in.Operands))
	}
	if (in.Opcode == OpAsyncUpdate || in.Opcode == OpAsyncDone) && len(in.Operands) == 0 {
		// The first operand is the async-start or -update it continues.
		return s.errorAt(pos, "No operand found for AsyncUpdate and AsyncDone: %s needs the async op it continues", opName)
	}
	return nil
}
