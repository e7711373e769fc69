package ir

import "fmt"

// Computation is a function of HLO instructions: its parameters, its
// instructions in a valid order (every operand before its users), and the
// root whose value it returns.
type Computation struct {
	Name         string
	Parameters   []*Instruction // indexed by parameter number
	Instructions []*Instruction // every instruction, operands before users; includes the parameters
	Root         *Instruction
	IsEntry      bool
	// ExecutionThread is the computation's execution_thread= attribute, if written.
	ExecutionThread string
}

// Add appends in to the computation, setting its parent. A parameter is also
// recorded in Parameters at its parameter number.
func (c *Computation) Add(in *Instruction) *Instruction {
	in.Parent = c
	c.Instructions = append(c.Instructions, in)
	if in.Opcode == OpParameter {
		for len(c.Parameters) <= in.ParameterNumber {
			c.Parameters = append(c.Parameters, nil)
		}
		c.Parameters[in.ParameterNumber] = in
	}
	return in
}

// Instruction returns the instruction named name, or nil.
func (c *Computation) Instruction(name string) *Instruction {
	for _, in := range c.Instructions {
		if in.Name == name {
			return in
		}
	}
	return nil
}

// ProgramShape returns the computation's signature: parameter shapes and the
// root's shape.
func (c *Computation) ProgramShape() ProgramShape {
	ps := ProgramShape{Result: c.Root.Shape}
	for _, p := range c.Parameters {
		ps.Parameters = append(ps.Parameters, p.Shape)
		ps.ParameterNames = append(ps.ParameterNames, p.Name)
	}
	return ps
}

// ProgramShape is the signature of a computation (XLA's ProgramShape).
type ProgramShape struct {
	Parameters     []Shape
	ParameterNames []string
	Result         Shape
}

// String prints the signature as XLA's entry_computation_layout does:
// `(f32[2]{0}, s32[])->f32[2]{0}`.
func (p ProgramShape) String() string {
	s := "("
	for i, ps := range p.Parameters {
		if i > 0 {
			s += ", "
		}
		s += ps.String()
	}
	return s + ")->" + p.Result.String()
}

// Module is an HLO module: a set of computations, one of them the entry.
type Module struct {
	Name string
	// Computations in definition order: every computation appears after the
	// computations it calls, as in XLA's printed text. Entry is among them.
	Computations []*Computation
	Entry        *Computation
	// EntryLayout is the module's entry_computation_layout, if written.
	EntryLayout *ProgramShape
	// Attributes of the HloModule line other than entry_computation_layout,
	// kept verbatim (is_scheduled, replica_count, num_partitions, …).
	Attributes []RawAttribute
	// StackFrames is the stack-frame index printed after the HloModule line
	// (FileNames, FunctionNames, FileLocations, StackFrames), or nil.
	StackFrames *StackFrameIndex
}

// Computation returns the computation named name, or nil.
func (m *Module) Computation(name string) *Computation {
	for _, c := range m.Computations {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// AddComputation appends c to the module; if entry is true it becomes the entry.
func (m *Module) AddComputation(c *Computation, entry bool) {
	m.Computations = append(m.Computations, c)
	if entry {
		if m.Entry != nil {
			m.Entry.IsEntry = false
		}
		c.IsEntry = true
		m.Entry = c
	}
}

// ReplicaCount returns the module's replica_count attribute (1 if absent).
func (m *Module) ReplicaCount() int {
	for _, a := range m.Attributes {
		if a.Name == "replica_count" {
			var n int
			if _, err := fmt.Sscan(a.Value, &n); err == nil && n > 0 {
				return n
			}
		}
	}
	return 1
}
