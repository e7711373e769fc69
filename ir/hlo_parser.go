package ir

import (
	"fmt"
	"sort"
	"strings"
)

// This file parses HLO modules in XLA's text format, as XLA's dumps,
// `jax.jit(f).lower(…).as_text(dialect="hlo")` and XLA's own tests write
// them: the form with `%`-prefixed names, operand shapes and computation
// signatures, the newer form without them, modules without an `HloModule`
// line (a list of computations, the ENTRY one or else the last being the
// entry), instructions written without a shape (their shape is inferred),
// operands written as nested instructions (`add(f32[] parameter(0), …)`) or
// as compact tuple accesses (`%p#1`), computations written inline as an
// attribute value (`to_apply={…}`), and the stack-frame section. It accepts
// what XLA's parser accepts and rejects what it rejects, with an error that
// names the line and column. Attributes Kiln interprets go into the typed
// fields of Attrs; the others XLA knows are checked and kept verbatim in
// Raw.

// ParseModule parses an HLO module. Errors are *ParseError values with the
// line and column of the problem.
func ParseModule(text string) (m *Module, err error) {
	p := newHLOParser(text)
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
	order   []*Computation // in the order their definitions end
	refs    []computationRef
	callees map[*Computation][]*Computation
	// names counts the uses of each instruction name in the module, so that
	// nested instructions get names of their own (XLA's "add.anon").
	names map[string]bool
	depth int // nesting of instructions, operands and computations
	// asyncStarts counts, per computation, the async-start instructions
	// that call it: XLA lets only one do so.
	asyncStarts map[*Computation][]int
	// The module's input_output_alias and buffer_donor, checked once the
	// entry is known.
	aliases            []ioAlias
	donors             []bufferDonor
	aliasPos, donorPos int
	// single is the computation of a text holding one instruction, whose
	// unknown operands become parameters.
	single *Computation
}

func newHLOParser(text string) *hloParser {
	return &hloParser{
		s:           hloScanner{src: text},
		comps:       map[string]*Computation{},
		defined:     map[string]int{},
		callees:     map[*Computation][]*Computation{},
		names:       map[string]bool{},
		asyncStarts: map[*Computation][]int{},
	}
}

// hloMaxDepth bounds the nesting of instructions, operands and inline
// computations, as XLA's max_recursion_depth does.
const hloMaxDepth = 200

// enter counts one more level of nesting and reports an error past the limit.
func (p *hloParser) enter() error {
	p.depth++
	if p.depth > hloMaxDepth {
		return p.s.errorf("maximum recursion depth exceeded (%d nested instructions, operands or computations)", hloMaxDepth)
	}
	return nil
}

func (p *hloParser) leave() { p.depth-- }

// computationRef is a use of a computation by name, resolved once every
// computation has been read (callees may be defined after their callers).
type computationRef struct {
	name string
	pos  int
	from *Computation
	set  func(*Computation)
}

// moduleHeaderFollows reports whether the text is a module XLA's parser
// reads as one: it starts with HloModule, ENTRY, or a name and '{' (a
// computation without a signature).
func (p *hloParser) moduleHeaderFollows() (header, module bool) {
	s := &p.s
	save := s.pos
	defer func() { s.pos = save }()
	switch s.peekIdent() {
	case "HloModule":
		return true, true
	case "ENTRY":
		return false, true
	}
	if _, err := s.name("computation name"); err != nil {
		return false, false
	}
	return false, s.peek() == '{'
}

func (p *hloParser) module() (*Module, error) {
	s := &p.s
	header, isModule := p.moduleHeaderFollows()
	if !isModule {
		if s.atEOF() {
			return nil, s.errorf("expected 'HloModule' or a computation, found end of input")
		}
		return p.singleInstruction()
	}
	p.m = &Module{}
	eclPos := -1
	if header {
		s.acceptKeyword("HloModule")
		name, err := s.name("module name")
		if err != nil {
			return nil, err
		}
		s.accept(':') // XLA's lexer reads `name:` as a name
		p.m.Name = name
		if eclPos, err = p.moduleAttributes(); err != nil {
			return nil, err
		}
	}
	if s.peekIdent() == "FileNames" {
		s.acceptKeyword("FileNames")
		x, err := s.stackFrameIndex()
		if err != nil {
			return nil, err
		}
		p.m.StackFrames = x
	}
	var entry *Computation
	entryPos := 0
	var top []*Computation
	for {
		compPos := s.pos
		c, isEntry, err := p.computation()
		if err != nil {
			return nil, err
		}
		top = append(top, c)
		if isEntry {
			if entry != nil {
				return nil, s.errorAt(compPos, "expects only one ENTRY: computation %q is marked ENTRY, and so is %q at %s", c.Name, entry.Name, p.where(entryPos))
			}
			entry, entryPos = c, compPos
		}
		if s.atEOF() {
			break
		}
	}
	if entry == nil {
		entry = top[len(top)-1] // XLA takes the last computation as the entry
	}
	if !header {
		p.m.Name = "module_" + entry.Name
	}
	for _, r := range p.refs {
		c, ok := p.comps[r.name]
		if !ok {
			return nil, s.errorAt(r.pos, "computation %q is not defined", r.name)
		}
		r.set(c)
		p.callees[r.from] = append(p.callees[r.from], c)
	}
	for _, cs := range p.callees {
		for _, c := range cs {
			if c == entry {
				return nil, s.errorAt(p.defined[entry.Name], "the entry computation %q cannot be called", entry.Name)
			}
		}
	}
	for c, at := range p.asyncStarts {
		if len(at) > 1 {
			return nil, s.errorAt(at[1], "computation %q is called by more than one async op", c.Name)
		}
	}
	if err := p.checkAsyncChains(); err != nil {
		return nil, err
	}
	if err := p.orderComputations(entry); err != nil {
		return nil, err
	}
	if p.m.EntryLayout != nil && len(p.m.EntryLayout.Parameters) != len(entry.Parameters) {
		return nil, s.errorAt(eclPos, "entry_computation_layout has %d parameters, but entry computation %q has %d",
			len(p.m.EntryLayout.Parameters), entry.Name, len(entry.Parameters))
	}
	if err := p.checkModuleAliasing(); err != nil {
		return nil, err
	}
	return p.m, nil
}

// singleInstruction reads text that holds one instruction, as XLA's parser
// does when the text is not a module: `[name =] shape opcode(operands), …`.
// The module and its one computation are named "_" (and so is the
// instruction when the text gives no name); each operand that names no
// instruction becomes a parameter of the shape written before it.
func (p *hloParser) singleInstruction() (*Module, error) {
	s := &p.s
	p.m = &Module{Name: "_"}
	c := &Computation{Name: "_"}
	p.comps[c.Name] = c
	p.defined[c.Name] = 0
	p.single = c
	sc := &instrScope{byName: map[string]*Instruction{}, pos: map[string]int{}}
	s.skipSpace()
	start := s.pos
	var err error
	if p.shapeFollows() {
		_, err = p.instructionRHS(c, sc, "_", start, true)
	} else {
		_, _, err = p.instruction(c, sc)
	}
	if err != nil {
		return nil, err
	}
	if !s.atEOF() {
		return nil, s.errorf("expected the end of the text after the instruction (a module needs its HloModule line or ENTRY), found %s", s.found())
	}
	c.Root = c.Instructions[len(c.Instructions)-1]
	for i, prm := range c.Parameters {
		if prm == nil {
			return nil, s.errorAt(start, "the instruction's computation has no parameter(%d) but has parameter(%d)", i, len(c.Parameters)-1)
		}
	}
	for _, r := range p.refs {
		inner, ok := p.comps[r.name]
		if !ok {
			return nil, s.errorAt(r.pos, "computation %q is not defined", r.name)
		}
		r.set(inner)
		p.callees[r.from] = append(p.callees[r.from], inner)
	}
	p.order = append(p.order, c)
	if err := p.orderComputations(c); err != nil {
		return nil, err
	}
	return p.m, nil
}

// missingOperand makes a parameter for an operand of the single
// instruction that names no instruction: named as written ("_N" when the
// text gives only a shape), of the shape written before it.
func (p *hloParser) missingOperand(c *Computation, sc *instrScope, name string, declared *Shape, pos int) (*Instruction, error) {
	if declared == nil {
		return nil, p.s.errorAt(pos, "operand %s had no shape in the HLO text; cannot create a parameter for a single-instruction module", name)
	}
	n := len(c.Parameters)
	if name == "" {
		name = fmt.Sprintf("_%d", n)
	}
	prm := &Instruction{Name: name, Opcode: OpParameter, Shape: declared.Clone()}
	prm.ParameterNumber = n
	p.names[name] = true
	sc.byName[name] = prm
	c.Add(prm)
	return prm, nil
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
	if err := s.expect('(', "before the parameter shapes of entry_computation_layout"); err != nil {
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
		return ps, s.errorf("expected '->' before the result shape in entry_computation_layout, found %s", s.found())
	}
	res, err := s.shape(0)
	if err != nil {
		return ps, err
	}
	ps.Result = res
	return ps, s.expect('}', "to close entry_computation_layout")
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
	s.accept(':')
	if prev, dup := p.defined[name]; dup {
		return nil, false, s.errorAt(namePos, "computation %q is defined twice (first at %s)", name, p.where(prev))
	}
	var sig *Shape
	sigPos := 0
	if s.peek() == '(' {
		if sig, sigPos, err = p.signature(); err != nil {
			return nil, false, err
		}
	}
	c, err := p.body(name, start)
	if err != nil {
		return nil, false, err
	}
	if sig != nil && !c.Root.Shape.Compatible(*sig) {
		return nil, false, s.errorAt(sigPos, "shape of computation %s, %s, is not compatible with that of its root instruction %s, %s",
			name, sig.StringWithoutLayout(), c.Root.Name, c.Root.Shape.StringWithoutLayout())
	}
	if s.peek() == ',' {
		save := s.pos
		s.accept(',')
		if s.peekIdent() != "execution_thread" {
			s.pos = save
			s.accept(',')
			s.skipSpace()
			at := s.pos
			return nil, false, s.errorAt(at, "unexpected attribute %s of computation %s (expected execution_thread)", s.describeWord(s.peekIdent()), name)
		}
		s.ident()
		if err := s.expect('=', "after execution_thread"); err != nil {
			return nil, false, err
		}
		if c.ExecutionThread, err = s.quoted("execution_thread"); err != nil {
			return nil, false, err
		}
	}
	return c, isEntry, nil
}

// body reads `{ instructions }` and registers the computation named name,
// which the text defines at offset start.
func (p *hloParser) body(name string, start int) (*Computation, error) {
	s := &p.s
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if err := s.expect('{', "to open the body of computation "+name); err != nil {
		return nil, err
	}
	c := &Computation{Name: name}
	p.comps[name] = c
	p.defined[name] = start
	sc := &instrScope{byName: map[string]*Instruction{}, pos: map[string]int{}}
	rootPos := -1
	for {
		if s.atEOF() {
			return nil, s.errorf("expected '}' to close computation %s, found %s", name, s.found())
		}
		s.skipSpace()
		instrPos := s.pos
		in, isRoot, err := p.instruction(c, sc)
		if err != nil {
			return nil, err
		}
		if isRoot {
			if c.Root != nil {
				return nil, s.errorAt(instrPos, "one computation should have only one ROOT: %s has %q and %q (at %s)", name, c.Root.Name, in.Name, p.where(rootPos))
			}
			c.Root, rootPos = in, instrPos
		}
		if s.accept('}') {
			break
		}
	}
	if c.Root == nil {
		c.Root = c.Instructions[len(c.Instructions)-1] // as XLA does
	}
	for i, prm := range c.Parameters {
		if prm == nil {
			return nil, s.errorAt(start, "computation %s has no parameter(%d) but has parameter(%d)", name, i, len(c.Parameters)-1)
		}
	}
	p.order = append(p.order, c)
	return c, nil
}

// inlineComputation reads a computation written as an attribute value,
// `{ instructions }`, and gives it a name of its own.
func (p *hloParser) inlineComputation() (*Computation, error) {
	s := &p.s
	s.skipSpace()
	start := s.pos
	name := "_"
	for i := 1; ; i++ {
		if _, taken := p.defined[name]; !taken && !p.refNamed(name) {
			break
		}
		name = fmt.Sprintf("_.%d", i)
	}
	return p.body(name, start)
}

// refNamed reports whether a computation named name is referred to by name.
func (p *hloParser) refNamed(name string) bool {
	for _, r := range p.refs {
		if r.name == name {
			return true
		}
	}
	return false
}

// signature reads `(p0: f32[2], p1: s32[]) -> f32[2]` (the colons are
// optional, as XLA's lexer reads `p0:` as a name) and returns the result
// shape and its offset; the parameter shapes are those of the parameter
// instructions.
func (p *hloParser) signature() (*Shape, int, error) {
	s := &p.s
	s.accept('(')
	for !s.accept(')') {
		if _, err := s.name("parameter name in computation signature"); err != nil {
			return nil, 0, err
		}
		s.accept(':')
		if _, err := s.shape(0); err != nil {
			return nil, 0, err
		}
		if s.peek() != ')' {
			if err := s.expect(',', "between parameters in computation signature"); err != nil {
				return nil, 0, err
			}
		}
	}
	if !s.acceptString("->") {
		return nil, 0, s.errorf("expected '->' after computation parameters, found %s", s.found())
	}
	s.skipSpace()
	at := s.pos
	sh, err := s.shape(0)
	return &sh, at, err
}

// instrScope holds the instructions of the computation being read, by name.
type instrScope struct {
	byName map[string]*Instruction
	pos    map[string]int // offset of each definition
}

// instruction reads `[ROOT] name = [shape] opcode(operands), attributes`.
func (p *hloParser) instruction(c *Computation, sc *instrScope) (*Instruction, bool, error) {
	s := &p.s
	s.skipSpace()
	start := s.pos
	isRoot := s.acceptKeyword("ROOT")
	s.skipSpace()
	namePos := s.pos
	name, err := p.instructionName()
	if err != nil {
		return nil, false, err
	}
	if prev, dup := sc.pos[name]; dup {
		return nil, false, s.errorAt(namePos, "instruction %q is defined twice in computation %s (first at %s)", name, c.Name, p.where(prev))
	}
	if err := s.expect('=', "after instruction name "+name); err != nil {
		return nil, false, err
	}
	in, err := p.instructionRHS(c, sc, name, start, true)
	if err != nil {
		return nil, false, err
	}
	return in, isRoot, nil
}

// instructionName reads an instruction's name, refusing characters XLA's
// names may not hold with an error naming the character.
func (p *hloParser) instructionName() (string, error) {
	s := &p.s
	name, err := s.name("instruction name")
	if err != nil {
		return "", err
	}
	if s.pos < len(s.src) && s.src[s.pos] >= 0x80 {
		return "", s.errorAt(s.pos, "illegal %s in instruction name %s… (names hold ASCII letters, digits, '_', '.' and '-')", s.found(), name)
	}
	return name, nil
}

// uniqueName returns base, or base.N for the smallest N that is not yet the
// name of an instruction of the module, and records it.
func (p *hloParser) uniqueName(base string) string {
	name := base
	for i := 1; p.names[name]; i++ {
		name = fmt.Sprintf("%s.%d", base, i)
	}
	p.names[name] = true
	return name
}

// canInferShape lists the opcodes whose instructions may be written without
// a shape, as XLA's parser allows (CanInferShape).
var canInferShape = func() map[Opcode]bool {
	m := map[Opcode]bool{}
	for _, op := range []Opcode{
		OpAbs, OpAcos, OpAcosh, OpAsin, OpAsinh, OpAtan, OpAdd, OpAddDependency, OpAfterAll, OpAtan2, OpAtanh,
		OpBatchNormGrad, OpBatchNormInference, OpBatchNormTraining, OpBroadcast, OpCall, OpCeil, OpCholesky,
		OpClamp, OpClz, OpCompare, OpComplex, OpConcatenate, OpConditional, OpConvolution, OpCopy, OpCos, OpCosh,
		OpOptimizationBarrier, OpDivide, OpDomain, OpDot, OpErf, OpExp, OpExpm1, OpFft, OpFloor, OpGather,
		OpGetDimensionSize, OpSetDimensionSize, OpGetTupleElement, OpImag, OpIsFinite, OpLog, OpLog1p,
		OpLogistic, OpAnd, OpNot, OpOr, OpXor, OpMap, OpMaximum, OpMinimum, OpMulhi, OpMultiply, OpNegate, OpPad,
		OpPartitionID, OpPopulationCount, OpPower, OpRaggedDot, OpReal, OpReduce, OpRemainder, OpReplicaID,
		OpReverse, OpRoundNearestAfz, OpRoundNearestEven, OpRsqrt, OpScan, OpScaledDot, OpScatter, OpSelect,
		OpShiftLeft, OpShiftRightArithmetic, OpShiftRightLogical, OpSign, OpSin, OpSinh, OpSqrt, OpCbrt,
		OpReduceWindow, OpSelectAndScatter, OpSort, OpSubtract, OpTan, OpTanh, OpTranspose, OpTriangularSolve,
		OpTuple, OpWhile, OpTopK,
	} {
		m[op] = true
	}
	return m
}()

// dedicatedAsyncOps have async forms of their own (all-reduce-start, …,
// send and recv with their -done); XLA's shorthand `<op>-start`/`-update`/
// `-done` does not apply to them.
var dedicatedAsyncOps = map[Opcode]bool{
	OpAllGather: true, OpAllReduce: true, OpCollectivePermute: true, OpCopy: true, OpSend: true, OpRecv: true,
}

// asyncSuffixes are XLA's shorthand async forms: `<op>-start` and so on.
var asyncSuffixes = []struct {
	suffix string
	op     Opcode
}{{"-start", OpAsyncStart}, {"-update", OpAsyncUpdate}, {"-done", OpAsyncDone}}

// opcode reads an opcode, or XLA's shorthand for an async op wrapping one.
func (p *hloParser) opcode(in *Instruction) (string, int, error) {
	s := &p.s
	s.skipSpace()
	opPos := s.pos
	opName := s.ident()
	if opName == "" {
		return "", opPos, s.errorf("expected opcode of instruction %s, found %s", in.Name, s.found())
	}
	if op, ok := ParseOpcode(opName); ok {
		in.Opcode = op
		return opName, opPos, nil
	}
	for _, a := range asyncSuffixes {
		base, found := strings.CutSuffix(opName, a.suffix)
		if !found {
			continue
		}
		wrapped, ok := ParseOpcode(base)
		if !ok {
			return "", opPos, s.errorAt(opPos, "unknown opcode %q (%q is not an opcode an async op can wrap)", opName, base)
		}
		if dedicatedAsyncOps[wrapped] || wrapped.IsAsync() {
			return "", opPos, s.errorAt(opPos, "unknown opcode %q (%s has async forms of its own)", opName, base)
		}
		in.Opcode, in.AsyncWrapped = a.op, wrapped
		return opName, opPos, nil
	}
	return "", opPos, s.errorAt(opPos, "unknown opcode %q", opName)
}

// shapeFollows reports whether the next token starts a shape: '(' (a tuple)
// or an element type name followed by '['.
func (p *hloParser) shapeFollows() bool {
	s := &p.s
	if s.peek() == '(' {
		return true
	}
	save := s.pos
	id := s.ident()
	_, isType := ParseElementType(id)
	next := s.peek()
	follows := id != "" && isType && next == '[' || id == "b" && next == '('
	s.pos = save
	return follows
}

// instructionRHS reads `[shape] opcode(operands)[, attributes]` for the
// instruction name (empty for a nested instruction, which gets a name of its
// own) and adds it to c. Nested instructions take no attributes.
func (p *hloParser) instructionRHS(c *Computation, sc *instrScope, name string, start int, withAttrs bool) (*Instruction, error) {
	s := &p.s
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	in := &Instruction{}
	hasShape := p.shapeFollows()
	if hasShape {
		sh, err := s.shape(0)
		if err != nil {
			return nil, err
		}
		in.Shape = sh
	}
	in.Name = name
	opName, opPos, err := p.opcode(in)
	if err != nil {
		return nil, err
	}
	if name == "" {
		in.Name = p.uniqueName(opName + ".anon")
	} else {
		p.names[name] = true
	}
	if !hasShape && !canInferShape[in.Opcode] {
		return nil, s.errorAt(opPos, "cannot infer the shape of %s: write its shape before the opcode", opName)
	}
	if err := s.expect('(', "after opcode "+opName); err != nil {
		return nil, err
	}
	switch in.Opcode {
	case OpParameter:
		numPos := s.pos
		n, err := s.nonNegInt("parameter number")
		if err != nil {
			return nil, err
		}
		if n < len(c.Parameters) && c.Parameters[n] != nil {
			return nil, s.errorAt(numPos, "duplicate parameter number %d in computation %s (%q and %q)", n, c.Name, c.Parameters[n].Name, in.Name)
		}
		if n > 1<<20 {
			return nil, s.errorAt(numPos, "parameter number %d is too large", n)
		}
		in.ParameterNumber = n
		if err := s.expect(')', "after parameter number"); err != nil {
			return nil, err
		}
	case OpConstant:
		open := s.pos - 1
		text, err := s.balanced('(', open, "constant")
		if err != nil {
			return nil, err
		}
		if err := p.constant(in, text, open+1); err != nil {
			return nil, err
		}
	default:
		if err := p.operands(in, c, sc); err != nil {
			return nil, err
		}
	}
	if err := p.attributes(in, c, sc, opName, opPos, withAttrs); err != nil {
		return nil, err
	}
	if err := resolveCompareOrder(in); err != nil {
		return nil, p.s.errorAt(opPos, "%v", err)
	}
	// Keep the verbatim attributes in the order they print in, so that a
	// printed module reads back the same.
	op := effectiveOpcode(in)
	sort.SliceStable(in.Raw, func(i, j int) bool { return rawSlot(in.Raw[i].Name, op) < rawSlot(in.Raw[j].Name, op) })
	if err := p.checkInstruction(in, opName, opPos, hasShape); err != nil {
		return nil, err
	}
	if in.Opcode == OpAsyncStart && in.Calls != nil {
		p.asyncStarts[in.Calls] = append(p.asyncStarts[in.Calls], opPos)
	}
	if name != "" {
		sc.pos[name] = start
	}
	sc.byName[in.Name] = in
	c.Add(in)
	return in, nil
}

// resolveCompareOrder gives a compare written with `order=TOTAL` or
// `order=PARTIAL` (the comparison's order, as newer XLA prints it beside
// or instead of `type=`) the comparison type it means for its operands'
// element type: the total order of floats (TOTALORDER) or their IEEE partial
// order (FLOAT); integers and PRED are totally ordered already. An order
// that contradicts a `type=` also written, or PARTIAL for a totally
// ordered type, is an error.
func resolveCompareOrder(in *Instruction) error {
	order, ok := in.RawAttr("order")
	if !ok || in.Opcode != OpCompare || len(in.Operands) == 0 {
		return nil
	}
	t := in.Operands[0].Shape.Elem
	var implied ComparisonType
	switch {
	case t.IsFloatOrComplex() && order == "TOTAL":
		implied = CmpTypeTotalOrder
	case t.IsFloatOrComplex():
		implied = CmpTypeFloat
	case order == "TOTAL":
		implied = DefaultComparisonType(t)
	default:
		return fmt.Errorf("compare: order=PARTIAL does not apply to %s, whose order is total", t)
	}
	same := in.CompareType == CmpTypeDefault || in.CompareType == implied ||
		implied == CmpTypeFloat && in.CompareType == CmpTypePartialOrder
	if !same {
		return fmt.Errorf("compare: type=%v contradicts order=%s", in.CompareType, order)
	}
	if in.CompareType == CmpTypeDefault {
		in.CompareType = implied
	}
	return nil
}

// operands reads `(f32[2]{0} %a, %b, c, %t#1, f32[] constant(1))` after its '('.
func (p *hloParser) operands(in *Instruction, c *Computation, sc *instrScope) error {
	s := &p.s
	if s.accept(')') {
		return nil
	}
	for {
		o, err := p.operand(in, c, sc)
		if err != nil {
			return err
		}
		in.Operands = append(in.Operands, o)
		if s.accept(')') {
			return nil
		}
		if err := s.expect(',', "between operands"); err != nil {
			return err
		}
	}
}

// operand reads one operand: `[shape] name[#index…]`, or a nested
// instruction `[shape] opcode(operands)`.
func (p *hloParser) operand(in *Instruction, c *Computation, sc *instrScope) (*Instruction, error) {
	s := &p.s
	s.skipSpace()
	opStart := s.pos
	save := s.pos
	var declared *Shape
	if p.shapeFollows() {
		sh, err := s.shape(0)
		if err != nil {
			return nil, err
		}
		declared = &sh
	}
	s.skipSpace()
	namePos := s.pos
	if c == p.single && declared != nil {
		if next := s.peek(); next == ',' || next == ')' {
			// A single instruction's operand written as a shape alone.
			return p.missingOperand(c, sc, "", declared, namePos)
		}
	}
	name, err := s.name("operand name")
	if err != nil {
		return nil, err
	}
	if s.peek() == '(' && !strings.HasPrefix(s.src[namePos:], "%") {
		// A nested instruction: `add(…)`, `f32[2] broadcast(…)`.
		s.pos = save
		return p.instructionRHS(c, sc, "", opStart, false)
	}
	operand := sc.byName[name]
	if operand == nil && c == p.single {
		if operand, err = p.missingOperand(c, sc, name, declared, namePos); err != nil {
			return nil, err
		}
	}
	if operand == nil {
		return nil, s.errorAt(namePos, "operand %q of %s is not defined before it in computation %s (instruction does not exist)", name, in.Name, c.Name)
	}
	for s.peek() == '#' {
		s.accept('#')
		s.skipSpace()
		idxPos := s.pos
		idx, err := s.intValue("tuple index after '#' (expects integer)")
		if err != nil {
			return nil, err
		}
		if operand, err = p.compactGTE(c, sc, operand, idx, idxPos); err != nil {
			return nil, err
		}
	}
	if declared != nil && !declared.Compatible(operand.Shape) {
		return nil, s.errorAt(opStart, "the declared operand shape %v is not compatible with the shape of operand %q, %v",
			declared.StringWithoutLayout(), operand.Name, operand.Shape.StringWithoutLayout())
	}
	return operand, nil
}

// compactGTE returns the get-tuple-element that `%t#i` names: element i of
// t, added before its first use as `t_i` and shared by later uses.
func (p *hloParser) compactGTE(c *Computation, sc *instrScope, t *Instruction, idx, pos int) (*Instruction, error) {
	s := &p.s
	if !t.Shape.IsTuple() {
		return nil, s.errorAt(pos, "%s#%d: %q has shape %s, not a tuple", t.Name, idx, t.Name, t.Shape.StringWithoutLayout())
	}
	if idx < 0 || idx >= len(t.Shape.Tuple) {
		return nil, s.errorAt(pos, "GTE index %d out of bounds for %q of shape %s", idx, t.Name, t.Shape.StringWithoutLayout())
	}
	name := fmt.Sprintf("%s_%d", t.Name, idx)
	if g := sc.byName[name]; g != nil {
		if g.Opcode == OpGetTupleElement && len(g.Operands) == 1 && g.Operands[0] == t && g.TupleIndex == idx {
			return g, nil
		}
		name = p.uniqueName(name)
	} else {
		p.names[name] = true
	}
	g := &Instruction{Name: name, Opcode: OpGetTupleElement, Shape: t.Shape.Tuple[idx].Clone(), Operands: []*Instruction{t}}
	g.TupleIndex = idx
	sc.byName[name] = g
	c.Add(g)
	return g, nil
}
