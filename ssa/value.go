package ssa

import (
	"fmt"

	"github.com/kilnml/kiln/ir"
)

// Value is one SSA value: an op applied to argument values, with a shape and
// the attributes its op needs. Values are created by lowering and by passes;
// a value never changes its op or shape after other values use it, except
// through Func.Replace.
type Value struct {
	ID    int
	Op    Op
	Shape ir.Shape
	Args  []*Value
	Attrs ir.Attrs
	// Aux is a small integer parameter of Kiln's own ops (see each op).
	Aux int64
	// Funcs are the regions the value calls, by role:
	//   while: [condition, body]; conditional: the branches in order;
	//   reduce, reduce-window, scatter, sort, map, all-reduce, reduce-scatter,
	//   call: [to_apply]; select-and-scatter: [select, scatter];
	//   fusion: [fused computation]; custom-call: its called computations.
	Funcs []*Func
	// Name is the HLO instruction the value came from ("" if a pass made it).
	Name string
	// Raw keeps the uninterpreted HLO attributes (custom-call, collectives, …).
	Raw []ir.RawAttribute
	// Func is the function the value belongs to.
	Func *Func
}

// String is the value's name in dumps: v12.
func (v *Value) String() string { return fmt.Sprintf("v%d", v.ID) }

// Arg returns argument i.
func (v *Value) Arg(i int) *Value { return v.Args[i] }

// IsConstant reports whether v is a constant with a known literal.
func (v *Value) IsConstant() bool { return v.Op == OpConstant && v.Attrs.Literal != nil }

// Func is a function in SSA form: parameters, values in a valid order (every
// argument before its users) and the root value it returns.
type Func struct {
	Name   string
	Params []*Value // by parameter number
	Values []*Value // every value, arguments before users; includes Params
	Root   *Value
	// Program is the program the function belongs to (it owns value IDs).
	Program *Program
}

// Program is a whole compiled module in SSA form: the entry function and
// every region function it calls, callees first.
type Program struct {
	Entry  *Func
	Funcs  []*Func
	Source *ir.Module
	nextID int
}

// NewValue creates a value in f (not yet placed in f.Values; see Append and
// InsertBefore).
func (f *Func) NewValue(op Op, shape ir.Shape, args ...*Value) *Value {
	f.Program.nextID++
	return &Value{ID: f.Program.nextID, Op: op, Shape: shape, Args: args, Func: f}
}

// Append creates a value and appends it at the end of f.Values.
func (f *Func) Append(op Op, shape ir.Shape, args ...*Value) *Value {
	v := f.NewValue(op, shape, args...)
	f.Values = append(f.Values, v)
	return v
}

// InsertBefore creates a value placed immediately before `before` in f.Values.
func (f *Func) InsertBefore(before *Value, op Op, shape ir.Shape, args ...*Value) *Value {
	v := f.NewValue(op, shape, args...)
	for i, w := range f.Values {
		if w == before {
			f.Values = append(f.Values[:i], append([]*Value{v}, f.Values[i:]...)...)
			return v
		}
	}
	f.Values = append(f.Values, v)
	return v
}

// Replace makes every use of old (and the root, if it is old) use new
// instead. old stays in f.Values until dead-code elimination removes it.
func (f *Func) Replace(old, new *Value) {
	if old == new {
		return
	}
	for _, v := range f.Values {
		for i, a := range v.Args {
			if a == old {
				v.Args[i] = new
			}
		}
	}
	if f.Root == old {
		f.Root = new
	}
}

// Users returns, for every value of f, the values that use it as an
// argument (a value using another twice appears twice).
func (f *Func) Users() map[*Value][]*Value {
	users := make(map[*Value][]*Value, len(f.Values))
	for _, v := range f.Values {
		for _, a := range v.Args {
			users[a] = append(users[a], v)
		}
	}
	return users
}

// Sort reorders f.Values so that every argument precedes its users, keeping
// the existing order where it is already valid (a stable topological sort).
// Passes that insert values out of order call it.
func (f *Func) Sort() {
	placed := make(map[*Value]bool, len(f.Values))
	order := make([]*Value, 0, len(f.Values))
	var visit func(v *Value)
	visit = func(v *Value) {
		if placed[v] {
			return
		}
		placed[v] = true
		for _, a := range v.Args {
			visit(a)
		}
		order = append(order, v)
	}
	for _, p := range f.Params {
		visit(p)
	}
	for _, v := range f.Values {
		visit(v)
	}
	f.Values = order
}

// AllFuncs returns p's functions, callees first and the entry last.
func (p *Program) AllFuncs() []*Func { return p.Funcs }
