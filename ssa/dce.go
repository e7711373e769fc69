package ssa

// deadcode removes values that neither reach the root nor have side effects.
// Parameters always stay (they define the function's signature), and
// functions no longer called from the entry are dropped from the program.
func deadcode(p *Program) error {
	for _, f := range p.Funcs {
		deadcodeFunc(f)
	}
	p.dropUnreachableFuncs()
	return nil
}

func deadcodeFunc(f *Func) {
	live := make(map[*Value]bool, len(f.Values))
	var mark func(v *Value)
	mark = func(v *Value) {
		if live[v] {
			return
		}
		live[v] = true
		for _, a := range v.Args {
			mark(a)
		}
	}
	if f.Root != nil {
		mark(f.Root)
	}
	for _, v := range f.Values {
		if v.Op.HasSideEffect() || v.Op == OpParameter {
			mark(v)
		}
	}
	kept := f.Values[:0]
	for _, v := range f.Values {
		if live[v] {
			kept = append(kept, v)
		}
	}
	clear(f.Values[len(kept):])
	f.Values = kept
}

// dropUnreachableFuncs keeps only the functions reachable from the entry,
// callees first.
func (p *Program) dropUnreachableFuncs() {
	seen := map[*Func]bool{}
	var order []*Func
	var visit func(f *Func)
	visit = func(f *Func) {
		if seen[f] {
			return
		}
		seen[f] = true
		for _, v := range f.Values {
			for _, g := range v.Funcs {
				visit(g)
			}
		}
		order = append(order, f)
	}
	visit(p.Entry)
	p.Funcs = order
}
