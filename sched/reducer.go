package sched

import "github.com/kilnml/kiln/ssa"

// standardReducer recognises the standard scalar reducers: a function of two
// scalar parameters whose root is add, multiply, maximum or minimum of them.
func standardReducer(f *ssa.Func) (ssa.Op, bool) {
	if len(f.Params) != 2 || f.Root == nil || len(f.Root.Args) != 2 {
		return 0, false
	}
	r := f.Root
	switch r.Op {
	case ssa.OpAdd, ssa.OpMultiply, ssa.OpMaximum, ssa.OpMinimum:
	default:
		return 0, false
	}
	p0, p1 := f.Params[0], f.Params[1]
	if (r.Args[0] == p0 && r.Args[1] == p1) || (r.Args[0] == p1 && r.Args[1] == p0) {
		return r.Op, true
	}
	return 0, false
}
