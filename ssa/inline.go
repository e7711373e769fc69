package ssa

// inline replaces every call and fusion by a copy of the function it calls,
// so that later passes and the scheduler see one flat dataflow graph and
// make their own fusion decisions. It repeats until no call is left (calls
// inside inlined bodies are inlined too).
func inline(p *Program) error {
	for _, f := range p.Funcs {
		for inlineOnce(f) {
		}
	}
	p.dropUnreachableFuncs()
	return nil
}

func inlineOnce(f *Func) bool {
	replaced := map[*Value]*Value{}
	resolve := func(v *Value) *Value {
		for {
			r, ok := replaced[v]
			if !ok {
				return v
			}
			v = r
		}
	}
	out := make([]*Value, 0, len(f.Values))
	for _, v := range f.Values {
		for i, a := range v.Args {
			v.Args[i] = resolve(a)
		}
		if (v.Op != OpCall && v.Op != OpFusion) || len(v.Funcs) != 1 {
			out = append(out, v)
			continue
		}
		callee := v.Funcs[0]
		copies := make(map[*Value]*Value, len(callee.Values))
		for i, prm := range callee.Params {
			copies[prm] = v.Args[i]
		}
		for _, w := range callee.Values {
			if w.Op == OpParameter {
				continue
			}
			c := f.NewValue(w.Op, w.Shape.Clone())
			c.Attrs, c.Aux, c.Funcs, c.Name, c.Raw = w.Attrs, w.Aux, w.Funcs, w.Name, w.Raw
			c.Args = make([]*Value, len(w.Args))
			for i, a := range w.Args {
				c.Args[i] = copies[a]
			}
			copies[w] = c
			out = append(out, c)
		}
		replaced[v] = copies[callee.Root]
	}
	if len(replaced) == 0 {
		return false
	}
	f.Values = out
	f.Root = resolve(f.Root)
	return true
}
