package ir

import (
	"fmt"
	"slices"
	"strings"
)

// Builder builds a computation one operation at a time, as XLA's XlaBuilder
// does: every method infers its result shape, inserts the explicit
// broadcasts the client API's implicit broadcasting needs, and returns an
// Op handle for the result.
//
// The first error (a shape that does not fit, an Op of another builder) is
// kept; later operations on the builder do nothing and return an invalid
// Op, and Build reports that first error. A builder and the sub-builders
// made from it (for reducers, comparators, loop bodies) share one namespace:
// instructions are named XLA-style after their opcode, `add.3`, and no two
// instructions or computations of the family share a name.
type Builder struct {
	name   string
	family *builderFamily
	parent *Builder
	comp   *Computation
	params map[int]bool
	err    error
	built  bool
}

// builderFamily is what a builder shares with its sub-builders.
type builderFamily struct {
	nextID    int
	instNames map[string]bool
	compNames map[string]bool
}

// unique returns name if unused, else name.N for the first unused N.
func uniqueName(used map[string]bool, name string, next *int) string {
	if !used[name] {
		used[name] = true
		return name
	}
	for {
		*next++
		n := fmt.Sprintf("%s.%d", name, *next)
		if !used[n] {
			used[n] = true
			return n
		}
	}
}

// NewBuilder returns a builder for a computation named name.
func NewBuilder(name string) *Builder {
	f := &builderFamily{instNames: map[string]bool{}, compNames: map[string]bool{}}
	return newBuilder(name, f, nil)
}

func newBuilder(name string, f *builderFamily, parent *Builder) *Builder {
	if name == "" {
		name = "computation"
	}
	unique := uniqueName(f.compNames, name, &f.nextID)
	return &Builder{
		name:   unique,
		family: f,
		parent: parent,
		comp:   &Computation{Name: unique},
		params: map[int]bool{},
	}
}

// CreateSubBuilder returns a builder for a computation that this one's
// operations will call (a reducer, a comparator, a loop body). It shares the
// naming of its parent; its Ops cannot be used in the parent.
func (b *Builder) CreateSubBuilder(name string) *Builder {
	return newBuilder(name, b.family, b)
}

// Name is the name of the computation being built.
func (b *Builder) Name() string { return b.name }

// Err returns the first error recorded, or nil.
func (b *Builder) Err() error { return b.err }

// Op is a handle to the result of an operation of a Builder (XLA's XlaOp).
// The zero Op, and the Op a failed operation returns, are invalid.
type Op struct {
	b  *Builder
	in *Instruction
}

// Valid reports whether o refers to an instruction.
func (o Op) Valid() bool { return o.in != nil }

// Builder returns the builder o belongs to (nil for the zero Op).
func (o Op) Builder() *Builder { return o.b }

// Shape returns the shape of o's result (the zero Shape for an invalid Op).
func (o Op) Shape() Shape {
	if o.in == nil {
		return Shape{}
	}
	return o.in.Shape
}

// Instruction returns the instruction o refers to (nil for an invalid Op).
func (o Op) Instruction() *Instruction { return o.in }

// ShapeOf returns the shape of o's result (the zero Shape for an invalid Op).
func ShapeOf(o Op) Shape { return o.Shape() }

// GetShape returns the shape of o, or the builder's error, or an error if o
// does not belong to b.
func (b *Builder) GetShape(o Op) (Shape, error) {
	if b.err != nil {
		return Shape{}, b.err
	}
	if err := b.checkOperand("get-shape", 0, o); err != nil {
		return Shape{}, err
	}
	return o.in.Shape, nil
}

// fail records err if it is the first error and returns an invalid Op.
func (b *Builder) fail(err error) Op {
	if b.err == nil {
		b.err = err
	}
	return Op{b: b}
}

// failf records a formatted error for op.
func (b *Builder) failf(op, format string, args ...any) Op {
	return b.fail(errf(op, format, args...))
}

func (b *Builder) checkOperand(op string, i int, o Op) error {
	switch {
	case o.b == nil:
		return errf(op, "operand %d is the zero Op", i)
	case o.b != b:
		return errf(op, "operand %d was built by builder %q, not by %q", i, o.b.name, b.name)
	case o.in == nil:
		return errf(op, "operand %d is the result of a failed operation", i)
	}
	return nil
}

// use reports whether the builder may go on with an operation on xs: it has
// no error yet, is not built, and every operand is a live Op of this
// builder. Otherwise it records the problem and returns false.
func (b *Builder) use(op string, xs ...Op) bool {
	if b.err != nil {
		return false
	}
	if b.built {
		b.failf(op, "builder %q has already been built", b.name)
		return false
	}
	for i, x := range xs {
		if err := b.checkOperand(op, i, x); err != nil {
			b.fail(err)
			return false
		}
	}
	return true
}

// useComputation checks a called computation: built, with a root and dense
// parameters.
func (b *Builder) useComputation(op, role string, c *Computation) (ProgramShape, bool) {
	p, err := programShape(op, role, c)
	if err != nil {
		b.fail(err)
		return ProgramShape{}, false
	}
	return p, true
}

func instructions(xs []Op) []*Instruction {
	out := make([]*Instruction, len(xs))
	for i, x := range xs {
		out[i] = x.in
	}
	return out
}

func shapesOf(xs []Op) []Shape {
	out := make([]Shape, len(xs))
	for i, x := range xs {
		out[i] = x.in.Shape
	}
	return out
}

// emit adds an instruction whose shape was inferred; inferred shapes carry
// no layout.
func (b *Builder) emit(in *Instruction) Op {
	in.Shape = in.Shape.WithoutLayout()
	return b.emitAsIs(in)
}

// emitAsIs adds an instruction keeping the shape (and layout) it was given.
func (b *Builder) emitAsIs(in *Instruction) Op {
	if b.err != nil {
		return Op{b: b}
	}
	for in.Name == "" {
		b.family.nextID++
		if n := fmt.Sprintf("%s.%d", in.Opcode, b.family.nextID); !b.family.instNames[n] {
			b.family.instNames[n] = true
			in.Name = n
		}
	}
	b.comp.Add(in)
	return Op{b: b, in: in}
}

// Parameter adds parameter number num of the given shape. Parameter numbers
// must be unique, and dense from 0 by the time the computation is built.
// The instruction is named name when that is free.
func (b *Builder) Parameter(num int, shape Shape, name string) Op {
	const op = "parameter"
	if !b.use(op) {
		return Op{b: b}
	}
	if num < 0 {
		return b.failf(op, "parameter number %d is negative", num)
	}
	if b.params[num] {
		return b.failf(op, "parameter %d is already defined", num)
	}
	if err := shape.CheckValid(); err != nil {
		return b.failf(op, "parameter %d: invalid shape: %v", num, err)
	}
	b.params[num] = true
	in := &Instruction{Opcode: OpParameter, Shape: shape.Clone()}
	in.ParameterNumber = num
	if name != "" {
		in.Name = uniqueName(b.family.instNames, name, &b.family.nextID)
	}
	return b.emitAsIs(in)
}

// Constant adds a constant holding lit (shared, not copied).
func (b *Builder) Constant(lit *Literal) Op {
	const op = "constant"
	if !b.use(op) {
		return Op{b: b}
	}
	if lit == nil {
		return b.failf(op, "literal is nil")
	}
	in := &Instruction{Opcode: OpConstant, Shape: lit.Shape().Clone()}
	in.Literal = lit
	return b.emitAsIs(in)
}

// ConstantR0 adds a scalar constant.
func ConstantR0[T Native](b *Builder, v T) Op { return b.Constant(ScalarLiteral(v)) }

// ConstantR1 adds a rank-1 constant holding a copy of values.
func ConstantR1[T Native](b *Builder, values []T) Op {
	lit, err := LiteralFromSlice(values)
	if err != nil {
		return b.fail(errf("constant", "%v", err))
	}
	return b.Constant(lit)
}

// Build finishes the computation with the last instruction added as its
// root. It returns the first error the builder recorded, if any.
func (b *Builder) Build() (*Computation, error) {
	if b.err != nil {
		return nil, b.err
	}
	if len(b.comp.Instructions) == 0 {
		return nil, fmt.Errorf("builder %q: no instructions to build", b.name)
	}
	return b.BuildWithRoot(Op{b: b, in: b.comp.Instructions[len(b.comp.Instructions)-1]})
}

// BuildWithRoot finishes the computation with root as its result.
func (b *Builder) BuildWithRoot(root Op) (*Computation, error) {
	if b.err != nil {
		return nil, b.err
	}
	if b.built {
		if root.in != b.comp.Root {
			return nil, fmt.Errorf("builder %q has already been built with root %q", b.name, b.comp.Root.Name)
		}
		return b.comp, nil
	}
	if err := b.checkOperand("build", 0, root); err != nil {
		return nil, fmt.Errorf("builder %q: root: %w", b.name, err)
	}
	for i := range b.params {
		if i >= len(b.params) {
			return nil, fmt.Errorf("builder %q: parameter numbers must be dense from 0: %d parameters but parameter %d is defined", b.name, len(b.params), i)
		}
	}
	b.comp.Root = root.in
	if err := b.comp.Verify(); err != nil {
		return nil, fmt.Errorf("builder %q produced an invalid computation: %w", b.name, err)
	}
	b.built = true
	return b.comp, nil
}

// BuildModule builds the computation and returns a module with it as the
// entry and every computation it calls (see NewModuleFromComputation).
func (b *Builder) BuildModule() (*Module, error) {
	c, err := b.Build()
	if err != nil {
		return nil, err
	}
	return NewModuleFromComputation(c)
}

// NewModuleFromComputation returns a module named after entry, holding entry
// and every computation it calls, callees before callers. Computations built
// by unrelated builders may share names; such a computation is copied into
// the module under fresh names, so that computation and instruction names
// are unique in the module. The module is verified.
func NewModuleFromComputation(entry *Computation) (*Module, error) {
	if entry == nil {
		return nil, fmt.Errorf("module: entry computation is nil")
	}
	var order []*Computation
	state := map[*Computation]int{} // 1: visiting, 2: done
	var visit func(c *Computation) error
	visit = func(c *Computation) error {
		switch state[c] {
		case 1:
			return fmt.Errorf("module: computation %q calls itself", c.Name)
		case 2:
			return nil
		}
		state[c] = 1
		for i, in := range c.Instructions {
			if in == nil {
				return fmt.Errorf("module: computation %q: instruction %d is nil", c.Name, i)
			}
			for _, callee := range in.Called() {
				if err := visit(callee); err != nil {
					return err
				}
			}
		}
		state[c] = 2
		order = append(order, c)
		return nil
	}
	if entry.Root == nil {
		return nil, fmt.Errorf("module: entry computation %q has no root", entry.Name)
	}
	if err := visit(entry); err != nil {
		return nil, err
	}
	m := &Module{Name: entry.Name}
	compNames := map[string]bool{}
	instNames := map[string]bool{}
	next := 0
	replaced := map[*Computation]*Computation{}
	for _, c := range order {
		clash := compNames[c.Name]
		for _, in := range c.Instructions {
			if in != nil && instNames[in.Name] {
				clash = true
			}
		}
		for _, in := range c.Instructions {
			for _, callee := range in.Called() {
				if _, ok := replaced[callee]; ok {
					clash = true
				}
			}
		}
		if clash {
			nc := cloneComputation(c, replaced)
			nc.Name = uniqueName(compNames, c.Name, &next)
			for _, in := range nc.Instructions {
				in.Name = uniqueName(instNames, in.Name, &next)
			}
			replaced[c] = nc
			c = nc
		} else {
			compNames[c.Name] = true
			for _, in := range c.Instructions {
				instNames[in.Name] = true
			}
		}
		m.AddComputation(c, c == entry || replaced[entry] == c)
	}
	if err := m.Verify(); err != nil {
		return nil, err
	}
	return m, nil
}

// cloneComputation copies c and its instructions, pointing called
// computations at their replacements.
func cloneComputation(c *Computation, replaced map[*Computation]*Computation) *Computation {
	nc := &Computation{Name: c.Name, ExecutionThread: c.ExecutionThread}
	remap := map[*Instruction]*Instruction{}
	comp := func(x *Computation) *Computation {
		if r, ok := replaced[x]; ok {
			return r
		}
		return x
	}
	for _, in := range c.Instructions {
		cp := *in
		cp.Shape = in.Shape.Clone()
		cp.Operands = make([]*Instruction, len(in.Operands))
		for i, o := range in.Operands {
			cp.Operands[i] = remap[o]
		}
		cp.ControlPredecessors = make([]*Instruction, len(in.ControlPredecessors))
		for i, o := range in.ControlPredecessors {
			cp.ControlPredecessors[i] = remap[o]
		}
		if in.ToApply != nil {
			cp.ToApply = comp(in.ToApply)
		}
		if in.Condition != nil {
			cp.Condition = comp(in.Condition)
		}
		if in.Body != nil {
			cp.Body = comp(in.Body)
		}
		cp.Branches = slices.Clone(in.Branches)
		for i := range cp.Branches {
			cp.Branches[i] = comp(cp.Branches[i])
		}
		if in.Select != nil {
			cp.Select = comp(in.Select)
		}
		if in.Scatter != nil {
			cp.Scatter = comp(in.Scatter)
		}
		if in.Calls != nil {
			cp.Calls = comp(in.Calls)
		}
		cp.CalledComputations = slices.Clone(in.CalledComputations)
		for i := range cp.CalledComputations {
			cp.CalledComputations[i] = comp(cp.CalledComputations[i])
		}
		cp.Raw = slices.Clone(in.Raw)
		remap[in] = &cp
		nc.Add(&cp)
	}
	nc.Root = remap[c.Root]
	return nc
}

// Precision is a dot or convolution operand precision (XLA's
// PrecisionConfig::Precision), printed in operand_precision={…}.
type Precision uint8

// Precisions.
const (
	PrecisionDefault Precision = iota
	PrecisionHigh
	PrecisionHighest
)

var precisionNames = [...]string{"default", "high", "highest"}

func (p Precision) String() string {
	if int(p) < len(precisionNames) {
		return precisionNames[p]
	}
	return "invalid"
}

// ParsePrecision parses "default", "high" or "highest" (any case).
func ParsePrecision(s string) (Precision, bool) {
	for i, n := range precisionNames {
		if strings.EqualFold(n, s) {
			return Precision(i), true
		}
	}
	return PrecisionDefault, false
}

// precisionAttr returns the operand_precision attribute for precisions (none
// when every one is the default).
func precisionAttr(op string, ps []Precision) ([]RawAttribute, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	if len(ps) != 2 {
		return nil, errf(op, "precision config needs one precision per operand (2), found %d", len(ps))
	}
	if ps[0] == PrecisionDefault && ps[1] == PrecisionDefault {
		return nil, nil
	}
	for _, p := range ps {
		if p > PrecisionHighest {
			return nil, errf(op, "invalid precision %d", p)
		}
	}
	return []RawAttribute{{Name: "operand_precision", Value: "{" + ps[0].String() + "," + ps[1].String() + "}"}}, nil
}
