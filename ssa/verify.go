package ssa

import (
	"fmt"
)

// Verify checks the structural invariants every pass must keep: each
// function's values are listed once, arguments precede their users and
// belong to the same function, parameters are numbered densely and listed,
// the root is one of the values, shapes are valid, and regions belong to the
// program. Tests run it after every pass.
func Verify(p *Program) error {
	inProgram := map[*Func]bool{}
	for _, f := range p.Funcs {
		inProgram[f] = true
	}
	if !inProgram[p.Entry] {
		return fmt.Errorf("entry function %s is not in the program", p.Entry.Name)
	}
	for _, f := range p.Funcs {
		if err := verifyFunc(f, inProgram); err != nil {
			return fmt.Errorf("func %s: %w", f.Name, err)
		}
	}
	return nil
}

func verifyFunc(f *Func, inProgram map[*Func]bool) error {
	defined := make(map[*Value]bool, len(f.Values))
	for _, v := range f.Values {
		if defined[v] {
			return fmt.Errorf("%v (%s) is listed twice", v, v.Op)
		}
		if v.Func != f {
			return fmt.Errorf("%v (%s) belongs to another function", v, v.Op)
		}
		for i, a := range v.Args {
			if a == nil {
				return fmt.Errorf("%v (%s): argument %d is nil", v, v.Op, i)
			}
			if !defined[a] {
				return fmt.Errorf("%v (%s): argument %d (%v) is not defined before its use", v, v.Op, i, a)
			}
		}
		for _, g := range v.Funcs {
			if !inProgram[g] {
				return fmt.Errorf("%v (%s) calls %s, which is not in the program", v, v.Op, g.Name)
			}
		}
		if err := v.Shape.CheckValid(); err != nil {
			return fmt.Errorf("%v (%s): %w", v, v.Op, err)
		}
		if v.Op.IsElementwise() && v.Op != OpMap {
			for i, a := range v.Args {
				if a.Shape.IsArray() && !a.Shape.IsScalar() && !sameDims(a, v) {
					return fmt.Errorf("%v (%s): elementwise argument %d has shape %v, result %v", v, v.Op, i, a.Shape, v.Shape)
				}
			}
		}
		defined[v] = true
	}
	for i, prm := range f.Params {
		if prm == nil || prm.Op != OpParameter || prm.Attrs.ParameterNumber != i || !defined[prm] {
			return fmt.Errorf("parameter %d is missing or misnumbered", i)
		}
	}
	if f.Root == nil || !defined[f.Root] {
		return fmt.Errorf("root is not one of the function's values")
	}
	return nil
}

func sameDims(a, b *Value) bool {
	if len(a.Shape.Dims) != len(b.Shape.Dims) {
		return false
	}
	for i := range a.Shape.Dims {
		if a.Shape.Dims[i] != b.Shape.Dims[i] {
			return false
		}
	}
	return true
}
