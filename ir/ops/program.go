package ops

// Programs and scalar functions. A Program is a list of elementwise ops over
// registers of wide values, each result rounded or wrapped to its element
// type as soon as it is computed (XLA stores every value in its type), so a
// chain of ops agrees with the ops run one by one. A Func is a called
// computation — a reducer, comparator, scatter or select-and-scatter
// update, map body — compiled to a Program over registers of one value each
// (or of a tile of values, for map).

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// Node is one value of a scalar computation, as the computation's owner
// (an ir.Computation, an SSA function) describes it.
type Node struct {
	Op    ir.Opcode
	Attrs *ir.Attrs
	// Shape is the value's shape: a scalar array, or the tuple of the root.
	Shape ir.Shape
	Args  []int // nodes read, earlier in the list
	// Param is a parameter's number; Literal a constant's value.
	Param   int
	Literal *ir.Literal
	// Called are the computations the node calls, by role: call and
	// fusion their computation, conditional its branches, reduce and map
	// their computation.
	Called []*Computation
}

// Computation is a called computation as a list of nodes, arguments before
// users; Root is the returned node (a tuple of scalars or a scalar).
type Computation struct {
	Name   string
	Nodes  []Node
	Params []int // node of each parameter, by number
	Root   int
}

// Instr is one op of a Program.
type Instr struct {
	Type   ir.ElementType // result type
	Args   [3]int         // argument registers
	NArgs  int
	Reg    int // result register
	Kernel Kernel
}

// Program is a compiled sequence of elementwise ops over registers.
type Program struct {
	Instrs []Instr
	Regs   int
}

// Run computes every op over the first n values of the registers in
// scratch (registers stride values apart).
func (p *Program) Run(scratch []byte, stride, n int) {
	var args [3]Reg
	for i := range p.Instrs {
		in := &p.Instrs[i]
		for j := 0; j < in.NArgs; j++ {
			args[j] = RegAt(scratch, in.Args[j], stride, n)
		}
		dst := RegAt(scratch, in.Reg, stride, n)
		in.Kernel(dst, args, n)
		RoundWide(dst, in.Type, n)
	}
}

// RegAllocator hands out registers, reusing those of dead values.
type RegAllocator struct {
	free []int
	next int
}

// Get returns a free register.
func (a *RegAllocator) Get() int {
	if n := len(a.free); n > 0 {
		r := a.free[n-1]
		a.free = a.free[:n-1]
		return r
	}
	a.next++
	return a.next - 1
}

// Put frees register r.
func (a *RegAllocator) Put(r int) { a.free = append(a.free, r) }

// Count is the number of registers handed out.
func (a *RegAllocator) Count() int { return a.next }

// constReg is a constant placed in its register before a Func runs.
type constReg struct {
	reg  int
	t    ir.ElementType
	data []byte
}

// Func is a called computation of scalar parameters and results. Its
// registers are one value each (Load, Run, Store), or a tile each (RunTile);
// the caller provides them (RegBytes, TileBytes) and loads the constants
// once per use (LoadConsts).
type Func struct {
	Name    string
	ParamT  []ir.ElementType
	ResultT []ir.ElementType
	prog    Program
	params  []int // register of each parameter
	results []int // register of each result (tuple roots: one per element)
	consts  []constReg
	// call, when set, computes the function instead of prog: it reads the
	// parameters from their registers and writes the results to theirs.
	call func(regs []byte) error
	// comp is the computation the function was compiled from.
	comp *Computation
}

// CompileFunc compiles a computation of scalar parameters and a scalar or
// tuple-of-scalars root to a Program (scalarize.go: small arrays, tuples,
// calls, conditionals, reductions and dots inside it included). An op it
// cannot compile is an *UnsupportedError naming it.
func CompileFunc(c *Computation) (*Func, error) {
	if c == nil || c.Root < 0 || c.Root >= len(c.Nodes) {
		return nil, fmt.Errorf("computation has no root")
	}
	f := &Func{Name: c.Name, comp: c}
	if err := scalarize(f, c); err != nil {
		return nil, err
	}
	return f, nil
}

// NewCallFunc returns a function of the given parameter and result types
// computed by call, which reads parameter i from register i and writes
// result j to register len(paramT)+j (one value each; Reg reads them).
func NewCallFunc(name string, paramT, resultT []ir.ElementType, call func(regs []byte) error) *Func {
	f := &Func{Name: name, ParamT: paramT, ResultT: resultT, call: call}
	for i := range paramT {
		f.params = append(f.params, i)
	}
	for j := range resultT {
		f.results = append(f.results, len(paramT)+j)
	}
	f.prog.Regs = len(paramT) + len(resultT)
	return f
}

// Computation returns the computation f was compiled from (nil for a call
// function).
func (f *Func) Computation() *Computation { return f.comp }

// Tiled reports whether f runs over tiles of values (RunTile): a compiled
// program does, a call function does not.
func (f *Func) Tiled() bool { return f.call == nil }

// RegBytes is the register memory of a one-value run.
func (f *Func) RegBytes() int { return f.prog.Regs * WideBytes }

// TileBytes is the register memory of a run over tiles of Tile values.
func (f *Func) TileBytes() int { return f.prog.Regs * Tile * WideBytes }

// LoadConsts places the constants in their registers (one value each).
func (f *Func) LoadConsts(regs []byte) {
	for _, c := range f.consts {
		LoadWide(RegAt(regs, c.reg, 1, 1), 1, c.data, c.t, 0)
	}
}

// Load sets parameter i to element idx of src (of the parameter's type).
func (f *Func) Load(regs []byte, i int, src []byte, idx int) {
	LoadWide(RegAt(regs, f.params[i], 1, 1), 1, src, f.ParamT[i], idx)
}

// LoadAs sets parameter i to element idx of src, of type t, converted to
// the parameter's type (a floating-point value of another precision,
// rounded as converting it would).
func (f *Func) LoadAs(regs []byte, i int, src []byte, t ir.ElementType, idx int) {
	r := RegAt(regs, f.params[i], 1, 1)
	LoadWide(r, 1, src, t, idx)
	if t != f.ParamT[i] {
		RoundWide(r, f.ParamT[i], 1)
	}
}

// Param returns parameter i's register (one value).
func (f *Func) Param(regs []byte, i int) Reg { return RegAt(regs, f.params[i], 1, 1) }

// Result returns result j's register (one value).
func (f *Func) Result(regs []byte, j int) Reg { return RegAt(regs, f.results[j], 1, 1) }

// Set sets parameter i to the value of result j (a fold's accumulator).
func (f *Func) Set(regs []byte, i, j int) {
	a, b := f.params[i]*WideBytes, f.results[j]*WideBytes
	copy(regs[a:a+WideBytes], regs[b:b+WideBytes])
}

// Run computes the results from the parameters (one value each).
func (f *Func) Run(regs []byte) error {
	if f.call != nil {
		return f.call(regs)
	}
	f.prog.Run(regs, 1, 1)
	return nil
}

// Store writes result j as element idx of dst (of the result's type).
func (f *Func) Store(regs []byte, j int, dst []byte, idx int) {
	StoreWide(dst, f.ResultT[j], idx, RegAt(regs, f.results[j], 1, 1), 1)
}

// Truth reads result j as a PRED.
func (f *Func) Truth(regs []byte, j int) bool {
	return Elems[int64](regs[f.results[j]*WideBytes:])[0] != 0
}

// LoadConstsTile places the constants in their registers, spread over a
// tile.
func (f *Func) LoadConstsTile(regs []byte) {
	for _, c := range f.consts {
		r := RegAt(regs, c.reg, Tile, Tile)
		LoadWide(r, 1, c.data, c.t, 0)
		FillWide(r, KindOf(c.t), Tile)
	}
}

// RunTile computes n ≤ Tile values of every result from registers of a
// tile each: parameter i's values are loaded with LoadTile, result j's read
// with StoreTile. Only compiled programs run over tiles (see Tiled).
func (f *Func) RunTile(regs []byte, n int) { f.prog.Run(regs, Tile, n) }

// LoadTile sets n values of parameter i from elements [start, start+n) of
// src.
func (f *Func) LoadTile(regs []byte, i int, src []byte, start, n int) {
	LoadWide(RegAt(regs, f.params[i], Tile, n), n, src, f.ParamT[i], start)
}

// StoreTile writes n values of result j as elements [start, start+n) of
// dst.
func (f *Func) StoreTile(regs []byte, j int, dst []byte, start, n int) {
	StoreWide(dst, f.ResultT[j], start, RegAt(regs, f.results[j], Tile, n), n)
}

// BinaryRoot recognises a computation whose root is one elementwise binary
// op of its two parameters, of one element type: it returns the op and
// whether the root reads them swapped (parameter 1 first).
func (c *Computation) BinaryRoot() (op ir.Opcode, swapped, ok bool) {
	if c == nil || len(c.Params) != 2 || c.Root < 0 {
		return 0, false, false
	}
	r := c.Nodes[c.Root]
	p0, p1 := c.Params[0], c.Params[1]
	t := c.Nodes[p0].Shape.Elem
	if !r.Op.IsElementwiseBinary() || len(r.Args) != 2 || !r.Shape.IsScalar() || r.Shape.Elem != t ||
		!c.Nodes[p1].Shape.IsScalar() || c.Nodes[p1].Shape.Elem != t || !c.Nodes[p0].Shape.IsScalar() {
		return 0, false, false
	}
	switch {
	case r.Args[0] == p0 && r.Args[1] == p1:
	case r.Args[0] == p1 && r.Args[1] == p0:
		swapped = true
	default:
		return 0, false, false
	}
	return r.Op, swapped, true
}

// Describe builds the node list of a computation from its owner's values
// (values in order, arguments before users; its parameters by number; its
// root): node returns a value's node and the values it reads.
func Describe[V comparable](name string, values, params []V, root V, node func(V) (Node, []V)) *Computation {
	out := &Computation{Name: name, Root: -1}
	index := make(map[V]int, len(values))
	for i, v := range values {
		index[v] = i
		nd, args := node(v)
		for _, a := range args {
			j, ok := index[a]
			if !ok {
				j = -1
			}
			nd.Args = append(nd.Args, j)
		}
		out.Nodes = append(out.Nodes, nd)
	}
	for _, p := range params {
		j, ok := index[p]
		if !ok {
			j = -1
		}
		out.Params = append(out.Params, j)
	}
	if j, ok := index[root]; ok {
		out.Root = j
	}
	return out
}
